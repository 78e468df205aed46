"""Compare: two synthetic reports of different shape, in the model, `--json`, and the app."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import said, wait_for, wait_until_loaded

from pvtui.cli import main
from pvtui.commands.common import as_json
from pvtui.model.compare import LIVENESS_X, compare, liveness_pair, program_changes, summary_table, tile_diff
from pvtui.model.navigators.compare import change_levels, grid_rows
from pvtui.model.report import Report
from pvtui.model.unavailable import Unavailable
from pvtui.render.compare import changes_measure, tile_statement
from pvtui.render.compare_json import comparison_json
from pvtui.widgets.compare_chart import CompareChart
from pvtui.widgets.diff_heatmap import DiffHeatmap

pytestmark = pytest.mark.anyio


@pytest.fixture
def empty_report(empty_bundle):
    return Report(empty_bundle)


def run_json(capsys, *argv) -> dict:
    assert main(["compare", *map(str, argv), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


# The model and --json ----------------------------------------------------------------


def test_json_compares_reports_of_different_scale(capsys, tiny_dir, other_dir, tiny_report, other_report):
    data = run_json(capsys, tiny_dir, other_dir)
    assert data["difference"] == "B - A"
    assert data["a"]["path"] == str(tiny_dir)
    summary = {row["label"]: row for row in data["summary"]}
    assert (summary["IPUs"]["a"], summary["IPUs"]["b"], summary["IPUs"]["delta"]) == (2, 1, -1)
    programs = summary["Programs"]
    assert programs["delta"] == len(other_report.programs) - len(tiny_report.programs)

    tiles = data["tiles"]
    a_bytes = np.asarray(tiny_report.memory.including_gaps, dtype=np.int64)
    b_bytes = np.asarray(other_report.memory.including_gaps, dtype=np.int64)
    assert (tiles["a_tiles"], tiles["b_tiles"], tiles["compared_tiles"]) == (128, 64, 64)
    assert (tiles["a_ipus"], tiles["b_ipus"]) == (2, 1)
    assert "tiles 64–127 are only in A" in tiles["statement"]
    assert tiles["deltas"] == (b_bytes - a_bytes[:64]).tolist()
    growth = [row["delta"] for row in tiles["largest_growth"]]
    assert growth == sorted(growth, reverse=True) and all(d > 0 for d in growth)
    assert growth[0] == int((b_bytes - a_bytes[:64]).max())

    live = data["liveness"]
    assert live["x"] == LIVENESS_X and len(live["points"]) == 100
    assert (live["a_steps"], live["b_steps"]) == (len(tiny_report.liveness), len(other_report.liveness))
    peak_a = tiny_report.liveness.always_live_bytes + int(np.max(tiny_report.liveness.not_always_live))
    assert live["a_peak"]["bytes"] == peak_a == max(p["a"] for p in live["points"])  # resampling keeps the peak

    for section in ("programs", "operations"):
        part = data[section]
        assert part["available"], part
        assert all(row["delta"] > 0 for row in part["grown"]) and all(row["delta"] < 0 for row in part["shrunk"])
        assert [r["delta"] for r in part["shrunk"]] == sorted(r["delta"] for r in part["shrunk"])


def test_a_report_against_itself_has_no_difference(capsys, tiny_dir):
    data = run_json(capsys, tiny_dir, tiny_dir)
    assert all(row["delta"] in (0, None) for row in data["summary"])
    assert data["tiles"]["grew"] == data["tiles"]["shrank"] == 0
    assert data["tiles"]["statement"].startswith("Tile i of A against tile i of B, all 128 tiles")
    assert data["programs"]["changed"] == data["operations"]["changed"] == 0
    assert all(p["a"] == p["b"] for p in data["liveness"]["points"])


def test_the_same_report_or_a_copy_is_said_to_be_identical(capsys, tiny_dir, other_dir, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(tiny_dir, copy)
    for b in (tiny_dir, copy):  # the same report twice, or two reports of the same content
        assert run_json(capsys, tiny_dir, b)["identical"] is True
        assert main(["compare", str(tiny_dir), str(b)]) == 0
        out = capsys.readouterr().out
        assert "A and B are identical" in out and "\nSummary\n" not in out  # said, not a table of zeros
    assert run_json(capsys, tiny_dir, other_dir)["identical"] is False
    assert main(["compare", str(tiny_dir), str(other_dir)]) == 0
    assert "identical" not in capsys.readouterr().out


def test_one_figure_apart_is_not_identical(tiny_report):
    from dataclasses import replace

    same = compare(tiny_report, tiny_report)
    assert same.identical
    row = same.summary[0]
    changed = replace(same, summary=[replace(row, b=f"{row.b} and more"), *same.summary[1:]])
    assert not changed.identical


def test_the_larger_report_second_keeps_its_extra_tiles(tiny_report, other_report):
    diff = tile_diff(other_report, tiny_report)
    assert "tiles 64–127 are only in B" in tile_statement(diff)
    assert diff.bytes_of(100) == (None, int(tiny_report.memory.including_gaps[100]))
    assert diff.ipus_of(100) == (None, int(tiny_report.memory.ipu[100]))


def _leaf_names(report) -> set[str]:
    programs = report.programs
    return {programs.names[p] for p in range(len(programs)) if programs.num_children(p) == 0}


def test_leaf_programs_are_matched_by_name(tiny_report, other_report):
    changes = program_changes(tiny_report, other_report)
    names_a, names_b = _leaf_names(tiny_report), _leaf_names(other_report)
    assert changes.only_a == len(names_a - names_b) and changes.only_b == len(names_b - names_a)
    gone = next(c for c in changes.rows if c.b is None)
    assert gone.name in names_a - names_b and gone.delta == -gone.a


def test_programs_rank_by_their_own_code_not_their_childrens(tiny_report, other_report):
    """A parent's code includes its children's: the roots (top, main) would always lead."""
    programs = tiny_report.programs
    parents = {programs.names[p] for p in range(len(programs)) if programs.num_children(p)} - _leaf_names(tiny_report)
    changes = program_changes(tiny_report, other_report)
    assert "main" in parents and not parents & {c.name for c in changes.rows}
    leaf = next(c for c in changes.rows if c.a is not None and c.b is not None)
    code = np.asarray(programs.code_bytes)
    assert leaf.a == sum(int(code[p]) for p in range(len(programs))
                         if programs.names[p] == leaf.name and programs.num_children(p) == 0)
    assert changes_measure(changes) == "code bytes of leaf programs"


def test_piped_output_prints_tables(capsys, tiny_dir, other_dir):
    """Without a terminal (capsys is none) `pvtui compare A B` prints the comparison rather than starting the app."""
    assert main(["compare", str(tiny_dir), str(other_dir)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    for heading in ("Summary", "Tiles", "Liveness", "Programs", "Operations"):
        assert f"\n{heading}\n" in out
    assert "Poplar" in out and "tiles 64–127 are only in A" in out
    assert "Grew the most, by code bytes of leaf programs" in out


def test_missing_parts_are_said_plainly(tiny_report, empty_report):
    comparison = compare(tiny_report, empty_report)
    tiles, liveness, programs = comparison.tiles, comparison.liveness, comparison.programs
    assert all(isinstance(part, Unavailable) for part in (tiles, liveness, programs))
    assert tiles.reason.startswith("Report B has no per-tile memory") and "profile.pop" in tiles.reason
    assert liveness.reason.startswith("Report B:")
    assert programs.reason.startswith("Report B has no programs")
    assert comparison_json(comparison)["programs"] is programs  # turned into JSON at the command's edge:
    assert as_json(comparison_json(comparison))["programs"] == {"available": False, "reason": programs.reason}
    table = summary_table(comparison.summary)
    assert table.columns == ["section", "quantity", "A", "B", "B - A", "change"]
    rows = {row[1]: row for row in table.rows}
    assert rows["Programs"][3] is None and rows["Programs"][4] is None
    assert liveness_pair(empty_report, tiny_report).reason.startswith("Report A:")


def test_a_missing_report_is_one_line_on_stderr(capsys, tiny_dir, tmp_path):
    assert main(["compare", str(tiny_dir), str(tmp_path / "nowhere"), "--json"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nowhere" in err[0]


def test_heatmap_rows_start_each_ipu_and_levels_keep_the_sign():
    rows = grid_rows(np.array([0] * 5 + [1] * 3), per_row=2)
    assert [(r.first, r.count, r.ipu, r.opens_ipu) for r in rows] == [
        (0, 2, 0, True), (2, 2, 0, False), (4, 1, 0, False), (5, 2, 1, True), (7, 1, 1, False)]
    assert change_levels(np.array([-100, -1, 0, 1, 50, 100]), 100).tolist() == [-4, -1, 0, 1, 2, 4]


# The app ---------------------------------------------------------------------------------


@pytest.fixture
def compare_app(tiny_dir, other_dir, cache_root):
    from pvtui.app import PvtuiApp
    from pvtui.sources.discovery import discover

    def make():
        return PvtuiApp(discover(tiny_dir), path=tiny_dir, watch=False, cache=cache_root,
                        compare_with=discover(other_dir)[0])

    return make


async def wait_compared(pilot):
    await wait_until_loaded(pilot)
    await wait_for(pilot, lambda: getattr(pilot.app.screen, "comparison", None) is not None)
    await pilot.pause()
    await pilot.pause()  # the tables and the heatmap paint after the comparison lands
    return pilot.app.screen


async def test_opens_on_the_comparison_and_walks_every_section(compare_app, tiny_report, other_report):
    async with compare_app().run_test(size=(80, 24)) as pilot:
        screen = await wait_compared(pilot)
        assert screen.SCREEN_NAME == "Compare"
        assert screen.export_table().name == "compare-summary"

        await pilot.press("2")
        heatmap = screen.query_one(DiffHeatmap)
        assert heatmap.has_focus
        delta = np.asarray(other_report.memory.including_gaps) - np.asarray(tiny_report.memory.including_gaps)[:64]
        await pilot.press("W")
        assert heatmap.selected == int(np.argmin(delta))
        assert f"Tile {heatmap.selected} ·" in str(screen.query_one("#tile-detail").render())
        await pilot.press("w", "right")
        assert heatmap.selected == int(np.argmax(delta)) + 1
        await pilot.press("end")
        assert heatmap.selected == 127
        assert "only in A" in str(screen.query_one("#tile-detail").render())
        assert screen.export_table().name == "compare-tiles"

        await pilot.press("3", "b")
        chart = screen.query_one(CompareChart)
        peak = other_report.liveness.peak_step / len(other_report.liveness)
        assert chart.cursor == chart.frame().column_of(peak)
        assert "B − A" in str(screen.query_one("#liveness-detail").render())

        await pilot.press("4")
        assert screen.export_table().name == "compare-programs"
        await pilot.press("5")
        assert screen.export_table().name == "compare-operations"


async def test_a_peak_key_typed_with_the_tab_key_finds_the_peak(compare_app, other_report):
    """3 and b in one read (a paste, a burst over SSH): b comes before the chart of the tab just opened is
    laid out, and still puts the cursor on B's peak."""
    async with compare_app().run_test(size=(80, 24)) as pilot:
        screen = await wait_compared(pilot)
        screen.action_section("liveness")
        screen.action_peak("b")
        await pilot.pause()
        chart = screen.query_one(CompareChart)
        assert chart.cursor == chart.frame().column_of(other_report.liveness.peak_step / len(other_report.liveness))
        assert chart.cursor > 0 and "At 0%" not in str(screen.query_one("#liveness-detail").render())


