"""Damaged reports: every command answers with a model or one clear line, and changes nothing.

The corpus (tests/bad_inputs.py) goes through every headless command in-process, one
entry of each kind through a real process (no traceback may reach stderr), and a
partial report through the app. Hypothesis then fuzzes each reader on its own.
"""

from __future__ import annotations

import hashlib
import json
import re
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cbor2
import numpy as np
import pytest
from conftest import polled, said, wait_for, wait_until_loaded, watching
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bad_inputs import (
    PARTIAL,
    STAND_IN,
    UNUSABLE,
    BadInput,
    _rewrite_meta,
    build_corpus,
    damage_header,
    debug_read,
    exported_bundle,
    read_or_report_error,
)
from pvtui.cli import main
from pvtui.errors import ReportError
from pvtui.model.bundle import Bundle, BundleWriter
from pvtui.model.report import Report
from pvtui.model.schema import part_of_column
from pvtui.sources.archive import read_archive
from pvtui.sources.debug_cbor import read_debug
from pvtui.sources.discovery import discover
from pvtui.sources.json_files import read_json
from pvtui.synth.elf import ElfSection, build_elf, write_ar

COMMANDS = ("summary", "memory", "liveness", "programs", "trace", "export")
HANG_GUARD = 60  # seconds: a command still running by then is hung, not slow
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def corpus(tiny_dir, tmp_path_factory) -> list[BadInput]:
    return build_corpus(tiny_dir, tmp_path_factory.mktemp("corpus"))


def entry_dir(entry: BadInput) -> Path:
    return entry.path if entry.path.is_dir() else entry.path.parent


def snapshot(folder: Path) -> dict[str, str]:
    """Every file and directory under FOLDER, files with their sha256."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        for path in sorted(folder.rglob("*"))
    }


def check_answer(entry: BadInput, status: int, err: str, out: str) -> None:
    """The exit status, stderr and stdout pvtui owes ENTRY: what it could read is shown, else a warning
    says why there is nothing to show."""
    lines = err.splitlines()
    assert "Traceback" not in err, err
    warnings = [line for line in lines if line.startswith("warning: ")]
    if entry.outcome == UNUSABLE:
        assert status == 2, err
        assert len(lines) == 1 and lines[0].startswith("pvtui: ") and entry.mentions in lines[0], err
        assert out == "", out
        return
    if entry.outcome == PARTIAL:
        assert status == 0, err
        assert any(entry.mentions in line for line in warnings), err
    else:
        assert status == 0 and not warnings, err
    assert out.strip() or warnings, f"{entry.name}: nothing shown, and no word why"


def command_args(command: str, entry: BadInput, out: Path) -> list[str]:
    return [command, str(entry.path), *([str(out)] if command == "export" else [])]


def test_every_command_answers_every_entry_and_changes_nothing(corpus, capsys, tmp_path, cache_root):
    for number, entry in enumerate(corpus):
        before = snapshot(entry_dir(entry))
        for command in COMMANDS:
            out = tmp_path / f"export-{number}"
            status = main(command_args(command, entry, out))
            answer = capsys.readouterr()
            check_answer(entry, status, answer.err, answer.out)
            if command == "summary" and status == 0:  # whatever opened has a summary
                assert answer.out.strip(), entry.name
            if command == "export" and status == 0:
                assert Report(out).parts, entry.name  # the export opens on its own
        assert snapshot(entry_dir(entry)) == before, entry.name


def run_pvtui(*args: str, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PVTUI_CACHE_DIR": str(cache)}
    return subprocess.run(
        [sys.executable, "-m", "pvtui.cli", *args], capture_output=True, text=True, errors="replace",
        env=env, timeout=HANG_GUARD,
    )


def test_one_entry_of_each_kind_in_a_real_process(corpus, tmp_path, cache_root):
    first_of_kind = list({entry.kind: entry for entry in reversed(corpus)}.values())

    def run(number: int, entry: BadInput) -> tuple[BadInput, subprocess.CompletedProcess]:
        command = COMMANDS[number % len(COMMANDS)]  # every command gets its share of kinds
        return entry, run_pvtui(*command_args(command, entry, tmp_path / f"out-{number}"), cache=cache_root)

    before = {entry.name: snapshot(entry_dir(entry)) for entry in first_of_kind}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for entry, done in pool.map(run, range(len(first_of_kind)), first_of_kind):
            check_answer(entry, done.returncode, done.stderr, done.stdout)
            assert snapshot(entry_dir(entry)) == before[entry.name]


PEAK_RSS = """
import contextlib, io, resource, sys
from pvtui.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    main(["summary", sys.argv[1]])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def peak_rss(path: Path, cache: Path) -> int:
    env = {**os.environ, "PVTUI_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", PEAK_RSS, str(path)], capture_output=True, text=True,
                          env=env, timeout=HANG_GUARD, check=True)
    return int(done.stdout)


