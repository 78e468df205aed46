"""Trace and liveness in depth: the flame view, step statistics, two liveness steps compared,
the program tree's debug-layer names, and the insights histogram's scale."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from textual.widgets import Static
from conftest import open_screen, said, wait_for
from test_trace_screen import open_trace

from pvtui.cli import main
from pvtui.render.insights import column_eighths
from pvtui.render.step_change import step_change_line
from pvtui.model import contexts as ctx
from pvtui.model import flame as fl
from pvtui.model import lanes as ln
from pvtui.model.queries import live_difference
from pvtui.model.program_search import display_order, in_display_order
from pvtui.model.step_stats import step_stats
from pvtui.screens.liveness import LivenessScreen
from pvtui.widgets.live_variables import LiveVariables
from pvtui.model.navigators.liveness import columns_of_step
from pvtui.screens.programs import ProgramsScreen
from pvtui.widgets.liveness_chart import LivenessChart
from pvtui.widgets.flame_view import FlameView, block_runs, elide

pytestmark = pytest.mark.anyio


# The nesting ------------------------------------------------------------------------


def lane_of(starts, ends, phases) -> ln.Lane:
    starts, ends = np.array(starts, np.int64), np.array(ends, np.int64)
    return ln.Lane(np.arange(len(starts), dtype=np.int64), starts, ends, np.array(phases, np.int8),
                   np.maximum.accumulate(ends))


def test_blocks_are_runs_of_steps_sharing_a_prefix():
    # programs 0: a/b, 1: a/c, 2: d  ->  nodes a=0, b=1, c=2, d=3
    nesting = fl.Nesting(np.array([[0, 1], [0, 2], [3, -1]], np.int32), ["a", "b", "c", "d"], np.zeros(3, bool))
    lane = lane_of([0, 10, 20, 30, 40], [10, 20, 30, 40, 50], [0, 0, 1, 2, 2])
    top, below = fl.flame_rows(lane, np.array([0, 0, 1, 2, 2]), np.array([10, 10, 10, 5, 5]), nesting)
    assert [nesting.names[n] for n in top.node] == ["a", "d"]
    assert top.first.tolist() == [0, 3] and top.stop.tolist() == [3, 5]
    assert top.cycles.tolist() == [30, 10] and top.leaf.tolist() == [False, True]
    assert top.lane.starts.tolist() == [0, 30] and top.lane.ends.tolist() == [30, 50]
    assert top.lane.phases[1] == 2  # a leaf takes its step's type
    assert [nesting.names[n] for n in below.node] == ["b", "c"] and below.leaf.all()
    assert below.block_at(2) == 1 and below.block_at(3) == -1


def test_paths_come_from_debug_contexts_else_from_program_names(tiny_report):
    execution, programs = tiny_report.execution, tiny_report.programs
    nesting = fl.build_nesting(tiny_report, execution.program)
    linked = [p for p in np.unique(execution.program).tolist() if programs.debug_context(p) >= 0]
    unlinked = [p for p in np.unique(execution.program).tolist() if programs.debug_context(p) < 0]
    assert linked and unlinked
    for program in unlinked:
        assert nesting.path(program) == [part for part in programs.names[program].split("/") if part]
        assert not nesting.linked[program]
    for program in linked:
        path, name = nesting.path(program), programs.names[program]
        chain = ctx.context_chain(tiny_report, programs.debug_context(program))
        operation = tiny_report.debug.names[chain[-1]]
        assert nesting.linked[program] and operation in path  # the PopART op the program belongs to
        assert name.startswith("/".join(path[: path.index(operation)]))  # the layers, from the names
        assert name.endswith(path[-1])


@pytest.mark.parametrize("parts", [("debug",), ("debug", "programs")])
def test_without_debug_or_programs_the_nesting_comes_from_what_is_left(tiny_report, tmp_path, parts):
    from test_liveness_screen import bundle_without

    from pvtui.model.report import Report

    report = Report(bundle_without(tiny_report, tmp_path / "less", parts))
    nesting = fl.build_nesting(report, report.execution.program)
    assert not nesting.linked.any()
    if report.programs is not None:
        program = int(report.execution.program[0])
        assert nesting.path(program) == [p for p in report.programs.names[program].split("/") if p]
    lane = ln.build_lanes(report.execution.cycles_from[:5], report.execution.cycles_to[:5], np.zeros(5, np.int8), 0)[0]
    rows = fl.lane_flame(report, lane, 0, nesting)
    assert rows and (len(rows[0]) > 0) == (report.programs is not None)
    assert ctx.layer_names(report) == []


def test_names_fit_their_blocks():
    assert elide("attention", 12) == "attention   " and elide("attention", 5) == "atte…" and elide("x", 1) == "x"
    assert elide("attention", 4) == "att…" and elide("attention", 3) == "   "  # never "q…": three letters or none
    runs = block_runs(np.array([0, 0, 1, -1, 2, 2]), np.array([False, False, False, False, True, True]))
    assert runs == [(0, 0, 2, False), (1, 2, 1, False), (-1, 3, 1, False), (2, 4, 2, True)]


def test_depth_rows_fit_the_room_shallowest_first_and_leave_out_those_empty_in_the_window():
    nesting = fl.Nesting(np.array([[0, 1, 2, 3], [4, -1, -1, -1]], np.int32), list("abcde"), np.zeros(2, bool))
    deep = lane_of([0, 10], [10, 20], [0, 0])  # a four-deep step, then a one-deep one
    shallow = lane_of([0], [20], [0])
    flame = (fl.flame_rows(deep, np.array([0, 1]), np.array([10, 10]), nesting),
             fl.flame_rows(shallow, np.array([1]), np.array([20]), nesting))
    assert fl.fitted_depths(flame, (0, 20), 20) == (((0, 1, 2, 3), (0,)), 0)  # IPU 1 has one depth, not four
    assert fl.fitted_depths(flame, (10, 20), 20) == (((0,), (0,)), 0)  # the deep step is out of the window
    assert fl.fitted_depths(flame, (0, 20), 5) == (((0, 1), (0,)), 2)  # 2 lanes and 3 depth rows: deepest dropped
    assert fl.fitted_depths(flame, (0, 20), 1) == (((0,), (0,)), 3)  # too short: each keeps its first row
    assert fl.fitted_depths(flame, (0, 20), 5, keep=(0, 3)) == (((0, 3), (0,)), 2)  # the cursor's row stays


# The flame view ---------------------------------------------------------------------


async def open_flame(pilot):
    screen = await open_trace(pilot)
    await pilot.press("f")
    await wait_for(pilot, lambda: screen.nav.flame is not None)
    await pilot.pause()
    return screen


async def test_a_tall_terminal_gives_the_flames_spare_rows_to_the_details(make_app):
    from pvtui.widgets.flame_view import FlameView

    async with make_app().run_test(size=(160, 48)) as pilot:
        screen = await open_flame(pilot)
        flame, lower = screen.query_one(FlameView), screen.query_one("#trace-lower")
        await wait_for(pilot, lambda: flame.size.height == 1 + flame._wanted_rows, timeout=5)  # every row, none empty
        assert not flame.hidden and lower.size.height > 8
        await pilot.resize_terminal(80, 24)  # short: the flame takes what the details' 8 rows leave
        await wait_for(pilot, lambda: lower.outer_size.height == 8, timeout=5)


async def test_the_flame_view_moves_between_depths_and_blocks(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_flame(pilot)
        view = screen.query_one(FlameView)
        assert screen.has_class("flame") and view.flame is screen.nav.flame
        await pilot.press("down")
        row, block = screen.nav.flame_block
        assert screen.nav.flame_cursor.depth == 0 and row is screen.nav.flame[0][0]
        assert screen.nav.cursor_pos == int(row.first[block])
        details = str(screen.query_one("#details-text").render())
        assert "Block" in details and "of the run on IPU 0" in details
        await pilot.press("right")
        assert screen.nav.flame_block == (row, block + 1) and screen.nav.cursor_pos == int(row.first[block + 1])
        await pilot.press("down")
        deeper, inner = screen.nav.flame_block
        assert deeper is screen.nav.flame[0][1] and deeper.first[inner] <= screen.nav.cursor_pos < deeper.stop[inner]
        await pilot.press("up", "up")
        assert screen.nav.flame_cursor.depth == -1 and screen.nav.flame_block is None
        await pilot.press("f")
        assert view.flame is None and not screen.has_class("flame")


def drawn_text(view: FlameView) -> list[str]:
    return ["".join(segment.text for segment in line) for line in view.render_lines(view.region.reset_offset)]


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_flame_view_fits_its_depth_rows_to_the_height(make_app, size):
    async with make_app().run_test(size=size) as pilot:
        screen = await open_flame(pilot)
        await pilot.press("0")  # the whole run: every IPU has blocks in the window
        view = screen.query_one(FlameView)
        height, lo_hi = view.scrollable_content_region.height, screen.nav.window
        wanted = [[d for d, row in enumerate(rows) if fl.shows_blocks(row, *lo_hi)] for rows in screen.nav.flame]
        shown = [[d for ipu, d in view.rows if ipu == i and d >= 0] for i in range(len(screen.nav.lanes))]
        assert all(s == w[: len(s)] and s for s, w in zip(shown, wanted))  # the shallowest, none empty
        assert view.hidden == sum(map(len, wanted)) - sum(map(len, shown))
        assert 1 + len(view.rows) + (1 if view.hidden else 0) <= height  # a 2-IPU report fits whole: no scroll
        text = drawn_text(view)
        assert all(f"depth {d + 1}" in "".join(text) for d in shown[0])
        if size == (80, 24):
            assert view.hidden and f"{view.hidden:,} deeper depth rows hidden" in text[height - 1]
        else:  # the taller terminal shows every depth with a block
            assert view.hidden == 0 and shown == wanted
        for _ in range(len(view.rows) + 2):  # down goes through the rows drawn, every IPU's, and stops at the last
            await pilot.press("down")
        assert (screen.nav.cursor_ipu, screen.nav.flame_cursor.depth) == view.rows[-1]


async def test_zooming_keeps_the_blocks_details_and_draws_them_once(make_app):
    """A zoom keeps the block, so its details are not drawn again; moving to the next block draws its own."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_flame(pilot)
        await pilot.press("down")
        details = screen.query_one("#details-text", Static)
        shown = str(details.render())
        updates = []
        original = details.update
        details.update = lambda *args, **kwargs: (updates.append(args), original(*args, **kwargs))
        await pilot.press("plus", "minus")
        assert updates == [] and str(details.render()) == shown
        await pilot.press("right")
        assert len(updates) == 1 and str(details.render()) != shown


