"""`pvtui check`: file by file, whether a report is usable, and why not.

Needs no libpva and only reads: profile.pop is opened by SQLite as immutable (see
`sqlite.database.connect`), the other files through pvtui's own readers with nothing kept.
A report still being written shows as a writer's -journal or -wal beside profile.pop,
or as files whose size or time change over the check.
"""

from __future__ import annotations

import json
import mmap
import os
import sqlite3
import struct
import time
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from pvtui.errors import Cancelled, ReportError
from pvtui.model.schema import REPORT_FILES
from pvtui.files.regular import open_regular
from pvtui.sources.base import CancelToken, ReportFiles
from pvtui.sources.sqlite.database import connect, interrupted, tables
from pvtui.sources.unfinished import writers_beside

SETTLE_SECONDS = 1.0  # a file whose size or time changes within this is still being written
LARGE_BYTES = 256 * 2**20  # from this size on, the options that would shrink a file are listed
SQLITE_MAGIC = b"SQLite format 3\x00"
SQLITE_HEADER_BYTES = 100
QUICK_CHECK_ROWS = 5  # problems kept from PRAGMA quick_check


@dataclass(frozen=True)
class Advice:
    """Something to change when capturing, to make a file smaller, and what it costs."""

    option: str | None  # a Poplar engine option, or None for a change to the program itself
    value: str | None  # its value, a JSON string as POPLAR_ENGINE_OPTIONS takes it
    effect: str

    def to_json(self) -> dict[str, Any]:
        return {"option": self.option, "value": self.value, "effect": self.effect}


# From the Graph Analyser guide ("Profiling overhead", "Reducing the size of profile reports"),
# in its order of expected impact.
PROFILE_ADVICE = (
    Advice("autoReport.outputLoweredVars", "false", "no lowered variables: the variables memory graph is lost"),
    Advice("autoReport.executionProfileProgramRunCount", "1", "one run profiled instead of the default two"),
    Advice("profiler.replicaToProfile", "0", "a single replica profiled"),
    Advice("debug.computeInstrumentationLevel", "ipu",
           "cycles on one tile only: the per-tile (BSP) cycles are lost"),
    Advice("autoReport.outputExecutionProfile", "false", "no execution profile: memory and programs only"),
    Advice(None, None, "fewer steps or batches per step, and a smaller gradient accumulation factor"),
)
SHRINKING = {
    "profile.pop": PROFILE_ADVICE,
    "profile.pvtui": PROFILE_ADVICE,  # the synthetic reports' stand-in for profile.pop
    "debug.cbor": (
        Advice("autoReport.outputDebugInfo", "false", "no debug.cbor: operations and debug details are lost"),
    ),
    "archive.a": (
        Advice("autoReport.outputArchive", "false",
               "no archive.a: profile.pop is then needed, and a few Memory details are lost"),
    ),
}


@dataclass
class FileCheck:
    """What the check found in one file."""

    path: Path
    problems: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    advice: list[Advice] = field(default_factory=list)

    @property
    def kind(self) -> str:
        """The report file it is: profile.pop, archive.a... (profile.pvtui for a bundle)."""
        return self.path.name if self.path.name in REPORT_FILES else "profile.pvtui"

    @property
    def usable(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "usable": self.usable,
            "problems": list(self.problems),
            "facts": dict(self.facts),
            "advice": [a.to_json() for a in self.advice],
        }


@dataclass
class CheckResult:
    """A report's files by name (relative to the path checked), and problems of the report as a whole."""

    path: Path
    files: dict[str, FileCheck] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def usable(self) -> bool:
        return not self.problems and all(f.usable for f in self.files.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "usable": self.usable,
            "problems": list(self.problems),
            "files": {name: check.to_json() for name, check in self.files.items()},
        }


