"""Pipeline splits: per-layer memory of a single-IPU report and balanced stages."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from pvtui.cli import main
from pvtui.model.splits import DEFAULT_LAYER_PATTERN, compile_pattern, layer_memory, layer_name


def write_single_ipu(tmp_path_factory, seed: int):
    from pvtui.synth import write_report

    out = tmp_path_factory.mktemp("reports") / f"tiny-1ipu-{seed}"
    write_report(out, scale="tiny", ipus=1, seed=seed)
    return out


def open_report(path):
    from pvtui.sources.discovery import discover
    from pvtui.sources.ingest import load_report

    return load_report(discover(path)[0])


@pytest.fixture(scope="module")
def single_ipu_dir(tmp_path_factory, cache_root):
    return write_single_ipu(tmp_path_factory, seed=0)


@pytest.fixture(scope="module")
def out_of_memory_dir(tmp_path_factory, cache_root):
    """A single-IPU report whose fullest tile holds more than a tile's memory."""
    out = write_single_ipu(tmp_path_factory, seed=1)
    report = open_report(out)
    assert int(np.asarray(report.memory.including_gaps).max()) > report.target.bytes_per_tile
    return out


def split_json(capsys, path, *args: str) -> dict:
    assert main(["split", str(path), *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("ipus", [2, 4])
def test_split_balances_memory_and_every_stage_fits(capsys, single_ipu_dir, ipus):
    data = split_json(capsys, single_ipu_dir, "--ipus", str(ipus))
    layers, stages = data["layers"], data["stages"]
    assert [layer["name"] for layer in layers if layer["matched"]] == ["layer0", "layer1", "layer2"]
    assert len(stages) == ipus and data["all_fit"] is True
    assert all(stage["fits"] and stage["estimated_worst_tile_bytes"] <= data["bytes_per_tile"] for stage in stages)
    # contiguous, in order, covering every layer once
    assert [name for stage in stages for name in stage["layers"]] == [layer["name"] for layer in layers]
    assert data["split_after"] == [stage["layers"][-1] for stage in stages[:-1]]
    for stage in stages:
        own = [layer for layer in layers if layer["name"] in stage["layers"]]
        fixed = sum(layer["code_bytes"] + layer["always_live_bytes"] for layer in own)
        assert stage["memory"] == fixed + stage["temporaries_bytes"] + stage["shared_bytes"]
        # live variables of several layers together peak at most at the sum of their peaks
        peaks = [layer["peak_not_always_live_bytes"] for layer in own]
        assert max(peaks) <= stage["temporaries_bytes"] <= sum(peaks)
    # no other contiguous split has a smaller largest stage
    split = layer_memory(open_report(single_ipu_dir), compile_pattern(DEFAULT_LAYER_PATTERN))
    fixed = [layer.code_bytes + layer.always_live_bytes for layer in split.layers]
    shared = stages[0]["shared_bytes"]

    def stage_memory(a: int, b: int) -> int:
        return sum(fixed[a:b]) + split.temporaries(a, b) + shared

    n = len(split.layers)
    best = min(
        max(stage_memory(a, b) for a, b in zip((0, *cuts), (*cuts, n)))
        for cuts in itertools.combinations(range(1, n), ipus - 1)
    )
    assert max(stage["memory"] for stage in stages) == best
    assert data["notes"] == []


def test_a_layer_peak_counts_only_its_own_variables(capsys, single_ipu_dir):
    data = split_json(capsys, single_ipu_dir, "--ipus", "2")
    liveness = open_report(single_ipu_dir).liveness
    pattern = compile_pattern(DEFAULT_LAYER_PATTERN)
    names = liveness.variable_names
    peaks: dict[str, int] = {}
    for step in range(len(liveness)):
        at_step: dict[str, int] = {}
        for variable, size in liveness.live_variables(step):
            layer = layer_name(pattern, [names[variable]])[0]
            at_step[layer] = at_step.get(layer, 0) + size
        for layer, size in at_step.items():
            peaks[layer] = max(peaks.get(layer, 0), size)
    assert {layer["name"]: layer["peak_not_always_live_bytes"] for layer in data["layers"]} == {
        layer["name"]: peaks.get(layer["name"], 0) for layer in data["layers"]
    }
    # the whole model's peak is larger than any one layer's
    assert max(peaks.values()) < int(np.asarray(liveness.not_always_live).max())


def test_one_ipu_holds_the_whole_report(capsys, single_ipu_dir):
    stage = split_json(capsys, single_ipu_dir, "--ipus", "1")["stages"][0]
    assert main(["summary", str(single_ipu_dir), "--json"]) == 0
    assert stage["memory"] == json.loads(capsys.readouterr().out)["memory"]["total_including_gaps"]
    fullest = int(np.asarray(open_report(single_ipu_dir).memory.including_gaps).max())
    assert stage["estimated_worst_tile_bytes"] == fullest


def test_an_out_of_memory_report_does_not_fit_on_one_ipu(capsys, out_of_memory_dir):
    data = split_json(capsys, out_of_memory_dir, "--ipus", "1")
    stage = data["stages"][0]
    assert stage["fits"] is False and data["all_fit"] is False
    assert stage["estimated_worst_tile_bytes"] > data["bytes_per_tile"]
    assert "per tile" in data["fit_rule"] and "imbalance" in data["fit_rule"]
    assert main(["split", str(out_of_memory_dir), "--ipus", "1"]) == 0
    out = capsys.readouterr().out
    assert "worst tile" in out and "Fit is judged per tile" in out
    assert "│ no " in out and "│ yes" not in out


def test_user_pattern_and_bad_pattern(capsys, single_ipu_dir):
    data = split_json(capsys, single_ipu_dir, "--ipus", "2", "--layer-pattern", r"^(embeddings|head)/")
    matched = [layer["name"] for layer in data["layers"] if layer["matched"]]
    assert matched == ["embeddings", "head"]
    assert main(["split", str(single_ipu_dir), "--ipus", "2", "--layer-pattern", "layer("]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--layer-pattern 'layer('" in err
    assert main(["split", str(single_ipu_dir), "--ipus", "0"]) == 2


def test_multi_ipu_report_is_answered_from_its_totals(capsys, tiny_dir):
    data = split_json(capsys, tiny_dir, "--ipus", "2")
    assert len(data["stages"]) == 2
    assert any("single-IPU" in note for note in data["notes"])


def test_table_output(capsys, single_ipu_dir):
    split_after = split_json(capsys, single_ipu_dir, "--ipus", "4")["split_after"]
    assert main(["split", str(single_ipu_dir), "--ipus", "4"]) == 0
    out = capsys.readouterr().out
    assert "Stages on 4 IPUs" in out and f"Split after: {', '.join(split_after)}\n" in out
