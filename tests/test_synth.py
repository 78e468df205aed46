"""The synthetic report generator: deterministic truth, a stand-in that follows the
libpva API, files that readers accept, and figures that agree with each other."""

from __future__ import annotations

import dataclasses
import io
import json

import cbor2
import numpy as np
import pytest
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile

from pvtui.synth import SCALES, files, generate, standin, write_report
from pvtui.synth.memory import CATEGORIES, CODE_CATEGORIES, DATA_CATEGORIES
from pvtui.synth.scales import BYTES_PER_TILE


@pytest.fixture(scope="module")
def tiny():
    return generate("tiny", seed=0)


@pytest.fixture(scope="module")
def pva(tiny):
    return standin.PvaReport(tiny)


def _same(a, b) -> bool:
    """Deep equality over the truth's dataclasses, arrays and lists."""
    if dataclasses.is_dataclass(a):
        return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def test_same_seed_same_truth_other_seed_other_truth(tiny):
    assert _same(tiny, generate("tiny", seed=0))
    other = generate("tiny", seed=1)
    assert not np.array_equal(tiny.memory.including_gaps, other.memory.including_gaps)
    assert not _same(tiny.graph, other.graph)


def test_same_seed_same_file_bytes(tmp_path, tiny):
    def write(truth, name):
        directory = tmp_path / name
        directory.mkdir()
        files.write_archive(truth, directory / "archive.a")
        files.write_debug(truth, directory / "debug.cbor")
        return [(directory / f).read_bytes() for f in ("archive.a", "debug.cbor")]

    first = write(tiny, "a")
    assert write(generate("tiny", seed=0), "b") == first
    other = write(generate("tiny", seed=1), "c")
    assert other[0] != first[0] and other[1] != first[1]


def test_write_report_writes_every_file_and_a_bundle_of_the_scale(tmp_path):
    from pvtui.model.report import Report
    from pvtui.synth import BUNDLE_NAME

    out = write_report(tmp_path / "tiny", "tiny", None, 0)
    for name in ("archive.a", "debug.cbor", "framework.json", "app.json"):
        assert (out / name).stat().st_size > 0
    report = Report(out / BUNDLE_NAME)
    assert report.target.num_tiles == SCALES["tiny"].ipus * SCALES["tiny"].tiles_per_ipu
    assert report.meta["synthetic"]["scale"] == "tiny"


def test_tiny_figures_are_in_range(tiny):
    s = tiny.expected_summary()
    assert (s["num_ipus"], s["tiles_per_ipu"], s["bytes_per_tile"]) == (2, 64, 638_976)
    assert 150 <= s["programs"] <= 450
    assert 250 <= s["liveness_steps"] <= 400
    assert s["runs"] == 2 and 700 <= s["steps"] <= 1200
    assert s["bsp_steps"] == 50
    assert 200 <= s["debug_contexts"] <= 1000


def test_scale_figures():
    small = generate("small").expected_summary()
    assert small["num_tiles"] == 2 * 1472
    assert 2_000 <= small["programs"] <= 4_000
    assert 15_000 <= small["steps"] <= 30_000
    assert 1 <= small["tiles_over_limit"] <= 10
    assert small["max_tile_bytes"] > BYTES_PER_TILE
    assert SCALES["large"].ipus == 4 and SCALES["large"].layers == 24


def test_ipus_override():
    truth = generate("tiny", ipus=4)
    pva = standin.PvaReport(truth)
    assert pva.compilation.target.numIPUs == 4 and pva.compilation.target.numTiles == 4 * 64
    assert truth.liveness.step_bytes_by_ipu.shape[1] == 4
    assert len(pva.execution.steps[0].ipus) == 4
    with pytest.raises(ValueError):
        generate("huge")


