"""Trace's part of issues 23 and 24: the flame view merged over a run (the costliest model layer the
widest block on the left), `c` skipping host waits unless `h` says otherwise, device time beside the
raw totals, and a run opening where the flame view's blocks are named. "Done means" end to end, on
the tiny synthetic report read natively and through the libpva adapter (the small report, written for
these tests alone, cost some 15 s of CPU and 521 MB of disk a run for the same checks)."""

from __future__ import annotations

import json
import shutil
import threading

import numpy as np
import pytest
from conftest import wait_for, wait_until_loaded
from test_trace_depth import drawn_text, open_flame
from test_trace_screen import open_trace

from pvtui.cli import main
from pvtui.model import flame as fl
from pvtui.model import trace_index
from pvtui.model.host_waits import device_cycles, host_wait_programs
from pvtui.model.layers import build_tree
from pvtui.model.step_stats import step_stats
from pvtui.render.figures import run_figures_line
from pvtui.screens.programs import ProgramsScreen
from pvtui.screens.summary import SummaryScreen
from pvtui.screens.trace import TraceScreen
from pvtui.widgets.flame_view import FlameView
from pvtui.widgets.trace_view import GUTTER

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def adapted_dir(tmp_path_factory, tiny_dir, cache_root):
    """The tiny report's profile read through the libpva adapter (from the generator's stand-in for
    libpva's objects), beside its debug.cbor."""
    from pvtui.sources.base import ReportFiles
    from pvtui.sources.ingest import build_bundle
    from pvtui.synth import generate, standin

    truth = generate("tiny", seed=0)
    folder = tmp_path_factory.mktemp("adapted")
    shutil.copy(tiny_dir / "debug.cbor", folder / "debug.cbor")
    build_bundle(ReportFiles(directory=folder, name="adapted", debug=folder / "debug.cbor"),
                 folder / "profile.pvtui", pva_report=standin.PvaReport(truth), operations=standin.operations(truth))
    return folder


# The tiny report read natively and through the adapter. Its costliest model layer (layer1) is neither the
# first in program order nor the first drawn by name, so the order on the left is the cost's.
REPORTS = ["tiny", "adapted"]


def opened(path):
    from pvtui.sources.discovery import discover
    from pvtui.sources.ingest import load_report

    return load_report(discover(path)[0])


def app_over(path, cache):
    from pvtui.app import PvtuiApp
    from pvtui.sources.discovery import discover

    return PvtuiApp(discover(path), path=path, watch=False, cache=cache)


async def open_merged(pilot) -> TraceScreen:
    screen = await open_trace(pilot)
    await pilot.press("M")
    await wait_for(pilot, lambda: screen.nav.merged is not None)
    await pilot.pause()
    return screen


def details(screen: TraceScreen) -> str:
    return str(screen.query_one("#details-text").render())


def status(screen: TraceScreen) -> str:
    return str(screen.query_one("#trace-status").render()).replace("\n", " · ")


# Done means, end to end ----------------------------------------------------------------------


@pytest.mark.parametrize("which", REPORTS)
async def test_from_the_summary_two_keys_show_the_costliest_model_layer_and_its_share(
        which, request, capsys, cache_root):
    path = request.getfixturevalue(f"{which}_dir")
    assert main(["operations", str(path), "--group", "layer", "--json"]) == 0
    costliest = json.loads(capsys.readouterr().out)["groups"][0]
    async with app_over(path, cache_root).run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert isinstance(pilot.app.screen, SummaryScreen)
        screen = await open_merged(pilot)  # t, M
        merged = screen.nav.merged
        name = merged.tree.names[int(merged.rows[0].node[0])]
        assert name == costliest["name"]  # the widest block at the first depth, on the left
        assert screen.nav.selected_node == int(merged.rows[0].node[0])  # the cursor is on it
        cycles = int(merged.rows[0].cycles[0])
        text = details(screen)
        assert f"Block     {name}\n" in text
        assert f"{cycles:,} IPU-cycles: {cycles / merged.total:.1%} of run 1's {merged.total:,}" in text
        view = screen.query_one(FlameView)
        depth_1 = next(line for line in drawn_text(view) if "depth 1" in line)
        assert depth_1[GUTTER:].startswith(name)  # drawn first, named


@pytest.mark.parametrize("which", REPORTS)
def test_step_statistics_the_layer_table_and_the_merged_flame_agree_to_the_cycle(which, request, capsys):
    path = request.getfixturevalue(f"{which}_dir")
    report = opened(path)
    assert main(["operations", str(path), "--group", "layer", "--json"]) == 0
    groups = json.loads(capsys.readouterr().out)["groups"]
    stats = step_stats(report)
    tree = build_tree(report)
    summed = {g["name"]: np.zeros(len(g["cycles_by_ipu"]), np.int64) for g in groups}
    for run, figures in enumerate(stats["runs"]):
        merged = fl.merged_flame(report, tree, run)
        top = merged.rows[0]
        assert [ipu["cycles"] for ipu in figures["ipus"]] == merged.cycles_by_ipu[top.node].sum(axis=0).tolist()
        assert merged.total == figures["ipu_cycles"] == int(top.cycles.sum())
        assert tree.names[int(top.node[0])] == groups[0]["name"]
        for node in top.node.tolist():
            summed[tree.names[node]] += merged.cycles_by_ipu[node]
    assert {g["name"]: g["cycles_by_ipu"] for g in groups if g["cycles"]} == {
        name: cycles.tolist() for name, cycles in summed.items() if cycles.any()}


