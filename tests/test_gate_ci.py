"""The gate as a CI job runs it: the console script over two reports that differ the way a regression does (a
tile over the limit, a model layer 6% slower), one command each; a cold cache costs one ingest of each report,
and no report file is written to."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from pvtui.cli import main
from pvtui.model import schema
from pvtui.model.bundle import Bundle, BundleWriter
from pvtui.model.layers import build_tree
from pvtui.model.report import Report
from pvtui.synth import BUNDLE_NAME

PVTUI = Path(sys.executable).with_name("pvtui")  # the console script the package installs


def edited_copy(source: Path, dest: Path, edit: Callable[[Report], dict[str, np.ndarray]],
                without: tuple[str, ...] = ()) -> Path:
    """A bundle at DEST: SOURCE's, with the columns EDIT gives (name: values) in place of its own, and without
    the parts WITHOUT."""
    report = Report(source)
    changed = edit(report)
    bundle = Bundle(source)
    with BundleWriter(dest) as writer:
        writer.meta.update({k: v for k, v in bundle.meta.items() if k != "columns"}, name=dest.name)
        writer.meta["parts"] = [part for part in bundle.meta["parts"] if part not in without]
        writer.link_from(bundle, [name for name in bundle.columns if name not in changed])
        for name, values in changed.items():
            writer.array(name, values)
        for document in (schema.FRAMEWORK_JSON, schema.APP_JSON):
            if (source / document).is_file():
                shutil.copyfile(source / document, writer.tmp_dir / document)
        writer.commit()
    return dest


def under_the_limit(report: Report) -> dict[str, np.ndarray]:
    """The tiles over the limit brought 1 KiB under it."""
    limit = report.target.bytes_per_tile
    columns = {}
    for name in (schema.TILE_INCLUDING_GAPS, schema.TILE_EXCLUDING_GAPS):
        values = np.array(report.bundle.array(name))
        values[values > limit - 1024] = limit - 1024
        columns[name] = values
    return columns


def layer_slower(layer: str, factor: float) -> Callable[[Report], dict[str, np.ndarray]]:
    """Every step of a program under the top-level model layer LAYER taking FACTOR times its cycles."""

    def edit(report: Report) -> dict[str, np.ndarray]:
        tree = build_tree(report)
        node = tree.program_node
        under = np.zeros(len(node), dtype=bool)
        placed = node >= 0
        under[placed] = [tree.names[top] == layer for top in tree.top[node[placed]].tolist()]
        program = np.asarray(report.execution.program, dtype=np.int64)
        steps = under[np.where((program >= 0) & (program < len(node)), program, 0)] & (program >= 0)
        cycles = np.array(report.execution.cycles)
        cycles[steps] = np.rint(cycles[steps] * factor).astype(cycles.dtype)
        return {schema.STEP_CYCLES: cycles}

    return edit


@pytest.fixture(scope="module")
def bundles(tmp_path_factory, tiny_dir) -> dict[str, Path]:
    """The tiny report's bundle (over the limit on one tile), one with no tile over it, one whose layer1 runs 6%
    slower, and one without its execution profile."""
    root = tmp_path_factory.mktemp("gate")
    tiny = tiny_dir / BUNDLE_NAME
    return {"tiny": tiny, "fits": edited_copy(tiny, root / "fits", under_the_limit),
            "slower": edited_copy(tiny, root / "slower", layer_slower("layer1", 1.06)),
            "memory only": edited_copy(tiny, root / "memory-only", lambda report: {}, without=("execution",))}


def gate(*argv, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PVTUI_CACHE_DIR": str(cache)}
    return subprocess.run([str(PVTUI), "compare", *map(str, argv)], capture_output=True, text=True, env=env,
                          timeout=300)


def test_a_job_fails_on_a_tile_over_the_limit(bundles, tmp_path):
    condition = "memory.tiles_over_limit > 0"
    passed = gate(bundles["tiny"], bundles["fits"], "--fail-if", condition, "--json", cache=tmp_path)
    assert passed.returncode == 0, passed.stderr
    assert json.loads(passed.stdout)["conditions"][0]["b"] == 0
    failed = gate(bundles["fits"], bundles["tiny"], "--fail-if", condition, "--format", "github", cache=tmp_path)
    assert failed.returncode == 1 and "Traceback" not in failed.stderr
    assert failed.stdout.startswith("::error title=pvtui gate%3A memory.tiles_over_limit > 0::")


def test_a_job_fails_on_a_layer_5_percent_slower(bundles, tmp_path):
    condition = "cycles.layer.* > +5%"
    same = gate(bundles["tiny"], bundles["tiny"], "--fail-if", condition, cache=tmp_path)
    assert same.returncode == 0, same.stderr
    slower = gate(bundles["tiny"], bundles["slower"], "--fail-if", condition, "--json", cache=tmp_path)
    assert slower.returncode == 1, slower.stderr
    data = json.loads(slower.stdout)
    assert data["failed"] == 1 and data["conditions"][0]["metric"] == "cycles.layer.layer1"
    assert [row["failed"] for row in data["conditions"]].count(False) == len(data["conditions"]) - 1
    first = data["conditions"][0]
    assert 1.05 < first["b"] / first["a"] < 1.07


def test_a_misspelt_metric_is_an_error_not_a_pass(bundles, tmp_path):
    run = gate(bundles["tiny"], bundles["slower"], "--fail-if", "cycles.layers.* > +5%", cache=tmp_path)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.strip().endswith("did you mean cycles.layer.*?")


def _files(directory: Path) -> dict[str, tuple[int, int, str]]:
    return {str(p.relative_to(directory)): (p.stat().st_size, p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes())
                                            .hexdigest()) for p in sorted(directory.rglob("*")) if p.is_file()}


def test_a_cold_cache_costs_one_ingest_of_each_report_and_no_report_is_written(tiny_dir, other_dir, tmp_path,
                                                                                 monkeypatch, capsys):
    from pvtui.sources import ingest

    a, b = (shutil.copytree(source, tmp_path / source.name) for source in (tiny_dir, other_dir))
    before = {path: _files(path) for path in (a, b)}
    monkeypatch.setenv("PVTUI_CACHE_DIR", str(tmp_path / "cold"))
    built = []
    real = ingest.build_bundle
    monkeypatch.setattr(ingest, "build_bundle",
                        lambda files, *args, **kw: built.append(files.name) or real(files, *args, **kw))
    native = ["--reader", "native"]  # profile.pop read into the cache (the synthetic bundle beside it would stand in)
    assert main(["compare", str(a), str(b), "--fail-if", "memory.max_tile > +100%", "--json", *native]) == 0
    assert sorted(built) == ["other", "tiny"]
    assert json.loads(capsys.readouterr().out)["failed"] == 0
    assert main(["compare", str(a), str(b), "--metrics", "--json", *native]) == 0
    assert len(built) == 2  # the cache holds them now
    assert {path: _files(path) for path in (a, b)} == before


def test_a_report_without_an_execution_profile_says_which_option_adds_it(bundles, tmp_path):
    run = gate(bundles["tiny"], bundles["memory only"], "--fail-if", "memory.max_tile > +2%",
               "--fail-if", "cycles.device > +5%", cache=tmp_path)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.splitlines() == [
        "pvtui: --fail-if 'cycles.device > +5%': report B (memory-only) cannot give cycles.device: This report has no "
        "execution data: it needs profile.pop with an execution profile (engine option "
        "autoReport.outputExecutionProfile)."]
    memory = gate(bundles["tiny"], bundles["memory only"], "--fail-if", "memory.max_tile > +2%", cache=tmp_path)
    assert memory.returncode == 0, memory.stderr
