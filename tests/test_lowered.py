"""Lowered variables: the libpva adapter reads them from the stand-in into columns indexed by tile and name."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pvtui.model.report import Report
from pvtui.sources.base import ReportFiles
from pvtui.sources.ingest import build_bundle
from pvtui.synth import standin


@pytest.fixture(scope="module")
def synthetic():
    from pvtui.synth import generate

    return generate("tiny", seed=5)


def _adapt(synthetic, folder, pva_report=None) -> Report:
    files = ReportFiles(directory=folder, name="adapted")
    path = build_bundle(files, folder / "bundle", pva_report=pva_report or standin.PvaReport(synthetic),
                        operations=standin.operations(synthetic))
    return Report(path)


@pytest.fixture(scope="module")
def adapted(synthetic, tmp_path_factory):
    return _adapt(synthetic, tmp_path_factory.mktemp("lowered"))


def test_each_tile_lists_its_pieces_largest_first(adapted, synthetic):
    truth = synthetic.lowered
    lowered = adapted.lowered
    assert lowered is not None and len(lowered) == len(truth.piece_tile)
    for tile in (0, 5, 63, 64, 127):
        variables = lowered.tile_variables(tile)
        sizes = [v.bytes for v in variables]
        assert sizes == sorted(sizes, reverse=True)
        on_tile = truth.piece_tile == tile
        assert sum(sizes) == int(truth.piece_bytes[on_tile].sum())
        expected = sorted((truth.class_name[c], int(b)) for c, b in zip(truth.piece_class[on_tile], truth.piece_bytes[on_tile]))
        assert sorted((v.name, v.bytes) for v in variables) == expected


def test_always_live_follows_the_liveness(adapted, synthetic):
    truth = synthetic.lowered
    variables = adapted.lowered.tile_variables(3)
    always = {v.name for v in variables if v.always_live}
    assert "stack" in always
    assert always <= set(truth.class_name[truth.num_not_always_live:])
    for v in variables:
        if not v.always_live:
            cls = truth.class_name.index(v.name)
            lo, hi = truth.class_interval_offsets[cls], truth.class_interval_offsets[cls + 1]
            assert v.intervals == tuple(zip(truth.interval_start[lo:hi].tolist(), truth.interval_end[lo:hi].tolist()))
            assert v.steps_live == sum(e - s for s, e in v.intervals) < adapted.lowered.num_steps


def test_one_variable_across_tiles(adapted, synthetic):
    lowered = adapted.lowered
    for name in ("stack", synthetic.liveness.var_name[7], synthetic.memory.always_live_name[0]):
        name_id = lowered.name_id(name)
        assert name_id is not None and lowered.names[name_id] == name
        assert np.array_equal(lowered.bytes_by_tile(name_id), synthetic.lowered.bytes_by_tile(name, synthetic.num_tiles))
    assert lowered.name_id("no such variable") is None


def test_variables_link_to_their_operation_debug_context(adapted, synthetic):
    lowered = adapted.lowered
    var = 11
    op = int(synthetic.liveness.var_op[var])
    name_id = lowered.name_id(synthetic.liveness.var_name[var])
    assert lowered.debug_context(name_id) == synthetic.debug.op_context_id(op)
    assert lowered.debug_context(lowered.name_id("stack")) == -1


def test_per_tile_liveness_leaves_the_always_live_out(adapted, synthetic):
    by_tile = np.asarray(adapted.liveness.by_tile)
    assert np.array_equal(by_tile.max(axis=0), synthetic.memory.not_always_live)


def test_a_report_without_lowered_variables_says_which_option_adds_them(synthetic, tmp_path):
    pva = standin.PvaReport(synthetic)
    del pva.compilation.loweredVariables
    report = _adapt(synthetic, tmp_path, pva)
    assert report.lowered is None
    assert "autoReport.outputLoweredVars" in report.missing("lowered")
    assert report.liveness is not None


def _run_json(capsys, *args: str) -> dict:
    from pvtui.cli import main

    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_memory_tile_json_lists_what_is_on_the_tile(capsys, tiny_dir):
    from pvtui.synth import generate

    truth = generate("tiny", seed=0)
    tile = 70
    data = _run_json(capsys, "memory", str(tiny_dir), "--tile", str(tile))
    assert data["tile"] == tile and data["ipu"] == 1
    assert data["including_gaps"] == int(truth.memory.including_gaps[tile])
    assert data["excluding_gaps"] == int(truth.memory.excluding_gaps[tile])
    assert sum(data["categories"].values()) == data["excluding_gaps"]
    sizes = [v["bytes"] for v in data["variables"]]
    assert sizes == sorted(sizes, reverse=True)
    assert sum(sizes) == int(truth.lowered.piece_bytes[truth.lowered.piece_tile == tile].sum())
    g = truth.graph
    expected_sets = {g.compute_set_name[c] for c in range(len(g.compute_set_name))
                     if g.compute_set_lo[c] <= tile < g.compute_set_hi[c]}
    assert {c["name"] for c in data["compute_sets"]} == expected_sets
    state = sum(c["state_bytes"] for c in data["compute_sets"])
    assert state == sum(v["state_bytes"] for v in data["vertices"]) == int(truth.memory.category("vertexInstanceState")[tile])
    assert sum(v["code_bytes"] for v in data["vertices"]) == int(truth.memory.category("vertexCode")[tile])
    exchange = sum(truth.memory.category(c)[tile] for c in ("internalExchangeCode", "globalExchangeCode", "hostExchangeCode"))
    assert sum(e["code_bytes"] for e in data["exchanges"]) == int(exchange)


def test_memory_variable_json_gives_bytes_on_every_tile(capsys, tiny_dir):
    from pvtui.synth import generate

    truth = generate("tiny", seed=0)
    name = truth.liveness.var_name[3]
    data = _run_json(capsys, "memory", str(tiny_dir), "--variable", name)
    expected = truth.lowered.bytes_by_tile(name, truth.num_tiles)
    assert data["variable"] == name and data["by_tile"] == expected.tolist()
    assert data["total"] == int(expected.sum()) and data["tiles"] == int(np.count_nonzero(expected))


@pytest.mark.parametrize("args", [("--tile", "128"), ("--tile", "-1"), ("--variable", "no/such/variable")])
def test_a_tile_or_variable_that_does_not_exist_is_one_line_and_exit_2(capsys, tiny_dir, args):
    from pvtui.cli import main

    assert main(["memory", str(tiny_dir), *args, "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
