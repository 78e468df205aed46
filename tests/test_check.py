"""`pvtui check`: each file's verdict and reasons, reports still being written, exit codes, and
that checking never changes a report directory."""

from __future__ import annotations

import io
import json
import re
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from bad_inputs import WHOLE, build_corpus
from conftest import wait_for
from pvtui.cli import main
from pvtui.errors import Cancelled
from pvtui.sources import check as check_module
from pvtui.sources.sqlite import database as sqlite_database
from pvtui.sources.base import CancelToken
from pvtui.sources.check import check_path

STEPS = 3000


def write_profile(path: Path, wal: bool = False) -> Path:
    """A real SQLite file standing in for profile.pop: the tables the public script names."""
    db = sqlite3.connect(path)
    if wal:
        db.execute("PRAGMA journal_mode=wal")
    db.execute("CREATE TABLE steps (id INTEGER PRIMARY KEY, type TEXT, program INTEGER, compute_set INTEGER)")
    db.executemany("INSERT INTO steps VALUES (?, ?, ?, ?)",
                   [(i, "OnTileExecute", i % 40, i % 9) for i in range(STEPS)])
    db.execute("CREATE TABLE programs (id INTEGER PRIMARY KEY, name TEXT)")
    db.executemany("INSERT INTO programs VALUES (?, ?)", [(i, f"program {i}" * 4) for i in range(40)])
    db.execute("CREATE TABLE var_categories (id INTEGER PRIMARY KEY, name TEXT)")
    db.commit()
    db.close()
    return path


@pytest.fixture
def report(tmp_path) -> Path:
    """A report directory as Poplar writes it: profile.pop (SQLite) and app.json."""
    folder = tmp_path / "report"
    folder.mkdir()
    write_profile(folder / "profile.pop")
    (folder / "app.json").write_text('{"arguments": {"batch_size": 8}}')
    return folder


@pytest.fixture(autouse=True)
def no_settle_wait(monkeypatch):
    """The commands wait a second for files that change; tests that look at that pass their own."""
    monkeypatch.setattr(check_module, "SETTLE_SECONDS", 0.0)


def state(folder: Path) -> dict[str, tuple]:
    """Every entry under FOLDER with its size and modification time: what checking must not change."""
    return {str(p.relative_to(folder)): (p.is_dir(), p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*"))}


def cut(path: Path, keep: int) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:keep])


def run_check(capsys, path: Path, *extra: str) -> tuple[int, str]:
    code = main(["check", str(path), *extra])
    return code, capsys.readouterr().out


def test_a_whole_profile_is_usable_with_its_tables_and_row_counts(report, capsys):
    code, out = run_check(capsys, report, "--json")
    data = json.loads(out)
    assert code == 0 and data["usable"] is True and data["problems"] == []
    profile = data["files"]["profile.pop"]
    assert profile == {"usable": True, "problems": [], "facts": profile["facts"], "advice": []}
    facts = profile["facts"]
    assert facts["tables"] == {
        "programs": {"rows": 40, "columns": {"id": "INTEGER", "name": "TEXT"}},
        "steps": {"rows": STEPS, "columns": {"id": "INTEGER", "type": "TEXT", "program": "INTEGER",
                                             "compute_set": "INTEGER"}},
        "var_categories": {"rows": 0, "columns": {"id": "INTEGER", "name": "TEXT"}},
    }
    assert facts["known_tables"].startswith("3 of the 9 tables the public record shows (absent: compute_sets,")
    assert facts["quick_check"] == "ok"
    assert facts["pages"] * facts["page_size"] == facts["bytes"] == (report / "profile.pop").stat().st_size
    assert data["files"]["app.json"]["facts"]["keys"] == ["arguments"]


