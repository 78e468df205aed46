"""What a program wrote under a report directory: each engine's report, its files and sizes, and
whether each file looks whole. Cheap checks of the files' own framing, read-only."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from pvtui.errors import ReportError
from pvtui.model.bundle import is_bundle
from pvtui.files.regular import open_regular, read_regular
from pvtui.sources.base import ReportFiles
from pvtui.sources.check import SQLITE_HEADER_BYTES, SQLITE_MAGIC, header_pages
from pvtui.sources.discovery import BUNDLE_DIR_NAME, MAX_DEPTH, discover
from pvtui.sources.private_fs import tree_size
from pvtui.sources.unfinished import writers_beside

AR_MAGIC = b"!<arch>\n"
AR_HEADER = 60
JSON_CHECK_LIMIT = 64 << 20  # larger JSON files are listed, not parsed
EXTRA_FILES = ("serialized_graph.capnp", "vars.capnp")


@dataclass
class WrittenFile:
    path: Path
    size: int
    problem: str | None = None  # why it does not look complete
    before: bool = False  # written before the run began


@dataclass
class WrittenReport:
    name: str
    directory: Path
    files: list[WrittenFile] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return all(f.problem is None for f in self.files)


def written(root: Path, since: float | None = None) -> tuple[list[WrittenReport], list[WrittenFile]]:
    """The reports under ROOT, and the other files there (a report not yet whole enough to be one, logs);
    BEFORE marks files older than SINCE."""
    try:
        reports = discover(root)
    except ReportError:
        reports = []
    found = []
    for files in reports:
        report = WrittenReport(files.name, files.directory)
        paths = report_paths(files)
        paths += [files.directory / name for name in EXTRA_FILES if (files.directory / name).is_file()]
        report.files = [look(p, since) for p in paths]
        found.append(report)
    listed = {f.path for report in found for f in report.files}
    loose = [look(p, since) for p in _all_files(root) if p not in listed]
    return found, loose


def report_paths(files: ReportFiles) -> list[Path]:
    """The files of one report that are there; the bundle stands in for profile.pop, and a debug.cbor
    may be the parent directory's, shared (TensorFlow)."""
    return [p for p in (files.profile, files.bundle, files.archive, files.debug, files.framework, files.app)
            if p is not None]


def sizes_and_date(files: ReportFiles) -> tuple[list[tuple[Path, int | None]], float | None]:
    """Each file of a report with its bytes (a bundle: its files'; None: unreadable), and when the newest
    was written (seconds since the epoch; None when none could be read). Only stats: cheap enough for a
    list of reports."""
    sizes, newest = [], None
    for path in report_paths(files):
        try:
            status = path.stat()
            size = tree_size(path) if path.is_dir() else status.st_size
        except OSError:
            sizes.append((path, None))
            continue
        sizes.append((path, size))
        newest = max(newest or status.st_mtime, status.st_mtime)
    return sizes, newest


def _all_files(root: Path) -> list[Path]:
    """Every file down to MAX_DEPTH, a bundle directory counting as one file."""
    out = []
    for directory, dirs, names in os.walk(root):
        here = Path(directory)
        if BUNDLE_DIR_NAME in dirs:
            dirs.remove(BUNDLE_DIR_NAME)
            names.append(BUNDLE_DIR_NAME)
        if len(here.relative_to(root).parts) >= MAX_DEPTH:
            dirs.clear()
        out += [here / name for name in sorted(names)]
        dirs.sort()
    return out


def look(path: Path, since: float | None = None) -> WrittenFile:
    """PATH's size and, where the file's framing says it is cut short or still open, why."""
    try:
        status = path.stat()
        size = tree_size(path) if path.is_dir() else status.st_size
        problem = _problem(path, size)
    except OSError as exc:
        return WrittenFile(path, 0, f"cannot be read ({exc.strerror})")
    return WrittenFile(path, size, problem, since is not None and status.st_mtime < since)


def _problem(path: Path, size: int) -> str | None:
    if path.name == BUNDLE_DIR_NAME:
        return None if is_bundle(path) else "no meta.json yet: still being written"
    if size == 0:
        return "empty"
    if path.name == "profile.pop":
        return _sqlite_problem(path, size)
    if path.name == "archive.a":
        return _archive_problem(path, size)
    if path.suffix == ".json" and size <= JSON_CHECK_LIMIT:
        try:
            json.loads(read_regular(path, JSON_CHECK_LIMIT))
        except ValueError as exc:
            return f"not valid JSON ({exc})"
    return None


def _sqlite_problem(path: Path, size: int) -> str | None:
    if writers := writers_beside(path):
        return f"{writers[0].name} beside it: still being written"
    with open_regular(path) as f:
        header = f.read(SQLITE_HEADER_BYTES)
    if not header.startswith(SQLITE_MAGIC):
        return "not an SQLite database"
    if len(header) < SQLITE_HEADER_BYTES:
        return "cut short (no whole SQLite header)"
    pages = header_pages(header)
    if pages is not None and size < pages[0] * pages[1]:
        return f"cut short ({size:,} of {pages[0] * pages[1]:,} bytes)"
    return None


def _archive_problem(path: Path, size: int) -> str | None:
    """Walks the member headers: the last member must end at the end of the file."""
    with open_regular(path) as f:
        if f.read(len(AR_MAGIC)) != AR_MAGIC:
            return "not an ar archive"
        offset = len(AR_MAGIC)
        while offset < size:
            f.seek(offset)
            header = f.read(AR_HEADER)
            if len(header) < AR_HEADER or header[58:60] != b"`\n":
                return f"cut short (a member header at byte {offset:,} is incomplete)"
            try:
                length = int(header[48:58].decode("ascii").strip())
            except ValueError:
                return f"a member header at byte {offset:,} is malformed"
            offset += AR_HEADER + length + (length & 1)
            if offset > size + 1:  # the last member's padding byte may be absent
                return f"cut short ({size:,} bytes; its last member runs to {offset - (length & 1):,})"
    return None
