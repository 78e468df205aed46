"""The Trace screen: keyboard flows, the BSP panel, reload, and snapshots."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import wait_until_loaded
from rich.style import Style

from pvtui.screens.base import Unavailable
from pvtui.screens.trace import TraceScreen, format_seconds, step_details
from pvtui.widgets.bsp_view import LEVELS, BspView, busy_levels
from pvtui.widgets.trace_view import TraceView, coded_segments

pytestmark = pytest.mark.anyio


async def open_trace(pilot) -> TraceScreen:
    """Press t and wait until the first run's lanes are indexed and drawn."""
    await wait_until_loaded(pilot)
    await pilot.press("t")
    for _ in range(200):
        screen = pilot.app.screen
        if isinstance(screen, TraceScreen) and screen.available:
            break
        await pilot.pause(0.02)
    await pilot.pause()
    return pilot.app.screen


def cursor_middle(screen: TraceScreen) -> float:
    start, end = screen._cursor_range()
    return (start + end) / 2


async def test_zoom_the_trace(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_trace(pilot)
        whole = screen.bounds
        assert screen.window == whole and screen.selected_step >= 0
        for _ in range(3):
            await pilot.press("plus")
        lo, hi = screen.window
        assert hi - lo < (whole[1] - whole[0]) / 4
        assert lo <= cursor_middle(screen) <= hi
        await pilot.press("0")
        assert screen.window == whole
        lane, pos = screen.current_lane, screen.cursor_pos
        await pilot.press("right")
        assert screen.cursor_pos == pos + 1
        assert screen.selected_step == int(lane.steps[pos + 1])
        assert lane.starts[pos + 1] >= lane.starts[pos]


async def test_moving_keeps_the_cursor_in_the_window(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_trace(pilot)
        for _ in range(6):
            await pilot.press("plus")
        for _ in range(12):
            await pilot.press("right")
            start, end = screen._cursor_range()
            lo, hi = screen.window
            assert start < hi and end > lo
        await pilot.press("end")
        assert screen.cursor_pos == len(screen.current_lane) - 1
        assert screen.window[1] == screen.bounds[1]
        await pilot.press("home")
        assert screen.cursor_pos == 0 and screen.window[0] == screen.bounds[0]
        before = screen.window
        await pilot.press("full_stop")
        assert screen.window[0] > before[0]
        await pilot.press("comma")
        assert screen.window == before


async def test_lanes_runs_and_the_bsp_panel(make_app, tiny_report):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_trace(pilot)
        assert len(screen.lanes) == tiny_report.execution.num_ipus
        await pilot.press("down")
        assert screen.cursor_ipu == min(1, len(screen.lanes) - 1)
        await pilot.press("up")
        assert screen.cursor_ipu == 0
        await pilot.press("r")
        for _ in range(100):
            if screen.run == 1 % tiny_report.execution.num_runs and screen.available:
                break
            await pilot.pause(0.02)
        assert screen.run == 1 % tiny_report.execution.num_runs
        assert screen.window == screen.bounds
        await pilot.press("b")
        await pilot.pause()
        if tiny_report.execution.bsp_steps is None:
            assert screen.query(Unavailable)
        else:
            view = screen.query_one(BspView)
            assert view.display and view.frame is not None
            assert view.frame.tile_cycles.shape[0] == view.scrollable_content_region.width - 10


async def test_n_selects_a_step_with_per_tile_cycles_and_the_bsp_draws_it(make_app, tiny_report):
    bsp_steps = tiny_report.execution.bsp_steps
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_trace(pilot)
        await pilot.press("b", "n")
        await pilot.pause()
        assert screen.selected_step in set(bsp_steps.tolist())
        start, end = screen._cursor_range()
        assert screen.window[0] <= start and end <= screen.window[1]
        frame = screen.query_one(BspView).frame
        assert frame.steps_with_data >= 1
        assert (frame.tile_cycles > 0).any()


async def test_reload_keeps_run_window_and_step(make_app, tiny_dir):
    from pvtui.sources.discovery import discover
    from pvtui.sources.ingest import load_report

    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_trace(pilot)
        await pilot.press("plus", "plus", "right", "right")
        kept = (screen.run, screen.window, screen.selected_step)
        pilot.app.report = load_report(discover(tiny_dir)[0], cache=pilot.app.cache)
        screen.report_changed()
        for _ in range(100):
            await pilot.pause(0.02)
            if screen.available:
                break
        assert (screen.run, screen.window, screen.selected_step) == kept


async def test_a_report_without_execution_says_so(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await open_trace(pilot)
        screen = pilot.app.screen
        pilot.app.report.execution = None
        screen.report_changed()
        await pilot.pause(0.1)
        assert not screen.query(TraceView)
        message = screen.query_one(Unavailable)
        assert "execution" in str(message.render())


def test_step_details_name_the_step_and_every_ipu(tiny_report):
    execution = tiny_report.execution
    step = int((execution.cycles_from[:, 0] >= 0).nonzero()[0][0])
    text = step_details(tiny_report, step, 0, lambda b: f"{b} B", {}).plain
    assert f"Step      {step:,}" in text
    assert f"{int(execution.cycles[step, 0]):,} cycles" in text
    assert text.count("\n") >= 5 + execution.num_ipus
    assert format_seconds(2.5e-6) == "2.5 µs" and format_seconds(0.5) == "500 ms"


def test_busy_levels_and_coded_segments():
    assert busy_levels(np.array([1.0, 0.9, 0.5, 0.1, 0.0])).tolist() == [0, 3, 2, 1, LEVELS - 1]
    cells = [("a", Style(bold=True)), ("b", Style(italic=True))]
    segments = coded_segments(np.array([0, 0, 1, 0]), cells)
    assert [(s.text, s.style) for s in segments] == [("aa", cells[0][1]), ("b", cells[1][1]), ("a", cells[0][1])]
    assert coded_segments(np.array([], dtype=np.int64), cells) == []


async def _trace_ready(pilot) -> None:
    await open_trace(pilot)


async def _bsp_ready(pilot) -> None:
    await open_trace(pilot)
    await pilot.press("b", "n")
    await pilot.pause(0.1)


def test_snapshot_trace_80x24(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_trace_ready)


def test_snapshot_trace_160x48(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(160, 48), run_before=_trace_ready)


def test_snapshot_trace_bsp_80x24(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_bsp_ready)
