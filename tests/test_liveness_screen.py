"""The Liveness screen: opening on the peak, moving, views, zoom, reload and snapshots."""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pytest
from conftest import open_screen, wait_for, wait_until_loaded
from textual.content import Content
from textual.geometry import Region

from pvtui.model.navigators.liveness import columns_of_step
from pvtui.model.report import Report
from pvtui.model.schema import LIVENESS_BY_IPU, LIVENESS_BY_TILE
from pvtui.render.liveness import vertex_lines
from pvtui.screens.base import UnavailableNotice
from pvtui.screens.liveness import LivenessScreen
from pvtui.widgets.detail_text import PaneText
from pvtui.widgets.live_variables import LiveVariables
from pvtui.widgets.liveness_chart import LivenessChart

async def open_liveness(pilot) -> LivenessScreen:
    return await open_screen(pilot, "l", LivenessScreen)


def facts_text(screen: LivenessScreen) -> str:
    """The step's facts, a name broken over lines (each indented under its start) put together again."""
    return re.sub(r"\n {9,}(?=\S)", "", str(screen.query_one("#step-facts").render()))


@pytest.mark.anyio
async def test_jump_to_the_liveness_peak(make_app, tiny_report):
    live = tiny_report.liveness
    peak = live.peak_step
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        assert screen.nav.cursor == peak
        away = "right" if peak < len(live) - 1 else "left"
        for _ in range(3):
            await pilot.press(away)
        assert screen.nav.cursor != peak
        await pilot.press("k")
        assert screen.nav.cursor == peak
        program = int(live.program[peak])
        name = tiny_report.programs.names[program]
        assert f"Step {peak:,}" in facts_text(screen)
        assert name in facts_text(screen)


@pytest.mark.anyio
async def test_details_list_the_largest_live_variables_and_count_the_rest(make_app, tiny_report):
    live = tiny_report.liveness
    expected = live.live_variables(live.peak_step)
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        variables = screen.query_one(LiveVariables)
        assert variables.total == len(expected)
        text = variables.render().plain
        names = listed_names(variables)
        assert names and names == [live.variable_names[v] for v, _ in expected[:len(names)]]
        assert len(text.splitlines()) <= variables.size.height
        if len(names) < len(expected):
            assert text.endswith(f"and {len(expected) - len(names):,} more")


def listed_names(variables: LiveVariables) -> list[str]:
    """The names the panel lists, each put together again from its lines."""
    size_width = max(len(size) for size, _ in variables.variables)
    names: list[str] = []
    for line in variables.render().plain.splitlines()[1:]:
        if line.startswith("…"):
            break
        if line[:size_width].strip():  # a size, then the name's first line
            names.append(line[size_width + 2:])
        else:
            names[-1] += line.strip()
    return names


@pytest.mark.anyio
async def test_at_80_columns_every_listed_name_is_whole_on_as_many_lines_as_it_needs(make_app, tiny_report):
    live = tiny_report.liveness
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        variables = screen.query_one(LiveVariables)
        width = variables.content_size.width
        longest = max(range(len(live)), key=lambda step: max(
            (len(live.variable_names[v]) for v, _ in live.live_variables(step)[:3]), default=0))
        screen.go_to(longest)
        await pilot.pause()
        lines = variables.render().plain.splitlines()
        assert max(len(line) for line in lines) <= width and not any(line.endswith("…") for line in lines)
        expected = [live.variable_names[v] for v, _ in live.live_variables(longest)]
        names = listed_names(variables)
        assert names == expected[:len(names)] and max(map(len, names)) > width - 10  # one wider than its column
        facts = screen.query_one("#step-facts")
        program = tiny_report.programs.names[int(live.program[longest])]
        assert program in facts_text(screen) and len(program) > facts.content_size.width - len("Program  ")
        assert all(len(line) <= facts.content_size.width for line in str(facts.render()).splitlines())


@pytest.mark.anyio
async def test_moving_zooming_and_fitting(make_app, tiny_report):
    n = len(tiny_report.liveness)
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        await pilot.press("home")
        assert screen.nav.cursor == 0
        await pilot.press("end")
        assert screen.nav.cursor == n - 1
        full = screen.nav.window.span
        await pilot.press("plus")
        assert screen.nav.window.span < full and screen.nav.window.start <= screen.nav.cursor < screen.nav.window.stop
        await pilot.press("minus", "0")
        assert (screen.nav.window.start, screen.nav.window.span) == (0, full)
        await pilot.press("home", "shift+right")
        assert screen.nav.cursor > 0


