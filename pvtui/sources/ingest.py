"""From report files to a bundle, and from a path to an opened report (via the cache)."""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path
from typing import Any, Iterable

from pvtui.errors import BundleWriteError, ReportError
from pvtui.model import schema as s
from pvtui.model.bundle import SCHEMA_VERSION, Bundle, BundleWriter
from pvtui.model.report import Report, column_damage, note_messages
from pvtui.files.regular import open_regular
from pvtui.sources.base import CancelToken, IngestContext, Progress, ReportFiles, Settling, no_progress
from pvtui.sources.cache import ENTRY_FORMAT, Cache, CacheUnusable, cached_or_private
from pvtui.sources.readers import LIBPVA, libpva, resolve
from pvtui.sources.unfinished import unfinished_notes

# Columns and meta keys of a bundle that come from profile.pop.
PROFILE_COLUMN_PREFIXES = (
    "tiles.", "programs.", "compute_sets.", "vertex_types.", "liveness.", "always_live.",
    "variables.", "intervals.", "runs.", "steps.", "bsp.", "env.", "operations.", "lowered.",
)
READ_ATTEMPTS = 3
PROFILE_META_KEYS = (
    "target", "poplar_version", "instrumentation", "memory", "programs", "compute_sets",
    "liveness", "lowered", "execution", "synthetic", "readers",
)


class SourceChanged(ReportError):
    """A report file changed while it was read: a bundle of it would mix two versions."""


def file_stamp(path: Path | None) -> dict[str, Any] | None:
    """What identifies a file's version: its path, size and modification time."""
    if path is None:
        return None
    try:
        st = path.stat()
    except OSError:
        return None
    return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _version(stamp: dict[str, Any] | None) -> Any:
    return None if stamp is None else (stamp.get("size"), stamp.get("mtime_ns"))


def file_stamps(files: ReportFiles) -> dict[str, Any]:
    return {name: file_stamp(path) for name, path in files.present().items()}


def cache_key(files: ReportFiles, reader: str = "auto") -> str:
    """The cache entry's name: the report's directory name made safe and short, and a digest."""
    key = {"schema": SCHEMA_VERSION, "entry": ENTRY_FORMAT, "files": file_stamps(files)}
    if files.profile is not None:
        key["reader"] = resolve(reader)
    if files.bundle is not None:
        key["bundle"] = file_stamp(files.bundle / "meta.json")
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:24]
    label = re.sub(r"[^\w.+-]+", "_", files.directory.name, flags=re.ASCII).strip("._")[:48]
    return f"{label or 'report'}-{digest}"


def build_bundle(
    files: ReportFiles,
    dest: Path,
    *,
    pva_report: Any = None,
    operations: Iterable[Any] | None = None,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
    meta: dict[str, Any] | None = None,
    reader: str = "auto",
) -> Path:
    """Read every file of a report into a new bundle at DEST (replacing any there), profile.pop by
    READER (sources/readers.py).

    Raises ReportError when nothing usable is left, Cancelled when cancelled; in both
    cases no bundle is left behind.
    """
    with BundleWriter(dest) as writer:
        ctx = IngestContext(writer, progress or no_progress, cancel or CancelToken())
        ctx.meta["name"] = files.name
        ctx.meta["files"] = file_stamps(files)
        ctx.meta["parts"] = []
        ctx.meta.update(meta or {})
        ctx.cancel.check()
        _read_profile(files, ctx, pva_report, operations, reader)
        _keep_program_figures(ctx)
        _read_other_files(files, ctx)
        if not {"memory", "archive", "programs"} & set(ctx.meta["parts"]):
            notes = "; ".join(note_messages(ctx.meta.get("notes", [])))
            raise ReportError(files.directory, f"no usable graph profile ({notes or 'no report files'})")
        _fill_target_from_archive(ctx)
        _check_unchanged(files, ctx.meta["files"])
        return writer.commit()


