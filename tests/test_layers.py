"""Model layers (issue 23): where cycles and memory go by the outer parts of the operations' names,
checked against the synthetic generator's own truth; host waits set apart; device time; the merged
flame; compare by layer; the Operations screen by model layer."""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict

import numpy as np
import pytest
from conftest import open_screen, truth_host_waits, wait_for

from pvtui.cli import main
from pvtui.model.flame import merged_flame
from pvtui.model.host_waits import device_cycles, host_wait_programs
from pvtui.model.layer_outline import LayerOutline, layers_data
from pvtui.model.layers import HOST_WAITS, build_tree, layer_figures
from pvtui.model.step_stats import step_stats
from pvtui.screens.operations import OperationsScreen

pytestmark = pytest.mark.anyio


def truth_layers(truth) -> dict[str, np.ndarray]:
    """Each model layer's cycles per IPU as the generator made them: its operations' programs' steps."""
    g, e = truth.graph, truth.execution
    waits = truth_host_waits(truth)
    sums: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(e.cycles.shape[1], np.int64))
    for step, program in enumerate(e.program.tolist()):
        op = int(g.program_op[program])
        layer = HOST_WAITS if waits[program] else (g.op_name[op] if op >= 0 else g.program_name[program]).split("/")[0]
        ran = e.cycles_from[step] >= 0
        sums[layer] += np.where(ran, e.cycles[step], 0)
    return dict(sums)


def run_json(capsys, *args: str) -> dict:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_each_layer_is_the_sum_of_its_steps_cycles_on_every_ipu(capsys, tiny_dir, truth):
    data = run_json(capsys, "operations", str(tiny_dir), "--group", "layer")
    expected = truth_layers(truth)
    groups = {g["name"]: g for g in data["groups"]}
    assert set(groups) == set(expected)
    for name, cycles in expected.items():
        assert groups[name]["cycles_by_ipu"] == cycles.tolist(), name
        assert groups[name]["cycles"] == int(cycles.sum())
    # costliest first, the host waits last and flagged, shares of every step's IPU-cycles
    ranked = [g for g in data["groups"] if not g["host"]]
    assert [g["cycles"] for g in ranked] == sorted((g["cycles"] for g in ranked), reverse=True)
    assert data["groups"][-1]["name"] == HOST_WAITS and data["groups"][-1]["host"] is True
    total = sum(int(c.sum()) for c in expected.values())
    assert data["total_cycles"] == total
    assert groups["layer1"]["share"] == pytest.approx(groups["layer1"]["cycles"] / total)
    assert {g["operations"] for g in ranked if g["name"].startswith("layer")} == {34}


def test_step_statistics_layer_table_and_merged_flame_agree_to_the_cycle(tiny_report):
    tree = build_tree(tiny_report)
    figures = layer_figures(tiny_report, tree)
    stats = step_stats(tiny_report)
    by_stats = sum(ipu["cycles"] for run in stats["runs"] for ipu in run["ipus"])
    top = tree.children(-1)
    assert figures.total_cycles == by_stats == int(figures.cycles[top].sum())
    merged: dict[str, int] = defaultdict(int)
    by_ipu: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(tiny_report.execution.num_ipus, np.int64))
    for run in range(tiny_report.execution.num_runs):
        flame = merged_flame(tiny_report, tree, run)
        assert flame.total == sum(ipu["cycles"] for ipu in stats["runs"][run]["ipus"])
        first = flame.rows[0]
        assert int(first.cycles.sum()) == flame.total == int(first.lane.ends[-1])
        for node, cycles in zip(first.node.tolist(), first.cycles.tolist()):
            merged[tree.names[node]] += cycles
            by_ipu[tree.names[node]] += flame.cycles_by_ipu[node]
        layers = ~first.host
        # the widest block at the first depth, on the left, is the costliest model layer
        assert tree.names[int(first.node[0])] == layers_data(tiny_report)["groups"][0]["name"]
        assert int(first.cycles[0]) == int(first.cycles[layers].max())
    assert merged == {tree.names[n]: int(figures.cycles[n]) for n in top.tolist()}
    assert {name: c.tolist() for name, c in by_ipu.items()} == {
        tree.names[n]: figures.cycles_by_ipu[n].tolist() for n in top.tolist()}