async def test_the_screen_says_two_identical_reports_are_identical(tiny_dir, cache_root, compare_app):
    from pvtui.app import PvtuiApp
    from pvtui.render.compare import IDENTICAL
    from pvtui.sources.discovery import discover

    app = PvtuiApp(discover(tiny_dir), path=tiny_dir, watch=False, cache=cache_root,
                   compare_with=discover(tiny_dir)[0])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_compared(pilot)
        statement = screen.query_one("#deltas-statement")
        assert statement.display and str(statement.render()) == IDENTICAL
        assert "identical" in str(screen.query_one("#names").render())
    async with compare_app().run_test(size=(80, 24)) as pilot:
        screen = await wait_compared(pilot)
        assert not screen.query_one("#deltas-statement").display
        assert "identical" not in str(screen.query_one("#names").render())


async def test_names_and_cut_text_at_80_columns(compare_app):
    async with compare_app().run_test(size=(80, 24)) as pilot:
        screen = await wait_compared(pilot)
        names = str(screen.query_one("#names").render())
        assert names.startswith("A tiny") and "· B other" in names
        table = screen.query_one("#deltas-table")
        poplar = next(i for i in range(table.row_count) if str(table.get_row_at(i)[0]) == "Poplar")
        version = str(table.get_row_at(poplar)[1])
        assert version.endswith("…") and len(version) == table.ordered_columns[1].width
        await pilot.press("4")
        table = screen.query_one("#programs-table")
        name_width = table.ordered_columns[3].width
        cut = [str(table.get_row_at(i)[3]) for i in range(table.row_count)]
        assert any(name.endswith("…") for name in cut) and all(len(name) <= name_width for name in cut)
        assert sum(c.get_render_width(table) for c in table.ordered_columns) <= 80
        await pilot.resize_terminal(160, 40)
        await pilot.pause()
        table = screen.query_one("#deltas-table")
        assert not str(table.get_row_at(poplar)[1]).endswith("…")


