"""The liveness chart: its column arithmetic, cell rows and the widget over a long series."""

from __future__ import annotations

from contextlib import asynccontextmanager

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from textual.app import App, ComposeResult

from pvtui.model.envelope import Envelope, build_pyramid
from pvtui.model.navigators.liveness import (
    MIN_SPAN,
    StepSeries,
    Window,
    YScale,
    column_around,
    column_first_steps,
    columns_of_step,
    envelope_columns,
    read_column,
    series_columns,
    stacked_row,
    stacked_rows,
    step_columns_away,
    steps_per_column,
)
from pvtui.ui.theming import DEFAULT_THEME, builtin_themes
from pvtui.render.glyphs import BLOCKS
from pvtui.render.liveness import column_line, column_scale, ordinal
from pvtui.widgets.liveness_chart import ALWAYS, LivenessChart, _ticks


def brute_columns(series, start, stop, width):
    first = list(column_first_steps(start, stop, width)) + [stop]
    chunks = [series[a : max(b, a + 1)] for a, b in zip(first[:-1], first[1:])]
    return np.array([c.min() for c in chunks]), np.array([c.max() for c in chunks])


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 3000), width=st.integers(1, 250), seed=st.integers(0, 99),
       frac=st.tuples(st.floats(0, 1), st.floats(0, 1)))