def test_summary_is_self_consistent(tiny):
    s, m, lv = tiny.expected_summary(), tiny.memory, tiny.liveness
    assert np.all(m.including_gaps >= m.excluding_gaps)
    assert np.array_equal(m.always_live + m.not_always_live, m.excluding_gaps)
    assert np.array_equal(m.categories.sum(axis=1), m.excluding_gaps)
    assert sum(s["category_totals"].values()) == s["total_excluding_gaps"]
    assert set(s["category_totals"]) == set(CATEGORIES)
    assert s["total_including_gaps"] == int(s["tile_including_gaps"].sum())
    assert s["max_tile_bytes"] == s["tile_including_gaps"].max() == s["tile_including_gaps"][s["max_tile"]]
    assert s["tiles_over_limit"] == int((s["tile_including_gaps"] > BYTES_PER_TILE).sum())
    assert s["always_live_bytes"] == int(m.always_live.sum())
    assert s["peak_not_always_live_bytes"] == lv.step_bytes.max() == lv.step_bytes[s["peak_step"]]
    assert np.array_equal(lv.step_bytes_by_ipu.sum(axis=1), lv.step_bytes)
    assert s["steps"] == int(tiny.execution.run_offsets[-1])
    # liveness rises through the forward pass and peaks in the backward
    g = tiny.graph
    peak_op = int(np.searchsorted(g.op_first_step, s["peak_step"], side="right")) - 1
    assert g.op_pass[peak_op] == 1
    first_backward = int(g.op_first_step[np.flatnonzero(g.op_pass == 1)[0]])
    assert lv.step_bytes[g.body_start + 5] < lv.step_bytes[first_backward]


def test_archive_mapping_matches_categories(tiny):
    m = tiny.memory
    code = sum(m.category(c) for c in CODE_CATEGORIES)
    data = sum(m.category(c) for c in DATA_CATEGORIES)
    assert np.array_equal(m.archive_code, code) and np.array_equal(m.archive_data, data)
    assert np.array_equal(m.archive_code + m.archive_data + m.archive_bss, m.excluding_gaps)
    assert np.all(m.archive_bss >= 0)


def test_standin_follows_the_api(tiny, pva):
    s = tiny.expected_summary()
    assert pva.poplarVersion.string.startswith("3.3.0 (")
    assert (pva.poplarVersion.major, pva.poplarVersion.minor, pva.poplarVersion.point) == (3, 3, 0)
    assert isinstance(pva.version.major, int) and pva.version.isUnstableFormat is False
    assert pva.instrumentationSettings.compute.name == "Tile"
    assert pva.instrumentationSettings.externalExchange.name == "Off"
    c = pva.compilation
    t = c.target
    assert (t.numTiles, t.tilesPerIpu, t.numIPUs, t.bytesPerTile) == (128, 64, 2, BYTES_PER_TILE)
    assert t.bytesPerIPU == 64 * BYTES_PER_TILE and t.totalMemory == 128 * BYTES_PER_TILE
    assert (t.numReplicas, t.ipusPerReplica, t.tilesPerReplica, t.memoryPerReplica) == (1, 2, 128, t.totalMemory)
    assert t.clockFrequency == 1.33e9 and t.type.name == "Ipu" and t.architecture.name == "Ipu2"
    assert c.graph.numComputeSets == len(c.computeSets) == s["compute_sets"]
    vertex = c.computeSets[0].vertices[0]
    assert "::" in vertex.type.name and vertex.type.size > 0 and len(vertex.countByTile) == 128

    assert len(c.programs) == s["programs"]
    for program in c.programs:
        assert isinstance(program.name, str) and isinstance(program.type.name, str)
        assert isinstance(program._id, int) and isinstance(program.children, list)
        assert all(hasattr(v, "_id") and hasattr(v, "name") for v in program.vars)
        assert len(program.controlCodeByTile) == 128 and len(program.estimatedCyclesByTile) == 128
        assert len(program.codeBytesByTile) in (0, 128)
        if program.type.name == "OnTileExecute":
            cs = program.computeset
            assert all(len(v.countByTile) == 128 and v.type.size > 0 for v in cs.vertices)
        else:
            assert not hasattr(program, "computeset")

    tile = c.tiles[3].memory
    assert tile.total.includingGaps >= tile.total.excludingGaps
    assert tile.alwaysLiveBytes + tile.notAlwaysLiveBytes == tile.total.excludingGaps
    assert sum(getattr(tile.category, n).total for n in CATEGORIES) == tile.total.excludingGaps
    assert sum(v.codeBytes for v in tile.vertices) == tile.category.vertexCode.total
    assert tile.overflowed.includingGaps >= 0
    assert len(c.ipus) == 2 and len(c.ipus[1].tiles) == 64
    assert c.ipus[1].tiles[0].memory.total.includingGaps == c.tiles[64].memory.total.includingGaps

    steps = c.livenessProgramSteps
    assert len(steps) == s["liveness_steps"]
    peak = steps[s["peak_step"]]
    assert peak.program.name == s["peak_step_name"]
    assert peak.notAlwaysLiveMemory.bytes == s["peak_not_always_live_bytes"]
    assert sum(v.size for v in peak.notAlwaysLiveMemory.variables) == peak.notAlwaysLiveMemory.bytes
    assert sum(peak.notAlwaysLiveMemoryForIpu(k).bytes for k in range(2)) == peak.notAlwaysLiveMemory.bytes
    assert sum(peak.notAlwaysLiveMemoryForTile(t).bytes for t in range(128)) == peak.notAlwaysLiveMemory.bytes
    assert all(isinstance(v.name, str) and v.size > 0 for v in c.alwaysLiveVariables)
    assert {v.name for v in c.alwaysLiveVariablesForTile(0)} >= {"stack", "controlId"}
    brief = c.loweredVariables.allBriefVars[0]
    assert brief.id >= 1 and brief.bytes > 0 and 0 <= brief.tileId < 128
    assert brief.equivalenceClass.id >= 1 and brief.equivalenceClass.steps[0].start < brief.equivalenceClass.steps[0].end
    lowered = c.loweredVariables.forTile(brief.tileId)
    assert lowered and all(v.hasUnloweredVar and v.unloweredVar.name for v in lowered)