def check_path(
    path: Path,
    *,
    settle: float | None = None,
    large: int | None = None,
    cancel: CancelToken | None = None,
) -> CheckResult:
    """Check every report at or under PATH (a directory, a report file, an engine tree or a bundle)."""
    from pvtui.sources.discovery import discover

    path = Path(path)
    root = path if path.is_dir() else path.parent
    try:
        reports = discover(path)
    except ReportError as exc:
        result = CheckResult(path, problems=[exc.problem])
        loose = [root / name for name in REPORT_FILES if (root / name).is_file()] if path.is_dir() else []
        _check_files(result, root, loose, settle, large, cancel or CancelToken())
        return result
    return check_reports(reports, root, path, settle=settle, large=large, cancel=cancel)


def check_reports(
    reports: list[ReportFiles],
    root: Path,
    path: Path | None = None,
    *,
    settle: float | None = None,
    large: int | None = None,
    cancel: CancelToken | None = None,
) -> CheckResult:
    """Check the files of REPORTS, named relative to ROOT."""
    result = CheckResult(path or root)
    paths = []
    for report in reports:
        if report.bundle is not None:
            paths.append(report.bundle)
        paths.extend(report.existing())
    _check_files(result, root, paths, settle, large, cancel or CancelToken())
    return result


def _check_files(
    result: CheckResult, root: Path, paths: Iterable[Path], settle: float | None, large: int | None, cancel: CancelToken
) -> None:
    settle = SETTLE_SECONDS if settle is None else settle
    large = LARGE_BYTES if large is None else large
    unique = list({os.path.abspath(p): p for p in paths}.values())  # a parent's debug.cbor, shared, once
    started = time.monotonic()
    before = {p: _stamp(p) for p in unique}
    for path in unique:
        cancel.check()
        check = FileCheck(path)
        _CHECKS.get(check.kind, _check_bundle)(path, check, cancel)
        size = check.facts.get("bytes")
        if size is not None and size >= large:
            in_effect = _options_recorded(path.parent)
            check.advice.extend(a for a in SHRINKING.get(check.kind, ()) if in_effect.get(a.option) != a.value)
        result.files[_name(path, root)] = check
    wait = settle - (time.monotonic() - started)
    if unique and wait > 0 and cancel.wait(wait):
        raise Cancelled()
    for path in unique:
        change = _change(before[path], _stamp(path), settle)
        if change:
            result.files[_name(path, root)].problems.insert(0, change)  # it explains the rest


def _name(path: Path, root: Path) -> str:
    name = os.path.relpath(path, root)
    return Path(path).name if name == "." else Path(name).as_posix()


def _options_recorded(directory: Path) -> dict[str, str]:
    """The engine options the run recorded in its app.json ("POPLAR_ENGINE_OPTIONS"), where it did."""
    from pvtui.sources.json_files import UnusableJson, load_json

    try:
        options = load_json(directory / "app.json").get("POPLAR_ENGINE_OPTIONS")
        if isinstance(options, str):
            options = json.loads(options)
    except (UnusableJson, AttributeError, ValueError, RecursionError):
        return {}
    if not isinstance(options, dict):
        return {}
    return {str(key): str(value).lower() for key, value in options.items()}


# --- still being written ----------------------------------------------------------


def _stamp(path: Path) -> tuple[int, int] | None:
    """(size, modification time) of PATH; a bundle's are those of its meta.json, written last."""
    try:
        st = (path / "meta.json").stat() if path.is_dir() else path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _change(before: tuple[int, int] | None, after: tuple[int, int] | None, settle: float) -> str:
    """How a file changed over the check, as a problem; "" when it did not."""
    if before == after:
        return ""
    within = f"within {settle:g} s" if settle else "during the check"
    if after is None:
        return f"removed {within}: still being written"
    if before is None:
        return f"appeared {within}: still being written"
    if before[0] != after[0]:
        return f"still being written: {before[0]:,} bytes, then {after[0]:,} {within}"
    return f"still being written: rewritten {within} (same size, new modification time)"


# --- profile.pop ------------------------------------------------------------------