def test_huge_lengths_and_deep_nesting_cost_no_memory(corpus, tmp_path):
    by_name = {entry.name: entry for entry in corpus}
    baseline = peak_rss(by_name["debug-odd-field-types"].path, tmp_path / "baseline")
    for name in ("debug-huge-array", "debug-huge-string", "debug-deep-nesting", "framework-deep-nesting",
                 "archive-huge-member-length", "archive-elf-huge-shnum"):
        assert peak_rss(by_name[name].path, tmp_path / name) < baseline + 64 * 2**20, name


# --- the cache ---------------------------------------------------------------------

CACHE_DAMAGE = {
    "meta.json garbage": lambda bundle: (bundle / "meta.json").write_bytes(b"\x00garbage{"),
    "meta.json truncated": lambda bundle: (bundle / "meta.json").write_bytes((bundle / "meta.json").read_bytes()[:99]),
    "a .npy missing": lambda bundle: (bundle / "debug.id.npy").unlink(),
    "a .npy truncated": lambda bundle: os.truncate(bundle / "archive.code.npy", 140),
    "a .npy header damaged": lambda bundle: damage_header(bundle / "archive.bss.npy"),
    "a newer schema": lambda bundle: (bundle / "meta.json").write_text(
        json.dumps({**json.loads((bundle / "meta.json").read_text()), "schema_version": 99})
    ),
    "a file's stamp not one": lambda bundle: (bundle / "meta.json").write_text(json.dumps(
        (meta := json.loads((bundle / "meta.json").read_text())) | {"files": meta["files"] | {"app.json": "x"}}
    )),
}