async def test_the_flame_view_draws_in_ascii_on_a_basic_console(make_app, monkeypatch):
    from test_plain_look import CONSOLE_LINES

    monkeypatch.setenv("TERM", "linux")
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_flame(pilot)
        await pilot.press("down", "plus", "plus")
        view = screen.query_one(FlameView)
        text = "".join(s.text for line in view.render_lines(view.region.reset_offset) for s in line)
        assert "depth 1" in text
        assert not {c for c in text if not c.isascii() and c not in CONSOLE_LINES}


async def test_the_flame_view_draws_in_an_ansi_theme(make_app):
    async with make_app(theme="textual-ansi").run_test(size=(80, 24)) as pilot:
        screen = await open_flame(pilot)
        await pilot.press("down")
        view = screen.query_one(FlameView)
        lines = view.render_lines(view.region.reset_offset)
        assert all(segment.style is not None and segment.style.bgcolor is not None for line in lines for segment in line)


async def test_c_finds_the_costliest_name_and_p_opens_its_program(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_flame(pilot)
        await pilot.press("down", "c")
        row, block = screen.nav.flame_block
        totals: dict[int, int] = {}
        for node, cycles in zip(row.node.tolist(), row.cycles.tolist()):
            totals[node] = totals.get(node, 0) + cycles
        assert totals[int(row.node[block])] == max(totals.values())
        lo, hi = screen.nav.window
        assert lo <= row.lane.starts[block] and row.lane.ends[block] <= hi
        program = screen.nav.selected_program(screen.report.execution, screen.report.programs)
        await pilot.press("P")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ProgramsScreen) and not pilot.app.screen.opening)
        assert pilot.app.screen.selected_program() == program