async def test_reload_and_units_redraw_the_comparison(compare_app):
    async with compare_app().run_test(size=(80, 24)) as pilot:
        screen = await wait_compared(pilot)
        await pilot.press("2", "w")
        selected = screen.query_one(DiffHeatmap).selected
        first = screen.comparison
        screen.report_changed()
        await wait_for(pilot, lambda: screen.comparison is not first)
        assert screen.query_one(DiffHeatmap).selected == selected
        await pilot.press("u")
        assert " kB" in str(screen.query_one("#tile-detail").render())


async def test_a_section_the_reports_cannot_compare_says_why_in_place_of_its_view(tiny_dir, tmp_path, cache_root):
    import shutil

    from pvtui.app import PvtuiApp
    from pvtui.sources.discovery import discover

    folder = tmp_path / "archive-only"  # tile memory from archive.a, and no liveness
    shutil.copytree(tiny_dir, folder, ignore=shutil.ignore_patterns("profile.pvtui"))
    app = PvtuiApp(discover(tiny_dir), path=tiny_dir, watch=False, cache=cache_root,
                   compare_with=discover(folder)[0])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_compared(pilot)
        await pilot.press("3")
        notice = screen.query_one("#liveness-missing")
        assert notice.display and not screen.query_one(CompareChart).display
        assert str(notice.render()) == screen.comparison.liveness.reason and "Report B:" in str(notice.render())
        assert not screen.check_action("peak", ("a",))
        await pilot.press("2")
        assert not screen.query_one("#tiles-missing").display and screen.query_one(DiffHeatmap).display