def _keep_program_figures(ctx: IngestContext) -> None:
    """The Hotspots' figures per program over every step, kept beside the steps: the Hotspots screen's first
    table then reads a row per program instead of every step (over a million in a large report)."""
    from pvtui.model.hotspots import figures_by_id

    writer = ctx.writer
    steps = (s.STEP_PROGRAM, s.STEP_CYCLES, s.STEP_FROM)
    if not {*steps, s.PROGRAM_TYPE} <= set(writer.columns) or s.PROGRAM_FIGURES + "count" in writer.columns:
        return  # no steps or programs, or linked with the figures of the bundle they came from
    ctx.cancel.check()
    columns = [writer.written(name) for name in steps]
    if not len(columns[0]):
        return  # no step ran: nothing to count
    for key, values in figures_by_id(*columns, len(writer.written(s.PROGRAM_TYPE))).items():
        writer.array(s.PROGRAM_FIGURES + key, values)


def _check_unchanged(files: ReportFiles, before: dict[str, Any]) -> None:
    changed = [name for name, stamp in file_stamps(files).items() if _version(stamp) != _version(before[name])]
    if changed:
        raise SourceChanged(files.directory, f"{', '.join(changed)} changed while being read")


def _read_profile(files: ReportFiles, ctx: IngestContext, pva_report: Any, operations: Any, reader: str) -> None:
    from pvtui.sources.libpva import read_pva_report

    if pva_report is not None:  # the synthetic generator's stand-in, or a test's
        read_pva_report(pva_report, ctx, operations)
        _say_read_by(ctx, "stand-in")
    elif files.profile is not None and not _stands_in(files, reader, ctx):
        _read_profile_pop(files, ctx, resolve(reader), reader == "auto")
    elif files.bundle is not None:
        try:
            source = Bundle(files.bundle)
        except ReportError as exc:
            _note_profile_problem(ctx, str(exc))
        else:
            _link_profile_parts(source, ctx)


def _stands_in(files: ReportFiles, reader: str, ctx: IngestContext) -> bool:
    """Whether the report's bundle stands in for its profile.pop: under --reader auto, a bundle made
    from this very profile.pop (a synthetic report's, or one exported beside its report). One that
    cannot be opened is noted."""
    if reader != "auto" or files.bundle is None:
        return False
    try:
        recorded = Bundle(files.bundle).meta.get("files", {}).get("profile.pop")
    except ReportError as exc:
        ctx.note("bundle", f"{exc}; profile.pop is read instead")
        return False
    return recorded is not None and _version(recorded) == _version(file_stamp(files.profile))


def _read_profile_pop(files: ReportFiles, ctx: IngestContext, chosen: str, fall_back: bool) -> None:
    """profile.pop through libpva, or the native reader (also where libpva fails to open it, under auto)."""
    from pvtui.sources.libpva import read_pva_report
    from pvtui.sources.native import read_native_profile

    try:  # neither SQLite nor libpva opens it without blocking: a FIFO in its place would hang them
        open_regular(files.profile).close()
    except OSError as exc:
        _note_profile_problem(ctx, f"{files.profile}: cannot be read ({exc.strerror or exc})")
        return
    if chosen == LIBPVA:
        report = _open_with_libpva(files, ctx, quiet=fall_back)
        if report is not None:
            read_pva_report(report, ctx, _pva_operations(report))
            _say_read_by(ctx, LIBPVA)
            return
        if not fall_back:
            return
    read_native_profile(files.profile, ctx)


def _say_read_by(ctx: IngestContext, reader: str) -> None:
    readers = ctx.meta.setdefault("readers", {})
    for part in ctx.meta["parts"]:
        if part in s.PROFILE_PARTS:
            readers.setdefault(part, reader)


def _note_profile_problem(ctx: IngestContext, message: str) -> None:
    """What kept the profile from being read, for every view that needs it."""
    for part in ("memory", "programs", "liveness", "execution"):
        ctx.note(part, message)


