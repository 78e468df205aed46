"""The trace's arithmetic on small hand-built arrays: lanes, columns, windows, BSP."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pvtui.model import lanes as ln
from pvtui.model.navigators import trace as tv
from pvtui.model.step_types import PHASES

COMPUTE, EXCHANGE, SYNC = (PHASES.index(p) for p in ("compute", "exchange", "sync"))


def lane_of(spans: list[tuple[int, int]], phases: list[int] | None = None) -> ln.Lane:
    starts = np.array([a for a, _ in spans], dtype=np.int64)
    ends = np.array([b for _, b in spans], dtype=np.int64)
    ph = np.array(phases if phases is not None else [COMPUTE] * len(spans), dtype=np.int8)
    return ln.Lane(np.arange(len(spans), dtype=np.int64), starts, ends, ph, np.maximum.accumulate(ends))


def test_step_phases_follow_program_types():
    types = np.array([0, 1, 2])
    names = ["OnTileExecute", "DoExchange", "Mystery"]
    phases = ln.step_phases(np.array([0, 1, 2, -1, 7]), types, names)
    assert [PHASES[p] for p in phases] == ["compute", "exchange", "other", "other", "other"]
    assert list(ln.step_phases(np.array([0, 1]), None, [])) == [ln.OTHER, ln.OTHER]


def test_build_lanes_sorts_by_start_and_skips_steps_that_did_not_run():
    cycles_from = np.array([[10, -1], [0, 5], [20, 15]])
    cycles_to = np.array([[20, -1], [10, 15], [30, 25]])
    phases = np.array([COMPUTE, EXCHANGE, SYNC], dtype=np.int8)
    lanes = ln.build_lanes(cycles_from, cycles_to, phases, first_step=100)
    assert lanes[0].steps.tolist() == [101, 100, 102]
    assert lanes[0].starts.tolist() == [0, 10, 20]
    assert lanes[0].phases.tolist() == [EXCHANGE, COMPUTE, SYNC]
    assert lanes[1].steps.tolist() == [101, 102]
    assert tv.run_span(lanes) == (0, 30)


def test_run_span_of_an_empty_run():
    empty = ln.build_lanes(np.full((2, 1), -1), np.full((2, 1), -1), np.zeros(2, np.int8), 0)
    assert tv.run_span(empty) == (0, tv.MIN_SPAN)


def test_build_lanes_of_a_run_with_no_steps_and_of_one_ipu_column():
    lanes = ln.build_lanes(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0, np.int8), first_step=7)
    assert [len(lane) for lane in lanes] == [0, 0]
    assert tv.run_span(lanes) == (0, tv.MIN_SPAN)
    single = ln.build_lanes(np.array([5, 0]), np.array([9, 5]), np.array([COMPUTE, SYNC], np.int8), 0)
    assert len(single) == 1 and single[0].steps.tolist() == [1, 0]


def test_column_cells_one_step_per_column_when_zoomed_in():
    lane = lane_of([(0, 10), (10, 20), (25, 40)])
    cells, several = tv.column_cells(lane, 0, 40, 8)  # 5 cycles a column
    assert cells.tolist() == [0, 0, 1, 1, tv.IDLE, 2, 2, 2]  # [20, 25) is the gap
    assert not several.any()
    cells, several = tv.column_cells(lane, 0, 40, 2)  # 20 cycles a column
    assert cells.tolist() == [1, 2] and several.tolist() == [True, False]


def test_column_cells_many_steps_per_column():
    spans = [(i * 10, i * 10 + 10) for i in range(1000)]
    lane = lane_of(spans)
    cells, several = tv.column_cells(lane, 0, 10_000, 10)
    assert cells.tolist() == [50 + 100 * c for c in range(10)]  # the step under each centre
    assert several.all()


def test_column_cells_falls_back_to_a_step_overlapping_the_column():
    lane = lane_of([(0, 2), (90, 100)])
    cells, _ = tv.column_cells(lane, 0, 100, 1)  # centre 50 is idle, both steps overlap
    assert cells.tolist() == [1]


def test_position_at_picks_covering_else_nearest():
    lane = lane_of([(0, 10), (20, 30)])
    assert tv.position_at(lane, 5) == 0
    assert tv.position_at(lane, 12) == 0
    assert tv.position_at(lane, 19) == 1
    assert tv.position_at(lane, 500) == 1
    assert tv.position_at(lane, -5) == 0
    assert tv.position_at(lane_of([]), 5) == -1
    assert tv.position_of_step(lane, 1) == 1 and tv.position_of_step(lane, 9) == -1


def test_zoom_keeps_the_anchor_in_place():
    bounds = (0, 1000)
    window = tv.zoom(bounds, anchor=250, factor=0.5, bounds=bounds)
    assert window == (125, 625)
    assert window[0] <= 250 < window[1]
    assert tv.zoom(window, 250, 2.0, bounds) == (0, 1000)
    assert tv.zoom((0, 40), 20, 0.01, bounds)[1] - tv.zoom((0, 40), 20, 0.01, bounds)[0] == tv.MIN_SPAN


@given(
    lo=st.integers(0, 10_000),
    span=st.integers(tv.MIN_SPAN, 10_000),
    share=st.floats(0, 1),
    factor=st.sampled_from([0.5, 2.0]),
)
def test_zoom_stays_inside_the_run_and_contains_the_anchor(lo, span, share, factor):
    bounds = (0, 20_000)
    window = tv.clamp_window(lo, lo + span, bounds)
    anchor = window[0] + share * (window[1] - window[0] - 1)
    new = tv.zoom(window, anchor, factor, bounds)
    assert bounds[0] <= new[0] < new[1] <= bounds[1]
    assert new[0] <= anchor <= new[1]


def test_pan_and_show_range_clamp_to_the_run():
    bounds = (0, 1000)
    assert tv.pan((0, 100), 0.25, bounds) == (25, 125)
    assert tv.pan((0, 100), -0.25, bounds) == (0, 100)
    assert tv.pan((900, 1000), 0.25, bounds) == (900, 1000)
    assert tv.show_range((0, 100), 150, 160, bounds) == (60, 160)
    assert tv.show_range((200, 300), 150, 160, bounds) == (150, 250)
    assert tv.show_range((0, 100), 10, 20, bounds) == (0, 100)
    assert tv.show_range((0, 100), 300, 700, bounds) == (450, 550)


def test_axis_ticks_are_round_numbers_in_range():
    ticks = tv.axis_ticks(0, 1_000_000, 120)
    assert [label for _, label in ticks] == [f"{k}k" for k in range(0, 1000, 100)]
    assert [column for column, _ in ticks] == list(range(0, 120, 12))
    deep = tv.axis_ticks(2_100_030_000, 2_100_090_000, 60)  # far from zero, zoomed in: labels stay distinct
    assert [label for _, label in deep] == ["2100040k", "2100060k", "2100080k"]
    assert tv.compact_cycles(1_250_000, 250_000) == "1250k" and tv.compact_cycles(4_000_000, 2_000_000) == "4M" and tv.compact_cycles(500) == "500"
    assert tv.axis_ticks(5, 5, 80) == []


def test_tile_groups_cover_every_tile_once():
    groups = tv.tile_groups(1472, 10)
    assert len(groups) <= 10
    assert groups[0][0] == 0 and groups[-1][1] == 1472
    assert all(a[1] == b[0] for a, b in zip(groups, groups[1:]))
    assert tv.tile_groups(0, 5) == []


def test_busy_fractions_count_tiles_still_working():
    tile_cycles = np.array([[10, 20, 30, 40], [10, 20, 30, 40]])
    assert tv.busy_fractions(tile_cycles, np.array([5, 25])).tolist() == [1.0, 0.5]


def test_bsp_frame_reads_the_rows_of_the_steps_shown():
    lane = lane_of([(0, 100), (100, 200)], [COMPUTE, EXCHANGE])
    bsp_steps = np.array([1])  # only step 1 has per-tile cycles
    bsp_cycles = np.array([[10, 50, 100, 0, 7, 7]], dtype=np.int32)  # 2 IPUs of 3 tiles
    tiles = tv.ipu_tiles(0, 6, 2, 3)
    frame = tv.bsp_frame(lane, (0, 200), 4, bsp_steps, bsp_cycles, tiles)
    assert frame.phases.tolist() == [tv.IDLE, tv.IDLE, EXCHANGE, EXCHANGE]
    assert frame.offsets.tolist()[2:] == [25.0, 75.0]
    assert tv.busy_fractions(frame.tile_cycles, frame.offsets)[2:].tolist() == pytest.approx([2 / 3, 1 / 3])
    assert (frame.steps_with_data, frame.steps_shown) == (1, 2)
    assert tv.ipu_tiles(1, 6, 2, None) == slice(3, 6)


def test_bsp_frame_without_any_rows():
    lane = lane_of([(0, 100)])
    no_steps, no_cycles = np.array([], dtype=np.int64), np.zeros((0, 4), np.int32)
    frame = tv.bsp_frame(lane, (0, 100), 3, no_steps, no_cycles, slice(0, 4))
    assert frame.phases.tolist() == [tv.IDLE] * 3 and frame.steps_with_data == 0


def test_next_position_in_finds_the_next_step_with_rows():
    lane = lane_of([(0, 10), (10, 20), (20, 30), (30, 40)])
    assert tv.next_position_in(lane, 0, np.array([2, 3])) == 2
    assert tv.next_position_in(lane, 2, np.array([2, 3])) == 3
    assert tv.next_position_in(lane, 3, np.array([2, 3])) == -1
    assert tv.next_position_in(lane, -1, np.array([], dtype=np.int64)) == -1
    assert tv.around(100, 200, (0, 1000)) == (75, 225)


def test_a_view_key_again_goes_back_and_the_merged_view_leaves_the_bsp_pane():
    nav = tv.TraceNavigator()
    assert (nav.view, nav.pane) == ("lanes", "details")
    nav.toggle_view("flame")
    nav.flame_cursor = tv.FlameCursor(depth=2, block=5)
    nav.toggle_pane("bsp")
    assert (nav.view, nav.pane) == ("flame", "bsp")
    nav.toggle_view("merged")  # from the top, and not over the BSP view (one IPU's steps)
    assert (nav.view, nav.pane, nav.flame_cursor) == ("merged", "details", tv.FlameCursor())
    nav.toggle_view("merged")
    assert nav.view == "flame"  # back to the view it came from
    nav.toggle_view("flame")
    assert nav.view == "lanes"
    nav.toggle_pane("stats")
    nav.toggle_pane("stats")
    assert nav.pane == "details"


def test_what_the_view_waits_for():
    nav = tv.TraceNavigator()
    assert nav.waiting_for(None) is None
    nav.show_view("flame")
    assert nav.waiting_for(None) == "nesting the steps…"
    nav.show_view("merged")
    assert nav.waiting_for("no programs.json") == "no merged view: no programs.json"
    assert nav.waiting_for(None) == "merging the run's steps by model layer…"
    nav.flame = ()
    assert nav.waiting_for(None) is None