@pytest.mark.anyio
async def test_views_cycle_through_ipus_and_tiles(make_app, tiny_report):
    live = tiny_report.liveness
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        await pilot.press("v")
        assert screen.view == "ipu"
        if live.by_ipu is not None:
            assert "IPU 0" in facts_text(screen)
            await pilot.press("I")
            assert screen.nav.ipu == 1 % live.by_ipu.shape[1]
        else:
            assert screen.query_one("#view-missing", UnavailableNotice).display
        await pilot.press("v")
        assert screen.view == "tile"
        if live.by_tile is not None:  # a tile's column is read in a worker
            await wait_for(pilot, lambda: f"tile {screen.nav.tile}" in facts_text(screen))
            first = screen.nav.tile
            await pilot.press("right_square_bracket")
            assert screen.nav.tile == (first + 1) % live.by_tile.shape[1]
            await wait_for(pilot, lambda: f"tile {screen.nav.tile}" in facts_text(screen))
        else:
            missing = screen.query_one("#view-missing", UnavailableNotice)
            assert missing.display and "per-tile" in str(missing.render())
        await pilot.press("v")
        assert screen.view == "total"


@pytest.mark.anyio
async def test_a_reload_keeps_the_cursor_step(make_app, tiny_report):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        await pilot.press("home", "right", "right")
        kept = screen.nav.cursor
        pilot.app.a.report = Report(pilot.app.report.path)
        screen.report_changed()
        await pilot.pause()
        assert screen.nav.cursor == kept
        assert f"Step {kept:,}" in facts_text(screen)