def test_merged_flame_is_left_heavy_and_nested(tiny_report):
    tree = build_tree(tiny_report)
    flame = merged_flame(tiny_report, tree, 0)
    rows, lane = flame.rows, flame.lane
    first = rows[0]
    layers = first.cycles[~first.host]
    assert list(layers) == sorted(layers, reverse=True) and first.lane.starts[0] == 0
    assert first.host[-1] and not first.host[:-1].any()  # the host waits last, at the right
    for depth in range(1, len(rows)):  # every block lies within its parent's, children costliest first
        above = {int(n): (int(s), int(e)) for n, s, e in zip(rows[depth - 1].node, rows[depth - 1].lane.starts,
                                                           rows[depth - 1].lane.ends)}
        for node, start, end in zip(rows[depth].node, rows[depth].lane.starts, rows[depth].lane.ends):
            lo, hi = above[int(tree.parent[node])]
            assert lo <= start < end <= hi
        siblings = defaultdict(list)
        for node, cycles in zip(rows[depth].node.tolist(), rows[depth].cycles.tolist()):
            siblings[int(tree.parent[node])].append(cycles)
        assert all(widths == sorted(widths, reverse=True) for widths in siblings.values())
    # the lane above the first depth: each node's own part, end to end; a block covers its parts exactly
    assert lane.starts[0] == 0 and (lane.starts[1:] == lane.ends[:-1]).all() and lane.ends[-1] == flame.total
    for row in rows:
        assert (lane.starts[row.first] == row.lane.starts).all() and (lane.ends[row.stop - 1] == row.lane.ends).all()
        for node, part in zip(row.node.tolist(), row.first.tolist()):  # its first part is its own or below it
            path, inner = tree.paths[node], tree.paths[flame.node_at(part)]
            assert inner == path or inner.startswith(path + "/")


def test_names_nest_at_every_slash(capsys, tiny_dir, tiny_report):
    tree = build_tree(tiny_report)
    op = list(tiny_report.operations.names).index("layer0/attention/qkv/Conv_1")
    node = int(tree.operation_node[op])
    assert tree.path(node) == ["layer0", "attention", "qkv", "Conv_1"]
    programs = tree.programs_under(node)
    names = [tiny_report.programs.names[p] for p in programs.tolist()]
    assert names and all(name.startswith("layer0/attention/qkv/Conv_1/") for name in names)
    # the PopLibs calls under the operation: what each program's name adds to the operation's
    assert {tree.paths[int(tree.program_node[p])] for p in programs.tolist()} == set(names)
    data = run_json(capsys, "operations", str(tiny_dir), "--group", "layer", "--depth", "3")
    layer0 = next(g for g in data["groups"] if g["name"] == "layer0")
    attention = next(g for g in layer0["groups"] if g["name"] == "attention")
    assert attention["path"] == "layer0/attention" and attention["groups"]
    assert sum(g["cycles"] for g in layer0["groups"]) == layer0["cycles"]
    assert sum(g["memory"] for g in attention["groups"]) <= attention["memory"]


def test_a_filter_keeps_whole_parts_and_totals_them(capsys, tiny_dir, tiny_report):
    data = run_json(capsys, "operations", str(tiny_dir), "--group", "layer", "--filter", "attention/qkv")
    assert [g["path"] for g in data["groups"]] and all(g["path"].endswith("attention/qkv") for g in data["groups"])
    assert data["kept"]["cycles"] == sum(g["cycles"] for g in data["groups"])
    assert data["kept"]["nodes"] == len(data["groups"])
    layers = [g["path"] for g in data["groups"] if not g["host"]]
    assert sorted(layers) == ["layer0/attention/qkv", "layer1/attention/qkv", "layer2/attention/qkv"]
    # the weights' stream copies from the host are named after them: kept too, after the layers
    assert all(g["path"].startswith(f"{HOST_WAITS}/") for g in data["groups"][len(layers):])
    outline = LayerOutline(layer_figures(tiny_report, build_tree(tiny_report)))
    outline.filter("attention/qkv")
    shown = [outline.tree.paths[n] for n in outline.rows()]
    first = data["groups"][0]["path"]  # the costliest kept, under its layer opened down to it
    assert shown[:3] == [first.split("/")[0], first.rsplit("/", 1)[0], first]
    assert outline.total().cycles == data["kept"]["cycles"]


def test_host_waits_and_device_time(tiny_report, truth):
    waits = host_wait_programs(tiny_report)
    np.testing.assert_array_equal(waits, truth_host_waits(truth))
    e = truth.execution
    for run, device in enumerate(device_cycles(tiny_report)):
        lo, hi = int(e.run_offsets[run]), int(e.run_offsets[run + 1])
        inside = np.flatnonzero(~waits[e.program[lo:hi]]) + lo
        first, last = inside[0], inside[-1]
        starts, ends = e.cycles_from[first : last + 1], e.cycles_to[first : last + 1]
        assert device == int(ends.max() - starts[starts >= 0].min())
        span = int(e.cycles_to[lo:hi].max() - e.cycles_from[lo:hi][e.cycles_from[lo:hi] >= 0].min())
        assert device < span  # each run starts and ends with host waits