@pytest.mark.parametrize("damage", list(CACHE_DAMAGE))
def test_a_damaged_cache_entry_is_rebuilt_never_trusted(damage, tiny_dir, tmp_path, capsys, monkeypatch):
    report = tmp_path / "report"
    shutil.copytree(tiny_dir, report, ignore=shutil.ignore_patterns("profile.pvtui"))  # read into the cache
    monkeypatch.setenv("PVTUI_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["summary", str(report), "--json"]) == 0
    expected = capsys.readouterr()  # the warnings are profile.pop's, read without libpva
    (entry,) = [path for path in (tmp_path / "cache").iterdir() if not path.name.startswith(".")]  # not its lock
    CACHE_DAMAGE[damage](entry)
    assert main(["summary", str(report), "--json"]) == 0
    answer = capsys.readouterr()
    assert answer.out == expected.out and answer.err == expected.err
    Bundle(entry)  # rebuilt whole, in place


# --- a bundle shipped beside a report, or exported: perhaps the only copy ------------


def test_a_bundle_beside_its_report_whose_stamp_of_a_file_is_not_one_is_read_around(tiny_dir, tmp_path, capsys,
                                                                                  monkeypatch):
    """Its meta.json says which versions of the files it was made from; one that is not a stamp makes it
    not current (the files are read), never a traceback."""
    report = tmp_path / "report"
    shutil.copytree(tiny_dir, report)  # times kept: its bundle is current
    meta_path = report / "profile.pvtui" / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps(meta | {"files": meta["files"] | {"app.json": ["a", "list"]}}))
    monkeypatch.setenv("PVTUI_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["summary", str(report), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "report"
    assert any((tmp_path / "cache").iterdir())  # read from its files


NAMES_OF_CODES = {"memory.categories": ("memory", "categories", "category"),
                  "programs.types": ("programs", "type_names", "program type"),
                  "debug.layers": ("debug", "layer_names", "layer"), "debug.categories": ("debug", "category_names", "category")}


@pytest.mark.parametrize("entry", list(NAMES_OF_CODES))
def test_codes_a_bundle_gives_no_name_for_are_shown_as_such(entry, tiny_dir, tmp_path, capsys, cache_root):
    """A bundle whose meta.json names fewer codes than its columns hold (its list of names cut short): every
    view answers, a code with no name named as one."""
    bundle = tmp_path / "bundle"
    shutil.copytree(tiny_dir / STAND_IN, bundle)
    within, key = entry.split(".")
    meta = json.loads((bundle / "meta.json").read_text())
    _rewrite_meta(bundle, **{within: meta[within] | {key: []}})
    for command in (*COMMANDS[:-1], "insights", "operations", "hotspots", "split"):
        status = main([command, str(bundle), *(["--ipus", "2"] if command == "split" else [])])
        answer = capsys.readouterr()
        assert status == 0 and "Traceback" not in answer.err, (command, answer.err)
    assert main(["sql", str(bundle), "select count(*) from steps where type is null"]) == 0
    part, names, what = NAMES_OF_CODES[entry]
    assert getattr(getattr(Report(bundle), part), names)[3] == f"({what} 3: no name)"


def test_a_column_of_indices_beyond_its_table_takes_out_its_part_as_the_bundle_opens(tiny_dir, tmp_path, capsys,
                                                                                     cache_root):
    """intervals.variable naming variables far beyond the table (int32's largest), where it was an IndexError:
    checked as the bundle opens, it takes out the liveness, said in one line naming its file; the other
    views answer, and `pvtui check` finds it."""
    bundle = tmp_path / "bundle"
    shutil.copytree(tiny_dir / STAND_IN, bundle)
    variable = np.load(bundle / "intervals.variable.npy")
    variable[len(variable) // 2] = np.iinfo(variable.dtype).max
    np.save(bundle / "intervals.variable.npy", variable)
    problem = f"{bundle / 'intervals.variable.npy'}: damaged column: values from 0 to {np.iinfo(variable.dtype).max}"
    assert main(["liveness", str(bundle), "--json"]) == 0
    answer = capsys.readouterr()
    assert json.loads(answer.out)["reason"].startswith(problem)
    assert len(answer.err.splitlines()) == 1 and answer.err.startswith(f"warning: {problem}")
    assert main(["memory", str(bundle)]) == 0
    assert main(["check", str(bundle)]) == 2 and "without liveness" in capsys.readouterr().out


@pytest.mark.parametrize("column, part, change", [
    ("intervals.end", "liveness", "half"), ("programs.child_offsets", "programs", "none"),
    ("debug.layer", "debug", "double"), ("steps.cycles", "execution", "half"), ("tiles.categories", "memory", "one"),
    ("operations.name.offsets", "operations", "half"), ("steps.by_program.longest_ipu", "execution", "double"),
    ("liveness.not_always_live", "liveness", "none"), ("intervals.max_length", "liveness", "double"),
])
def test_a_column_of_more_or_fewer_rows_than_its_table_takes_out_its_part(column, part, change, tiny_dir, tmp_path,
                                                                          capsys, cache_root):
    """A column whose rows are not its table's (schema.SHAPES: read from the headers as the bundle opens) takes
    out its part, said in one line naming its file; every view answers. A fuzz that cut each column of the tiny
    bundle to half, one and no rows, and doubled it, found 156 IndexErrors and broadcast errors in the views."""
    bundle = tmp_path / "bundle"
    shutil.copytree(tiny_dir / STAND_IN, bundle)
    values = np.load(bundle / f"{column}.npy")
    changed = {"half": values[: len(values) // 2], "one": values[:1], "none": values[:0],
               "double": np.concatenate([values, values])}[change]
    np.save(bundle / f"{column}.npy", changed)
    report = Report(bundle)
    assert getattr(report, part) is None
    said = report.missing(part)
    assert said.startswith(f"{bundle / column}.npy: damaged column: {len(changed):,} rows, where ") and "\n" not in said
    for command in (*COMMANDS[:-1], "insights", "operations", "hotspots"):
        status = main([command, str(bundle), "--json"])
        answer = capsys.readouterr()
        assert status in (0, 1) and "Traceback" not in answer.err, (command, answer.err)
    assert main(["split", str(bundle), "--ipus", "2"]) in (0, 1, 2) and "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("column, part, dtype", [
    ("programs.type", "programs", np.float64), ("intervals.variable", "liveness", np.bool_),
    ("steps.from", "execution", np.uint64), ("programs.name.offsets", "programs", np.float32),
    ("debug.name.blob", "debug", np.int64), ("steps.tile_balance", "execution", np.int32),
])
def test_a_column_of_another_kind_of_number_takes_out_its_part(column, part, dtype, tiny_dir, tmp_path, capsys,
                                                                cache_root):
    """Floats where indices are (no index), true or false where counts are, 64-bit unsigned integers (SQLite holds
    none past 2**63): read from the header as the bundle opens, the column takes out its part. A fuzz of every
    column in another type found 24 TypeErrors and IndexErrors in the headless views."""
    bundle = tmp_path / "bundle"
    shutil.copytree(tiny_dir / STAND_IN, bundle)
    np.save(bundle / f"{column}.npy", np.load(bundle / f"{column}.npy").astype(dtype))
    report = Report(bundle)
    assert getattr(report, part) is None
    assert report.missing(part).startswith(f"{bundle / column}.npy: damaged column: holds ")
    for command in (*COMMANDS[:-1], "insights", "operations", "hotspots"):
        status = main([command, str(bundle), "--json"])
        answer = capsys.readouterr()
        assert status in (0, 1) and "Traceback" not in answer.err, (command, answer.err)


def empty_table(bundle: Path, letter: str) -> None:
    """Empty BUNDLE's table LETTER (schema.SHAPES) as a writer would: its columns of no rows, its offsets [0] (the
    string tables' blobs empty), and so the tables those offsets index."""
    from pvtui.model.references import OFFSETS
    from pvtui.model.schema import SHAPES

    letters = [letter]
    while letters:
        table = letters.pop()
        for name, dims in SHAPES.items():
            path = bundle / f"{name}.npy"
            if not path.exists() or dims[0] not in (table, f"{table}+1"):
                continue
            values = np.load(path)
            np.save(path, values[:0] if dims[0] == table else np.zeros((1, *values.shape[1:]), values.dtype))
            if name.endswith(".offsets") and (bundle / f"{name[:-8]}.blob.npy").exists():
                np.save(bundle / f"{name[:-8]}.blob.npy", np.zeros(0, np.uint8))
            if dims[0] != table and OFFSETS.get(name) in SHAPES:
                letters.append(SHAPES[OFFSETS[name]][0])


@pytest.mark.parametrize("letter", ["T", "X", "RN", "N", "P", "K", "O", "D"])
def test_a_report_whose_table_has_no_rows_is_shown(letter, tiny_dir, tmp_path, capsys, cache_root):
    """No tiles, runs of no steps, no liveness steps, no programs...: every view answers, where reshaping a table
    of no rows (reshape(0, -1)) raised, in the memory and SQL views among others."""
    bundle = tmp_path / "bundle"
    shutil.copytree(tiny_dir / STAND_IN, bundle)
    empty_table(bundle, letter)
    if letter == "X":  # runs that ran no step
        np.save(bundle / "runs.step_offsets.npy", np.zeros_like(np.load(bundle / "runs.step_offsets.npy")))
    for command in (*COMMANDS[:-1], "insights", "operations", "hotspots"):
        status = main([command, str(bundle), "--json"])
        answer = capsys.readouterr()
        assert status in (0, 1) and "Traceback" not in answer.err, (command, answer.err)
    for command in (["memory", str(bundle), "--tile", "0"], ["split", str(bundle), "--ipus", "2"],
                    ["sql", str(bundle), "select count(*) from steps"], ["sql", str(bundle), "select * from tiles"]):
        main(command)
        assert "Traceback" not in capsys.readouterr().err, command


def test_steps_of_programs_the_table_does_not_hold_are_counted_under_no_type(tiny_dir, tmp_path, capsys, cache_root):
    """A step may name a program beyond the program table (the views say "not in the program table"): the
    trace's totals by type leave it out, where they raised an IndexError."""
    bundle = tmp_path / "bundle"
    shutil.copytree(tiny_dir / STAND_IN, bundle)
    program = np.load(bundle / "steps.program.npy")
    program[len(program) // 2] = np.iinfo(program.dtype).max
    np.save(bundle / "steps.program.npy", program)
    assert main(["trace", str(bundle), "--json"]) == 0


def test_a_damaged_column_takes_out_only_its_part(tiny_dir, tmp_path):
    bundle = exported_bundle(tiny_dir, tmp_path / "export", "truncated")  # steps.from.npy cut short
    damage_header(bundle / "tiles.ipu.npy")
    report = Report(bundle)
    assert report.execution is None and report.memory is None
    assert report.programs is not None and report.liveness is not None and report.archive is not None
    assert len(report.programs) and len(report.liveness.envelope.series)
    for part, column, problem in (("execution", "steps.from.npy", "truncated"), ("memory", "tiles.ipu.npy", "header")):
        said = report.missing(part)
        assert str(bundle / column) in said and problem in said and "\n" not in said
    assert len(report.problems) == 2


def test_a_stale_stand_in_with_a_damaged_column_keeps_its_other_parts(tiny_dir, tmp_path, cache_root):
    from pvtui.sources.ingest import load_report

    report_dir = tmp_path / "report"
    shutil.copytree(tiny_dir, report_dir)
    damage_header(report_dir / "profile.pvtui" / "programs.parent.npy")
    os.utime(report_dir / "archive.a", ns=(1, 1))  # the report files differ from those it was made with
    report = load_report(discover(report_dir)[0], cache=cache_root)
    assert report.bundle.path.parent == cache_root  # read again, into the cache
    assert report.programs is None and report.memory is not None and report.liveness is not None
    assert "programs.parent.npy" in report.missing("programs")
    assert not report.bundle.damaged  # the damaged column was left behind, not linked


@pytest.mark.anyio
async def test_the_app_opens_a_bundle_with_a_damaged_column(tiny_dir, tmp_path, make_app):
    from pvtui.screens.base import UnavailableNotice

    bundle = exported_bundle(tiny_dir, tmp_path / "export", "truncated")
    app = make_app(bundle)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("t")
        await pilot.pause()
        notice = str(app.screen.query_one(UnavailableNotice).render())
        assert "steps.from.npy" in notice and "truncated" in notice
        await pilot.press("m")
        await pilot.pause()
        assert app.screen.query_one("#memory-view").display
        await pilot.press("p")
        await pilot.pause()
        assert not app.screen.query(UnavailableNotice)


@pytest.mark.anyio
async def test_the_app_opens_a_bundle_with_a_column_of_indices_beyond_its_table(tiny_dir, tmp_path, make_app):
    """Found as the bundle opens, not as a screen reads it (which ended the explorer): the Liveness screen
    says which file is damaged, and the others show their parts."""
    bundle = tmp_path / "bundle"
    shutil.copytree(tiny_dir / STAND_IN, bundle)
    variable = np.load(bundle / "intervals.variable.npy")
    variable[0] = len(variable) + 10**6
    np.save(bundle / "intervals.variable.npy", variable)
    app = make_app(bundle)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("l")
        await wait_for(pilot, lambda: app.screen.SCREEN_NAME == "Liveness" and not app.screen.opening)
        assert "intervals.variable.npy: damaged column" in str(app.screen.query_one("#liveness-missing").render())
        await pilot.press("m")
        await wait_for(pilot, lambda: app.screen.SCREEN_NAME == "Memory" and not app.screen.opening)
        assert app.screen.query_one("#memory-view").display
        assert app.is_running


def test_a_file_still_being_written_is_waited_for_and_named(tiny_dir, tmp_path, capsys, monkeypatch):
    import pvtui.sources.ingest as ingest
    import pvtui.sources.json_files as json_files

    report = tmp_path / "report"
    shutil.copytree(tiny_dir, report, ignore=shutil.ignore_patterns("profile.pvtui"))
    real_read = json_files.read_json

    def read_while_the_run_appends(path, ctx, part):
        with (report / "debug.cbor").open("ab") as growing:
            growing.write(b"\xa0")
        return real_read(path, ctx, part)

    stages = []
    monkeypatch.setattr(json_files, "read_json", read_while_the_run_appends)
    monkeypatch.setattr(ingest, "wait_until_settled", lambda paths, cancel: stages.append("waited"))
    with pytest.raises(ingest.SourceChanged) as raised:
        ingest.load_report(discover(report)[0], cache=tmp_path / "cache",
                           progress=lambda stage, done, total: stages.append(stage))
    told = [stage for stage in stages if "debug.cbor changed while being read" in stage]
    assert len(told) == ingest.READ_ATTEMPTS - 1 and all("waiting" in stage for stage in told)
    assert "debug.cbor" in str(raised.value) and "\n" not in str(raised.value)
    assert not any((tmp_path / "cache").iterdir())  # no bundle of half a file
    monkeypatch.setenv("PVTUI_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["summary", str(report)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "debug.cbor changed while being read" in err[0]


# --- the app -----------------------------------------------------------------------


@pytest.mark.anyio
async def test_the_app_says_which_file_is_wrong_where_it_matters(corpus, make_app):
    from pvtui.screens.base import UnavailableNotice

    entry = next(entry for entry in corpus if entry.name == "profile-sqlite-over-garbage")
    before = snapshot(entry.path)
    app = make_app(entry.path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("l")
        await pilot.pause()
        notice = str(app.screen.query_one("#liveness-missing", UnavailableNotice).render())
        assert "profile.pop" in notice and "libpva" in notice
        await pilot.press("m")  # the archive still gives the memory view
        await pilot.pause()
        assert app.screen.query_one("#memory-view").display
        shown = app.report
        app.open_report(app.a.files_now(app.path))
        await wait_for(pilot, lambda: app.report is not shown and not app.load_running)
        await pilot.pause()
        assert app.screen.SCREEN_NAME == "Memory"
    assert snapshot(entry.path) == before


@pytest.mark.anyio
async def test_the_app_watches_or_says_it_cannot_under_any_name(corpus, make_app):
    for entry in (entry for entry in corpus if entry.kind == "unusual directory name"):
        app = make_app(entry.path, watch=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until_loaded(pilot)
            await wait_for(pilot, lambda: watching(app) or "Live reload is off" in said(app))
            assert app.report is not None and app.screen.SCREEN_NAME == "Summary"


@pytest.mark.anyio
async def test_the_app_exits_with_the_problem_when_nothing_is_usable(corpus, make_app):
    from pvtui.screens.dialogs import OpenFailed

    entry = next(entry for entry in corpus if entry.name == "only-archive-random")
    app = make_app(entry.path)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, OpenFailed))
        await pilot.press("escape")  # the problem is shown until the user has read it
        await wait_for(pilot, lambda: app.return_code is not None)
    assert app.return_code == 2


# --- each reader, fuzzed -------------------------------------------------------------


def damage(data: bytes, draw) -> bytes:
    """DATA with a few bytes overwritten (a big number written at one place), then maybe cut short."""
    content = bytearray(data)
    for _ in range(draw(st.integers(0, 6))):
        content[draw(st.integers(0, len(content) - 1))] = draw(st.integers(0, 255))
    if draw(st.booleans()):
        at = draw(st.integers(0, max(len(content) - 8, 0)))
        content[at : at + 8] = struct.pack(">Q", draw(st.sampled_from([2**31, 2**62, 2**64 - 1])))
    return bytes(content[: draw(st.integers(0, len(content)))])


def small_archive() -> bytes:
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "archive.a"
        elf = build_elf([ElfSection(".text", "code", 24), ElfSection(".bss", "bss", 8)])
        write_ar(path, [("tile0", elf), ("a_member_with_a_long_name", elf)])
        return path.read_bytes()


SMALL_ARCHIVE = small_archive()
SMALL_DEBUG = cbor2.dumps({"contexts": [{"id": i, "layer": "popart", "parentId": i - 1, "name": f"op{i}"}
                                        for i in range(4)]})
cbor_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8) | st.binary(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6) | st.integers(), inner, max_size=4),
    max_leaves=20,
)
json_texts = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
).map(json.dumps)