def test_series_columns_match_brute_force_and_every_step_has_its_column(n, width, seed, frac):
    series = np.random.default_rng(seed).integers(0, 10**6, n)
    a, b = sorted(int(f * n) for f in frac)
    a, b = min(a, n - 1), max(b, min(a, n - 1) + 1)
    mins, maxs = series_columns(series, a, b, width)
    want_min, want_max = brute_columns(series, a, b, width)
    assert np.array_equal(mins, want_min) and np.array_equal(maxs, want_max)
    for step in range(a, b, max(1, (b - a) // 20)):
        columns = columns_of_step(step, a, b, width)
        assert len(columns) >= 1
        assert all(mins[c] <= series[step] <= maxs[c] for c in columns)


def test_envelope_columns_show_one_step_per_column_when_zoomed_in():
    series = np.arange(100) * 10
    env = Envelope(series, build_pyramid(series))
    mins, maxs = envelope_columns(env, 40, 50, 30)  # 10 steps over 30 columns: 3 each
    assert list(maxs) == [s * 10 for s in range(40, 50) for _ in range(3)]
    assert np.array_equal(mins, maxs)
    assert list(columns_of_step(41, 40, 50, 30)) == [3, 4, 5]


def test_envelope_columns_cover_a_million_steps_in_width_columns():
    series = np.random.default_rng(1).integers(0, 10**9, 1_000_000)
    env = Envelope(series, build_pyramid(series))
    mins, maxs = envelope_columns(env, 0, len(series), 200)
    assert len(maxs) == 200
    assert maxs.max() == series.max() and mins.min() == series.min()


@settings(max_examples=200, deadline=None)
@given(start=st.integers(0, 5000), span=st.integers(1, 3000), width=st.integers(8, 250))
def test_axis_labels_are_each_step_once_evenly_spaced_and_apart(start, span, width):
    stop = start + span
    ticks = _ticks(column_first_steps(start, stop, width), stop)
    assert ticks and ticks[0][0] == 0
    labels = [label for _, label in ticks]
    assert len(set(labels)) == len(labels)  # no step number twice
    for (column, label), (after, _) in zip(ticks, ticks[1:]):
        assert after >= column + len(label) + 1  # never touching
    assert all(column + len(label) <= width for column, label in ticks)
    for column, label in ticks:  # under the first column of the step it names
        assert column == columns_of_step(int(label), start, stop, width).start
    steps_apart = {int(b) - int(a) for (_, a), (_, b) in zip(ticks, ticks[1:])}
    columns_apart = [b - a for (a, _), (b, _) in zip(ticks, ticks[1:])]
    assert len(steps_apart) <= 1 or span >= width  # zoomed in: as many steps between each pair
    assert max(columns_apart, default=0) - min(columns_apart, default=0) <= 1  # as far apart, to a column


def test_zoomed_in_the_axis_does_not_repeat_a_step():
    ticks = _ticks(column_first_steps(1256, 1264, 69), 1264)  # the 80x24 chart zoomed in on 8 steps
    assert [label for _, label in ticks] == [str(step) for step in range(1256, 1264)]  # each once, in its column


@pytest.mark.parametrize("span, width, scale", [
    (69, 69, "1 step/column"), (138, 69, "2 steps/column"), (10, 70, "1 step/7 columns"),
    (10, 69, "1 step/6–7 columns"),
])
def test_the_scale_says_step_or_steps_and_columns_per_step_when_zoomed_in(span, width, scale):
    assert column_scale(Window(0, span), width) == scale


class _Nav:  # what column_line reads of a LivenessNavigator
    def __init__(self, cursor: int, window: Window, num_steps: int) -> None:
        self.cursor, self.window, self.num_steps = cursor, window, num_steps


def test_the_cursors_column_says_which_steps_it_holds_and_which_one_the_cursor_is_on():
    window = Window(0, 2483)  # 2,483 steps on 69 columns: 35 or 36 a column
    steps = column_around(1173, window, 69)
    assert steps.start <= 1173 < steps.stop and len(steps) in (35, 36)
    assert list(column_first_steps(0, 2483, 69)).count(steps.start) == 1
    line = column_line(_Nav(1173, window, 2483), 69)
    assert line == f"Column {steps.start:,}–{steps.stop - 1:,}: cursor {ordinal(1173 - steps.start + 1)} of {len(steps)}"
    assert column_line(_Nav(5, Window(0, 10), 2483), 70) == "1 step/7 columns · steps 0–9"  # zoomed in: the scale
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == \
        ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]


def test_a_compressed_band_keeps_its_share_of_rows_and_what_changes_takes_the_rest():
    scale = YScale.build(1000, 20, 900, "compressed")
    assert scale.band_rows == 3  # 15% of 20 rows
    assert scale.bottoms[0] == 0 and scale.tops[2] == 900 and scale.tops[-1] == 1000
    assert np.array_equal(scale.bottoms[1:], scale.tops[:-1])  # no gap, no overlap
    assert np.allclose(scale.tops[3:] - scale.bottoms[3:], 100 / 17)  # the 100 bytes above it, evenly
    to_scale = YScale.build(1000, 20, 900, "to scale")
    assert to_scale.band_rows == 0 and np.allclose(to_scale.tops - to_scale.bottoms, 50)
    assert YScale.build(1000, 20, 100, "compressed").band_rows == 0  # to scale it takes no more than its share
    assert YScale.build(1000, 2, 900, "compressed").band_rows == 0  # too low a plot to break its axis


def test_window_zoom_keeps_the_cursor_in_place_and_stays_inside():
    w = Window.fit(1000)
    assert (w.start, w.span) == (0, 1000)
    z = w.zoomed(1000, cursor=750, factor=0.5)
    assert z.span == 500 and z.start <= 750 < z.stop
    assert abs((750 - z.start) / z.span - 0.75) < 0.01
    deepest = Window(0, 1000)
    for _ in range(20):
        deepest = deepest.zoomed(1000, 999, 0.5)
    assert deepest.span == MIN_SPAN and deepest.stop == 1000
    assert deepest.zoomed(1000, 999, 2 ** 20) == Window(0, 1000)


def test_window_follows_a_cursor_that_leaves_it():
    w = Window(100, 50)
    assert w.following(1000, 120) is w
    moved = w.following(1000, 400)
    assert moved.start <= 400 < moved.stop and moved.span == 50
    assert w.following(1000, 999).stop == 1000
    assert steps_per_column(Window(0, 1000), 100) == 10
    assert steps_per_column(Window(0, 10), 100) == 1


@pytest.mark.parametrize("span, width", [(150, 100), (1000, 70), (100, 100), (8, 80)])
def test_moving_one_column_at_a_time_visits_every_column_once(span, width):
    window = Window(0, span)
    steps = [0]
    while (step := step_columns_away(steps[-1], window, width, 1)) < span:
        steps.append(step)
    columns = [columns_of_step(step, 0, span, width).start for step in steps]
    if span >= width:
        assert columns == list(range(width))
    else:  # zoomed in: each press moves one step, however many columns it spans
        assert steps == list(range(span))
    for earlier, later in zip(steps, steps[1:]):
        assert step_columns_away(later, window, width, -1) == earlier
    assert step_columns_away(0, window, width, -1) < 0


def test_read_column_reads_in_chunks_until_cancelled():
    table = np.arange(50_000, dtype=np.int32).reshape(5_000, 10)
    assert read_column(table, 3, lambda: False, chunk=2_000).tolist() == table[:, 3].tolist()
    checks = []
    assert read_column(table, 3, lambda: checks.append(1) or len(checks) > 2, chunk=2_000) is None
    assert len(checks) == 3


def test_stacked_row_splits_cells_in_eighths():
    # One column per case; layers: always-live to 2, solid to 2 + lo, range to 2 + hi.
    always = np.array([2.0, 2.0, 2.0, 0.0])
    lo = np.array([0.0, 1.0, 0.5, 0.0])
    hi = np.array([0.0, 1.5, 6.0, 0.0])
    bounds = np.vstack([always, always + lo, always + hi])
    bottom_row = stacked_row(bounds, 0.0, 4.0)
    # Column 0: always-live fills half the cell, then empty above.
    assert (bottom_row.eighths[0], bottom_row.lower[0], bottom_row.upper[0]) == (4, 0, 3)
    # Column 1: always-live to half, then solid.
    assert (bottom_row.eighths[1], bottom_row.lower[1], bottom_row.upper[1]) == (4, 0, 1)
    # Column 3: nothing at all: the empty layer fills it.
    assert bottom_row.lower[3] == 3 and bottom_row.upper[3] == 3
    top_row = stacked_row(bounds, 4.0, 8.0)
    # Column 2: range layer from 4 to 8 crosses nothing inside [4, 8): full range layer.
    assert top_row.lower[2] == 2 and top_row.eighths[2] == 8
    assert top_row.lower[1] == 3  # column 1 ends at 3.5, below this row
    grid = stacked_rows(bounds, np.array([0.0, 4.0]), np.array([4.0, 8.0]))  # both rows at once
    for level, row in enumerate((bottom_row, top_row)):
        assert grid.eighths[level].tolist() == row.eighths.tolist()
        assert grid.lower[level].tolist() == row.lower.tolist()
        assert grid.upper[level].tolist() == row.upper.tolist()


def test_step_series_finds_its_peak_and_reads_without_an_envelope():
    s = StepSeries("x", np.array([5, 9, 3, 9]), 100, None)
    assert s.peak_step == 1 and s.at(2) == 3
    assert [list(a) for a in s.columns(0, 4, 2)] == [[5, 3], [9, 9]]


class ChartApp(App):
    def __init__(self, series: StepSeries, window: Window, cursor: int) -> None:
        super().__init__()
        for theme in builtin_themes():
            self.register_theme(theme)
        self.theme = DEFAULT_THEME
        self.initial = (series, window, cursor)

    def compose(self) -> ComposeResult:
        yield LivenessChart()

    def on_mount(self) -> None:
        self.query_one(LivenessChart).show(*self.initial)


def plot_text(chart: LivenessChart) -> list[str]:
    return [chart.render_line(y).text for y in range(chart.size.height)]


def enveloped(series: np.ndarray, always: int) -> StepSeries:
    return StepSeries("all IPUs", series, always, None, Envelope(series, build_pyramid(series)))


@asynccontextmanager
async def peak_at_37_chart(always_live: int = 200):
    """A chart of 60 steps of 100 bytes but step 37's 1,000, over ALWAYS_LIVE bytes; the cursor on step 10."""
    series = np.full(60, 100, dtype=np.int64)
    series[37] = 1000
    app = ChartApp(enveloped(series, always_live), Window.fit(60), cursor=10)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        yield app.query_one(LivenessChart)


@pytest.mark.anyio
async def test_chart_marks_the_peak_and_draws_the_tallest_column_there():
    async with peak_at_37_chart() as chart:
        lines = plot_text(chart)
        peak_columns = columns_of_step(37, 0, 60, chart.plot_width)
        cursor_columns = columns_of_step(10, 0, 60, chart.plot_width)
        marker = lines[0]
        assert all(marker[chart.label_width + c] == "▼" for c in peak_columns)
        assert all(marker[chart.label_width + c] == "▼" for c in cursor_columns)
        top_plot_row = lines[1]
        assert all(top_plot_row[chart.label_width + c] in BLOCKS[1:] for c in peak_columns)
        assert top_plot_row[chart.label_width + 0] == " "
        assert "1.2 KiB" in top_plot_row  # the y axis: 1200 B at the top
        assert lines[-1].lstrip().startswith("0")  # step numbers under the axis


@pytest.mark.anyio
async def test_the_marked_step_has_its_own_mark_and_the_cursor_drawn_over_it_wins():
    async with peak_at_37_chart() as chart:
        chart.show(chart.series, chart.window, 10, marked=50)
        width = chart.plot_width

        def at(step: int) -> set[str]:
            marker = plot_text(chart)[0]
            return {marker[chart.label_width + c] for c in columns_of_step(step, 0, 60, width)}

        assert at(50) == {"◇"} and at(37) == {"▼"} and at(10) == {"▼"}
        assert plot_text(chart)[0].count("◇") == len(columns_of_step(50, 0, 60, width))
        chart.show(chart.series, chart.window, 50, marked=50)  # the cursor on the marked step
        assert at(50) == {"▼"} and "◇" not in plot_text(chart)[0]
        chart.show(chart.series, chart.window, 20, marked=50)  # and off it again: laid over the kept row
        assert at(50) == {"◇"}
        chart.show(chart.series, chart.window, 20)  # unmarked
        assert "◇" not in plot_text(chart)[0]


@pytest.mark.anyio
async def test_a_cursor_drawn_with_its_row_and_laid_over_it_look_the_same():
    """A new frame draws each row with its first cursor in one pass; a cursor move lays it over the kept row."""
    rng = np.random.default_rng(3)
    series = rng.integers(100, 1000, 300).astype(np.int64)
    app = ChartApp(enveloped(series, 50), Window.fit(300), cursor=200)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        chart = app.query_one(LivenessChart)
        rows = range(chart.size.height)
        [chart.render_line(y) for y in rows]  # the frame's first cursor, at step 200
        chart.show(chart.series, chart.window, 40)
        laid_over = [list(chart.render_line(y)) for y in rows]
        chart.clear_caches()
        chart._first_cursor = ((), range(0))  # forget the frame: it is new again
        one_pass = [list(chart.render_line(y)) for y in rows]
        assert laid_over == one_pass
        assert chart._strips.get((0, chart.size, chart.window, chart.series.label, chart.band, "binary", app.theme,
                                  None)) is None


@pytest.mark.anyio
async def test_the_always_live_band_is_compressed_under_what_changes_or_drawn_to_scale_or_left_out():
    async with peak_at_37_chart(always_live=9000) as chart:

        def band_rows() -> int:  # the plot rows that are always-live bytes, whole, in a plain column
            cells = chart._frame().cells
            return int(np.sum((cells.lower[:, 0] == ALWAYS) & (cells.upper[:, 0] == ALWAYS)))

        rows = chart._frame().plot_height
        assert chart.band == "compressed" and band_rows() == round(rows * 0.15)
        band_top = plot_text(chart)[1 + rows - band_rows()]  # under the marker row
        assert band_top[: chart.label_width].split() == ["8.8", "KiB", "≈"]  # its bytes, the axis broken there
        assert plot_text(chart)[1][chart.label_width + columns_of_step(37, 0, 60, chart.plot_width)[0]] != " "
        chart.show(chart.series, chart.window, 10, band="to scale")
        assert band_rows() >= rows * 9000 // 10000 - 1 and "≈" not in "".join(plot_text(chart))
        chart.show(chart.series, chart.window, 10, band="hidden")
        assert band_rows() == 0 and "1000 B" in "".join(plot_text(chart))  # not-always-live bytes alone


class ShortReads(np.ndarray):
    """A series that fails when a slice of more than LIMIT steps is read: drawing must use the envelope."""

    LIMIT = 4096

    def __getitem__(self, key):
        if isinstance(key, slice):
            start, stop, _ = key.indices(len(self))
            assert stop - start <= self.LIMIT, f"read {stop - start:,} steps at once"
        return super().__getitem__(key)


@pytest.mark.anyio
async def test_chart_draws_a_million_steps_from_the_envelope_with_the_peak_on_top():
    series = np.random.default_rng(7).integers(0, 10**9, 1_000_000)
    series[654_321] = 2 * 10**9
    guarded = enveloped(series, 10**8)
    guarded.not_always_live = series.view(ShortReads)
    app = ChartApp(guarded, Window.fit(len(series)), cursor=123_456)
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        chart = app.query_one(LivenessChart)
        chart.clear_caches()
        lines = plot_text(chart)
        assert len(lines) == 50 and all(len(line) == 200 for line in lines)
        (peak_column,) = columns_of_step(654_321, 0, len(series), chart.plot_width)
        assert lines[1][chart.label_width + peak_column] == BLOCKS[8]  # the top plot row
        assert sum(lines[1][chart.label_width + c] == BLOCKS[8] for c in range(chart.plot_width)) == 1


@pytest.mark.parametrize("units, label", [("binary", "KiB"), ("si", "kB")])
@pytest.mark.anyio
async def test_chart_labels_follow_the_units(units, label):
    series = np.arange(50, dtype=np.int64) * 1000
    app = ChartApp(enveloped(series, 0), Window.fit(50), cursor=0)
    async with app.run_test(size=(80, 16)) as pilot:
        chart = app.query_one(LivenessChart)
        chart.units = units
        chart.clear_caches()
        await pilot.pause()
        assert label in "".join(plot_text(chart))


def test_live_variables_match_a_scan_of_every_interval(tmp_path):
    from pvtui.model import schema as s
    from pvtui.model.bundle import BundleWriter
    from pvtui.model.report import LIVE_CHECKPOINT, Report

    rng = np.random.default_rng(3)
    steps, count = 5 * LIVE_CHECKPOINT + 17, 400
    starts = np.sort(rng.integers(0, steps, count))
    ends = np.minimum(starts + rng.choice([1, 5, LIVE_CHECKPOINT, 3 * LIVE_CHECKPOINT], count), steps)
    variables = rng.integers(0, 50, count)
    sizes = rng.integers(1, 10**6, 50)
    with BundleWriter(tmp_path / "b") as w:
        w.meta.update(parts=["liveness"])
        w.array(s.LIVENESS_PROGRAM, np.zeros(steps, np.int32))
        w.array(s.INTERVAL_START, starts.astype(np.int32))
        w.array(s.INTERVAL_END, ends.astype(np.int32))
        w.array(s.INTERVAL_VARIABLE, variables.astype(np.int32))
        w.array(s.VARIABLE_BYTES, sizes)
        w.commit()
    live = Report(tmp_path / "b").liveness
    for step in range(-1, steps + 2):
        expected = np.unique(variables[(starts <= step) & (ends > step)])
        got = live.live_variables(step)
        assert sorted(v for v, _ in got) == expected.tolist()
        assert [b for _, b in got] == sorted((int(sizes[v]) for v in expected), reverse=True)