def test_a_truncated_profile_is_named_with_its_missing_pages(report, capsys):
    profile = report / "profile.pop"
    size = profile.stat().st_size
    cut(profile, size // 2)
    code, out = run_check(capsys, report)
    assert code == 2
    assert "✗ not usable" in out and "profile.pop" in out and "truncated" in out
    problems = check_path(report).files["profile.pop"].problems
    assert problems[0] == (f"truncated: {size // 4096:,} pages of 4,096 bytes make {size:,} bytes,"
                           f" the file has {size // 2:,} (50%)")


@pytest.mark.parametrize("damage, expected", [
    (b"", "empty file"),
    (b"SQLite format 3\x00" + bytes(20), "truncated"),
    (b"SQLite fo", "truncated"),
    (b"not a database at all" * 10, "not an SQLite database"),
])
def test_a_profile_that_is_not_a_whole_database_is_not_usable(report, damage, expected):
    (report / "profile.pop").write_bytes(damage)
    check = check_path(report).files["profile.pop"]
    assert not check.usable and expected in check.problems[0]


def test_a_damaged_page_fails_quick_check_in_one_line(report):
    profile = report / "profile.pop"
    data = bytearray(profile.read_bytes())
    data[4096 * 2 + 3 : 4096 * 2 + 5] = (500).to_bytes(2, "big")  # page 3 claims 500 cells
    profile.write_bytes(bytes(data))
    check = check_path(report).files["profile.pop"]
    assert check.problems == ["PRAGMA quick_check: Page 3: free space corruption; database disk image is malformed"]
    assert check.facts["quick_check"] == "failed"


@pytest.mark.parametrize("suffix", ["-journal", "-wal"])
def test_a_writers_journal_beside_the_profile_means_still_being_written(report, capsys, suffix):
    (report / f"profile.pop{suffix}").write_bytes(b"\0" * 512)
    code, out = run_check(capsys, report)
    assert code == 2 and f"profile.pop{suffix} beside it" in out
    check = check_path(report).files["profile.pop"]
    assert check.problems[0].startswith(f"profile.pop{suffix} beside it: a program is still writing")
    assert check.facts["tables"]["steps"]["rows"] == STEPS  # the file as it stands is still read


def test_a_file_growing_during_the_check_is_still_being_written(report):
    growing = report / "app.json"
    stop = threading.Event()

    def append() -> None:
        with growing.open("a") as f:
            while not stop.is_set():
                f.write(" ")
                f.flush()
                stop.wait(0.01)

    writer = threading.Thread(target=append)
    writer.start()
    try:
        result = check_path(report, settle=0.3)
    finally:
        stop.set()
        writer.join()
    assert not result.usable
    assert result.files["app.json"].problems[0].startswith("still being written: ")
    assert "within 0.3 s" in result.files["app.json"].problems[0]
    assert result.files["profile.pop"].usable


def test_files_that_do_not_change_over_the_wait_are_not_being_written(report):
    assert check_path(report, settle=0.2).usable


def test_truncated_archive_debug_info_and_bad_json_are_each_named(tiny_dir, tmp_path, capsys):
    folder = tmp_path / "damaged"
    shutil.copytree(tiny_dir, folder)
    cut(folder / "archive.a", (folder / "archive.a").stat().st_size // 3)
    cut(folder / "debug.cbor", (folder / "debug.cbor").stat().st_size // 2)
    (folder / "framework.json").write_text('{\n  "framework": "popart",\n  "version" 3\n}')
    code, out = run_check(capsys, folder, "--json")
    files = json.loads(out)["files"]
    assert code == 2
    assert files["archive.a"]["problems"][0].startswith("truncated: member at offset")
    assert 0 < files["archive.a"]["facts"]["members"] == files["archive.a"]["facts"]["valid_elf"] < 128
    assert files["debug.cbor"]["problems"][0].startswith("does not decode to the end")
    assert files["framework.json"]["problems"] == [
        "not valid JSON (line 3 column 13: Expecting ':' delimiter)"]
    assert files["app.json"]["usable"] and files["profile.pvtui"]["usable"]


def test_an_archive_cut_inside_its_first_member_claims_no_valid_elf_and_numbers_have_separators(
        tiny_dir, tmp_path, capsys):
    folder = tmp_path / "damaged"
    shutil.copytree(tiny_dir, folder)
    cut(folder / "archive.a", 3000)  # inside the first member (about 20 kB)
    cut(folder / "debug.cbor", (folder / "debug.cbor").stat().st_size // 2)
    code, out = run_check(capsys, folder, "--json")
    files = json.loads(out)["files"]
    assert files["archive.a"]["facts"]["members"] == 0
    problems = files["archive.a"]["problems"] + files["debug.cbor"]["problems"]
    assert re.match(r"truncated: member at offset 8 claims \d{1,3}(,\d{3})+ bytes, 2,932 remain", problems[0])
    assert not [p for p in problems if re.search(r"\d{4}", p)]  # every number of 1,000 or more grouped
    code, out = run_check(capsys, folder)
    archive = next(line for line in out.splitlines() if "archive.a" in line)
    assert "no members (tiles) read" in archive and "valid ELF" not in archive and "0 B" not in archive
    assert not re.search(r"\d{4}", out.replace(str(folder), ""))


def test_damage_to_optional_files_alone_says_the_explorer_still_opens_the_report(tiny_dir, tmp_path, capsys):
    folder = tmp_path / "damaged"
    shutil.copytree(tiny_dir, folder)
    (folder / "app.json").write_text('{"a": ')
    code, out = run_check(capsys, folder)
    assert code == 2 and "✗ not usable" in out and "the explorer still opens the report" in out
    assert main(["summary", str(folder)]) == 0  # as it says
    capsys.readouterr()
    cut(folder / "archive.a", 1000)  # no longer optional files alone
    code, out = run_check(capsys, folder)
    assert code == 2 and "still opens" not in out


def test_a_synthetic_report_is_usable(tiny_dir, capsys):
    code, out = run_check(capsys, tiny_dir)
    assert code == 0 and out.startswith("✓ usable")
    for name in ("profile.pvtui", "debug.cbor", "archive.a", "framework.json", "app.json"):
        assert name in out
    assert "128 members (tiles), all valid ELF" in out


def test_no_graph_profile_is_a_problem_of_the_report(tmp_path, capsys):
    (tmp_path / "app.json").write_text("{}")
    code, out = run_check(capsys, tmp_path, "--json")
    data = json.loads(out)
    assert code == 2 and data["problems"] == ["No graph profile found (need profile.pop or archive.a)"]
    assert data["files"]["app.json"]["usable"]  # the files there are still checked
    assert main(["check", str(tmp_path / "absent")]) == 2


def test_every_engine_of_a_tree_is_checked_with_its_shared_debug_info(tiny_dir, tmp_path, capsys):
    tree = tmp_path / "tree"
    for engine in ("training", "inference"):
        (tree / engine).mkdir(parents=True)
        write_profile(tree / engine / "profile.pop")
    shutil.copy(tiny_dir / "debug.cbor", tree / "debug.cbor")
    cut(tree / "inference" / "profile.pop", 5000)
    code, out = run_check(capsys, tree, "--json")
    files = json.loads(out)["files"]
    assert code == 2
    assert sorted(files) == ["debug.cbor", "inference/profile.pop", "training/profile.pop"]
    assert not files["inference/profile.pop"]["usable"] and files["training/profile.pop"]["usable"]


def test_large_files_list_the_options_that_would_shrink_them(report, tiny_dir):
    shutil.copy(tiny_dir / "debug.cbor", report / "debug.cbor")
    assert not any(c.advice for c in check_path(report).files.values())
    files = check_path(report, large=1).files  # every file counts as large
    options = [a.option for a in files["profile.pop"].advice]
    assert options[:3] == ["autoReport.outputLoweredVars", "autoReport.executionProfileProgramRunCount",
                           "profiler.replicaToProfile"]
    assert "debug.computeInstrumentationLevel" in options
    assert [a.option for a in files["debug.cbor"].advice] == ["autoReport.outputDebugInfo"]
    assert files["profile.pop"].usable  # advice is not a problem


def test_options_the_run_recorded_in_app_json_are_not_advised_again(report):
    options = {"autoReport.all": "true", "autoReport.outputLoweredVars": "false", "profiler.replicaToProfile": 0}
    (report / "app.json").write_text(json.dumps({"POPLAR_ENGINE_OPTIONS": json.dumps(options)}))
    options = [a.option for a in check_path(report, large=1).files["profile.pop"].advice]
    assert "autoReport.outputLoweredVars" not in options and "profiler.replicaToProfile" not in options
    assert options[0] == "autoReport.executionProfileProgramRunCount"


class InterruptingToken(CancelToken):
    """Ctrl+C as SQLite's progress handler meets it: raised once inside the handler, which sqlite3 swallows."""

    interrupted = False

    @property
    def cancelled(self) -> bool:
        if not self.interrupted:
            self.interrupted = True
            raise KeyboardInterrupt
        return False


def test_ctrl_c_during_sqlites_checks_stops_the_check(report, monkeypatch):
    monkeypatch.setattr(sqlite_database, "CANCEL_EVERY_OPS", 1)
    with pytest.raises(KeyboardInterrupt):
        check_path(report, cancel=InterruptingToken())


def test_a_cancelled_check_stops(report):
    token = CancelToken()
    token.cancel()
    with pytest.raises(Cancelled):
        check_path(report, cancel=token)


def test_the_shrinking_options_are_shown(report, monkeypatch, capsys):
    monkeypatch.setattr(check_module, "LARGE_BYTES", 1)
    code, out = run_check(capsys, report)
    assert code == 0 and '"autoReport.outputLoweredVars": "false"' in out


def test_checking_changes_nothing_even_for_a_wal_database(tmp_path, tiny_dir, capsys):
    """SQLite opening a WAL database read-only (without immutable) leaves -wal and -shm files beside it."""
    folder = tmp_path / "wal"
    folder.mkdir()
    write_profile(folder / "profile.pop", wal=True)
    shutil.copy(tiny_dir / "archive.a", folder / "archive.a")
    before = state(folder)
    assert run_check(capsys, folder)[0] == 0
    assert state(folder) == before
    (folder / "profile.pop-journal").write_bytes(b"\0" * 512)
    cut(folder / "archive.a", 1000)
    before = state(folder)
    assert run_check(capsys, folder)[0] == 2
    assert state(folder) == before


def test_every_damaged_report_is_found_unusable_and_left_as_it_was(tiny_dir, tmp_path):
    corpus = build_corpus(tiny_dir, tmp_path / "corpus")
    before = state(tmp_path / "corpus")
    results = {entry.name: check_path(entry.path) for entry in corpus}
    assert state(tmp_path / "corpus") == before
    problems = [p for r in results.values() for f in r.files.values() for p in f.problems] + [
        p for r in results.values() for p in r.problems]
    assert problems and all("\n" not in p for p in problems)  # one line each
    verdicts = {entry.name: (results[entry.name].usable, entry.outcome == WHOLE) for entry in corpus}
    wrong = {name: usable for name, (usable, whole) in verdicts.items() if usable != whole}
    assert not wrong, f"verdicts that disagree with the corpus: {wrong}"


# --- in the app: a report that fails to open shows the check of its files -------------------


def findings(screen) -> str:
    """The check's findings as the dialog shows them, as text."""
    from rich.console import Console
    from textual.widgets import Static

    console = Console(width=100, file=io.StringIO(), color_system=None)
    for widget in screen.query("#check-result").results(Static):  # none until the dialog is composed
        console.print(widget.content)
    return console.file.getvalue()


@pytest.mark.anyio
async def test_a_report_that_fails_to_open_shows_the_check_then_quits(tiny_dir, tmp_path, make_app):
    from pvtui.screens.dialogs import OpenFailed

    folder = tmp_path / "only-archive"
    folder.mkdir()
    (folder / "archive.a").write_bytes((tiny_dir / "archive.a").read_bytes()[:100_000])
    (folder / "app.json").write_text('{"a": ')
    app = make_app(folder)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, OpenFailed) and "✗" in findings(app.screen))
        shown = findings(app.screen)
        assert "not usable (2 of 2 files)" in shown
        assert "archive.a" in shown and "truncated: member at offset" in shown
        assert "not valid JSON (line 1 column 7" in shown
        assert app.return_code is None  # shown until read
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.return_code is not None)
    assert app.return_code == 2


@pytest.mark.anyio
async def test_a_failed_reload_shows_the_check_and_keeps_the_report(tiny_dir, make_app, monkeypatch):
    from pvtui.errors import ReportError
    from pvtui.screens.dialogs import OpenFailed
    from pvtui.sources import ingest

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.report is not None)
        shown = app.report

        def fail(files, **_):
            raise ReportError(files.directory, "profile.pop changed while being read, 3 times")

        monkeypatch.setattr(ingest, "open_current", lambda files, cache=None, reader="auto": None)
        monkeypatch.setattr(ingest, "load_report", fail)
        app.open_report(app.a.files)
        await wait_for(pilot, lambda: isinstance(app.screen, OpenFailed) and "✓ usable" in findings(app.screen))
        assert "Reload failed" in str(app.screen.query_one("Label").content)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, OpenFailed))
        assert app.return_code is None and app.report is shown