def _check_profile(path: Path, check: FileCheck, cancel: CancelToken) -> None:
    size = _size(path, check)
    if size is None:
        return
    for writer in writers_beside(path):
        check.problems.append(
            f"{writer.name} beside it: a program is still writing profile.pop, or stopped before"
            " it finished (then its last writes are lost)"
        )
    if size == 0:
        check.problems.append("empty file: the program stopped before writing its profile")
        return
    header = _read_head(path, check)
    if header is None:
        return
    if not SQLITE_MAGIC.startswith(header[: len(SQLITE_MAGIC)]):
        check.problems.append("not an SQLite database (no SQLite header): not a profile.pop")
        return
    if len(header) < SQLITE_HEADER_BYTES:
        check.problems.append(f"truncated: {size:,} bytes, shorter than SQLite's {SQLITE_HEADER_BYTES:,}-byte header")
        return
    _check_pages(header_pages(header), size, check)
    try:
        with closing(connect(path, cancel)) as db:
            _check_pages(_pragma_pages(db), size, check)
            _quick_check(db, check)
            _count_rows(db, check)
    except sqlite3.Error as exc:
        if cancel.cancelled:
            raise Cancelled() from None
        if interrupted(exc):  # Ctrl+C, raised in the progress handler, where sqlite3 swallows it
            raise KeyboardInterrupt from None
        check.problems.append(f"SQLite cannot read it ({exc})")


def header_pages(header: bytes) -> tuple[int, int] | None:
    """(page size, pages) from the database header, when its page count is valid."""
    page_size = struct.unpack_from(">H", header, 16)[0]
    page_size = 65536 if page_size == 1 else page_size
    change_counter, pages = struct.unpack_from(">II", header, 24)
    valid_for = struct.unpack_from(">I", header, 92)[0]
    if pages == 0 or change_counter != valid_for or page_size < 512:
        return None  # older writers leave the count stale: SQLite then goes by the file size
    return page_size, pages


def _pragma_pages(db: sqlite3.Connection) -> tuple[int, int]:
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    return page_size, pages


def _check_pages(pages: tuple[int, int] | None, size: int, check: FileCheck) -> None:
    """Page count x page size against the file's size: a shorter file was cut off."""
    if pages is None:
        return
    page_size, count = pages
    check.facts.update(page_size=page_size, pages=count)
    expected = page_size * count
    if expected > size and not any(p.startswith("truncated") for p in check.problems):
        check.problems.append(
            f"truncated: {count:,} pages of {page_size:,} bytes make {expected:,} bytes,"
            f" the file has {size:,} ({100 * size // expected}%)"
        )


def _quick_check(db: sqlite3.Connection, check: FileCheck) -> None:
    rows = [str(row[0]) for row in db.execute(f"PRAGMA quick_check({QUICK_CHECK_ROWS})")]
    check.facts["quick_check"] = "ok" if rows == ["ok"] else "failed"
    if rows != ["ok"]:
        # a row may hold several lines, under a heading naming the schema ("*** in database main ***")
        lines = [line for row in rows for line in row.splitlines() if line and not line.startswith("***")]
        more = " …" if len(lines) > QUICK_CHECK_ROWS else ""
        check.problems.append(f"PRAGMA quick_check: {'; '.join(lines[:QUICK_CHECK_ROWS])}{more}")


def _count_rows(db: sqlite3.Connection, check: FileCheck) -> None:
    """Every table with its columns and rows, and in words which of the tables the native reader knows."""
    from pvtui.sources.pop_schema import describe_known

    found = tables(db)
    check.facts["tables"] = {name: table.to_json() for name, table in found.items()}
    check.facts["known_tables"] = describe_known(found)
    for name, table in found.items():
        if table.rows is None:
            check.problems.append(f"table {name}: cannot be read ({table.problem})")
    if not found:
        check.problems.append("holds no tables: the program stopped before writing its profile")


# --- archive.a, debug.cbor, JSON, bundle -------------------------------------------