@FUZZ
@given(st.data())
def test_fuzzed_archives_give_a_model_or_report_error(data):
    read_or_report_error(read_archive, damage(SMALL_ARCHIVE, data.draw), "archive.a", "archive", archive_read)


def archive_read(report: Report) -> None:
    """Every member has a tile's sizes, and the unusable ones are counted and said."""
    members = report.meta["archive"]["members"]
    assert len(report.archive.total) == members and (report.archive.total >= 0).all()
    assert 0 <= report.meta["archive"]["unusable"] <= members
    assert bool(report.meta["archive"]["unusable"]) == bool(report.notes)


@FUZZ
@given(st.data(), cbor_values)
def test_fuzzed_debug_cbor_gives_a_model_or_report_error(data, value):
    document = data.draw(st.sampled_from([cbor2.dumps(value), cbor2.dumps({"contexts": value}), SMALL_DEBUG]))
    read_or_report_error(read_debug, damage(document, data.draw), "debug.cbor", "debug", debug_read)


@FUZZ
@given(st.data(), json_texts)
def test_fuzzed_json_files_give_a_model_or_report_error(data, text):
    document = text.encode() if data.draw(st.booleans()) else damage(text.encode() + b" ", data.draw)
    read_or_report_error(lambda path, ctx: read_json(path, ctx, "app"), document, "app.json", "app",
                         lambda report: _same_json(Report(report.bundle, exact_text=True).app_json, document))


