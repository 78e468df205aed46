"""Ingest: the libpva adapter through the generator's stand-in, the cache, partial reports."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from pvtui.errors import Cancelled, ReportError
from pvtui.model.report import Report
from pvtui.sources.base import CancelToken, ReportFiles
from pvtui.sources.cache import KEPT_FOLDERS
from pvtui.sources.discovery import discover
from pvtui.sources.ingest import build_bundle, load_report
from pvtui.synth import standin


@pytest.fixture(scope="module")
def synthetic():
    from pvtui.synth import generate

    return generate("tiny", seed=3)


@pytest.fixture(scope="module")
def adapted(synthetic, tmp_path_factory):
    """The stand-in pva report read by the adapter alone (no other files)."""
    folder = tmp_path_factory.mktemp("adapted")
    files = ReportFiles(directory=folder, name="adapted")
    path = build_bundle(files, folder / "bundle", pva_report=standin.PvaReport(synthetic),
                        operations=standin.operations(synthetic))
    return Report(path)


def test_adapter_reads_target_and_memory(adapted, synthetic):
    expected = synthetic.expected_summary()
    assert adapted.target.num_tiles == expected["num_tiles"]
    assert adapted.target.bytes_per_tile == expected["bytes_per_tile"]
    np.testing.assert_array_equal(adapted.memory.including_gaps, expected["tile_including_gaps"])
    assert {"memory", "programs", "liveness", "liveness_tiles", "execution", "bsp"} <= adapted.parts
    cats = dict(zip(adapted.memory.categories, np.asarray(adapted.memory.by_category).sum(axis=0)))
    assert {k: int(v) for k, v in cats.items()} == expected["category_totals"]


def test_adapter_keeps_the_program_tree_and_unknown_types(adapted, synthetic):
    pva = standin.PvaReport(synthetic)
    programs = adapted.programs
    assert len(programs) == len(pva.compilation.programs)
    known = {"OnTileExecute", "DoExchange", "GlobalExchange", "StreamCopyBegin", "StreamCopyMid",
             "StreamCopyEnd", "Sync", "SyncAns", "Sans", "Repeat", "Sequence", "OnEveryTileSwitch"}
    assert set(programs.type_names) - known, "the generator's unknown type was dropped"
    for i, program in enumerate(list(pva.compilation.programs)[:50]):
        assert programs.names[i] == program.name
        assert [programs.names[c] for c in programs.children(i)] == [c.name for c in program.children]


def test_adapter_liveness_matches_the_stand_in(adapted, synthetic):
    pva = standin.PvaReport(synthetic)
    steps = pva.compilation.livenessProgramSteps
    live = adapted.liveness
    assert len(live) == len(steps)
    for i in range(0, len(steps), max(1, len(steps) // 25)):
        step = steps[i]
        assert int(live.not_always_live[i]) == step.notAlwaysLiveMemory.bytes
        want = sorted(((v.name, v.size) for v in step.notAlwaysLiveMemory.variables), key=lambda x: (-x[1], x[0]))
        got = sorted(((live.variable_names[v], b) for v, b in live.live_variables(i)), key=lambda x: (-x[1], x[0]))
        assert got == want
        for t in range(0, adapted.target.num_tiles, 7):
            assert int(live.by_tile[i, t]) == step.notAlwaysLiveMemoryForTile(t).bytes
        for k in range(adapted.target.num_ipus):
            assert int(live.by_ipu[i, k]) == step.notAlwaysLiveMemoryForIpu(k).bytes


def test_adapter_execution_matches_the_stand_in(adapted, synthetic):
    pva = standin.PvaReport(synthetic)
    steps = pva.execution.steps
    ex = adapted.execution
    assert ex.num_steps == len(steps)
    assert ex.total_cycles == pva.execution.totalCycles.total
    assert ex.num_runs == len(pva.execution.runs)
    for i in range(0, len(steps), max(1, len(steps) // 40)):
        for k, ipu in enumerate(steps[i].ipus):
            if ipu.activeCycles is None:  # the step did not run on this IPU
                assert int(ex.cycles_from[i, k]) == -1
                continue
            assert int(ex.cycles_from[i, k]) == ipu.activeCycles.cyclesFrom.min
            assert int(ex.cycles_to[i, k]) == ipu.activeCycles.cyclesTo.max
            assert int(ex.data_in[i, k]) == ipu.dataIn
        by_tile = steps[i].cyclesByTile
        rows = np.flatnonzero(np.asarray(ex.bsp_steps) == i)  # the step's row of per-tile cycles, if any
        assert len(rows) == (1 if len(by_tile) else 0)
        if len(by_tile):
            np.testing.assert_array_equal(ex.bsp_cycles[rows[0]], np.asarray(by_tile))


class Fragment:
    """A pva-like report with only some attributes: the adapter must note, not crash."""

    class compilation:
        class target:
            numTiles = 4
            tilesPerIpu = 4
            numIPUs = 1
            bytesPerTile = 1000

        programs = []
        tiles = []


def test_a_report_missing_parts_notes_them(tmp_path):
    files = ReportFiles(directory=tmp_path, name="fragment")
    with pytest.raises(ReportError):  # nothing usable: no tiles, no programs, no archive
        build_bundle(files, tmp_path / "b", pva_report=Fragment())
    assert not (tmp_path / "b").exists()


# A bug in pvtui (here one injected into a helper of each part reader) must fail loudly, even where its
# exception is of a type libpva raises too: only libpva's own errors make a part "could not be read".
BUGS = [
    ("programs", "_sum_by_tile", ValueError),
    ("memory", "_category_names", TypeError),
    ("liveness", "VariableIntervals.add_step", KeyError),
    ("lowered", "_variable_contexts", IndexError),
    ("execution", "BspRows.add", RuntimeError),
    ("operations", "_int_or", AttributeError),
]


@pytest.mark.parametrize("part, helper, error", BUGS, ids=[bug[0] for bug in BUGS])
def test_a_bug_in_a_part_reader_raises_instead_of_reading_as_missing_data(part, helper, error, synthetic, tmp_path,
                                                                         monkeypatch):
    from pvtui.sources import libpva

    def bug(*args, **kwargs):
        raise error(f"a bug in the {part} reader")

    owner, _, name = helper.rpartition(".")
    monkeypatch.setattr(getattr(libpva, owner) if owner else libpva, name, bug)
    files = ReportFiles(directory=tmp_path, name="buggy")
    with pytest.raises(error, match=f"a bug in the {part} reader"):
        build_bundle(files, tmp_path / "b", pva_report=standin.PvaReport(synthetic),
                     operations=standin.operations(synthetic))
    assert not (tmp_path / "b").exists()


class Failing:
    """A libpva object of which one attribute fails as libpva does on a damaged profile.pop:
    raises at once (`raise_at=0`), or its sequence raises after RAISE_AT items."""

    def __init__(self, wrapped, name: str, raise_at: int = 0) -> None:
        self._wrapped, self._name, self._raise_at = wrapped, name, raise_at

    def __getattr__(self, name: str):
        value = getattr(self._wrapped, name)
        if name != self._name:
            return value
        if not self._raise_at:
            raise RuntimeError(f"profile.pop: cannot read {name}")
        return FailingItems(value, self._raise_at)


class FailingItems(list):
    """A libpva sequence whose item RAISE_AT cannot be read."""

    def __init__(self, items, raise_at: int) -> None:
        super().__init__(items)
        self.raise_at = raise_at

    def __iter__(self):
        for index, item in enumerate(super().__iter__()):
            if index == self.raise_at:
                raise RuntimeError(f"profile.pop: cannot read item {index}")
            yield item


@pytest.mark.parametrize("part, damage, why", [
    ("memory", lambda pva: setattr(pva, "compilation", Failing(pva.compilation, "tiles")),
     "tiles: RuntimeError: profile.pop: cannot read tiles"),
    ("execution", lambda pva: setattr(pva, "execution", Failing(pva.execution, "steps", raise_at=3)),
     "execution steps: RuntimeError: profile.pop: cannot read item 3"),
])
def test_what_libpva_cannot_read_is_noted_and_the_rest_opens(part, damage, why, synthetic, tmp_path):
    pva = standin.PvaReport(synthetic)
    damage(pva)
    files = ReportFiles(directory=tmp_path, name="damaged")
    report = Report(build_bundle(files, tmp_path / "b", pva_report=pva, operations=standin.operations(synthetic)))
    assert report.missing(part) == f"profile.pop: the {part} data could not be read ({why})"
    assert part not in report.parts
    assert {"programs", "memory", "liveness", "execution", "operations"} - {part} <= report.parts


def test_profile_without_libpva_opens_the_rest(tiny_dir, tmp_path, cache_root):
    folder = tmp_path / "report"
    shutil.copytree(tiny_dir, folder, ignore=shutil.ignore_patterns("profile.pvtui"))
    (folder / "profile.pop").write_bytes(b"SQLite format 3\x00" + bytes(100))
    report = load_report(discover(folder)[0], cache=cache_root)
    assert report.memory is None and report.archive is not None and report.debug is not None
    assert "libpva" in report.missing("memory") and "profile.pop" in report.missing("memory")


def test_the_cache_is_reused_and_a_corrupt_entry_rebuilt(tiny_dir, tmp_path):
    folder = tmp_path / "report"
    shutil.copytree(tiny_dir, folder, ignore=shutil.ignore_patterns("profile.pvtui"))
    cache = tmp_path / "cache"
    first = load_report(discover(folder)[0], cache=cache)
    again = load_report(discover(folder)[0], cache=cache)
    assert again.path == first.path
    (first.path / "meta.json").write_text("{not json")
    rebuilt = load_report(discover(folder)[0], cache=cache)
    assert json.loads((rebuilt.path / "meta.json").read_text())["format"] == "pvtui-bundle"


def test_cancelling_leaves_no_bundle(tiny_dir, tmp_path):
    folder = tmp_path / "report"
    shutil.copytree(tiny_dir, folder, ignore=shutil.ignore_patterns("profile.pvtui"))
    token = CancelToken()
    token.cancel()
    cache = tmp_path / "cache"
    with pytest.raises(Cancelled):
        load_report(discover(folder)[0], cache=cache, cancel=token)
    assert not cache.exists() or not any(cache.iterdir())


def test_a_file_written_during_ingest_is_read_again_once_settled(tiny_dir, tmp_path, monkeypatch):
    import pvtui.sources.json_files as json_files
    import pvtui.sources.ingest as ingest

    folder = tmp_path / "report"
    shutil.copytree(tiny_dir, folder, ignore=shutil.ignore_patterns("profile.pvtui"))
    real_read = json_files.read_json
    calls = []

    def read_while_the_run_still_writes(path, ctx, part):
        calls.append(part)
        if calls.count("framework") == 1 and part == "framework":
            (folder / "framework.json").write_text(json.dumps({"framework": "popart", "final": True}))
        return real_read(path, ctx, part)

    monkeypatch.setattr(json_files, "read_json", read_while_the_run_still_writes)
    monkeypatch.setattr(ingest, "wait_until_settled", lambda paths, cancel: None)
    report = load_report(discover(folder)[0], cache=tmp_path / "cache")
    assert calls.count("framework") == 2
    assert report.framework_json == {"framework": "popart", "final": True}
    left = sorted(p.name for p in (tmp_path / "cache").iterdir() if p.name not in KEPT_FOLDERS)
    assert left == [f".{report.path.name}.pvtui-lock", report.path.name]  # the half-read bundle was never kept


def test_device_time_is_kept_at_ingest_as_the_model_computes_it(tiny_dir, tmp_path):
    from pvtui.model.host_waits import device_cycles

    report = load_report(discover(tiny_dir)[0], cache=tmp_path)
    kept = report.execution.kept_device_cycles
    assert kept is not None and len(kept) == report.execution.num_runs and any(kept)
    for stored in (None, "damaged", kept[:-1] + ["1"]):  # a bundle written without it, or with a damaged one
        report.meta["execution"]["device_cycles"] = stored
        assert report.execution.kept_device_cycles is None
        assert device_cycles(report) == kept  # computed over every step instead, to the same figures


def test_the_summary_memory_figures_are_kept_at_ingest_as_the_model_computes_them(tiny_dir, tmp_path):
    from pvtui.model.queries import computed_memory_summary, memory_summary, summary_reads_columns

    report = load_report(discover(tiny_dir)[0], cache=tmp_path)
    computed = computed_memory_summary(report)
    assert memory_summary(report) == computed and computed["peak_step"] is not None
    assert not summary_reads_columns(report)
    kept = report.meta["memory_summary"]
    for stored in (None, "damaged", {**kept, "parts": ["archive"]}, {**kept, "figures": {**kept["figures"], "max_tile": True}},
                   {**kept, "figures": {k: v for k, v in kept["figures"].items() if k != "max_tile"}}):
        report.meta["memory_summary"] = stored  # written without them, damaged, or over other parts
        assert summary_reads_columns(report)
        assert memory_summary(report) == computed  # computed from the columns instead, to the same figures


def test_kept_memory_figures_are_not_used_where_a_part_they_read_is_gone(tiny_dir, tmp_path):
    """A damaged column takes its part out: the figures kept over it no longer hold (an export of such a bundle
    drops the part and keeps the figures)."""
    from pvtui.model.queries import computed_memory_summary, memory_summary
    from bad_inputs import exported_bundle

    bundle = exported_bundle(tiny_dir, tmp_path / "export", "header")  # tiles.ipu: the memory part
    report = Report(bundle)
    assert report.memory is None and report.archive is not None
    kept = report.meta["memory_summary"]["figures"]
    assert memory_summary(report) == computed_memory_summary(report) != kept
    assert memory_summary(report)["total_including_gaps"] is None  # archive.a's tiles: no gaps figure


def test_a_kept_step_name_is_made_visible_unless_the_text_is_exact(tiny_dir, tmp_path):
    from pvtui.model.queries import memory_summary

    report = load_report(discover(tiny_dir)[0], cache=tmp_path)
    report.meta["memory_summary"]["figures"]["peak_step_name"] = "step\x1b]0;owned\x07"
    shown = memory_summary(report)["peak_step_name"]
    assert "\x1b" not in shown and "\x07" not in shown and shown.startswith("step")
    exact = Report(report.bundle, exact_text=True)
    exact.meta["memory_summary"]["figures"]["peak_step_name"] = "step\x1b]0;owned\x07"
    assert memory_summary(exact)["peak_step_name"] == "step\x1b]0;owned\x07"