def test_a_bundle_with_a_damaged_column_names_it_and_what_the_explorer_leaves_out(tiny_dir, tmp_path):
    from bad_inputs import exported_bundle

    bundle = exported_bundle(tiny_dir, tmp_path / "export", "truncated")  # steps.from.npy cut short
    result = check_path(bundle)
    assert not result.usable
    (problem,) = [p for check in result.files.values() for p in check.problems]
    assert problem.startswith("steps.from.npy: truncated column") and problem.endswith("without execution")


REPORT_COMMANDS = ("summary", "memory", "liveness", "programs", "trace", "insights", "operations")


@pytest.mark.parametrize("suffix", ["-journal", "-wal"])
def test_a_writers_journal_is_said_by_every_report_command_from_the_cache_too(tiny_dir, tmp_path, capsys, suffix):
    """Read once (the bundle cached), then the writer's file appears: each command that reads the report says so
    in one more line on stderr, from the cached bundle; its answer is the same but for that note."""
    report = tmp_path / "report"
    shutil.copytree(tiny_dir, report, ignore=shutil.ignore_patterns("profile.pvtui"))  # read, then cached
    before = {}
    for command in REPORT_COMMANDS:
        assert main([command, str(report)]) == 0
        before[command] = capsys.readouterr()
    writer = report / f"profile.pop{suffix}"
    writer.write_bytes(b"\0" * 512)
    line = f"warning: {writer}: a program is still writing profile.pop beside it, or stopped before it finished: " \
           "this report may be incomplete"
    for command in REPORT_COMMANDS:
        assert main([command, str(report)]) == 0
        said = capsys.readouterr()
        assert sorted(said.err.splitlines()) == sorted([*before[command].err.splitlines(), line]), command
        assert said.out == before[command].out, command
    assert main(["summary", "--json", str(report)]) == 0
    assert any(str(writer) in note for note in json.loads(capsys.readouterr().out)["notes"])


@pytest.mark.anyio
async def test_a_writers_journal_is_said_on_the_explorers_summary(tiny_dir, tmp_path, make_app):
    from textual.widgets import Static

    from conftest import wait_until_loaded

    report = tmp_path / "report"
    shutil.copytree(tiny_dir, report)  # its own bundle stands in for profile.pop: no reading, still said
    (report / "profile.pop-journal").write_bytes(b"")
    app = make_app(report)
    async with app.run_test(size=(100, 40)) as pilot:
        await wait_until_loaded(pilot)
        notes = [str(note.render()) for note in app.screen.query(".note").results(Static)]
        assert any("profile.pop-journal: a program is still writing profile.pop" in note and
                   "may be incomplete" in note for note in notes), notes