def _same_json(kept, document: bytes) -> None:
    """The value kept is the document's, as Python's own parser reads it (what a report shows of it is made
    visible: tests/test_safe_text.py)."""
    assert json.dumps(kept, sort_keys=True) == json.dumps(json.loads(document.decode("utf-8-sig")), sort_keys=True)


tree_names = st.sampled_from(
    ["profile.pop", "archive.a", "debug.cbor", "framework.json", "profile.pvtui", "meta.json", "training",
     "tf_report_1", ".hidden", "new\nline", "报告"]
)


@FUZZ
@given(st.lists(st.tuples(st.lists(tree_names, min_size=1, max_size=4), st.sampled_from(["file", "dir", "link"]),
                          st.binary(max_size=16)), max_size=8))
def test_fuzzed_trees_give_reports_or_report_error(entries):
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "root"
        root.mkdir()
        for parts, kind, content in entries:
            path = root.joinpath(*parts)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                if kind == "file":
                    path.write_bytes(b'{"format": "pvtui-bundle"' + content if path.name == "meta.json" else content)
                elif kind == "dir":
                    path.mkdir(exist_ok=True)
                else:
                    path.symlink_to(root)  # a loop back to the top
            except OSError:
                continue  # a name already taken by the other kind
        try:
            reports = discover(root)
        except ReportError:
            return
        assert reports and all(report.name for report in reports)


