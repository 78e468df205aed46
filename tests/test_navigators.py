"""The screens' navigators, without Textual: each key's move on the Trace, Memory, Liveness, Operations
and Insights state, and the tables that say what each screen's keys need."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from pvtui.model import flame as fl
from pvtui.model import lanes as ln
from pvtui.model.navigators import trace as tv
from pvtui.model.navigators.liveness import TILE_SERIES_KEPT, LivenessNavigator, Window, columns_of_step
from pvtui.model.navigators.memory import (CHOSEN, REST, MemoryNavigator, TileMemory, VariableSearch, by_liveness,
                                          compare_tiles, max_zoom, parse_tiles, tiles_table)
from pvtui.model.trace_index import TraceIndex, steps_table
from pvtui.model.unavailable import Unavailable


def lane_of(starts, ends, first_step: int = 0) -> ln.Lane:
    starts, ends = np.array(starts, np.int64), np.array(ends, np.int64)
    return ln.Lane(np.arange(first_step, first_step + len(starts), dtype=np.int64), starts, ends,
                   np.zeros(len(starts), np.int8), np.maximum.accumulate(ends))


def two_lanes() -> tuple[ln.Lane, ...]:
    """IPU 0 runs ten steps of 100 cycles from 0; IPU 1 five of 200 from 50: cycles 0 to 1050."""
    return (lane_of(range(0, 1000, 100), range(100, 1100, 100)), lane_of(range(50, 1050, 200), range(250, 1250, 200)))


# Trace ----------------------------------------------------------------------------------------


def test_a_run_opens_whole_on_its_first_step_or_on_the_step_and_window_kept():
    nav = tv.TraceNavigator()
    nav.show_run(0, two_lanes())
    assert nav.bounds == nav.window == (0, 1050) and nav.cursor_pos == 0 and nav.selected_step == 0
    nav.cursor_ipu = 1
    nav.show_run(0, two_lanes(), keep_step=3, keep_window=(400, 800))
    assert nav.window == (400, 800) and nav.selected_step == 3 and nav.cursor_range() == (650, 850)
    nav.show_run(0, two_lanes(), keep_step=99, keep_window=(400, 800))  # not on the lane: the window's middle
    assert nav.cursor_range() == (450, 650) and nav.generation == 3


def test_steps_lanes_zoom_and_pan_keep_the_cursor_in_the_window():
    nav = tv.TraceNavigator()
    nav.show_run(0, two_lanes())
    nav.zoom(1)
    assert nav.window == (25, 550)  # half as wide, the cursor's step's middle (50) where it was
    for _ in range(8):
        assert nav.step(1)
    assert nav.cursor_pos == 8 and nav.window[0] <= 800 and 900 <= nav.window[1]
    assert nav.step(5) and nav.cursor_pos == 9  # the lane's last
    assert nav.move_row(1, rows=[]) and (nav.cursor_ipu, nav.cursor_range()) == (1, (850, 1050))  # nearest the middle
    nav.page(-1)
    assert nav.window == (0, 525)  # a window's width back from (525, 1050)
    nav.to_end(True)
    assert nav.window == (525, 1050) and nav.cursor_pos == 4
    nav.fit()
    assert nav.window == nav.bounds
    assert nav.next_of(np.array([1, 2])) is False  # no later step of those
    nav.to_end(False)
    assert nav.next_of(np.array([2, 3])) and nav.selected_step == 2 and nav.window == (400, 700)


def test_a_lane_without_steps_moves_nothing():
    nav = tv.TraceNavigator()
    nav.show_run(0, (lane_of([], []),))
    assert nav.cursor_pos == -1 and nav.selected_step == -1 and nav.cursor_range() is None
    assert not nav.step(1) and nav.move_row(1, rows=[]) and nav.bounds == (0, tv.MIN_SPAN)
    assert not tv.TraceNavigator().move_row(1, rows=[])  # no lanes at all


def flame_of(lane: ln.Lane) -> tuple[fl.Nesting, list[fl.FlameRow]]:
    """Steps 0-3 in a/b (a/b, a/b, a/c, a/c), 4-9 in d: depth 0 has blocks a, d; depth 1 b, c."""
    nesting = fl.Nesting(np.array([[0, 1], [0, 2], [3, -1]], np.int32), ["a", "b", "c", "d"], np.zeros(3, bool))
    programs = np.array([0, 0, 1, 1, 2, 2, 2, 2, 2, 2])
    cycles = np.array([10, 10, 100, 100, 30, 30, 30, 30, 30, 30])
    return nesting, fl.flame_rows(lane, programs, cycles, nesting)


def test_the_flame_cursor_goes_down_the_depth_rows_and_along_their_blocks():
    lanes = two_lanes()
    nav = tv.TraceNavigator()
    nav.show_run(0, lanes)
    _, rows = flame_of(lanes[0])
    nav.flame = (rows, [])
    drawn = [(0, -1), (0, 0), (0, 1), (1, -1)]  # the rows the flame view draws
    nav.move_row(1, drawn)
    assert nav.flame_cursor == tv.FlameCursor(0, 0) and nav.flame_block == (rows[0], 0)
    assert nav.cursor_range() == (0, 400)  # block a: steps 0-3
    nav.step(1)
    assert nav.flame_cursor.block == 1 and nav.cursor_pos == 4  # block d starts at step 4
    nav.step(1)
    assert nav.flame_block == (rows[0], 1)  # the last block of the row
    nav.step(-1)
    nav.move_row(1, drawn)
    assert nav.flame_cursor == tv.FlameCursor(1, 0)  # b, under the cursor's step
    nav.move_row(1, drawn)
    assert (nav.cursor_ipu, nav.flame_cursor.depth, nav.flame_block) == (1, -1, None)
    nav.move_row(-3, drawn)
    assert nav.cursor_ipu == 0 and nav.flame_cursor.depth == -1


def test_costliest_goes_to_the_largest_block_of_the_costliest_name():
    lanes = two_lanes()
    nav = tv.TraceNavigator()
    nav.show_run(0, lanes)
    assert not nav.costliest()  # not in the flame view
    _, rows = flame_of(lanes[0])
    nav.flame = (rows, [])
    assert nav.costliest() and nav.flame_cursor == tv.FlameCursor(0, 0)  # a: 220 cycles against d's 180
    nav.flame_cursor = tv.FlameCursor(1, 0)
    assert nav.costliest() and nav.flame_cursor == tv.FlameCursor(1, 1)  # c: 200 against b's 20
    assert nav.cursor_pos == 2 and nav.window[0] <= 200 and 400 <= nav.window[1]


def test_costliest_skips_the_host_waits_until_they_are_included():
    lanes = two_lanes()
    nav = tv.TraceNavigator()
    nav.show_run(0, lanes)
    nesting, _ = flame_of(lanes[0])
    host = np.array([False] * 4 + [True] * 6)  # d's steps wait on the host
    rows = fl.flame_rows(lanes[0], np.array([0, 0, 1, 1, 2, 2, 2, 2, 2, 2]),
                         np.array([10, 10, 10, 10, 300, 30, 30, 30, 30, 30]), nesting, host)
    assert rows[0].host.tolist() == [False, True] and rows[1].host.tolist() == [False, False]
    nav.flame = (rows, [])
    assert nav.costliest() and nav.flame_cursor == tv.FlameCursor(0, 0)  # a (40), not d (450): d waits
    nav.toggle_host_waits()
    assert nav.costliest() and nav.flame_cursor == tv.FlameCursor(0, 1)
    nav.toggle_host_waits()
    nav.flame = ([fl.flame_rows(lanes[0], np.full(10, 2), np.full(10, 5), nesting, np.ones(10, bool))[0]], [])
    assert not nav.costliest()  # nothing but host waits at this depth


def test_a_run_opens_on_a_stretch_of_its_steps():
    nav = tv.TraceNavigator()
    nav.show_run(0, two_lanes())
    nav.open_at(1, 1, 3)  # IPU 1's steps 1-2: cycles 250 to 650
    assert (nav.cursor_ipu, nav.cursor_pos) == (1, 1) and nav.window == (230, 670)
    nav.open_at(1, 4, 9)  # past the lane's end: nothing moves
    assert nav.window == (230, 670)


def test_an_operations_steps_are_followed_in_turn():
    nav = tv.TraceNavigator()
    assert nav.next_operation_step() is None and not nav.following
    nav.follow("op", [5, 7])
    assert [nav.next_operation_step() for _ in range(3)] == [5, 7, 5]
    nav.follow("op", [5, 7])  # the same operation: on from where it was
    assert nav.next_operation_step() == 7
    nav.follow("other", [9])
    assert nav.next_operation_step() == 9 and nav.operation_at == 0


def test_a_step_opens_in_its_run_on_its_first_ipu(tiny_report):
    execution = tiny_report.execution
    step = int(execution.run_step_offsets[1]) + 3
    run, ipu, window = tv.step_place(execution, step)
    first = int(np.flatnonzero(np.asarray(execution.cycles_from[step]) >= 0)[0])
    start, end = int(execution.cycles_from[step, first]), int(execution.cycles_to[step, first])
    assert (run, ipu) == (1, first) and window[0] < start and end < window[1]
    nav = tv.TraceNavigator()
    index = TraceIndex(tiny_report)
    nav.cursor_ipu = ipu
    nav.show_run(run, index.index_run(run), keep_step=step, keep_window=window)
    assert nav.selected_step == step
    assert nav.selected_program(execution, tiny_report.programs) == int(execution.program[step])


def test_the_index_builds_each_part_once_and_its_table_lists_every_step(tiny_report):
    index = TraceIndex(tiny_report)
    lanes = index.index_run(0)
    assert index.lanes == {0: lanes} and len(lanes) == tiny_report.execution.num_ipus
    assert index.names == [] and index.nesting is None
    index.nest_run(0)
    execution = tiny_report.execution
    assert index.run_cycles[0] == tuple(int(np.asarray(execution.cycles[:, ipu])[lane.steps].sum())
                                        for ipu, lane in enumerate(lanes))
    assert len(index.flames[0]) == len(lanes) and index.names
    lo, hi = execution.run_range(0)
    assert len(list(steps_table(tiny_report, 0).rows)) == hi - lo


# Memory ---------------------------------------------------------------------------------------


def memory_of(totals: list[int], ipus: list[int], gaps: int = 0, limit: int | None = 100) -> TileMemory:
    by_category = np.array([[t - t // 4, t // 4] for t in totals], np.int64)
    return TileMemory("profile", ("code", "data"), by_category, by_category.sum(axis=1) + gaps,
                      by_category.sum(axis=1), np.array(ipus, np.int64), limit,
                      always_live=by_category[:, 0], not_always_live=by_category[:, 1], has_gaps=True)


def test_the_ipu_filter_the_worst_tile_and_the_zoom():
    nav = MemoryNavigator()
    assert nav.load(memory_of([10, 90, 50, 70], [0, 0, 1, 1]), tile=7) == 0  # no tile 7: the first
    assert nav.worst() == 1 and nav.has_ipus and nav.has_gaps
    nav.next_ipu()
    assert nav.ipu_filter == 0 and nav.tiles.tolist() == [0, 1]
    nav.next_ipu()
    assert nav.ipu_filter == 1 and nav.worst() == 3
    nav.next_ipu()
    assert nav.ipu_filter is None
    nav.zoomed(-1, rows=1)
    assert nav.zoom == 2 == max_zoom(4, 2)
    nav.zoomed(-1, rows=1)
    assert nav.zoom == 4  # four tiles in one row: no further
    nav.zoomed(-1, rows=1)
    assert nav.zoom == 4
    nav.zoomed(1, rows=1)
    assert nav.zoom == 2


@pytest.mark.parametrize("ipus", [[0], [3, 1, 3, 0, 1], [2, 2, 2], [5, 0]])
def test_the_tiles_ipus_are_each_ipu_once_in_order(ipus):
    assert memory_of([10] * len(ipus), ipus).ipus == tuple(np.unique(np.array(ipus, np.int64)).tolist())


def test_a_reload_keeps_what_still_applies():
    nav = MemoryNavigator()
    nav.load(memory_of([10, 90, 50, 70], [0, 0, 1, 1]), None)
    nav.ipu_filter, nav.gaps, nav.colour_by = 1, True, "data"
    assert nav.load(memory_of([10, 90], [0, 0]), tile=1) == 1
    assert nav.ipu_filter is None and nav.colour_by == "data"
    archive = TileMemory("archive", ("code",), np.array([[5]]), np.array([5]), np.array([5]), np.array([-1]), None)
    nav.load(archive, None)
    assert not nav.gaps and nav.colour_by == "total" and not nav.has_ipus
    nav.load(None, None)
    assert not nav.has_tiles


def test_the_map_colours_by_each_choice_in_turn_and_by_the_variable_chosen():
    nav = MemoryNavigator()
    nav.load(memory_of([10, 90], [0, 0], gaps=4), None)
    assert nav.colour_choices() == ["total", "always-live", "not-always-live", "code", "data"]
    values = nav.map_values(None, str)
    assert values.name == "total incl. gaps" and values.values.tolist() == [14, 94] and values.limit == 100
    nav.gaps = False
    assert nav.map_values(None, str).name == "total excl. gaps"
    nav.next_colour()
    assert nav.colour_by == "always-live" and nav.map_values(None, str).scale == 68
    lowered = SimpleNamespace(bytes_by_tile=lambda variable: np.array([0, variable]))
    assert nav.choose(3) and nav.colour_by == CHOSEN and nav.colour_choices()[-1] == CHOSEN
    assert not nav.choose(3)  # already chosen
    chosen = nav.map_values(lowered, lambda values: f"v on {int(values.sum())}")
    assert chosen.name == "v on 3" and chosen.limit is None
    assert nav.choose(None) and nav.colour_by == "total" and CHOSEN not in nav.colour_choices()


def test_the_keys_facts_follow_the_view_the_search_and_the_tab():
    nav = MemoryNavigator()
    assert not (nav.has_tiles or nav.searching or nav.searched or nav.variables_listed) and nav.bars_shown
    nav.search.open = True
    assert nav.searching and nav.searched
    nav.search.open, nav.search.variable = False, 2
    assert nav.searched and not nav.searching
    nav.tab, nav.tab_table = "variables", True
    assert nav.variables_listed
    nav.map_shown = True
    assert not nav.bars_shown


def test_the_variable_search_steps_through_its_matches(tiny_report):
    lowered = tiny_report.lowered
    search = VariableSearch()
    found = lowered.find("grad/tmp")
    assert search.find(lowered, "grad/tmp") == int(found[0]) and len(search.matches) == len(found) > 1
    assert search.stepped(1) is None  # nothing chosen yet
    search.variable = int(found[0])
    assert search.stepped(1) == int(found[1]) and search.stepped(-1) == int(found[-1])
    search.variable = int(found[1])
    assert search.index == 1 and np.array_equal(search.bytes_by_tile(lowered), lowered.bytes_by_tile(int(found[1])))
    assert search.find(lowered, "") is None and search.find(None, "x") is None
    search.only(5)
    assert search.matches.tolist() == [5]
    search.forget()
    assert search.variable is None and not len(search.matches)


def test_the_tiles_table_keeps_the_filter():
    memory = memory_of([10, 90, 50], [0, 0, 1], gaps=1)
    table = tiles_table(memory, 0)
    assert table.name == "memory-tiles-ipu0"
    assert [row[:4] for row in table.rows] == [[0, 0, 11, 10], [1, 0, 91, 90]]


# Liveness -------------------------------------------------------------------------------------


def test_liveness_opens_at_the_peak_and_moves_within_the_steps(tiny_report):
    live = tiny_report.liveness
    n = len(live)
    nav = LivenessNavigator()
    nav.load(n, None, peak=live.peak_step)
    assert nav.cursor == live.peak_step and nav.window == Window(0, n) and nav.has_steps
    nav.zoom(1)
    assert nav.window.span == n // 2 and nav.window.start <= nav.cursor < nav.window.stop
    nav.to_end(True)
    assert nav.cursor == n - 1 and nav.window.stop == n
    nav.go_to(-5)
    assert nav.cursor == 0 and nav.window.start == 0
    nav.move(1, width=10)
    assert columns_of_step(nav.cursor, nav.window.start, nav.window.stop, 10).start == 1
    nav.page(1)
    assert nav.cursor == 1 * nav.window.span // 10 + nav.window.span
    nav.fit()
    assert nav.window == Window(0, n)


def test_the_mark_and_a_reload(tiny_report):
    n = len(tiny_report.liveness)
    nav = LivenessNavigator()
    nav.load(n, 4, peak=n - 1)
    nav.mark()
    assert nav.marked == n - 1
    nav.tile = 9
    nav.load(n // 2, 4)  # a shorter report: the cursor, mark and tile within it
    assert nav.cursor == n // 2 - 1 and nav.marked is None and nav.tile == 3
    nav.mark()
    nav.mark()
    assert nav.marked is None


def test_each_view_has_its_series_and_a_tile_is_read_once(tiny_report):
    live = tiny_report.liveness
    nav = LivenessNavigator()
    nav.load(len(live), live.by_tile.shape[1], peak=live.peak_step)
    total, why_not = nav.series(tiny_report)
    assert why_not is None and total.label == "all IPUs" and nav.series(tiny_report)[0] is total
    nav.view = "ipu"
    nav.ipu = live.by_ipu.shape[1]  # wraps to IPU 0
    assert nav.series(tiny_report)[0].label == "IPU 0" and nav.ipu == 0 and nav.ipu_view
    nav.view = "tile"
    assert nav.series(tiny_report) == (None, None) and nav.tile_view
    tile = nav.tile
    assert nav.tile_to_read() == tile and nav.tile_to_read() is None  # once
    column = np.asarray(live.by_tile[:, tile], np.int64)
    assert nav.tile_read(tile, tv_series := _series_of(column))
    assert nav.series(tiny_report)[0] is tv_series and nav.reading is None
    for other in range(TILE_SERIES_KEPT):
        assert not nav.tile_read(tile + 1 + other, _series_of(column))
    nav.next_tile(0)
    assert nav.series(tiny_report) == (None, None)  # the oldest tile's series was let go


def _series_of(column):
    from pvtui.model.navigators.liveness import StepSeries

    return StepSeries("tile", column, None, None)


def test_a_report_without_per_tile_liveness_says_why(tiny_report, monkeypatch):
    nav = LivenessNavigator()
    nav.view = "tile"
    monkeypatch.setattr(tiny_report.liveness, "by_tile", None, raising=False)
    series, why_not = nav.series(tiny_report)
    assert series is None and why_not == Unavailable(tiny_report.missing("liveness_tiles"))


# Operations -------------------------------------------------------------------------------------


@pytest.fixture
def operations_nav(tiny_report):
    """The Operations navigator over the tiny report (131 operations), its model layers read."""
    from pvtui.model.layers import build_tree, layer_figures
    from pvtui.model.navigators.operations import OperationsNavigator

    nav = OperationsNavigator()
    nav.open(tiny_report)
    nav.choose_group(len(tiny_report.operations), rows=12)
    assert nav.group == "layer" and nav.to_read() == "layers" and not nav.ready
    nav.layers_read(layer_figures(tiny_report, build_tree(tiny_report)))
    nav.rows()
    return nav


def test_model_layers_open_and_close_as_the_program_tree_does(operations_nav):
    nav = operations_nav
    first = nav.nodes[0]
    nav.select(0)
    assert nav.selected_node() == first and nav.selected_row() is None
    assert nav.fold(True) == str(first) and first in nav.outline.expanded  # right opens it
    nav.rows()
    assert nav.fold(True) == str(nav.nodes[1]) and nav.outline.tree.parent[nav.nodes[1]] == first  # its first row
    nav.select(1)
    assert nav.fold(False) == str(first)  # left on a closed row: the row above it
    nav.select(len(nav.nodes))  # past the nodes: where a filter puts its total row
    assert nav.selected_node() is None and nav.fold(None) is None and not nav.row_has_steps
    assert nav.export_table().name == "operations-model-layers"


def test_a_reload_reopens_the_model_layers_that_were_open(operations_nav, tiny_report):
    from pvtui.model.layers import build_tree, layer_figures

    nav = operations_nav
    opened = nav.nodes[0]
    nav.outline.expanded = {opened}
    nav.open(tiny_report)
    assert nav.outline is None and not nav.ready and nav.group == "layer"
    nav.layers_read(layer_figures(tiny_report, build_tree(tiny_report)))
    assert nav.outline.expanded == {opened}


def test_a_debug_layers_operations_sort_filter_and_say_what_the_row_has(operations_nav):
    nav = operations_nav
    nav.toggle_group()
    assert nav.by_operation and nav.to_read() == "operations"
    layer = nav.layer_to_read(None)
    nav.operations_read(nav.index.layer(layer))
    assert layer == nav.layer_name == "popart" and nav.next_layer(1) == "poplibs" and nav.next_layer(-1) == "onnx"
    nav.rows()
    assert len(nav.shown) == 131 and nav.layer_not_empty
    nav.next_sort()
    nav.rows()
    assert nav.sort == "code" and [r.code_bytes for r in nav.shown] == sorted((r.code_bytes for r in nav.shown),
                                                                              reverse=True)
    nav.filter_open = True
    nav.filter("gelu")
    nav.rows()
    assert nav.filtering and nav.shown and all("gelu" in r.name.lower() for r in nav.shown)
    idle = next(i for i, row in enumerate(nav.shown) if row.steps == 0)
    nav.select(idle)
    assert not nav.row_has_steps and nav.selected_steps() == ("", []) and nav.row_has_program
    ran = next(i for i, row in enumerate(nav.shown) if row.steps)
    nav.select(ran)
    name, steps = nav.selected_steps()
    assert nav.row_has_steps and name == nav.shown[ran].name and len(steps) == nav.shown[ran].steps
    nav.select(len(nav.shown))  # the filter's total
    assert nav.selected_row() is None and not nav.row_has_steps and not nav.row_has_program
    nav.filter("")
    assert not nav.filtering and nav.export_table().name == "operations-popart"


# Insights ---------------------------------------------------------------------------------------


def test_insights_sections_wrap_and_the_split_keeps_within_one_ipu_and_its_layers():
    from pvtui.model.navigators.insights import MAX_IPUS, InsightsNavigator

    nav = InsightsNavigator()
    assert nav.go(1, 7) is None and nav.section == 0  # the insights are not in yet
    nav.data = {}
    assert nav.go(-1, 7) == 6 and nav.go(1, 7) == 0
    assert not nav.split_over(1) and not nav.split_shown  # no split in yet: nothing changes
    assert nav.split_in({"available": True, "layers": ["a"] * 40}) is None and nav.most_ipus() == MAX_IPUS
    assert nav.split_shown and nav.split_over(1) and nav.ipus == 3
    nav.ipus = 1
    assert not nav.fewer_ipus_fit and not nav.split_over(-1) and nav.ipus == 1
    nav.ipus = 5
    assert nav.split_in({"available": True, "layers": ["a", "b", "c"]}) == 3  # a reload left three layers
    assert nav.ipus == 3 and not nav.more_ipus_fit and not nav.split_over(1)
    assert nav.split_in(Unavailable("no layers")) is None and not nav.split_shown
    nav.forget()
    assert nav.data is None and nav.split is None and nav.ipus == 3


# The keys' tables -------------------------------------------------------------------------------


def test_a_key_is_hidden_dimmed_or_usable_by_the_facts_it_needs():
    from pvtui.screens.base import Needs

    needs = Needs(shown=("a",), usable=("b",))
    assert needs.state(SimpleNamespace(a=True, b=True)) is True
    assert needs.state(SimpleNamespace(a=True, b=False)) is None
    assert needs.state(SimpleNamespace(a=False, b=True)) is False
    assert (Needs(shown=("a",)) + Needs(usable=("b",))) == needs


@pytest.mark.parametrize("module, name", [
    ("screens.memory", "MemoryScreen"), ("screens.liveness", "LivenessScreen"), ("screens.trace", "TraceScreen"),
    ("screens.programs", "ProgramsScreen"), ("screens.operations", "OperationsScreen"),
    ("screens.summary", "SummaryScreen"), ("screens.insights", "InsightsScreen"), ("screens.compare", "CompareScreen"),
    ("screens.dialogs", "ReportPicker"), ("app", "PvtuiApp"),
])
def test_every_fact_a_screen_names_is_one_its_navigator_or_it_has(module, name):
    import importlib

    from pvtui.screens.base import Needs

    screen = getattr(importlib.import_module(f"pvtui.{module}"), name)
    navigator = getattr(screen, "NAVIGATOR", None)
    source = navigator() if navigator is not None else screen
    every = getattr(screen, "EVERY_KEY", Needs())
    facts = {fact for needs in (every, *screen.KEYS.values()) for fact in needs.shown + needs.usable}
    assert facts and all(hasattr(source, fact) for fact in facts), sorted(f for f in facts if not hasattr(source, f))
    actions = {binding.action.split("(")[0] for binding in screen.BINDINGS}
    assert {key.split("(")[0] for key in screen.KEYS} <= actions  # no entry for a key the screen lacks
    assert all(hasattr(screen, f"action_{action}") for action in actions)


def test_the_programs_navigator_opens_the_first_root_and_a_new_tree_forgets_the_search():
    from pvtui.model.navigators.programs import ProgramsNavigator

    # roots 0 and 2; 0 holds 1
    programs = SimpleNamespace(child_offsets=np.array([0, 1, 1, 1]), child_ids=np.array([1]), roots=np.array([0, 2]))
    nav = ProgramsNavigator()
    assert not nav.has_tree and nav.cursor_program is None
    rows = nav.load(programs)
    assert nav.has_tree and rows.program.tolist() == [0, 1, 2] and nav.cursor_program == 0
    rows.cursor = 2
    assert nav.cursor_program == 2
    nav.finder.matches, nav.searching = np.array([1]), True
    assert nav.has_matches
    nav.load(programs)
    assert not nav.has_matches and not nav.searching and nav.cursor_program == 0
    assert nav.load(None) is None and not nav.has_tree


def test_by_liveness_breaks_the_bytes_excluding_gaps_down_and_names_what_neither_part_counts():
    def memory(always, not_always):
        return TileMemory("profile", ("a", "b"), np.array([[60, 40], [30, 10]]), np.array([120, 40]),
                          np.array([100, 40]), np.array([0, 0]), 200, always, not_always, has_gaps=True)

    assert by_liveness(memory(None, None)) is None
    added_up = by_liveness(memory(np.array([70, 40]), np.array([30, 0])))
    assert added_up.categories == ("always-live", "not-always-live") and added_up.by_category.tolist() == [[70, 30], [40, 0]]
    short = by_liveness(memory(np.array([50, 40]), np.array([30, 0])))
    assert short.categories[-1] == REST and short.by_category[:, -1].tolist() == [20, 0]
    assert short.including_gaps.tolist() == [120, 40]  # the gaps are the bars' as before
    nav = MemoryNavigator()
    nav.load(memory(np.array([70, 40]), np.array([30, 0])), None)
    nav.bars_by_liveness = True
    assert nav.has_tile_liveness and nav.bars.categories == ("always-live", "not-always-live")
    nav.load(memory(None, None), None)  # a reload without per-tile liveness: the categories again
    assert not nav.has_tile_liveness and not nav.bars_by_liveness and nav.bars.categories == ("a", "b")


def test_several_marks_compare_each_step_with_the_one_before(tiny_report):
    from pvtui.model.navigators.liveness import compare_steps
    from pvtui.model.queries import live_difference

    n = len(tiny_report.liveness)
    nav = LivenessNavigator()
    nav.load(n, 4, peak=0)
    for step in (5, 1, 3):
        nav.go_to(step)
        nav.mark()
    nav.go_to(2)
    assert nav.marks == [5, 1, 3] and nav.marked == 3 and nav.compared == [1, 2, 3, 5] and nav.several_marked
    columns = compare_steps(tiny_report, nav.compared)
    assert [c.step for c in columns] == [1, 2, 3, 5] and columns[0].change is None and columns[0].appeared is None
    appeared, gone, change = live_difference(tiny_report, 3, 5)
    assert columns[3].change == change == columns[3].not_always_live - columns[2].not_always_live
    assert columns[3].appeared == (len(appeared), sum(size for _v, size in appeared))
    assert columns[3].gone == (len(gone), sum(size for _v, size in gone))
    nav.load(4, 4)  # a shorter report: the marks within it kept
    assert nav.marks == [1, 3]


def test_a_typed_list_of_tiles_and_the_tiles_side_by_side():
    assert parse_tiles("3,17, 1461", 1472) == [3, 17, 1461] and parse_tiles("8-11,9 2", 20) == [8, 9, 10, 11, 2]
    assert parse_tiles("3,1472", 1472) == "no tile 1472: tiles are 0 to 1,471"
    assert parse_tiles("x", 10).startswith("not a tile number") and parse_tiles(" , ", 10) == "no tile listed"
    assert parse_tiles("5-3", 10).startswith("no tile") and parse_tiles("0-99", 1000) == "more than 64 tiles"
    memory = TileMemory("profile", ("a", "b"), np.array([[60, 40], [30, 10], [5, 5]]), np.array([120, 40, 10]),
                        np.array([100, 40, 10]), np.array([0, 0, 1]), 200, np.array([70, 40, 10]),
                        np.array([30, 0, 0]), has_gaps=True)
    names, rows = compare_tiles(memory, [2, 0])
    assert names == ["including gaps", "excluding gaps", "always-live", "not-always-live", "a", "b"]
    assert rows == [[10, 120], [10, 100], [10, 70], [0, 30], [5, 60], [5, 40]]
    nav = MemoryNavigator()
    nav.load(memory, None)
    nav.mark_tile(2), nav.mark_tile(0), nav.mark_tile(2)
    assert nav.marked_tiles == [0]