def test_standin_execution(tiny, pva):
    s = tiny.expected_summary()
    e = pva.execution
    assert len(e.steps) == s["steps"] and e.totalCycles.total == s["total_cycles"]
    assert len(e.runs) == 2 and sum(len(r.steps) for r in e.runs) == len(e.steps)
    assert e.runs[1].steps[0].program._id == e.steps[len(e.runs[0].steps)].program._id
    assert all(r.microseconds.start < r.microseconds.end for r in e.runs)
    instrumented = 0
    for step in e.steps:
        by_tile = step.cyclesByTile
        instrumented += len(by_tile) > 0
        for ipu in step.ipus:
            assert 0.0 <= ipu.tileBalance <= ipu.activeTileBalance <= 1.0
            assert ipu.dataIn >= 0 and ipu.dataOut >= 0
            if ipu.activeCycles is None:
                assert ipu.cycles == 0
                continue
            active = ipu.activeCycles
            assert 2.0e9 < active.cyclesFrom.min <= active.cyclesFrom.max <= active.cyclesTo.min <= active.cyclesTo.max
            assert ipu.cycles == active.cyclesTo.max - active.cyclesFrom.min
        if len(by_tile):
            assert len(by_tile) == 128 and by_tile.max() <= max(i.cycles for i in step.ipus)
        if step.program.type.name == "OnTileExecute":
            assert step.computeSets[0].name == step.program.computeset.name
    assert instrumented == s["bsp_steps"]


def test_per_tile_liveness_rebuilds_from_lowered_variables(tiny, pva):
    c = pva.compilation
    n, tiles = len(c.livenessProgramSteps), c.target.numTiles
    diff = np.zeros((n + 1, tiles), np.int64)
    for var in c.loweredVariables.allBriefVars:
        intervals = var.equivalenceClass.steps
        if [(i.start, i.end) for i in intervals] == [(0, n)]:
            continue  # always live: not in the not-always-live figures
        for interval in intervals:
            diff[interval.start, var.tileId] += var.bytes
            diff[interval.end, var.tileId] -= var.bytes
    by_tile = np.cumsum(diff, axis=0)[:n]
    for step in range(0, n, 7):
        expected = [c.livenessProgramSteps[step].notAlwaysLiveMemoryForTile(t).bytes for t in range(tiles)]
        assert by_tile[step].tolist() == expected
    assert np.array_equal(by_tile.sum(axis=1), tiny.liveness.step_bytes)
    assert np.array_equal(by_tile.max(axis=0), tiny.memory.not_always_live)


def test_program_tree(tiny, pva):
    programs = pva.compilation.programs
    types = {p.type.name for p in programs}
    assert {"OnEveryTileSwitch", "Sequence", "Repeat", "OnTileExecute", "DoExchange", "GlobalExchange",
            "StreamCopyBegin", "StreamCopyMid", "StreamCopyEnd", "Sync", "Call", "If"} <= types
    root = programs[tiny.graph.root]
    assert root.type.name == "OnEveryTileSwitch"
    download, main = root.children
    assert download.name == "WeightsFromHost" and main.name == "main"
    kinds = [p.type.name for p in download.children]
    assert kinds[:3] == ["StreamCopyBegin", "StreamCopyMid", "StreamCopyEnd"] and len(kinds) % 3 == 0
    assert any(p.type.name == "Sync" and p.name == "External" for p in programs)
    assert any(p.name.startswith("layer2/attention/qkv/Conv_1") for p in programs)

    class Visitor:
        seen: list[str] = []

        def visitOnTileExecute(self, program):
            self.seen.append(program.name)

    visitor = Visitor()
    for p in programs:
        p.accept(visitor)  # types without a visit method are skipped
    assert len(visitor.seen) == sum(p.type.name == "OnTileExecute" for p in programs)


