"""Which reader reads profile.pop, as `--reader` says: libpva (module `pva`, from the Poplar SDK) or
pvtui's native reader of its SQLite tables (sources/native.py); and the readers themselves, one class
each behind one small protocol (ProfileReader), chosen by `profile_reader`.

`auto` takes libpva where it imports, since only libpva reads every part of the report, and the
native reader elsewhere (and where libpva fails to open the file). A bundle made from the same
profile.pop (a synthetic report's profile.pvtui, an export beside its report) stands in for it under
`auto` (StandingBundle).
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pvtui.model.bundle import Bundle
    from pvtui.sources.base import IngestContext, ReportFiles

READERS = ("auto", "native", "libpva")
LIBPVA, NATIVE = "libpva", "native"
# Columns and meta keys of a bundle that come from profile.pop.
PROFILE_COLUMN_PREFIXES = (
    "tiles.", "programs.", "compute_sets.", "vertex_types.", "liveness.", "always_live.",
    "variables.", "intervals.", "runs.", "steps.", "bsp.", "env.", "operations.", "lowered.",
)
PROFILE_META_KEYS = (
    "target", "poplar_version", "instrumentation", "memory", "programs", "compute_sets",
    "liveness", "lowered", "execution", "synthetic", "readers",
)


@lru_cache(maxsize=1)
def libpva() -> ModuleType | None:
    """The `pva` module, or None where it does not import (anything it raises means not usable)."""
    try:
        return importlib.import_module("pva")
    except Exception:  # an SDK half set up raises more than ImportError (OSError for a missing .so...)
        return None


def resolve(reader: str) -> str:
    """The reader READER means here: LIBPVA or NATIVE."""
    if reader not in READERS:
        raise ValueError(f"unknown reader {reader!r}: choose one of {', '.join(READERS)}")
    if reader == "auto":
        return LIBPVA if libpva() is not None else NATIVE
    return reader


class ProfileReader(Protocol):
    """One way of filling the bundle's profile parts. `read` writes what it can into CTX, notes what it
    cannot (a note per part, naming the file), and calls `ctx.show_parts()` after each part it finishes,
    so that an app shows the parts read while the rest are read."""

    name: str  # who read the parts, as the bundle records it (Report.readers)

    def read(self, ctx: IngestContext) -> None: ...


class StandIn:
    """A pva report object given in code: the synthetic generator's stand-in, or a test's."""

    name = "stand-in"

    def __init__(self, report: Any, operations: Any) -> None:
        self.report, self.operations = report, operations

    def read(self, ctx: IngestContext) -> None:
        from pvtui.sources.libpva import read_pva_report

        read_pva_report(self.report, ctx, self.operations)


class Native:
    """profile.pop's known SQLite tables (sources/native.py)."""

    name = NATIVE

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self, ctx: IngestContext) -> None:
        from pvtui.sources.native import read_native_profile

        read_native_profile(self.path, ctx)


class Libpva:
    """profile.pop (with debug.cbor) through libpva; where it cannot open the file, FALL_BACK reads it
    (auto), else that is noted."""

    name = LIBPVA

    def __init__(self, files: ReportFiles, fall_back: ProfileReader | None = None) -> None:
        self.files, self.fall_back = files, fall_back

    def read(self, ctx: IngestContext) -> None:
        from pvtui.sources.libpva import open_report, read_pva_report, report_operations

        profile = self.files.profile
        pva = libpva()
        if pva is None:
            ctx.note_unread(f"{profile}: --reader libpva needs libpva (module pva, from the Poplar SDK), which is"
                            " not available here; on an IPU host, enable the SDK, or read it with --reader native")
            return
        report, problem = open_report(pva, profile, self.files.debug)
        if report is not None:
            read_pva_report(report, ctx, report_operations(pva, report))
        elif self.fall_back is None:
            ctx.note_unread(f"{profile}: libpva could not open it ({problem})")
        else:
            ctx.note("libpva", f"{profile}: libpva could not open it ({problem}); the {self.fall_back.name} reader"
                               " read it")
            self.fall_back.read(ctx)
            self.name = self.fall_back.name