def test_trace_and_summary_give_device_time(capsys, tiny_dir, tiny_report):
    runs = run_json(capsys, "trace", str(tiny_dir))["runs"]
    assert [run["device_cycles"] for run in runs] == device_cycles(tiny_report)
    summary = run_json(capsys, "summary", str(tiny_dir))
    assert summary["execution"]["device_cycles"] == sum(device_cycles(tiny_report))
    assert main(["summary", str(tiny_dir)]) == 0
    assert f"Device time        {sum(device_cycles(tiny_report)):,} cycles" in capsys.readouterr().out


@pytest.fixture(scope="module")
def host_only_dir(tmp_path_factory, truth):
    """The tiny report with only the steps that wait on the host."""
    from pvtui.sources.base import ReportFiles
    from pvtui.sources.ingest import build_bundle
    from pvtui.synth import standin

    e = truth.execution
    keep = truth_host_waits(truth)[e.program]
    per_run = [int(keep[lo:hi].sum()) for lo, hi in zip(e.run_offsets[:-1], e.run_offsets[1:])]
    columns = {f.name: getattr(e, f.name)[keep] for f in dataclasses.fields(e)
               if isinstance(getattr(e, f.name), np.ndarray) and len(getattr(e, f.name)) == e.num_steps}
    execution = dataclasses.replace(e, **columns, bsp_steps=np.zeros(0, np.int64),
                                    run_offsets=np.concatenate(([0], np.cumsum(per_run))))
    host_only = dataclasses.replace(truth, execution=execution)
    folder = tmp_path_factory.mktemp("host-only")
    build_bundle(ReportFiles(directory=folder, name="host-only"), folder / "profile.pvtui",
                 pva_report=standin.PvaReport(host_only), operations=standin.operations(host_only))
    return folder


def test_a_report_whose_every_step_waits_on_the_host(capsys, host_only_dir):
    data = run_json(capsys, "operations", str(host_only_dir), "--group", "layer")
    ran = [g for g in data["groups"] if g["cycles"]]
    assert [g["name"] for g in ran] == [HOST_WAITS] and ran[0]["host"] and ran[0]["share"] == 1.0
    assert data["groups"][-1]["name"] == HOST_WAITS  # never ranked, even as the only group with cycles
    assert [run["device_cycles"] for run in run_json(capsys, "trace", str(host_only_dir))["runs"]] == [None, None]
    assert run_json(capsys, "summary", str(host_only_dir))["execution"]["device_cycles"] is None


def test_without_debug_cbor_layers_come_from_program_names(capsys, tmp_path):
    from pvtui.synth import write_report

    out = tmp_path / "nodebug"
    write_report(out, scale="tiny", seed=0)
    (out / "debug.cbor").unlink()
    data = run_json(capsys, "operations", str(out), "--group", "layer")
    assert "programs' names" in data["source"] and "debug.cbor" in data["source"]
    names = [g["name"] for g in data["groups"]]
    assert {"layer0", "layer1", "layer2", HOST_WAITS} <= set(names)
    assert all(g["operations"] == 0 for g in data["groups"])  # no operation is known without debug contexts


def test_compare_by_layer(capsys, tiny_dir, other_dir):
    data = run_json(capsys, "compare", str(tiny_dir), str(other_dir), "--group", "layer")
    assert data["group"] == "layer" and data["difference"] == "B - A"
    rows = {row["name"]: row for row in data["layers"]["layers"]}
    layer1 = rows["layer1"]
    assert layer1["cycles_delta"] == layer1["b"]["cycles"] - layer1["a"]["cycles"]
    assert layer1["memory_delta"] == layer1["b"]["memory"] - layer1["a"]["memory"]
    assert data["layers"]["layers"][-1]["name"] == HOST_WAITS and data["layers"]["layers"][-1]["host"]
    same = run_json(capsys, "compare", str(tiny_dir), str(tiny_dir), "--group", "layer")["layers"]["layers"]
    assert all(row["cycles_delta"] == 0 and row["memory_delta"] == 0 for row in same)


async def open_by_layer(pilot) -> OperationsScreen:
    """Press o and wait for the model layers."""
    screen = await open_screen(pilot, "o", OperationsScreen)
    await wait_for(pilot, lambda: screen.nav.outline is not None)
    await pilot.pause()
    return screen