@pytest.fixture(scope="module")
def small_bundle(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("small") / "bundle"
    with BundleWriter(path) as writer:
        writer.array("archive.code", np.arange(8, dtype=np.int64))
        writer.array("archive.data", np.arange(8, dtype=np.int64))
        writer.array("archive.bss", np.zeros(8, dtype=np.int64))
        writer.strings("archive.member", [f"tile{i}" for i in range(8)])
        writer.meta.update({"parts": ["archive"], "target": {"num_tiles": 8}, "notes": [], "files": {}})
        writer.commit()
    return path


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fuzzed_bundles_open_whole_or_give_report_error(small_bundle, data):
    with tempfile.TemporaryDirectory() as scratch:
        bundle = Path(scratch) / "bundle"
        shutil.copytree(small_bundle, bundle)
        for name in data.draw(st.lists(st.sampled_from(sorted(p.name for p in bundle.iterdir())), min_size=1,
                                       max_size=3, unique=True)):
            path = bundle / name
            if data.draw(st.booleans()):
                path.unlink()
            else:
                path.write_bytes(damage(path.read_bytes(), data.draw))
        try:
            report = Report(bundle)
        except ReportError as error:
            assert "\n" not in str(error)
            return
        for column in report.bundle.columns:  # every column it keeps can be read whole
            np.asarray(report.bundle.array(column)).sum()
        for column, problem in report.bundle.damaged.items():  # a damaged one is named, its part left out
            part = part_of_column(column)
            assert column in str(problem) and "\n" not in str(problem) and part not in report.parts
            assert report.missing(part) in [str(p) for c, p in report.bundle.damaged.items() if part_of_column(c) == part]


@pytest.mark.anyio
@pytest.mark.parametrize("debug", [False, True])
async def test_a_readers_unexpected_error_is_one_line_in_the_app_which_runs_on(tiny_dir, tmp_path, monkeypatch,
                                                                               cache_root, debug):
    """A reader that raises what no reader should (a bug): the report does not open, the app says so in one
    line naming the report (the exception's type and message made visible) and runs on; with --debug the
    traceback is kept for stderr. A reload that meets it keeps the report shown."""
    import pvtui.sources.json_files
    from pvtui.app import PvtuiApp
    from pvtui.screens.dialogs import OpenFailed
    from pvtui.sources.discovery import discover
    from textual.widgets import Static

    report = tmp_path / "report"
    shutil.copytree(tiny_dir, report, ignore=shutil.ignore_patterns("profile.pvtui", "profile.pop"))
    read_json = pvtui.sources.json_files.read_json

    def broken(path, ctx, part):
        raise RuntimeError("reader \x1b]0;went wrong\x07")

    def line(app) -> str:
        return str(app.screen.query_one("#open-problem", Static).render())

    monkeypatch.setattr(pvtui.sources.json_files, "read_json", broken)
    app = PvtuiApp(discover(report), path=report, watch=False, cache=cache_root, debug=debug)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, OpenFailed) and app.screen.query("#open-problem"))
        shown = line(app)
        assert app.report is None and app.return_code is None  # not opened, still running
        assert f"{report}: not opened: a bug in pvtui (RuntimeError: reader ␛]0;went wrong␇)" in shown
        assert ("traceback follows on stderr" if debug else "run with --debug") in shown
        assert app.tracebacks is None if not debug else "in broken" in app.tracebacks[0]
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.return_code is not None)
    assert app.return_code == 2

    monkeypatch.setattr(pvtui.sources.json_files, "read_json", read_json)
    app = PvtuiApp(discover(report), path=report, watch=False, cache=cache_root, debug=debug)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        opened = app.report
        monkeypatch.setattr(pvtui.sources.json_files, "read_json", broken)
        (report / "app.json").write_text((report / "app.json").read_text() + " ")  # changed: read again
        app.open_report(app.a.files_now(app.path))
        await wait_for(pilot, lambda: isinstance(app.screen, OpenFailed) and app.screen.query("#open-problem"))
        assert "a bug in pvtui (RuntimeError" in line(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen.SCREEN_NAME == "Summary")
        assert app.report is opened and app.return_code is None


