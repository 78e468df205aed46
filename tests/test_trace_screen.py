"""The Trace screen: keyboard flows, the BSP panel, reload, and snapshots."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import at_first_body_frame, wait_for, wait_until_loaded
from rich.style import Style

from pvtui.model.navigators import trace as trace_navigator
from pvtui.model.step_types import PHASES, phase_of
from pvtui.screens.base import UnavailableNotice
from pvtui.render.trace import format_seconds, step_details
from pvtui.screens.trace import TraceScreen
from pvtui.widgets.bsp_view import LEVELS, BspView, busy_levels
from pvtui.widgets.palette import phase_fill_styles, phase_text_styles
from pvtui.widgets.trace_view import TraceView, coded_segments

pytestmark = pytest.mark.anyio


async def open_trace(pilot) -> TraceScreen:
    """Press t and wait until the first run's lanes are indexed and drawn."""
    await wait_until_loaded(pilot)
    await pilot.press("t")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, TraceScreen) and pilot.app.screen.available)
    await pilot.pause()
    return pilot.app.screen


def cursor_middle(screen: TraceScreen) -> float:
    start, end = screen.nav.cursor_range()
    return (start + end) / 2


async def test_zoom_the_trace(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_trace(pilot)
        whole = screen.nav.bounds
        assert screen.nav.window != whole and screen.nav.selected_step >= 0  # it opens on the first model layer
        await pilot.press("0")
        assert screen.nav.window == whole
        for _ in range(3):
            await pilot.press("plus")
        lo, hi = screen.nav.window
        assert hi - lo < (whole[1] - whole[0]) / 4
        assert lo <= cursor_middle(screen) <= hi
        await pilot.press("0")
        assert screen.nav.window == whole
        lane, pos = screen.nav.current_lane, screen.nav.cursor_pos
        await pilot.press("right")
        assert screen.nav.cursor_pos == pos + 1
        assert screen.nav.selected_step == int(lane.steps[pos + 1])
        assert lane.starts[pos + 1] >= lane.starts[pos]


async def test_a_run_is_indexed_in_a_worker_started_once_its_frame_is_painted(make_app):
    """The worker would take the GIL from the frame that says the steps are being indexed."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        app = pilot.app
        await wait_until_loaded(pilot)
        indexing = at_first_body_frame(app, lambda screen: isinstance(screen, TraceScreen),
                                       lambda screen: [w.group for w in app.workers if w.group == "trace-index"])
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, TraceScreen) and app.screen.available)
        assert indexing == [[]]


async def test_moving_keeps_the_cursor_in_the_window(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_trace(pilot)
        for _ in range(6):
            await pilot.press("plus")
        for _ in range(12):
            await pilot.press("right")
            start, end = screen.nav.cursor_range()
            lo, hi = screen.nav.window
            assert start < hi and end > lo
        await pilot.press("end")
        assert screen.nav.cursor_pos == len(screen.nav.current_lane) - 1
        assert screen.nav.window[1] == screen.nav.bounds[1]
        await pilot.press("home")
        assert screen.nav.cursor_pos == 0 and screen.nav.window[0] == screen.nav.bounds[0]
        before = screen.nav.window
        await pilot.press("full_stop")
        assert screen.nav.window[0] > before[0]
        await pilot.press("comma")
        assert screen.nav.window == before


async def test_lanes_runs_and_the_bsp_panel(make_app, tiny_report):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_trace(pilot)
        assert len(screen.nav.lanes) == tiny_report.execution.num_ipus
        await pilot.press("down")
        assert screen.nav.cursor_ipu == min(1, len(screen.nav.lanes) - 1)
        await pilot.press("up")
        assert screen.nav.cursor_ipu == 0
        await pilot.press("r")
        await wait_for(pilot, lambda: screen.nav.run == 1 % tiny_report.execution.num_runs and screen.available)
        ipu, first, _ = screen.nav.index.openings[screen.nav.run]  # each run opens on its first model layer
        assert (screen.nav.cursor_ipu, screen.nav.cursor_pos) == (ipu, first)
        await pilot.press("b")
        await pilot.pause()
        if tiny_report.execution.bsp_steps is None:
            assert screen.query(UnavailableNotice)
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
        assert screen.nav.selected_step in set(bsp_steps.tolist())
        start, end = screen.nav.cursor_range()
        assert screen.nav.window[0] <= start and end <= screen.nav.window[1]
        frame = screen.query_one(BspView).frame
        assert frame.steps_with_data >= 1
        assert (frame.tile_cycles > 0).any()


async def test_reload_keeps_run_window_and_step(make_app, tiny_dir):
    from pvtui.sources.discovery import discover
    from pvtui.sources.ingest import load_report

    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_trace(pilot)
        await pilot.press("plus", "plus", "right", "right")
        kept = (screen.nav.run, screen.nav.window, screen.nav.selected_step)
        pilot.app.a.report = load_report(discover(tiny_dir)[0], cache=pilot.app.cache)
        screen.report_changed()
        await wait_for(pilot, lambda: screen.available)
        assert (screen.nav.run, screen.nav.window, screen.nav.selected_step) == kept


async def test_a_report_without_execution_says_so(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await open_trace(pilot)
        screen = pilot.app.screen
        pilot.app.report.execution = None
        screen.report_changed()
        await wait_for(pilot, lambda: not screen.query(TraceView) and screen.query(UnavailableNotice))
        message = screen.query_one(UnavailableNotice)
        assert "execution" in str(message.render())


def test_step_details_name_the_step_and_every_ipu(tiny_report):
    execution = tiny_report.execution
    step = int((execution.cycles_from[:, 0] >= 0).nonzero()[0][0])
    text = step_details(tiny_report, step, 0, lambda b: f"{b} B", {}).plain
    assert f"Step      {step:,}" in text
    assert f"{int(execution.cycles[step, 0]):,} cycles" in text
    assert text.count("\n") >= 5 + execution.num_ipus
    assert format_seconds(2.5e-6) == "2.5 µs" and format_seconds(0.5) == "500 ms"


async def wait_available(pilot, screen: TraceScreen) -> None:
    await pilot.pause()  # a reload recomposing the screen has begun
    await wait_for(pilot, lambda: screen.available)
    await pilot.pause()


async def test_a_run_without_steps_and_a_trace_without_runs(make_app, monkeypatch):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        execution = pilot.app.report.execution
        # the runs as the offsets put here say (the model counts them from the column's header)
        monkeypatch.setattr(type(execution), "num_runs", property(lambda self: len(self.run_step_offsets) - 1))
        execution.__dict__["run_step_offsets"] = np.array([0, 0, execution.num_steps])
        screen = await open_trace(pilot)
        assert screen.nav.run == 0 and screen.nav.lanes and not any(len(lane) for lane in screen.nav.lanes)
        assert "IPU 0 no steps" in str(screen.query_one("#trace-status").render())
        execution.__dict__["run_step_offsets"] = np.array([0])
        screen.report_changed()
        await wait_available(pilot, screen)
        status = str(screen.query_one("#trace-status").render())
        assert status.startswith("no runs") and "/0" not in status


async def test_next_run_names_the_run_it_goes_to(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_trace(pilot)
        notes = []
        screen.notify = lambda message, **_: notes.append(message)
        await pilot.press("r")
        await wait_available(pilot, screen)
        assert screen.nav.run == 1 and notes == [f"Run 2: {screen.report.execution.run_names[1]}"]


async def test_the_details_draw_the_type_in_the_phase_colour_on_the_panel(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_trace(pilot)
        type_name = screen.report.programs.type_name(int(screen.report.execution.program[screen.nav.selected_step]))
        texts = phase_text_styles(pilot.app.theme_variables)
        drawn = [s for s in screen.query_one("#details-text").render_line(1) if s.text.strip() == type_name]
        assert drawn and drawn[0].style.color == texts[phase_of(type_name)].color
        assert drawn[0].style.bgcolor != drawn[0].style.color
        fills = phase_fill_styles(pilot.app.theme_variables)
        assert all(texts[phase].color == fills[phase].bgcolor for phase in PHASES)


def test_step_details_say_why_a_step_has_no_program(tiny_report, monkeypatch):
    execution = tiny_report.execution
    step = int((execution.cycles_from[:, 0] >= 0).nonzero()[0][0])
    program = np.array(execution.program)
    monkeypatch.setitem(execution.__dict__, "program", program)
    program[step] = -1
    assert "this step names no program" in step_details(tiny_report, step, 0, str, {}).plain
    program[step] = len(tiny_report.programs) + 5
    text = step_details(tiny_report, step, 0, str, {}).plain
    assert f"program {len(tiny_report.programs) + 5:,} is not in the program table" in text
    assert tiny_report.missing("programs") not in text


async def test_a_reload_that_gains_or_loses_per_tile_cycles_recomposes(make_app, tiny_dir):
    from pvtui.sources.discovery import discover
    from pvtui.sources.ingest import load_report

    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_trace(pilot)
        await pilot.press("b")
        report = load_report(discover(tiny_dir)[0], cache=pilot.app.cache)
        report.execution.__dict__.update(bsp_steps=None, bsp_cycles=None)
        pilot.app.a.report = report
        screen.report_changed()
        await wait_available(pilot, screen)
        assert not screen.query(BspView) and screen.query_one("#bsp").query(UnavailableNotice)
        pilot.app.a.report = load_report(discover(tiny_dir)[0], cache=pilot.app.cache)
        screen.report_changed()
        await wait_available(pilot, screen)
        assert screen.query_one(BspView).frame is not None


async def test_the_bsp_frame_is_computed_once_per_view(make_app, monkeypatch):
    calls = []
    compute = trace_navigator.bsp_frame
    monkeypatch.setattr(trace_navigator, "bsp_frame", lambda *args: calls.append(args) or compute(*args))
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_trace(pilot)
        await pilot.press("b")
        await pilot.pause()
        drawn = len(calls)
        screen.redraw()
        screen._draw_bsp()
        assert drawn >= 1 and len(calls) == drawn
        await pilot.press("plus")
        assert len(calls) == drawn + 1
        assert "steps drawn" in str(screen.query_one("#bsp-status").render())


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
    await pilot.press("b", "n")  # drawn after the next refresh, which the snapshot waits for


def test_snapshot_trace_80x24(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_trace_ready)


def test_snapshot_trace_160x48(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(160, 48), run_before=_trace_ready)


def test_snapshot_trace_bsp_80x24(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_bsp_ready)