@pytest.mark.anyio
async def test_units_change_the_axis_labels(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        chart = screen.query_one(LivenessChart)
        await pilot.press("u")
        await pilot.pause()
        assert chart.units == "si"
        axis = "".join(chart.render_line(y).text for y in range(chart.size.height))
        assert "MB" in axis or "kB" in axis


def bundle_without(tiny_report, path, parts: tuple[str, ...], columns: tuple[str, ...] = ()):
    """A copy of the tiny bundle that no longer holds PARTS and COLUMNS."""
    shutil.copytree(tiny_report.path, path)
    meta = json.loads((path / "meta.json").read_text())
    meta["parts"] = [p for p in meta["parts"] if p not in parts]
    meta["columns"] = [c for c in meta["columns"] if c not in columns]
    (path / "meta.json").write_text(json.dumps(meta))
    return path


@pytest.mark.anyio
async def test_a_report_without_per_ipu_or_per_tile_liveness_says_so(make_app, tiny_report, tmp_path):
    bundle = bundle_without(tiny_report, tmp_path / "flat", ("liveness_tiles",), (LIVENESS_BY_IPU, LIVENESS_BY_TILE))
    async with make_app(path=bundle).run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        missing = screen.query_one("#view-missing", UnavailableNotice)
        assert not missing.display
        for view in ("ipu", "tile"):
            await pilot.press("v")
            assert screen.view == view
            assert missing.display and not screen.query_one(LivenessChart).display
            assert str(missing.render()) == Report(bundle).missing("liveness_tiles")
        await pilot.press("v")
        assert not missing.display and screen.query_one(LivenessChart).display


@pytest.mark.anyio
async def test_the_light_theme_draws_the_chart_in_its_own_colours(make_app):
    async with make_app(theme="pvtui-light").run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        chart = screen.query_one(LivenessChart)
        background = pilot.app.theme_variables["background"].lower()
        first_row = chart.render_line(1)
        assert any(seg.style.bgcolor.triplet.hex.lower() == background for seg in first_row if seg.style)


@pytest.mark.anyio
async def test_a_report_without_liveness_says_why(make_app, tiny_report, tmp_path):
    bundle = bundle_without(tiny_report, tmp_path / "no-liveness", ("liveness", "liveness_tiles"))
    async with make_app(path=bundle).run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        message = screen.query_one("#liveness-missing", UnavailableNotice)
        assert message.display
        assert str(message.render()) == Report(bundle).missing("liveness")


@pytest.mark.anyio
async def test_an_arrow_moves_one_step_and_shift_one_column_whatever_the_zoom(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        await pilot.press("home")
        width = screen.query_one(LivenessChart).plot_width
        window = screen.nav.window
        assert window.span > width  # several steps a column, not a whole number of them
        for step in range(1, 12):  # every step of the first columns, none skipped
            await pilot.press("right")
            assert screen.nav.cursor == step and screen.nav.window == window
        await pilot.press("left")
        assert screen.nav.cursor == 10
        column = columns_of_step(10, window.start, window.stop, width).start
        for columns in range(1, 4):
            await pilot.press("shift+right")
            assert columns_of_step(screen.nav.cursor, window.start, window.stop, width).start == column + columns
        await pilot.press("shift+left")
        assert columns_of_step(screen.nav.cursor, window.start, window.stop, width).start == column + 2
        await pilot.press("plus", "plus", "plus")  # zoomed in: still one step a key
        cursor = screen.nav.cursor
        await pilot.press("right")
        assert screen.nav.cursor == cursor + 1


@pytest.mark.anyio
async def test_a_cycles_the_always_live_band_compressed_to_scale_and_left_out(make_app, tiny_report):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        chart = screen.query_one(LivenessChart)
        seen = []
        for _ in range(4):
            said = re.search(r"Always-live +\S+ \S+ ?(.*)", facts_text(screen)).group(1)
            seen.append((screen.nav.band, chart.band, chart._frame().scale.band_rows > 0, said))
            await pilot.press("a")
        assert seen == [("compressed", "compressed", True, "compressed"), ("to scale", "to scale", False, ""),
                        ("hidden", "hidden", False, "not drawn"), ("compressed", "compressed", True, "compressed")]


@pytest.mark.anyio
async def test_a_tile_being_read_is_not_read_again_on_each_redraw(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        reads = []
        screen._read_tile = lambda report, tile: reads.append(tile)
        await pilot.press("v", "v")
        for key in ("right", "left", "right"):
            await pilot.press(key)
        assert reads == [screen.nav.tile]
        assert f"Reading tile {screen.nav.tile}" in facts_text(screen)


@pytest.mark.anyio
async def test_the_details_say_why_a_step_has_no_program(make_app, monkeypatch):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        live = pilot.app.report.liveness
        program = np.array(live.program)
        monkeypatch.setitem(live.__dict__, "program", program)
        program[screen.nav.cursor] = -1
        screen.redraw()
        assert "this step names no program" in facts_text(screen)
        program[screen.nav.cursor] = len(pilot.app.report.programs)
        screen.redraw()
        assert f"program {len(pilot.app.report.programs):,} is not in the program table" in facts_text(screen)


@pytest.mark.anyio
async def test_without_always_live_bytes_the_details_do_not_add_them_up(make_app, tiny_report, tmp_path):
    bundle = bundle_without(tiny_report, tmp_path / "no-memory", ("memory",))
    async with make_app(path=bundle).run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        await pilot.press("v")
        facts = facts_text(screen)
        assert "Always-live      unknown" in facts and "always-live unknown: not-always-live only" in facts
        assert "Total" not in facts


async def press_l(pilot) -> None:
    await wait_until_loaded(pilot)
    await pilot.press("l")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, LivenessScreen) and not pilot.app.screen.opening)


def test_snapshot_liveness_80x24(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=press_l)


def test_snapshot_liveness_160x48(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(160, 48), run_before=press_l)


@pytest.mark.anyio
async def test_a_compute_set_of_one_vertex_type_says_type_not_types(make_app, tiny_report):
    programs = tiny_report.programs
    counts = {p: len(programs.compute_set_vertices(int(programs.compute_set[p])))
              for p in range(len(programs.compute_set)) if int(programs.compute_set[p]) >= 0}
    one, several = (next(p for p, n in counts.items() if test(n)) for test in (lambda n: n == 1, lambda n: n > 1))
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        assert "]1 type" in vertex_lines(screen.report, one, 80)[0]
        assert f"]{counts[several]:,} types · " in vertex_lines(screen.report, several, 80)[0]


@pytest.mark.anyio
async def test_the_cursors_step_says_what_changed_since_the_step_before_without_a_mark(make_app, tiny_report):
    from pvtui.model.queries import live_difference

    live = tiny_report.liveness
    step = next(s for s in range(1, len(live)) if any(live_difference(tiny_report, s - 1, s)[:2]))
    appeared, gone, _change = live_difference(tiny_report, step - 1, step)
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        screen.go_to(step)
        await pilot.pause()
        facts = facts_text(screen)
        assert f"Since step {step - 1:,}: " in facts
        assert f"{len(appeared):,} appeared, {len(gone):,} gone" in facts
        await pilot.press("b")  # a mark: the details compare with it instead
        assert "Since step" not in facts_text(screen)


@pytest.mark.anyio
async def test_the_marked_steps_glyph_shows_where_the_cursor_shares_its_column(make_app, tiny_report):
    from pvtui.widgets.look import look_of

    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        await pilot.press("0", "b")  # the whole run: several steps a column; mark the cursor's step
        await pilot.press("right")  # the next step, in the same column
        await pilot.pause()
        chart = screen.query_one(LivenessChart)
        frame = chart._frame()
        cursor_columns = columns_of_step(screen.nav.cursor, chart.window.start, chart.window.stop, frame.plot_width)
        assert screen.nav.marked is not None and screen.nav.marked != screen.nav.cursor
        assert set(cursor_columns) == set(frame.marked)  # the two steps share the column
        marker_row = "".join(segment.text for segment in chart.render_line(0))
        assert look_of(pilot.app).glyphs.marked in marker_row


@pytest.mark.anyio
async def test_several_marked_steps_compare_column_by_column(make_app, tiny_report):
    from textual.widgets import DataTable

    from pvtui.model.queries import live_difference
    from pvtui.screens.columns_dialog import ColumnsDialog

    live = tiny_report.liveness
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        await pilot.press("home", "c")  # one step: nothing to compare yet
        assert not isinstance(pilot.app.screen, ColumnsDialog)
        await pilot.press("b", "right", "right", "b", "right", "b", "right")
        assert screen.nav.marks == [0, 2, 3] and screen.nav.compared == [0, 2, 3, 4]
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ColumnsDialog))
        table = pilot.app.screen.query_one(DataTable)
        assert [str(column.label) for column in table.columns.values()] == ["", "step 0", "step 2", "step 3", "step 4"]
        rows = {str(table.get_row_at(i)[0]): [str(cell) for cell in table.get_row_at(i)[1:]]
                for i in range(table.row_count)}
        assert rows["not-always-live"] == [screen.bytes(int(live.not_always_live[s])) for s in (0, 2, 3, 4)]
        appeared, gone, _change = live_difference(tiny_report, 2, 3)
        assert rows["appeared"][2].startswith(f"{len(appeared)} variable") and rows["appeared"][0] == "—"
        assert rows["gone"][2].startswith(f"{len(gone)} variable")
        await pilot.press("escape")
        assert pilot.app.screen is screen
        await pilot.press("left", "b")  # on a marked step: unmarked
        assert screen.nav.marks == [0, 2] and screen.nav.marked == 2


@pytest.mark.anyio
async def test_a_theme_change_draws_the_whole_chart_in_the_new_colours(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_liveness(pilot)
        chart = screen.query_one(LivenessChart)
        old = pilot.app.theme_variables["background"].lower()
        pilot.app.theme = "pvtui-light"
        await pilot.pause()
        new = pilot.app.theme_variables["background"].lower()
        lines = chart.render_lines(Region(0, 0, chart.size.width, chart.size.height))
        backgrounds = {segment.style.bgcolor.triplet.hex.lower() for line in lines for segment in line}
        assert old != new and new in backgrounds and old not in backgrounds


@pytest.mark.anyio
async def test_a_zoom_parses_only_the_facts_line_it_changes(make_app, monkeypatch):
    async with make_app().run_test(size=(100, 40)) as pilot:
        screen = await open_liveness(pilot)
        facts = screen.query_one("#step-facts", PaneText)
        before = facts.shown
        parsed = []
        real = Content.from_markup
        monkeypatch.setattr(Content, "from_markup", lambda markup: parsed.append(markup) or real(markup))
        await pilot.press("plus")
        changed = [line for line in facts.shown if line not in before]
        assert changed and parsed == changed
        assert str(facts.render()) == str(real("\n".join(facts.shown)))