async def test_a_reload_of_b_is_offered_on_its_own_after_a_prompt_or_load_of_a(compare_app):
    """One prompt speaks for one report: B's changes wait while A's prompt is up or A loads, and a
    reload of B replaces B alone, and the comparison with it."""
    from pvtui.screens.dialogs import ReloadPrompt

    app = compare_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_compared(pilot)
        a, b = app.report, app.b.report
        app.reloads.offer([app.a.files.directory / "archive.a"], app.a)
        await pilot.pause()
        prompt = app.screen
        assert isinstance(prompt, ReloadPrompt)
        app.reloads.offer([app.b.files.directory / "debug.cbor"], app.b)
        await pilot.pause()
        assert app.screen is prompt and [path.name for path in prompt.changed] == ["archive.a"]
        await pilot.press("escape")  # A stays as it is; B's changes are offered next
        await wait_for(pilot, lambda: isinstance(app.screen, ReloadPrompt) and app.screen is not prompt)
        assert [path.name for path in app.screen.changed] == ["debug.cbor"]
        await pilot.press("r")
        await wait_for(pilot, lambda: app.b.report is not b and not app.load_running)
        assert app.report is a and app.b.report.name == "other"
        await wait_for(pilot, lambda: screen.comparison.b is app.b.report)
        assert screen.comparison.a is a

        app.open_report(app.a.files)  # a reload of A: B's changes meanwhile wait for it
        app.reloads.offer([app.b.files.directory / "archive.a"], app.b)
        assert not isinstance(app.screen, ReloadPrompt)
        await wait_for(pilot, lambda: isinstance(app.screen, ReloadPrompt))
        assert app.report is not a and app.reloads.prompted is app.b