def _check_archive(path: Path, check: FileCheck, cancel: CancelToken) -> None:
    from pvtui.sources.archive import BadMember, SectionSizer, iter_members

    size = _size(path, check)
    if size is None:
        return
    if size == 0:
        check.problems.append("empty file, not an ar archive")
        return
    members = valid = memory = 0
    bad: list[str] = []
    try:
        with open_regular(path) as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as view:
            sizer = SectionSizer()
            for member in iter_members(path, view):
                members += 1
                if members % 256 == 0:
                    cancel.check()
                try:
                    memory += sum(sizer.sizes(view[member.start : member.start + member.size]))
                    valid += 1
                except BadMember as exc:
                    bad.append(f"member {member.name!r} {exc}")
    except ReportError as exc:
        check.problems.append(exc.problem)
    except (OSError, ValueError) as exc:
        check.problems.append(f"cannot be read ({getattr(exc, 'strerror', None) or exc})")
    check.facts.update(members=members, valid_elf=valid, memory_bytes=memory)
    if bad:
        check.problems.append(f"{len(bad):,} of {members:,} members are not usable ELF files; the first: {bad[0]}")
    elif members == 0 and not check.problems:
        check.problems.append("the ar archive has no members")


def _check_debug(path: Path, check: FileCheck, cancel: CancelToken) -> None:
    from pvtui.sources.debug_cbor import scan_debug

    if _size(path, check) is None:
        return
    try:
        scan = scan_debug(path, cancel)
    except ReportError as exc:
        check.problems.append(exc.problem)
        return
    check.facts.update(contexts=scan.contexts, layers=scan.layers)
    if scan.problems:
        check.problems.append(f"does not decode to the end: {scan.problems}")
    elif scan.contexts == 0:
        check.problems.append("holds no debug contexts")


def _check_json(path: Path, check: FileCheck, cancel: CancelToken) -> None:
    from pvtui.sources.json_files import UnusableJson, load_json

    if _size(path, check) is None:
        return
    try:
        value = load_json(path)
    except UnusableJson as problem:
        check.problems.append(str(problem))
        return
    if isinstance(value, dict):
        check.facts["keys"] = list(value)
    else:
        check.facts["type"] = type(value).__name__


def _check_bundle(path: Path, check: FileCheck, cancel: CancelToken) -> None:
    """A pvtui bundle: profile.pvtui standing in for profile.pop, or an exported report."""
    from pvtui.model.bundle import Bundle
    from pvtui.model.schema import part_of_column

    try:
        bundle = Bundle(path)
        check.facts["bytes"] = bundle.disk_bytes()
        bundle.check_every_reference()  # every time: what a record of an earlier check says is not checking
    except ReportError as exc:
        check.problems.append(f"{_name(Path(exc.path), path)}: {exc.problem}")
        return
    except OSError as exc:
        check.problems.append(f"cannot be read ({exc.strerror or exc})")
        return
    for column, damaged in bundle.damaged.items():
        check.problems.append(f"{_name(Path(damaged.path), path)}: {damaged.problem}; the explorer opens the "
                              f"rest, without {part_of_column(column)}")
    meta = bundle.meta
    check.facts.update(parts=meta.get("parts", []), columns=len(meta.get("columns", [])))
    tiles = meta.get("target", {}).get("num_tiles")
    if tiles is not None:
        check.facts["tiles"] = tiles


def _size(path: Path, check: FileCheck) -> int | None:
    """PATH's bytes, where it is a regular file that can be opened (else the problem noted, and None)."""
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
    except OSError as exc:
        check.problems.append(f"cannot be read ({exc.strerror or exc})")
        return None
    check.facts["bytes"] = size
    return size


def _read_head(path: Path, check: FileCheck) -> bytes | None:
    try:
        with open_regular(path) as f:
            return f.read(SQLITE_HEADER_BYTES)
    except OSError as exc:
        check.problems.append(f"cannot be read ({exc.strerror or exc})")
        return None


_CHECKS: dict[str, Callable[[Path, FileCheck, CancelToken], None]] = {
    "profile.pop": _check_profile,
    "archive.a": _check_archive,
    "debug.cbor": _check_debug,
    "framework.json": _check_json,
    "app.json": _check_json,
}