def test_with_debug_the_traceback_is_on_stderr_once_the_app_has_ended(tiny_dir, tmp_path, monkeypatch, cache_root,
                                                                      capfd):
    import pvtui.sources.json_files
    from pvtui.app import PvtuiApp
    from pvtui.screens.dialogs import OpenFailed
    from pvtui.sources.discovery import discover

    report = tmp_path / "report"
    shutil.copytree(tiny_dir, report, ignore=shutil.ignore_patterns("profile.pvtui", "profile.pop"))

    def broken(path, ctx, part):
        raise RuntimeError("reader \x1b]0;went wrong\x07")

    async def close_the_dialog(pilot) -> None:
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, OpenFailed))
        assert capfd.readouterr().err == ""  # nothing while the app runs
        await pilot.press("escape")

    monkeypatch.setattr(pvtui.sources.json_files, "read_json", broken)
    app = PvtuiApp(discover(report), path=report, watch=False, cache=cache_root, debug=True)
    app.run(headless=True, size=(80, 24), auto_pilot=close_the_dialog)
    err = capfd.readouterr().err
    assert app.return_code == 2
    said, traceback = err.split("Traceback (most recent call last):\n")  # the app's last word, then the traceback
    assert said.startswith("pvtui: ") and "a bug in pvtui" in said and "in broken" in traceback
    assert err.rstrip().endswith("RuntimeError: reader ␛]0;went wrong␇") and "\x1b" not in err


# --- a FIFO or a device in place of a file ------------------------------------------------


def special_file(path: Path, kind: str) -> None:
    """PATH made a FIFO (no writer: an open for reading would wait for one) or a link to /dev/zero (endless)."""
    path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


SPECIAL_SAID = {"fifo": "not a regular file (a FIFO)", "zero": "not a regular file (a character device)"}


def finished_within(call, seconds: float = 30):
    """CALL's answer (or exception), from a thread given SECONDS: one still waiting (on a FIFO that no one
    writes) fails the test, where waiting for it would hang the run; the thread is left to wait."""
    import threading

    outcome: list = []

    def run() -> None:
        try:
            outcome.append((True, call()))
        except BaseException as exc:
            outcome.append((False, exc))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    if not polled(lambda: outcome, seconds):
        pytest.fail(f"still waiting after {seconds} s")
    returned, value = outcome[0]
    if not returned:
        raise value
    return value


