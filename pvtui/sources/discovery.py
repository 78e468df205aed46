"""Finding the reports under a path: one directory, a single file, a bundle, or a tree.

A report is a directory holding profile.pop, archive.a or a `profile.pvtui` bundle
(which stands in for profile.pop in synthetic reports). PopART and PopTorch write
one subdirectory per engine (training/, inference/...), TensorFlow one
tf_report_*/ per program, with debug.cbor at the top: a report without its own
debug.cbor takes its parent's.

A tree is searched breadth first, MAX_DEPTH levels and MAX_DIRECTORIES directories at
most (`pvtui /` must answer at once), skipping what cannot be read and the kernel's
pseudo filesystems (/proc, /sys, /dev), which hold no reports and much to trip on.
"""

from __future__ import annotations

import os
from collections import deque
from pathlib import Path

from pvtui.errors import ReportError
from pvtui.model.bundle import is_bundle
from pvtui.model.schema import REPORT_FILES
from pvtui.sources.base import ReportFiles

BUNDLE_DIR_NAME = "profile.pvtui"
MAX_DEPTH = 3  # directory levels searched below the given path
MAX_DIRECTORIES = 5000  # directories searched at most under one path
PSEUDO_FILESYSTEMS = ("/proc", "/sys", "/dev")

_FIELDS = {
    "profile.pop": "profile",
    "debug.cbor": "debug",
    "archive.a": "archive",
    "framework.json": "framework",
    "app.json": "app",
}


def discover(path: Path) -> list[ReportFiles]:
    """The reports at or under PATH, sorted by name (relative to PATH)."""
    path = Path(path)
    if not path.exists():
        raise ReportError(path, "no such file or directory")
    if path.is_dir() and is_bundle(path):
        if path.name == BUNDLE_DIR_NAME:  # stands in for its directory's profile.pop
            return _reports_of_file(path)
        return [ReportFiles(directory=path, name=_own_name(path), bundle=path)]
    if not path.is_dir():
        return _reports_of_file(path)
    reports, complete = _search(path)
    if not reports:
        searched = "" if complete else f" in the first {MAX_DIRECTORIES:,} directories searched"
        raise ReportError(path, f"No graph profile found{searched} (need profile.pop or archive.a)")
    return sorted(reports, key=lambda report: report.name)


def _reports_of_file(path: Path) -> list[ReportFiles]:
    """A report file (or profile.pvtui) given alone: its directory's report, else its tree."""
    if path.name not in REPORT_FILES and path.name != BUNDLE_DIR_NAME:
        raise ReportError(path, f"not a report file (expected one of {', '.join(REPORT_FILES)})")
    directory = path.parent
    report = _report_at(directory, _own_name(directory))
    if report is not None:
        return [report]
    return discover(directory)


def _search(root: Path) -> tuple[list[ReportFiles], bool]:
    """Every report in ROOT and its subdirectories down to MAX_DEPTH, never twice, and whether
    the search was complete (False: it stopped at MAX_DIRECTORIES)."""
    reports = []
    seen: set[tuple[int, int]] = set()
    pseudo = _pseudo_devices()
    pending = deque([(root, 0)])  # breadth first: a directory is named by its shortest path
    visited = 0
    while pending:
        directory, depth = pending.popleft()
        if not _first_visit(directory, seen, pseudo):
            continue
        visited += 1
        if visited > MAX_DIRECTORIES:
            return reports, False
        name = _own_name(root) if directory == root else directory.relative_to(root).as_posix()
        if directory != root and is_bundle(directory):
            if directory.name != BUNDLE_DIR_NAME:
                reports.append(ReportFiles(directory=directory, name=name, bundle=directory))
            continue
        report = _report_at(directory, name)
        if report is not None:
            reports.append(report)
        if depth < MAX_DEPTH:
            pending.extend((sub, depth + 1) for sub in _subdirectories(directory))
    return reports, True


def _report_at(directory: Path, name: str) -> ReportFiles | None:
    """The report held in DIRECTORY, or None when it has no graph profile."""
    entries = _entries(directory)
    files = {
        field: directory / name for name, field in _FIELDS.items() if _is_file(entries.get(name))
    }
    bundle: Path | None = directory / BUNDLE_DIR_NAME
    if not (_is_dir(entries.get(BUNDLE_DIR_NAME)) and is_bundle(bundle)):
        bundle = None
    if "profile" not in files and "archive" not in files and bundle is None:
        return None
    if "debug" not in files and _is_file(_entries(directory.parent).get("debug.cbor")):
        files["debug"] = directory.parent / "debug.cbor"
    return ReportFiles(directory=directory, name=name, bundle=bundle, **files)


def _entries(directory: Path) -> dict[str, os.DirEntry]:
    """DIRECTORY's entries by exact name (no guessing at case); empty when unreadable."""
    try:
        with os.scandir(directory) as listing:
            return {entry.name: entry for entry in listing}
    except OSError:
        return {}


def _subdirectories(directory: Path) -> list[Path]:
    """Visible subdirectories, real ones before symlinks, by name: the first path to one wins."""
    entries = [
        entry
        for entry in _entries(directory).values()
        if not entry.name.startswith(".") and _is_dir(entry)
    ]
    entries.sort(key=lambda entry: (entry.is_symlink(), entry.name))
    return [Path(entry.path) for entry in entries]


def _pseudo_devices() -> set[int]:
    """The devices of the PSEUDO_FILESYSTEMS present here: a directory on one is skipped, by
    whatever path (a symlink, /dev/fd) it is reached."""
    devices = set()
    for path in PSEUDO_FILESYSTEMS:
        try:
            devices.add(os.stat(path).st_dev)
        except OSError:
            pass
    return devices


def _first_visit(directory: Path, seen: set[tuple[int, int]], skipped_devices: set[int]) -> bool:
    """True the first time a directory is reached, by any path (symlinks included), unless it is
    unreadable or on one of SKIPPED_DEVICES."""
    try:
        status = directory.stat()
    except OSError:
        return False
    if status.st_dev in skipped_devices:
        return False
    key = (status.st_dev, status.st_ino)
    if key in seen:
        return False
    seen.add(key)
    return True


def _is_file(entry: os.DirEntry | None) -> bool:
    try:
        return entry is not None and entry.is_file()
    except OSError:
        return False


def _is_dir(entry: os.DirEntry | None) -> bool:
    try:
        return entry is not None and entry.is_dir()
    except OSError:
        return False


def _own_name(path: Path) -> str:
    return Path(os.path.abspath(path)).name or str(path)