# Step statistics ----------------------------------------------------------------------


def test_step_statistics_count_every_step_that_ran(tiny_report):
    execution, programs = tiny_report.execution, tiny_report.programs
    stats = step_stats(tiny_report)
    assert [run["name"] for run in stats["runs"]] == list(execution.run_names)
    for r, run in enumerate(stats["runs"]):
        lo, hi = execution.run_range(r)
        for entry in run["ipus"]:
            ipu = entry["ipu"]
            expected: dict[str, list[int]] = {}
            for step in range(lo, hi):
                if execution.cycles_from[step, ipu] < 0:
                    continue
                name = programs.type_name(int(execution.program[step]))
                counts = expected.setdefault(name, [0, 0])
                counts[0] += 1
                counts[1] += int(execution.cycles[step, ipu])
            assert {k: [v["steps"], v["cycles"]] for k, v in entry["types"].items()} == expected
            assert entry["cycles"] == sum(c for _, c in expected.values())
            for name, value in entry["types"].items():
                if name.startswith("StreamCopy"):
                    assert value["host"]["steps"] + value["remote_buffer"]["steps"] == value["steps"]


def test_trace_stats_json_and_tables(capsys, tiny_dir):
    assert main(["trace", str(tiny_dir), "--stats", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["runs"][0]["ipus"][0]["types"]["OnTileExecute"]) >= {"steps", "cycles"}
    assert main(["trace", str(tiny_dir), "--stats"]) == 0
    out = capsys.readouterr().out
    assert "OnTileExecute" in out and "host" in out


async def test_the_statistics_panel_shows_the_runs_types(make_app, monkeypatch):
    import threading

    from pvtui.screens import trace_runs

    threads = []

    def counted_where(report):
        threads.append(threading.current_thread())
        return step_stats(report)

    monkeypatch.setattr(trace_runs, "step_stats", counted_where)
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_trace(pilot)
        await pilot.press("S")
        await wait_for(pilot, lambda: stats_shown(screen))  # counted in a worker: a large report's take longer
        text = str(screen.query_one("#stats-text").render())
        assert "OnTileExecute" in text and "IPU 1" in text
        assert threads and threading.main_thread() not in threads
        await pilot.press("S")
        assert screen.nav.pane == "details"


# Two liveness steps compared ----------------------------------------------------------------


def test_liveness_step_against_step_json(capsys, tiny_dir, tiny_report):
    live = tiny_report.liveness
    a, b = live.peak_step - 1, live.peak_step
    assert main(["liveness", str(tiny_dir), "--step", str(a), "--vs", str(b), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    at_a, at_b = dict(live.live_variables(a)), dict(live.live_variables(b))
    names = live.variable_names
    assert {v["name"] for v in data["appeared"]} == {names[v] for v in at_b.keys() - at_a.keys()}
    assert {v["name"] for v in data["gone"]} == {names[v] for v in at_a.keys() - at_b.keys()}
    assert data["change_bytes"] == int(live.not_always_live[b]) - int(live.not_always_live[a])
    assert all(set(v) == {"name", "bytes"} for v in data["appeared"] + data["gone"])
    assert main(["liveness", str(tiny_dir), "--step", "0", "--vs", str(len(live) + 5)]) == 2
    assert f"no liveness step {len(live) + 5:,}: the report has steps 0 to {len(live) - 1:,}" in capsys.readouterr().err


async def test_marking_a_liveness_step_compares_the_cursor_with_it(make_app, tiny_report):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, "l", LivenessScreen)
        peak = screen.nav.cursor
        await pilot.press("b")
        for _ in range(6):
            await pilot.press("plus")
        await pilot.press("left")
        assert screen.nav.marked == peak and screen.nav.cursor < peak
        added, removed, change = live_difference(tiny_report, peak, screen.nav.cursor)
        panel = screen.query_one(LiveVariables)  # in the words of `pvtui liveness --step A --vs B`
        assert panel.heading == step_change_line(peak, screen.nav.cursor, change, len(added), len(removed),
                                                 screen.bytes)
        assert panel.heading.startswith(f"From step {peak:,} to step {screen.nav.cursor:,}: ")
        assert len(panel.variables) == min(len(added) + len(removed), 64)
        names = tiny_report.liveness.variable_names
        if added:  # those that appeared first, signed as the command signs them
            assert panel.variables[0] == (f"+{screen.bytes(added[0][1])}", names[added[0][0]])
        chart = screen.query_one(LivenessChart)
        marker_row = chart.render_line(0).text
        marked_columns = columns_of_step(peak, screen.nav.window.start, screen.nav.window.stop, chart.plot_width)
        assert {marker_row[chart.label_width + c] for c in marked_columns} == {"◇"}
        assert f"◇ Marked step {peak:,}" in str(screen.query_one("#step-facts").render())
        await pilot.press("right", "b")  # b on the marked step clears the mark
        assert screen.nav.marked is None
        assert "◇" not in chart.render_line(0).text


async def test_a_liveness_step_lists_its_compute_sets_vertices_and_estimated_cycles(make_app, tiny_report):
    live, programs = tiny_report.liveness, tiny_report.programs
    step = next(i for i, p in enumerate(np.asarray(live.program).tolist()) if programs.compute_set[p] >= 0)
    program = int(live.program[step])
    vertices = sorted(programs.compute_set_vertices(int(programs.compute_set[program])), key=lambda v: -v[1])
    assert programs.estimated_cycles(program) is not None
    async with make_app().run_test(size=(120, 40)) as pilot:
        screen = await open_screen(pilot, "l", LivenessScreen)
        screen.go_to(step)
        facts = str(screen.query_one("#step-facts").render())
        assert f"estimated {programs.estimated_cycles(program):,} cycles" in facts
        assert programs.vertex_type_names[vertices[0][0]] in facts and f"{vertices[0][1]:,}" in facts


# Program tree names by debug layer ----------------------------------------------------


async def test_l_names_the_tree_by_each_debug_layer_in_turn(make_app, tiny_report):
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot, "p", ProgramsScreen)
        tree = screen.tree
        layers = ctx.layer_names(tiny_report)
        seen = []
        for _ in range(len(layers) + 1):
            await pilot.press("L")
            seen.append(tree.name_source[0] if tree.name_source else None)
        assert seen == [*layers, None]
        await pilot.press("L", "L", "L")  # popart
        assert tree.name_source[0] == "popart"
        program = next(p for p in range(len(tiny_report.programs)) if tiny_report.programs.debug_context(p) >= 0)
        operation = tree.name_source[1](program)
        chain = ctx.context_chain(tiny_report, tiny_report.programs.debug_context(program))
        popart = [row for row in chain if tiny_report.debug.layer_names[tiny_report.debug.layer[row]] == "popart"]
        assert operation == tiny_report.debug.names[popart[-1]]
        row_text = "".join(s.text for s in tree._render_row(program, "", "", False, 80))
        assert operation in row_text


def test_programs_in_a_layer_are_those_named_by_it(tiny_report):
    for layer in ctx.layer_names(tiny_report):
        memo: dict = {}
        expected = [p for p in range(len(tiny_report.programs))
                    if ctx.name_in_layer(tiny_report, p, layer, memo) is not None]
        assert ctx.programs_in_layer(tiny_report, layer).tolist() == expected


async def test_l_says_how_many_programs_have_a_name_and_goes_to_the_first(make_app, tiny_report):
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot, "p", ProgramsScreen)
        tree = screen.tree
        layer = ctx.layer_names(tiny_report)[0]
        named = ctx.programs_in_layer(tiny_report, layer)
        await pilot.press("L")
        await wait_for(pilot, lambda: tree.cursor_program in set(named.tolist()))  # found in a worker
        programs = tiny_report.programs
        order = display_order(programs.child_offsets, programs.child_ids, programs.roots, programs.parent)
        assert tree.cursor_program == int(in_display_order(named, order)[0])
        assert tree.name_source[1](tree.cursor_program) is not None
        assert f"{len(named):,} of {len(programs):,} programs have one" in said(pilot.app)