def _open_with_libpva(files: ReportFiles, ctx: IngestContext, quiet: bool = False) -> Any:
    """libpva's report of profile.pop, or None (noted, unless QUIET: another reader follows)."""
    pva = libpva()
    if pva is None:
        _note_profile_problem(
            ctx,
            f"{files.profile}: --reader libpva needs libpva (module pva, from the Poplar SDK), which is not"
            " available here; on an IPU host, enable the SDK, or read it with --reader native",
        )
        return None
    try:
        if files.debug is not None:
            return pva.openReport(str(files.profile), str(files.debug))
        return pva.openReport(str(files.profile))
    except Exception as exc:  # libpva raises its own types for damaged files
        message = f"{files.profile}: libpva could not open it ({exc})"
        if quiet:
            ctx.note("libpva", f"{message}; the native reader read it")
        else:
            _note_profile_problem(ctx, message)
        return None


def _pva_operations(report: Any) -> Any:
    try:
        return list(libpva().OperationAnalysis(report).operations)
    except Exception:  # needs debug.cbor; absent or unreadable means no links
        return None


def _link_profile_parts(source: Bundle, ctx: IngestContext) -> None:
    """A bundle standing in for profile.pop: take its profile columns as they are, but for the
    parts a damaged column takes out (noted, naming the column's file)."""
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
    _say_read_by(ctx, "profile.pvtui")  # where the bundle does not say who read it
    for part, problem in damage.items():
        if part in s.PROFILE_PARTS:
            ctx.note(part, problem)
    for note in source.meta.get("notes", []):
        if note.split("]", 1)[0].strip("[") in s.PROFILE_PARTS:
            ctx.meta.setdefault("notes", []).append(note)


def _read_other_files(files: ReportFiles, ctx: IngestContext) -> None:
    from pvtui.sources.archive import read_archive
    from pvtui.sources.debug_cbor import read_debug
    from pvtui.sources.json_files import read_json

    readers = (
        ("archive", files.archive, lambda p: read_archive(p, ctx)),
        ("debug", files.debug, lambda p: read_debug(p, ctx)),
        ("framework", files.framework, lambda p: read_json(p, ctx, "framework")),
        ("app", files.app, lambda p: read_json(p, ctx, "app")),
    )
    for part, path, read in readers:
        if path is None:
            continue
        ctx.cancel.check()
        try:
            read(path)
        except BundleWriteError:
            raise  # the disk under the bundle, not the file read
        except ReportError as exc:
            ctx.note(part, str(exc))
        except OSError as exc:
            ctx.note(part, f"{path}: cannot be read ({exc.strerror or exc})")


def _fill_target_from_archive(ctx: IngestContext) -> None:
    """Where profile.pop did not say how many tiles there are (not read, or read without libpva),
    archive.a does: a member a tile; with the IPUs, the tiles of each."""
    target = ctx.meta.setdefault("target", {})
    if target.get("num_tiles") is not None or "archive" not in ctx.meta["parts"]:
        return
    tiles = ctx.meta.get("archive", {}).get("members")
    target["num_tiles"] = tiles
    ipus = target.get("num_ipus")
    if tiles and ipus and tiles % ipus == 0:
        target["tiles_per_ipu"] = tiles // ipus


def is_current(bundle_path: Path, files: ReportFiles) -> bool:
    """True when a bundle was built from exactly the files present now."""
    try:
        meta = Bundle(bundle_path).meta
    except ReportError:
        return False
    return _built_from(meta, files)


def _built_from(meta: dict[str, Any], files: ReportFiles) -> bool:
    recorded = meta.get("files", {})
    return all(_version(recorded.get(name)) == _version(stamp) for name, stamp in file_stamps(files).items())


def _cached_bundle(path: Path, files: ReportFiles) -> Bundle | None:
    """The cache entry at PATH, or None when any of it is damaged (it is ours, made from the
    report files: rebuilt whole, never trusted in part).

    Raises SourceChanged when the files changed since its key was made from them."""
    try:
        bundle = Bundle(path).require_whole()
    except ReportError:
        return None
    if not _built_from(bundle.meta, files):  # its key names these files' sizes and times
        raise SourceChanged(files.directory, "changed while being opened")
    return bundle