async def test_diff_key_only_with_a_second_report(make_app, compare_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("d")
        await pilot.pause()
        assert pilot.app.screen.SCREEN_NAME == "Summary"
        assert "pvtui compare A B" in said(pilot.app)
    async with compare_app().run_test(size=(80, 24)) as pilot:
        await wait_compared(pilot)
        await pilot.press("s")
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        assert pilot.app.screen.SCREEN_NAME == "Compare"


def _section(*keys):
    async def run_before(pilot):
        await wait_compared(pilot)
        await pilot.press(*keys)
        await pilot.pause()

    return run_before


def test_snapshot_compare_summary_80x24(snap_compare, compare_app):
    assert snap_compare(compare_app(), terminal_size=(80, 24), run_before=_section())


def test_snapshot_compare_tiles_80x24(snap_compare, compare_app):
    assert snap_compare(compare_app(), terminal_size=(80, 24), run_before=_section("2", "w"))


def test_snapshot_compare_liveness_80x24(snap_compare, compare_app):
    assert snap_compare(compare_app(), terminal_size=(80, 24), run_before=_section("3", "a"))


def test_snapshot_compare_operations_80x24(snap_compare, compare_app):
    assert snap_compare(compare_app(), terminal_size=(80, 24), run_before=_section("5"))


async def test_the_single_report_screens_name_their_report_and_B_switches_it(compare_app, other_report):
    from pvtui.screens.base import TitleBar

    async with compare_app().run_test(size=(80, 24)) as pilot:
        await wait_compared(pilot)
        await pilot.press("m")
        await pilot.pause()
        screen = pilot.app.screen
        title = str(screen.query_one(TitleBar).line_text())
        assert title.startswith("A: tiny") and "Operations" in title  # the name is kept at 80 columns
        from pvtui.widgets.key_bar import KeyBar

        assert "B A/B" in screen.query_one(KeyBar).line_text().plain  # shown, however many keys the screen has
        await pilot.press("B")
        await pilot.pause()
        assert screen.report is pilot.app.b.report
        assert str(screen.query_one(TitleBar).line_text()).startswith("B: other")
        assert screen.nav.memory.num_tiles == other_report.memory.num_tiles
        await pilot.press("s")
        await pilot.pause()
        assert pilot.app.screen.report.name == "other"
        await pilot.press("d")
        await pilot.pause()
        compare_screen = pilot.app.screen
        assert compare_screen.report is pilot.app.report  # the comparison stays A against B
        assert not pilot.app.check_action("switch_report", ())  # B is hidden here
        await pilot.press("m", "B")
        await pilot.pause()
        assert pilot.app.screen.report is pilot.app.report


async def test_a_comparison_of_synthetic_reports_names_no_profile_pop(tiny_report, other_report):
    assert "profile.pop" not in tile_statement(tile_diff(tiny_report, other_report))


class _Flat:
    """A liveness pair whose peak is TOP bytes: all the comparison chart's frame reads."""

    def __init__(self, top: int) -> None:
        self.a = self.b = None
        self.top = top

    def peak(self, series) -> dict:
        return {"bytes": self.top}

    def points(self, width: int):
        return np.zeros(width), np.zeros(width)


@pytest.mark.parametrize("top", [int(1.4 * 2**30), 999, 10 * 2**20, 2**40])
def test_every_y_label_of_the_comparison_chart_starts_the_plot_in_one_column(top):
    from pvtui.widgets.chart_rows import labelled_levels, y_label
    from pvtui.widgets.compare_chart import Frame

    for height in (10, 16, 24, 40):
        frame = Frame.build(_Flat(top), 80, height, "binary")
        widths = {len(y_label(frame.top, level, frame.plot_height, frame.label_width, "binary",
                              labelled_levels(frame.plot_height)))
                  for level in range(frame.plot_height)}
        assert widths == {frame.label_width}, (top, height, widths)


async def test_the_compare_screen_paints_its_body_before_the_comparison_starts(compare_app, monkeypatch):
    """The comparison's worker starts once the screen's frame is painted, not while it is built."""
    import pvtui.screens.compare as compare_screen
    from pvtui.screens.base import TitleBar

    events: list[object] = []
    real_render, real_compare = TitleBar.render, compare_screen.compare
    monkeypatch.setattr(TitleBar, "render", lambda self: events.append(id(self)) or real_render(self))
    monkeypatch.setattr(compare_screen, "compare", lambda a, b: events.append("compare") or real_compare(a, b))
    async with compare_app().run_test(size=(80, 24)) as pilot:
        screen = await wait_compared(pilot)
        title = id(screen.query_one(TitleBar))  # the body's, composed over the reports
        assert title in events and events.index(title) < events.index("compare")