# Small things -------------------------------------------------------------------------------


def test_one_dominant_column_puts_the_histogram_on_a_log_scale():
    heights, log = column_eighths([13_248, 3, 40, 1, 0, 2], 6)
    assert log and heights[0] == 48 and heights[4] == 0 and all(h > 1 for h in heights[1:4] if h)
    assert heights[2] > heights[1] > heights[3] >= 1
    heights, log = column_eighths([10, 30, 40, 1, 0, 2], 6)
    assert not log and heights == [12, 36, 48, 1, 0, 2]


async def test_the_trace_header_keeps_the_run_name_apart_from_the_cycles(make_app):
    async with make_app().run_test(size=(50, 24)) as pilot:
        screen = await open_trace(pilot)
        status = screen.query_one("#trace-status")
        lines = [status.render_line(y).text.strip() for y in range(status.size.height)]
        # each item whole on a line of its own (never wrapped at a space, which glued the range to the name)
        items = [item for line in lines for item in line.split(" · ")]
        assert items[0].startswith("Run 1/") and items[0].endswith("main#0"), lines
        assert re.fullmatch(r"cycles [\d,]+–[\d,]+", items[1]), lines  # counted from the run's start
        assert re.fullmatch(r"[\d.]+% of the run", items[2]) and re.fullmatch(r"IPU 0 step [\d,]+", items[3])
        assert re.fullmatch(r"the run starts at cycle [\d,]+", items[4]) and "…" not in "".join(lines)
        start = screen.nav.bounds[0]
        assert items[1] == f"cycles {screen.nav.window[0] - start:,}–{screen.nav.window[1] - start:,}"
        assert screen.nav.run == 0