def test_operations_link_debug_contexts(tiny):
    ops = standin.operations(tiny)
    assert len(ops) == len(tiny.graph.op_name)
    forward = ops[10]
    context = forward.debugContext
    assert json.loads(context.layer)["layer"] == "popart"
    assert json.loads(context.json)["category"] == "op"
    onnx = context.parents[0]
    assert json.loads(onnx.layer)["layer"] == "onnx"
    poptorch = onnx.parents[0]
    assert json.loads(poptorch.layer)["layer"] == "poptorch" and poptorch.location.lineNumber > 0
    assert forward.programs() and forward.firstStepIndex <= forward.lastStepIndex
    assert all(v._id >= 1 for v in forward.vars)
    ids = {c["id"] for c in tiny.debug}
    assert all(op.debugContext.id in ids for op in ops)


def _ar_members(data: bytes) -> list[tuple[str, bytes]]:
    assert data[:8] == b"!<arch>\n"
    members, offset = [], 8
    while offset < len(data):
        header = data[offset : offset + 60]
        name, size = header[:16].decode().strip(), int(header[48:58])
        members.append((name.rstrip("/"), data[offset + 60 : offset + 60 + size]))
        offset += 60 + size + size % 2
    return members


def test_files_are_written(tiny_dir):
    truth = generate("tiny", seed=0)
    members = _ar_members((tiny_dir / "archive.a").read_bytes())
    assert [name for name, _ in members] == [files.member_name(t) for t in range(truth.num_tiles)]
    for t in (0, 77):
        elf = ELFFile(io.BytesIO(members[t][1]))
        allocated = [s for s in elf.iter_sections() if s["sh_flags"] & SH_FLAGS.SHF_ALLOC]
        code = sum(s["sh_size"] for s in allocated if s["sh_flags"] & SH_FLAGS.SHF_EXECINSTR)
        bss = sum(s["sh_size"] for s in allocated if s["sh_type"] == "SHT_NOBITS")
        assert code == truth.memory.archive_code[t] and bss == truth.memory.archive_bss[t]
        assert sum(s["sh_size"] for s in allocated) == truth.memory.excluding_gaps[t]

    with (tiny_dir / "debug.cbor").open("rb") as f:
        contexts = cbor2.load(f)["contexts"]
    assert len(contexts) == truth.debug.count
    ids = {c["id"] for c in contexts}
    assert len(ids) == len(contexts)
    assert all(c.get("parentId", min(ids)) in ids for c in contexts)
    layers = {c["layer"] for c in contexts}
    assert {"poplibs", "popart", "onnx", "poptorch", "poplar_driver"} <= layers

    assert json.loads((tiny_dir / "framework.json").read_text())["framework"] == "popart"
    app = json.loads((tiny_dir / "app.json").read_text())
    assert {"arguments", "config", "POPLAR_ENGINE_OPTIONS"} <= set(app)


def test_bundle_matches_the_truth(tiny_dir):
    from pvtui.model.report import Report

    s = generate("tiny", seed=0).expected_summary()
    report = Report(tiny_dir / "profile.pvtui")
    assert report.target.num_tiles == s["num_tiles"]
    assert np.array_equal(report.memory.including_gaps, s["tile_including_gaps"])
    assert report.liveness.always_live_bytes == s["always_live_bytes"]
    assert report.liveness.peak_step == s["peak_step"]
    assert report.programs.names[int(report.liveness.program[s["peak_step"]])] == s["peak_step_name"]
    assert len(report.programs) == s["programs"]
    assert report.execution.num_steps == s["steps"] and report.execution.total_cycles == s["total_cycles"]
    assert len(report.execution.bsp_steps) == s["bsp_steps"]
    assert np.array_equal(report.archive.total, report.memory.excluding_gaps)
    assert len(report.debug) == s["debug_contexts"]