# The merged view ----------------------------------------------------------------------------


async def test_the_merged_view_moves_like_the_flame_view_and_gives_the_lanes_back(make_app, tiny_report):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_trace(pilot)
        await pilot.press("right", "right")
        lanes_place = (screen.nav.window, screen.nav.selected_step)
        await pilot.press("M")
        await wait_for(pilot, lambda: screen.nav.merged is not None)
        nav, merged = screen.nav, screen.nav.merged
        tree = merged.tree
        assert nav.selected_step == -1 and nav.window == nav.bounds == (0, merged.total)
        assert "merged" in details(screen).lower() and "merged" in status(screen)
        assert "c skips host waits (h)" in status(screen)
        layer = nav.selected_node
        await pilot.press("down")  # to its costliest part, drawn first under it
        child = nav.selected_node
        assert tree.parent[child] == layer and child == int(merged.rows[1].node[merged.rows[1].first == 0][0])
        await pilot.press("right")
        beside = nav.selected_node
        assert beside != child and nav.flame_cursor.depth == 1
        await pilot.press("up")  # to the block it lies in
        assert nav.selected_node == tree.parent[beside] and nav.flame_cursor.depth == 0
        await pilot.press("plus")
        lo, hi = nav.window
        assert hi - lo < merged.total and lo <= sum(nav.cursor_range()) / 2 <= hi
        program = nav.selected_program(tiny_report.execution, tiny_report.programs)
        assert program == int(tree.first_program[nav.selected_node]) >= 0
        await pilot.press("M")  # back to the lanes, where they were
        assert screen.nav.view == "lanes" and nav.merged is None
        assert (nav.window, nav.selected_step) == lanes_place
        await pilot.press("f", "M", "M")  # from the flame view, M and M again come back to it
        assert screen.nav.view == "flame"


async def test_P_in_the_merged_view_shows_the_blocks_first_program(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_merged(pilot)
        await pilot.press("down")
        node = screen.nav.selected_node
        expected = int(screen.nav.merged.tree.first_program[node])
        await pilot.press("P")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ProgramsScreen)
                       and pilot.app.screen.selected_program() == expected)


async def test_a_runs_merged_flame_is_built_once_in_a_worker(make_app, monkeypatch):
    threads = []
    merge = fl.merged_flame

    def counted(*args):
        threads.append(threading.current_thread())
        return merge(*args)

    monkeypatch.setattr(fl, "merged_flame", counted)
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_merged(pilot)
        await pilot.press("down", "right", "plus", "minus", "c", "h", "M", "M", "f", "M")
        await wait_for(pilot, lambda: screen.nav.merged is not None)
        assert len(threads) == 1 and threading.main_thread() not in threads
        await pilot.press("r")  # the next run: its own, once
        await wait_for(pilot, lambda: screen.nav.run == 1 and screen.nav.merged is not None)
        await pilot.press("r")
        await wait_for(pilot, lambda: screen.nav.run == 0 and screen.nav.merged is not None)
        assert len(threads) == 2