def wait_until_settled(
    paths: list[Path], cancel: CancelToken, settle: float = 1.0, poll: float = 0.25, limit: float = 120.0
) -> None:
    """Block until no file in PATHS has changed for SETTLE seconds (at most LIMIT seconds)."""
    settling = Settling(paths, settle, poll)
    waited = 0.0
    while waited < limit:
        cancel.check()
        time.sleep(poll)
        waited += poll
        if settling.poll():
            return


def load_report(
    files: ReportFiles,
    *,
    progress: Progress | None = None,
    cancel: CancelToken | None = None,
    cache: Path | None = None,
    reader: str = "auto",
    exact_text: bool = False,
) -> Report:
    """Open a report: its own bundle when current, else the cached or a new bundle, profile.pop read
    by READER; its names as the files hold them where EXACT_TEXT (for JSON), else made visible
    (pvtui.safe_text).

    Files still being written are waited for and read again, up to READ_ATTEMPTS times.
    """
    cancel = cancel or CancelToken()
    for attempt in range(1, READ_ATTEMPTS + 1):
        try:
            return _load_once(files, progress, cancel, cache, reader, exact_text)
        except SourceChanged as changed:
            if attempt == READ_ATTEMPTS:
                raise SourceChanged(
                    changed.path, f"{changed.problem}, {READ_ATTEMPTS} times: open it once the run has finished writing"
                ) from None
            stage = f"{changed.problem}: waiting for the writes to settle, then reading again"
            (progress or no_progress)(stage, attempt, READ_ATTEMPTS)
            wait_until_settled(files.existing(), cancel)
    raise AssertionError("unreachable")


def open_current(files: ReportFiles, cache: Path | None = None, reader: str = "auto") -> Report | None:
    """The report without reading any report file, when a bundle of exactly these files exists."""
    own = _own_bundle(files, reader)
    if own is not None:
        return own
    try:
        bundle = Cache(cache).held(cache_key(files, reader), lambda path: _cached_bundle(path, files))
    except CacheUnusable:
        return None
    return None if bundle is None else _report(bundle, files)


def _own_bundle(files: ReportFiles, reader: str, exact_text: bool = False) -> Report | None:
    """The report's own bundle (an export, or a synthetic report's), when it is current, and READER
    does not ask for profile.pop to be read."""
    standalone = not files.existing()  # an exported bundle, away from its report
    chosen = files.profile is None or reader == "auto"
    if files.bundle is not None and (standalone or chosen and is_current(files.bundle, files)):
        return _report(files.bundle, files, exact_text=exact_text)
    return None


def _report(bundle: Bundle | Path, files: ReportFiles, notes: Iterable[str] = (), exact_text: bool = False) -> Report:
    """The report of FILES over BUNDLE, with NOTES and what is said at every opening, of a cached bundle
    too: a writer's file beside profile.pop (sources/unfinished.py)."""
    return Report(bundle, files.name, notes=[*notes, *unfinished_notes(files)], exact_text=exact_text)


def _load_once(files: ReportFiles, progress: Progress | None, cancel: CancelToken, cache: Path | None,
               reader: str, exact_text: bool) -> Report:
    own = _own_bundle(files, reader, exact_text)
    if own is not None:
        return own
    progress = progress or no_progress

    def build(dest: Path) -> None:
        build_bundle(files, dest, progress=progress, cancel=cancel, reader=reader)

    def wait() -> None:
        cancel.check()
        progress("waiting for another pvtui process reading this report", 0, 1)

    bundle, unused = cached_or_private(cache, cache_key(files, reader), build, lambda path: _cached_bundle(path, files),
                                       wait)
    return _report(bundle, files, [f"[cache] {unused}"] if unused else (), exact_text)