# Snapshots ---------------------------------------------------------------------------------


async def _flame_costliest(pilot) -> None:
    await open_flame(pilot)
    await pilot.press("down", "c")


def stats_shown(screen) -> bool:
    """the step statistics are counted and shown"""
    return "Step statistics" in str(screen.query_one("#stats-text").render())


async def _stats_shown(pilot) -> None:
    screen = await open_trace(pilot)
    await pilot.press("S")
    await wait_for(pilot, lambda: stats_shown(screen))  # counted in a worker


async def _peak_against_the_step_before(pilot) -> None:
    await open_screen(pilot, "l", LivenessScreen)
    await pilot.press("b", *["plus"] * 6, "left")


def test_snapshot_trace_flame_80x24(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_flame_costliest)


def test_snapshot_trace_flame_160x48(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(160, 48), run_before=_flame_costliest)


def test_snapshot_trace_stats_80x24(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_stats_shown)


def test_snapshot_liveness_compare_80x24(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_peak_against_the_step_before)


def test_the_axis_counts_from_the_runs_start():
    from rich.style import Style

    from pvtui.widgets.trace_view import axis_strip

    start = 2_100_027_197
    line = axis_strip(start + 20_000, start + 160_000, 70, "cycles", Style(), origin=start).text
    labels = re.findall(r"▏(\S+)", line)
    assert labels == ["50k", "100k", "150k"] and "2100" not in line, line