async def test_three_keys_from_the_summary_show_the_costliest_layer_and_its_share(make_app, tiny_report):
    expected = layers_data(tiny_report)["groups"][0]
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_by_layer(pilot)  # one key
        row = [str(cell) for cell in screen.table.get_row_at(0)]
        assert row[0].strip(" ▶") == expected["name"]
        assert row[1] == f"{expected['cycles']:,}" and row[2] == f"{expected['share']:.1%}"


async def test_opening_closing_and_sorting_by_memory(make_app):
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_by_layer(pilot)
        first = screen.nav.selected_node()
        await pilot.press("right")  # opens
        assert first in screen.nav.outline.expanded
        await pilot.press("right")  # to its first row
        child = screen.nav.selected_node()
        assert screen.nav.outline.tree.parent[child] == first
        await pilot.press("left")  # back to the row above it
        assert screen.nav.selected_node() == first
        await pilot.press("left")  # closes
        assert first not in screen.nav.outline.expanded
        await pilot.press("S")
        figures = screen.nav.outline.figures
        memory = [int(figures.memory[n]) for n in screen.nav.nodes if not screen.nav.outline.tree.is_host(n)]
        assert memory == sorted(memory, reverse=True)
        table = screen.export_table()
        assert table.columns[0] == "path" and len(list(table.rows)) == len(screen.nav.nodes)


async def test_the_compare_screen_has_a_table_by_model_layer(tiny_dir, other_dir, cache_root):
    from pvtui.app import PvtuiApp
    from pvtui.sources.discovery import discover
    from pvtui.widgets.palette import rich_colour

    app = PvtuiApp(discover(tiny_dir), path=tiny_dir, watch=False, cache=cache_root,
                   compare_with=discover(other_dir)[0])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "comparison", None) is not None)
        screen = app.screen
        await pilot.press("6")
        await pilot.pause()
        table = screen.query_one("#layers-table")
        assert table.has_focus and screen.export_table().name == "compare-layers"
        changes = screen.nav.layers  # in the order shown: growth first
        assert table.row_count == len(changes) and changes[-1].host
        grown = next(i for i, c in enumerate(changes) if (c.delta("cycles") or 0) > 0)
        shrunk = next(i for i, c in enumerate(changes) if (c.delta("cycles") or 0) < 0)
        colours = {"error": rich_colour(app.theme_variables, "error"),
                   "success": rich_colour(app.theme_variables, "success")}
        assert table.get_row_at(grown)[3].style.color.name == colours["error"].name  # a regression
        assert table.get_row_at(shrunk)[3].style.color.name == colours["success"].name  # a gain


async def test_T_and_P_from_a_model_layer(make_app, tiny_report):
    from pvtui.model.operations import program_steps
    from pvtui.screens.programs import ProgramsScreen
    from pvtui.screens.trace import TraceScreen

    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_by_layer(pilot)
        node = screen.nav.selected_node()
        tree = screen.nav.outline.tree
        steps = program_steps(tiny_report, tree.programs_under(node)).tolist()
        assert len(steps) == screen.nav.outline.figures.steps[node] > 1
        await pilot.press("T")
        trace = pilot.app.screen
        assert isinstance(trace, TraceScreen)
        await wait_for(pilot, lambda: trace.nav.selected_step == steps[0])
        await pilot.press("o", "P")
        await pilot.pause()
        programs = pilot.app.screen
        assert isinstance(programs, ProgramsScreen) and programs.selected_program() == tree.first_program[node]


def test_with_a_filter_the_rows_above_what_it_keeps_give_the_sum_of_what_it_keeps(tiny_report):
    outline = LayerOutline(layer_figures(tiny_report, build_tree(tiny_report)))
    outline.filter("MatMul")
    tree, shown, full = outline.tree, outline.shown, outline.figures
    layer = outline.rows()[0]
    assert outline.partial(layer) and tree.parent[layer] < 0
    under = [n for n in outline.kept.tolist() if tree.top[n] == layer]
    assert int(shown.cycles[layer]) == sum(int(full.cycles[n]) for n in under) < int(full.cycles[layer])
    assert all(int(shown.cycles[n]) == int(full.cycles[n]) and not outline.partial(n) for n in under)
    assert sum(int(shown.cycles[n]) for n in tree.children(-1).tolist()) == outline.total().cycles


def test_the_layer_table_says_why_its_memory_adds_up_to_more_than_the_total(capsys, tiny_dir):
    assert main(["operations", str(tiny_dir), "--group", "layer"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "a variable that several operations use counts in each" in out