async def test_keys_that_need_steps_give_way_in_the_merged_view(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_trace(pilot)
        await pilot.press("b")
        assert screen.nav.pane == "bsp" and screen.key_state("next_bsp_step", ())
        await pilot.press("M")
        await wait_for(pilot, lambda: screen.nav.merged is not None)
        assert screen.nav.pane == "details"  # the BSP view draws one IPU's steps
        assert not screen.key_state("pane", ("bsp",)) and not screen.key_state("next_bsp_step", ())
        step = int(screen.report.execution.run_step_offsets[1]) + 5
        assert screen.show_step(step)  # a step to show (Operations' T): the flame view shows it
        await wait_for(pilot, lambda: screen.nav.selected_step == step)
        assert screen.nav.view == "flame" and screen.nav.merged is None


async def test_without_a_program_table_the_merged_view_says_what_is_missing(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_trace(pilot)
        pilot.app.report.programs = None
        screen.report_changed()
        await wait_for(pilot, lambda: screen.available)
        await pilot.press("M")
        await wait_for(pilot, lambda: screen.report.missing("programs") in status(screen))
        assert screen.nav.merged is None


# Host waits ----------------------------------------------------------------------------------


def test_each_flame_block_says_whether_its_steps_wait_on_the_host(tiny_report):
    index = trace_index.TraceIndex(tiny_report)
    index.index_run(0)
    index.nest_run(0)
    waits = host_wait_programs(tiny_report)
    lane, rows = index.lanes[0][0], index.flames[0][0]
    host_steps = waits[np.asarray(tiny_report.execution.program)[lane.steps]]
    for row in rows:
        expected = [bool(host_steps[f:s].all()) for f, s in zip(row.first.tolist(), row.stop.tolist())]
        assert row.host.tolist() == expected
    assert rows[0].host.any() and not rows[0].host.all()


async def test_c_skips_host_waits_unless_h_asks(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_flame(pilot)
        await pilot.press("0", "down")
        row = screen.nav.flame[0][0]
        # make the host waits the costliest name of depth 1, as in the report (65.9% of the run)
        host = int(np.flatnonzero(row.host)[0])
        row.cycles[host] = int(row.cycles.sum()) * 2
        await pilot.press("c")
        _, block = screen.nav.flame_block
        assert not row.host[block] and "c skips host waits (h)" in status(screen)
        await pilot.press("h", "c")
        assert screen.nav.flame_block == (row, host) and "c counts host waits (h)" in status(screen)


# Device time and the other figures ------------------------------------------------------------


async def test_the_step_statistics_give_device_time_beside_run_span_and_report_total(make_app, tiny_report):
    device = device_cycles(tiny_report)
    async with make_app().run_test(size=(120, 40)) as pilot:
        screen = await open_trace(pilot)
        await pilot.press("S")
        await wait_for(pilot, lambda: "Step statistics" in str(screen.query_one("#stats-text").render()))
        text = " ".join(str(screen.query_one("#stats-text").render()).split())
        span = step_stats(tiny_report)["runs"][0]["run_span_cycles"]
        assert f"run span {span:,}, device time {device[0]:,}," in text
        assert f"report total {tiny_report.execution.total_cycles:,} (every run)" in text


def test_a_run_without_device_time_says_why(tiny_report, monkeypatch):
    execution = tiny_report.execution
    waits = np.ones(len(tiny_report.programs), bool)  # every step a host wait
    monkeypatch.setattr("pvtui.model.host_waits.host_wait_programs", lambda report: waits)
    monkeypatch.setattr(type(execution), "kept_device_cycles", property(lambda self: None))  # found from the steps
    runs = step_stats(tiny_report)["runs"]
    assert runs[0]["device_cycles"] is None and "no device time (every step waits on the host)" in run_figures_line(runs[0])
    monkeypatch.setattr(type(execution), "runs_known", property(lambda self: False))  # profile.pop without libpva
    runs = step_stats(tiny_report)["runs"]
    assert "no device time (the steps are not split into runs)" in run_figures_line(runs[0])


def test_trace_stats_gives_each_runs_device_time(capsys, tiny_dir, tiny_report):
    assert main(["trace", str(tiny_dir), "--stats", "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert [run["device_cycles"] for run in runs] == device_cycles(tiny_report)
    assert main(["trace", str(tiny_dir), "--stats"]) == 0
    assert f"device time {device_cycles(tiny_report)[0]:,}" in capsys.readouterr().out


# Where a run opens ------------------------------------------------------------------------------


def test_a_run_opens_on_its_first_model_layers_first_flame_block(tiny_report):
    index = trace_index.TraceIndex(tiny_report)
    for run in range(tiny_report.execution.num_runs):
        index.index_run(run)
        index.nest_run(run)
        ipu, first, stop = index.openings[run]
        top = index.flames[run][ipu][0]
        block = int(np.flatnonzero(~top.host)[0])  # the first block of depth 1 that is not a host wait
        assert (first, stop) == (int(top.first[block]), int(top.stop[block]))
        firsts = [int(rows[0].lane.starts[~rows[0].host][0]) for rows in index.flames[run] if (~rows[0].host).any()]
        assert index.lanes[run][ipu].starts[first] == min(firsts)  # on the IPU that starts one first


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_flame_view_opens_with_its_blocks_named(make_app, size):
    async with make_app().run_test(size=size) as pilot:
        screen = await open_flame(pilot)
        lines = drawn_text(screen.query_one(FlameView))
        ipu, first, _ = screen.nav.index.openings[0]
        top = screen.nav.flame[ipu][0]
        name = screen.nav.index.names[int(top.node[top.block_at(first)])]
        assert any(name in line[GUTTER:] for line in lines if "depth 1" in line)  # whole, not hatched
        assert "% of the run" in status(screen)
        await pilot.press("0")
        assert "the whole run" in status(screen)


# Snapshots ---------------------------------------------------------------------------------


async def _merged_second_depth(pilot) -> None:
    await open_merged(pilot)
    await pilot.press("down")
    await pilot.pause()


def test_snapshot_trace_merged_80x24(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_merged_second_depth)


def test_snapshot_trace_merged_160x48(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(160, 48), run_before=_merged_second_depth)