def pvtui_within_a_minute(*args, env: dict | None = None) -> subprocess.CompletedProcess:
    """`pvtui ARGS` as a process, which must end within the timeout: a hang fails the test."""
    return subprocess.run([sys.executable, "-m", "pvtui.cli", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=60)


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_bundle_column_that_is_a_fifo_or_a_device_is_named_never_waited_on(kind, tiny_dir, tmp_path):
    report = tmp_path / "report"
    shutil.copytree(tiny_dir, report)
    bundle = report / "profile.pvtui"
    column = next(name for name in Bundle(bundle).columns if name.startswith("tiles."))
    special_file(bundle / f"{column}.npy", kind)
    done = pvtui_within_a_minute("summary", report)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert f"{column}.npy: unreadable column ({SPECIAL_SAID[kind]})" in done.stderr
    done = pvtui_within_a_minute("check", "--json", report)
    assert done.returncode == 2
    problems = json.loads(done.stdout)["files"]["profile.pvtui"]["problems"]
    assert any(f"{column}.npy: unreadable column ({SPECIAL_SAID[kind]})" in p for p in problems), problems


def test_a_theme_file_that_is_a_fifo_a_device_or_huge_is_one_line(tiny_dir, tmp_path):
    """`serve --theme NAME` (and every app command) reads the user's themes folder first."""
    folder = tmp_path / "config" / "pvtui" / "themes"
    folder.mkdir(parents=True)
    special_file(folder / "fifo.json", "fifo")
    special_file(folder / "zero.json", "zero")
    (folder / "huge.json").write_text(" " * (2 << 20) + "{}")
    said = {"fifo": SPECIAL_SAID["fifo"], "zero": SPECIAL_SAID["zero"],
            "huge": "larger than the 1,048,576 bytes pvtui reads of such a file"}
    config = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    for name, why in said.items():
        done = pvtui_within_a_minute("serve", tiny_dir, "--theme", name, "--port", "0", env=config)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.splitlines() == [f"pvtui: {folder / name}.json: not a usable theme ({why})"]


def test_every_read_of_a_file_goes_through_the_regular_file_check():
    """No module opens a file to read but through pvtui/files/regular.py (its writers, /proc and its own
    standard streams aside): a FIFO or a device there would hang it."""
    package = Path(__file__).resolve().parent.parent / "pvtui"
    reads = re.compile(r"\.read_bytes\(|\.read_text\(|np\.(load|fromfile|memmap)\([^f]|(?<![\w.])open\([^,)]*\)|"
                       r"(?<![\w.])open\([^)]*\"rb?\"|\.open\(\"rb?\"|\.open\(encoding|\.open\(\)|\.open\(\"r\", ")
    allowed = {"ui/theming.py": 'json.loads(entry.read_text("utf-8"))',  # pvtui's package data: the built-in themes
               "screens/memory.py": 'Path(__file__).with_name("memory.tcss").read_text("utf-8")'}  # and a stylesheet
    found = [f"{path.relative_to(package)}:{number}" for path in sorted(package.rglob("*.py"))
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if reads.search(line) and allowed.get(str(path.relative_to(package)), "\0") not in line]
    assert found == [], found


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_column_made_a_fifo_or_a_device_once_the_bundle_is_open_is_refused_when_mapped(kind, tiny_dir, tmp_path):
    bundle = tmp_path / "profile.pvtui"
    shutil.copytree(tiny_dir / "profile.pvtui", bundle)
    opened = Bundle(bundle)
    column = opened.columns[0]
    special_file(bundle / f"{column}.npy", kind)
    with pytest.raises(ReportError, match=re.escape(f"unreadable column ({SPECIAL_SAID[kind]})")):
        finished_within(lambda: opened.array(column))


def test_a_profile_pop_that_is_a_fifo_is_never_handed_to_sqlite(tiny_dir, tmp_path, cache_root):
    """Discovery passes over a FIFO, but one made in its place after it looked would still reach the reader:
    SQLite and libpva open it blocking. It is noted, and the report opens from archive.a."""
    from pvtui.sources.base import ReportFiles
    from pvtui.sources.ingest import load_report

    special_file(tmp_path / "profile.pop", "fifo")
    shutil.copy(tiny_dir / "archive.a", tmp_path / "archive.a")
    files = ReportFiles(tmp_path, "fifo", profile=tmp_path / "profile.pop", archive=tmp_path / "archive.a")
    report = finished_within(lambda: load_report(files, cache=cache_root))
    assert report.archive is not None and report.memory is None
    assert f"{tmp_path / 'profile.pop'}: cannot be read (not a regular file (a FIFO))" in report.problems


@pytest.mark.anyio
@pytest.mark.parametrize("letter", ["T", "X"])
async def test_the_app_shows_every_screen_of_a_report_whose_table_has_no_rows(letter, tiny_dir, tmp_path, make_app):
    """No tiles, or runs of no steps: each screen is shown, and the app runs on."""
    bundle = tmp_path / "bundle"
    shutil.copytree(tiny_dir / STAND_IN, bundle)
    empty_table(bundle, letter)
    if letter == "X":
        np.save(bundle / "runs.step_offsets.npy", np.zeros_like(np.load(bundle / "runs.step_offsets.npy")))
    app = make_app(bundle)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        for key, name in (("m", "Memory"), ("l", "Liveness"), ("p", "Programs"), ("t", "Trace"), ("i", "Insights"),
                          ("o", "Operations"), ("H", "Hotspots"), ("s", "Summary")):
            await pilot.press(key)
            await wait_for(pilot, lambda: app.screen.SCREEN_NAME == name and not app.screen.opening)
            await pilot.press("down", "pagedown", "end", "v")
            await pilot.pause()
            assert app.is_running, name
