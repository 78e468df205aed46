"""Hotspots (issue 31): compute sets, exchanges, programs and single steps ranked by IPU-cycles, held to
the synthetic generator's truth to the cycle whichever reader read the report, and equal to Operations'
model layers and Trace's step statistics; the navigator's keys; the command's JSON and its bad input."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pytest
from conftest import report_without_bundle, truth_host_waits

from pvtui.cli import main
from pvtui.model.navigators.hotspots import HotspotsNavigator
from pvtui.model.hotspots import BY, INTER_IPU, INTERNAL, Hotspots, TileBalance, compute_set_vertices
from pvtui.model.unavailable import Unavailable
from pvtui.sources.discovery import discover
from pvtui.sources.ingest import load_report


def truth_by(truth, key_of_program) -> dict[str, np.ndarray]:
    """IPU-cycles per IPU of every step of the truth, summed by KEY_OF_PROGRAM (None: not counted)."""
    e = truth.execution
    sums: dict[str, np.ndarray] = defaultdict(lambda: np.zeros(e.cycles.shape[1], np.int64))
    for step, program in enumerate(e.program.tolist()):
        key = key_of_program(program)
        if key is not None:
            sums[key] += np.where(e.cycles_from[step] >= 0, e.cycles[step], 0)
    return dict(sums)


def truth_compute_sets(truth) -> dict[str, np.ndarray]:
    g, waits = truth.graph, truth_host_waits(truth)
    return truth_by(truth, lambda p: None if waits[p] or g.program_compute_set[p] < 0
                    else g.compute_set_name[g.program_compute_set[p]])


def run_json(capsys, *args: str) -> dict:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def by_name(rows: list[dict]) -> dict[str, list[int]]:
    sums: dict[str, np.ndarray] = {}
    for row in rows:
        sums[row["name"]] = sums.get(row["name"], 0) + np.array(row["cycles_by_ipu"])
    return {name: cycles.tolist() for name, cycles in sums.items()}


@pytest.fixture(params=["bundle", "native", "libpva"])
def reader_path(request, tiny_dir, tmp_path, monkeypatch):
    """The tiny report as each reader reads it: the bundle, profile.pop natively, profile.pop through libpva
    (the adapter over the generator's stand-in)."""
    if request.param == "bundle":
        return [str(tiny_dir)]
    folder = report_without_bundle(tiny_dir, tmp_path / "report")
    request.getfixturevalue("no_libpva" if request.param == "native" else "fake_libpva")
    return [str(folder), "--reader", request.param]


def test_compute_sets_equal_the_truth_and_the_layers_and_step_statistics_on_every_reader(capsys, reader_path, truth):
    data = run_json(capsys, "hotspots", *reader_path)
    assert set(data) == {"by", "rows"} and data["by"] == "compute-set"
    expected = {name: cycles.tolist() for name, cycles in truth_compute_sets(truth).items()}
    assert by_name(data["rows"]) == expected
    cycles = [row["cycles"] for row in data["rows"]]
    assert cycles == sorted(cycles, reverse=True) and cycles[0] > 0
    keys = {"name", "id", "cycles", "share", "count", "mean_cycles", "max_cycles", "cycles_by_ipu", "program", "layer"}
    assert all(set(row) == keys for row in data["rows"])
    # the programs table holds every IPU-cycle of the device, the layers' total and the step statistics' less the
    # host waits, to the cycle
    programs = run_json(capsys, "hotspots", *reader_path, "--by", "program")["rows"]
    layers = run_json(capsys, "operations", *reader_path, "--group", "layer")
    waits = next(g["cycles"] for g in layers["groups"] if g["host"])
    stats = run_json(capsys, "trace", *reader_path, "--stats")
    by_stats = sum(ipu["cycles"] for run in stats["runs"] for ipu in run["ipus"])
    assert sum(row["cycles"] for row in programs) + waits == layers["total_cycles"] == by_stats
    assert programs[0]["share"] == pytest.approx(programs[0]["cycles"] / by_stats)
    by_layer = defaultdict(int)
    for row in programs:
        by_layer[row["layer"]] += row["cycles"]
    assert dict(by_layer) == {g["name"]: g["cycles"] for g in layers["groups"] if not g["host"] and g["cycles"]}


def test_single_steps_are_each_step_on_each_ipu_longest_first(capsys, reader_path, truth):
    rows = run_json(capsys, "hotspots", *reader_path, "--by", "step", "--top", "5")["rows"]
    e, g, waits = truth.execution, truth.graph, truth_host_waits(truth)
    device = ~waits[e.program][:, None] & (e.cycles_from >= 0)
    cycles = np.where(device, e.cycles, -1)
    assert [row["cycles"] for row in rows] == sorted(cycles.ravel().tolist(), reverse=True)[:5]
    first = rows[0]
    assert set(first) == {"run", "step", "ipu", "cycles", "program", "name", "type"}
    assert cycles[first["step"], first["ipu"]] == first["cycles"]
    assert first["name"] == g.program_name[e.program[first["step"]]]
    if reader_path[-1] != "native":  # profile.pop's known tables give one run of every step
        assert e.run_offsets[first["run"] - 1] <= first["step"] < e.run_offsets[first["run"]]


def test_exchanges_have_their_kind_and_the_bytes_where_libpva_gives_them(capsys, tiny_dir, tiny_report, truth):
    rows = run_json(capsys, "hotspots", str(tiny_dir), "--by", "exchange")["rows"]
    g, e = truth.graph, truth.execution
    kinds = {row["name"]: row["kind"] for row in rows}
    assert {kinds[name] for name in kinds if name.endswith("/InterIpuCopy")} == {INTER_IPU}
    assert {kinds[name] for name in kinds if name.endswith("/ExchangePre")} == {INTERNAL}
    row = rows[0]
    steps = np.flatnonzero(e.program == row["id"])
    ran = e.cycles_from[steps] >= 0
    assert row["data_in"] == int(np.where(ran, e.data_in[steps], 0).sum())
    assert row["data_out"] == int(np.where(ran, e.data_out[steps], 0).sum())
    assert row["layer"] == g.op_name[g.program_op[row["id"]]].split("/")[0]


def test_host_waits_are_never_a_row(tiny_report, truth):
    hotspots = Hotspots(tiny_report)
    waits = np.flatnonzero(truth_host_waits(truth))
    for by in ("exchange", "program"):
        assert not set(hotspots.table(by).ids.tolist()) & set(waits.tolist())
    assert not np.isin(hotspots.steps(limit=None).programs, waits).any()
    e = truth.execution
    host = truth_by(truth, lambda p: "host" if truth_host_waits(truth)[p] else None)["host"]
    assert hotspots.host_totals()["cycles"] == int(host.sum())
    assert hotspots.host_totals()["count"] == int(((e.cycles_from >= 0) & truth_host_waits(truth)[e.program][:, None]).sum())


def test_run_and_type_count_only_their_steps(capsys, tiny_dir, truth):
    e, g = truth.execution, truth.graph
    rows = run_json(capsys, "hotspots", str(tiny_dir), "--by", "program", "--run", "2", "--type", "doexchange")["rows"]
    lo, hi = int(e.run_offsets[1]), int(e.run_offsets[2])
    assert rows and all(g.program_type_names[g.program_type[row["id"]]] == "DoExchange" for row in rows)
    row = rows[0]
    steps = np.flatnonzero(e.program[lo:hi] == row["id"]) + lo
    assert row["cycles"] == int(np.where(e.cycles_from[steps] >= 0, e.cycles[steps], 0).sum())
    assert row["count"] == int((e.cycles_from[steps] >= 0).sum())
    assert row["max_cycles"] == int(np.where(e.cycles_from[steps] >= 0, e.cycles[steps], 0).max())
    assert row["mean_cycles"] == pytest.approx(row["cycles"] / row["count"])
    steps_rows = run_json(capsys, "hotspots", str(tiny_dir), "--by", "step", "--run", "1", "--top", "3")["rows"]
    assert {row["run"] for row in steps_rows} == {1}


@pytest.mark.parametrize("args, said", [
    (["--by", "layer"], "invalid choice: 'layer' (choose from 'compute-set', 'exchange', 'program', 'step')"),
    (["--by", "\x1b]52;c;x\x07"], "invalid choice: '\\x1b]52;c;x\\x07'"),
    (["--type", "Nope"], "no step type 'Nope'; choose one of"),
    (["--run", "9"], "no run 9: this report has 2 profiled runs"),
    (["--run", "0"], "'0' is not a run's number"),
])
def test_bad_options_say_one_line_and_exit_2(capsys, tiny_dir, args, said):
    try:
        code = main(["hotspots", str(tiny_dir), *args])
    except SystemExit as ended:  # argparse's own checks end there
        code = ended.code
    err = capsys.readouterr().err
    assert code == 2 and said in err and len(err.strip().splitlines()) == 1 and "\x1b" not in err


def test_what_a_compute_set_runs_and_how_it_spreads_over_tiles(tiny_report, truth):
    g, e = truth.graph, truth.execution
    table = Hotspots(tiny_report).table("compute-set")
    name = g.compute_set_name[int(table.ids[0])]
    assert table.names[0] == name
    vertices = compute_set_vertices(tiny_report, int(table.ids[0]))
    lo, hi = g.compute_set_vertex_offsets[table.ids[0]], g.compute_set_vertex_offsets[table.ids[0] + 1]
    assert sorted(n for _, n in vertices) == sorted(
        (g.compute_set_vertex_per_tile[lo:hi] * (g.compute_set_hi[table.ids[0]] - g.compute_set_lo[table.ids[0]])).tolist())
    # balance: over the steps with per-tile cycles that ran one of its programs
    hotspots = Hotspots(tiny_report)
    for cs in table.ids.tolist():
        balance = hotspots.tile_balance(cs)
        if isinstance(balance, Unavailable):
            continue
        programs = np.flatnonzero(g.program_compute_set == cs)
        steps = [s for s in e.bsp_steps.tolist() if e.program[s] in programs]
        per_tile = sum(e.cycles_by_tile(s) for s in steps)
        assert balance.slowest == int(per_tile.argmax()) and balance.steps == len(steps)
        assert balance.max_over_mean == pytest.approx(per_tile.max() / per_tile[per_tile > 0].mean())
        break
    else:
        pytest.fail("no compute set ran in a step with per-tile cycles")


def test_every_balance_at_once_is_each_alone(tiny_report, monkeypatch):
    """The worker's pass over every compute set (in blocks of whole compute sets, here of 2 rows) gives
    what the cursor would compute for one alone."""
    import pvtui.model.hotspots as hotspots_module

    monkeypatch.setattr(hotspots_module, "BALANCE_ROWS", 2)
    ids = Hotspots(tiny_report).table("compute-set").ids.tolist()
    alone = [Hotspots(tiny_report).tile_balance(cs) for cs in ids]
    prepared = Hotspots(tiny_report)
    prepared.prepare_tile_balances()
    assert [prepared.tile_balance(cs) for cs in ids] == alone
    found = [b for b in alone if isinstance(b, TileBalance)]
    assert found and any(b.steps > 2 for b in found)  # a compute set of more rows than a block
    assert any(isinstance(b, Unavailable) for b in alone)
    # a compute-set table read again (another run or step type) computes them once only
    monkeypatch.setattr(hotspots_module, "tile_balances", lambda *_: pytest.fail("balances computed again"))
    prepared.prepare_tile_balances()


def test_without_per_tile_cycles_or_vertices_each_says_why(tiny_dir, tmp_path, no_libpva):
    native = load_report(discover(report_without_bundle(tiny_dir, tmp_path / "r"))[0], cache=tmp_path / "cache")
    table = Hotspots(native).table("compute-set")
    balance = Hotspots(native).tile_balance(int(table.ids[0]))
    vertices = compute_set_vertices(native, int(table.ids[0]))
    assert isinstance(balance, Unavailable) and "per-tile cycles" in balance.reason
    assert isinstance(vertices, Unavailable) and "libpva" in vertices.reason
    assert Hotspots(native).table("exchange").data_in is None


def test_the_navigator_switches_tables_sorts_filters_and_follows_the_cursor(tiny_report):
    nav = HotspotsNavigator()
    nav.open(tiny_report)
    for by in BY:
        assert nav.by == by and nav.to_read() is not None
        key = nav.to_read()
        nav.table_read(key, nav.read_table(key))
        assert nav.ready and nav.to_read() is None
        nav.rows()
        nav.select(0)
        assert nav.selected() == int(nav.shown[0]) and nav.selected_program() >= 0
        step, ipu = nav.selected_step()
        execution = tiny_report.execution
        assert int(execution.program[step]) == nav.selected_program() and execution.cycles_from[step, ipu] >= 0
        nav.next_table()
    assert nav.by == BY[0]
    table = nav.table
    nav.next_sort()
    nav.rows()
    assert nav.sort == "longest" and list(table.longest[nav.shown]) == sorted(table.longest, reverse=True)
    nav.next_sort()
    nav.rows()
    assert nav.sort == "count" and list(table.count[nav.shown]) == sorted(table.count, reverse=True)
    nav.next_sort()
    nav.next_sort()
    nav.rows()
    names = [table.names[row].lower() for row in nav.shown.tolist()]
    assert nav.sort == "name" and names == sorted(names) and len(names) == len(table)
    nav.filter("attention")
    nav.rows()
    assert len(nav.shown) and all("attention" in table.names[row] for row in nav.shown.tolist())
    nav.select(len(nav.shown))  # the total row
    assert nav.selected() is None and nav.selected_program() == -1
    nav.select(0)
    assert nav.selected_layer() == Hotspots(tiny_report).layer_of_program[nav.selected_program()]
    assert nav.selected_compute_set() == int(table.ids[nav.shown[0]])
    nav.next_run()
    assert nav.run == 0 and nav.to_read() == ("compute-set", 0, None, "")
    nav.next_run()
    nav.next_run()
    assert nav.run is None and nav.ready  # every run again: read once, kept
    nav.next_type()
    types = nav.hotspots.step_types  # those with steps that are not host waits
    assert nav.type_name == types[0] and not nav.ready
    assert {"OnTileExecute", "DoExchange", "GlobalExchange"} <= set(types) and "StreamCopyBegin" not in types
    exported = nav.export_table()
    assert exported is None  # not read yet for that type


def test_the_readme_says_what_each_column_counts():
    from pathlib import Path

    from pvtui.render.hotspots import COLUMN_WORDS

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    figures = " ".join(readme.split("## What the figures mean", 1)[1].split("\n## ", 1)[0].split())
    for name, words in COLUMN_WORDS:
        assert f"**{name}**: {words}." in figures


def test_reading_a_table_says_each_stage_then_reuses_what_they_computed(tiny_report):
    nav = HotspotsNavigator()
    nav.open(tiny_report)
    stages = nav.reading_stages(nav.to_read())
    assert [words.split(" ", 1)[0] for words, _ in stages] == ["1/3", "2/3", "3/3"]
    assert f"{tiny_report.execution.num_steps:,} steps" in stages[0][0] and "compute sets" in stages[2][0]
    for _, stage in stages:
        stage()
    figures = nav.hotspots.figures()
    nav.table_read(nav.key, nav.read_table(nav.key))
    assert nav.hotspots.figures() is figures and nav.ready


def test_the_figures_kept_at_ingest_are_those_of_the_steps(tiny_report):
    from pvtui.model.hotspots import figures_by_id, per_program, program_figures

    execution = tiny_report.execution
    kept = execution.program_figures  # ingest kept them: the first table reads a row per program
    assert kept is not None
    counted = figures_by_id(execution.program, execution.cycles, execution.cycles_from, len(tiny_report.programs))
    assert kept.keys() == counted.keys() and all(np.array_equal(kept[k], counted[k]) for k in kept)
    lo, hi = execution.run_range(0)
    whole, run = program_figures(tiny_report), program_figures(tiny_report, lo, hi)  # a run's are counted
    assert whole.total == int(execution.cycles[np.asarray(execution.cycles_from) >= 0].sum()) > run.total > 0
    # ids no program has (below 0, or past the last: a hostile 2**31 too) are one last row; its longest step the
    # first that long
    step_ids = np.array([-1, 0, 5, 1, 2**31, 5])
    cycles = np.array([[4, 0], [1, 2], [9, 0], [3, 3], [0, 9], [9, 1]])
    ran = np.array([[0, -1], [0, 0], [0, -1], [0, 0], [-1, 0], [0, 0]])
    figures = per_program(figures_by_id(step_ids, cycles, ran, 3), 3)
    assert figures.cycles_by_ipu.tolist() == [[1, 2], [3, 3], [0, 0], [22, 10]]
    assert figures.count.tolist() == [2, 2, 0, 5] and figures.longest.tolist() == [2, 3, -1, 9]
    assert figures.longest_step.tolist() == [1, 3, -1, 2] and figures.longest_ipu.tolist() == [1, 0, -1, 0]
    assert figures.several_ipus.tolist() == [True, True, False, True] and figures.total == 41


@pytest.mark.parametrize("sort", ["cycles", "longest", "count", "mean", "name"])
@pytest.mark.parametrize("text", ["", "1", "LAYER", "no such name"])
def test_a_sort_and_a_filter_pick_the_rows_each_would_rank_alone(tiny_report, sort, text):
    """The orders sorted once (HotspotTable.prepare) and a filter's rows picked from them rank as a sort of
    the rows the filter keeps would: largest first, names A to Z in any case, ties in the table's order."""
    table = Hotspots(tiny_report).table("program")
    table.prepare()
    kept = [row for row, name in enumerate(table.names) if text.lower() in name.lower()]
    if sort == "name":
        expected = sorted(kept, key=lambda row: table.names[row].lower())
    else:
        expected = sorted(kept, key=lambda row: -table.column(sort)[row])
    assert table.select(sort, text).tolist() == expected