class StandingBundle:
    """A bundle standing in for profile.pop: its profile columns taken as they are (link_profile_parts)."""

    name = "profile.pvtui"  # where the bundle does not say who read it

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self, ctx: IngestContext) -> None:
        from pvtui.errors import ReportError
        from pvtui.model.bundle import Bundle
        try:
            source = Bundle(self.path)
        except ReportError as exc:
            ctx.note_unread(str(exc))
        else:
            link_profile_parts(source, ctx)


def link_profile_parts(source: Bundle, ctx: IngestContext) -> None:
    """A bundle standing in for profile.pop: take its profile columns as they are, but for the
    parts a damaged column takes out (noted, naming the column's file)."""
    from pvtui.model import schema as s
    from pvtui.model.report import column_damage

    damage = column_damage(source)
    columns = [
        c for c in source.columns if c.startswith(PROFILE_COLUMN_PREFIXES) and s.part_of_column(c) not in damage
    ]
    ctx.writer.link_from(source, columns)
    for key in PROFILE_META_KEYS:
        if key in source.meta:
            ctx.meta[key] = source.meta[key]
    for part in source.meta.get("parts", []):
        if part in s.PROFILE_PARTS and part not in damage:
            ctx.add_part(part)
    for part, problem in damage.items():
        if part in s.PROFILE_PARTS:
            ctx.note(part, problem)
    for note in source.meta.get("notes", []):
        if note.split("]", 1)[0].strip("[") in s.PROFILE_PARTS:
            ctx.meta.setdefault("notes", []).append(note)


class Unreadable:
    """profile.pop present but not a regular file that can be opened: noted, nothing read."""

    name = "none"

    def __init__(self, problem: str) -> None:
        self.problem = problem

    def read(self, ctx: IngestContext) -> None:
        ctx.note_unread(self.problem)


def profile_reader(files: ReportFiles, reader: str, ctx: IngestContext, pva_report: Any = None,
                   operations: Any = None) -> ProfileReader | None:
    """The reader of FILES' profile under READER ("auto", "native", "libpva"), or None where nothing
    stands for the profile. PVA_REPORT: an object given in place of libpva's (with its OPERATIONS)."""
    from pvtui.files.regular import open_regular

    if pva_report is not None:
        return StandIn(pva_report, operations)
    if files.profile is not None and not _stands_in(files, reader, ctx):
        try:  # neither SQLite nor libpva opens it without blocking: a FIFO in its place would hang them
            open_regular(files.profile).close()
        except OSError as exc:
            return Unreadable(f"{files.profile}: cannot be read ({exc.strerror or exc})")
        native = Native(files.profile)
        if resolve(reader) == NATIVE:
            return native
        return Libpva(files, fall_back=native if reader == "auto" else None)
    if files.bundle is not None:
        return StandingBundle(files.bundle)
    return None


def read_by_libpva(files: ReportFiles, reader: str) -> bool:
    """Whether READER has libpva read FILES' profile.pop (nothing standing in for it)."""
    return files.profile is not None and resolve(reader) == LIBPVA and not _stands_in(files, reader)


def _stands_in(files: ReportFiles, reader: str, ctx: IngestContext | None = None) -> bool:
    """Whether the report's bundle stands in for its profile.pop: under --reader auto, a bundle made
    from this very profile.pop (a synthetic report's, or one exported beside its report). One that
    cannot be opened is noted in CTX."""
    from pvtui.errors import ReportError
    from pvtui.model.bundle import Bundle
    from pvtui.sources.base import file_stamp, same_version

    if reader != "auto" or files.bundle is None:
        return False
    try:
        recorded = Bundle(files.bundle).meta.get("files", {}).get("profile.pop")
    except ReportError as exc:
        if ctx is not None:
            ctx.note("bundle", f"{exc}; profile.pop is read instead")
        return False
    return recorded is not None and same_version(recorded, file_stamp(files.profile))
