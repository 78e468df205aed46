"""From report files to a bundle, and from a path to an opened report (via the cache)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from pathlib import Path
from typing import Any, Iterable

from pvtui.errors import ReportError
from pvtui.model import schema as s
from pvtui.model.bundle import SCHEMA_VERSION, Bundle, BundleWriter
from pvtui.model.report import Report, note_messages
from pvtui.sources.base import CancelToken, IngestContext, Progress, ReportFiles, Settling, no_progress

# Columns and meta keys of a bundle that come from profile.pop.
PROFILE_COLUMN_PREFIXES = (
    "tiles.", "programs.", "compute_sets.", "vertex_types.", "liveness.", "always_live.",
    "variables.", "intervals.", "runs.", "steps.", "bsp.", "env.", "operations.", "lowered.",
)
READ_ATTEMPTS = 3
PROFILE_META_KEYS = (
    "target", "poplar_version", "instrumentation", "memory", "programs", "compute_sets",
    "liveness", "lowered", "execution", "synthetic",
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


def cache_dir() -> Path:
    """$PVTUI_CACHE_DIR, else $XDG_CACHE_HOME/pvtui, else ~/.cache/pvtui."""
    override = os.environ.get("PVTUI_CACHE_DIR")
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pvtui"


def cache_key(files: ReportFiles) -> str:
    """The cache entry's name: the report's directory name made safe and short, and a digest."""
    key = {"schema": SCHEMA_VERSION, "files": file_stamps(files)}
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
) -> Path:
    """Read every file of a report into a new bundle at DEST (replacing any there).

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
        _read_profile(files, ctx, pva_report, operations)
        _read_other_files(files, ctx)
        if not {"memory", "archive", "programs"} & set(ctx.meta["parts"]):
            notes = "; ".join(note_messages(ctx.meta.get("notes", [])))
            raise ReportError(files.directory, f"no usable graph profile ({notes or 'no report files'})")
        _fill_target_from_archive(ctx)
        _check_unchanged(files, ctx.meta["files"])
        return writer.commit()


def _check_unchanged(files: ReportFiles, before: dict[str, Any]) -> None:
    changed = [name for name, stamp in file_stamps(files).items() if _version(stamp) != _version(before[name])]
    if changed:
        raise SourceChanged(files.directory, f"{', '.join(changed)} changed while being read")


def _read_profile(files: ReportFiles, ctx: IngestContext, pva_report: Any, operations: Any) -> None:
    from pvtui.sources.libpva import read_pva_report

    if pva_report is not None:
        read_pva_report(pva_report, ctx, operations)
    elif files.profile is not None:
        report = _open_with_libpva(files, ctx)
        if report is not None:
            read_pva_report(report, ctx, _pva_operations(report))
    elif files.bundle is not None:
        try:
            source = Bundle(files.bundle)
        except ReportError as exc:
            _note_profile_problem(ctx, str(exc))
        else:
            _link_profile_parts(source, ctx)


def _note_profile_problem(ctx: IngestContext, message: str) -> None:
    """What kept the profile from being read, for every view that needs it."""
    for part in ("memory", "programs", "liveness", "execution"):
        ctx.note(part, message)


def _open_with_libpva(files: ReportFiles, ctx: IngestContext) -> Any:
    try:
        import pva  # the Poplar SDK's reader; absent outside an IPU host
    except ImportError:
        _note_profile_problem(
            ctx,
            f"{files.profile}: reading profile.pop needs libpva (module pva, from the"
            " Poplar SDK), which is not available here; on an IPU host, enable the SDK"
            " or run `pvtui export` there and open the bundle here",
        )
        return None
    try:
        if files.debug is not None:
            return pva.openReport(str(files.profile), str(files.debug))
        return pva.openReport(str(files.profile))
    except Exception as exc:  # libpva raises its own types for damaged files
        _note_profile_problem(ctx, f"{files.profile}: libpva could not open it ({exc})")
        return None


def _pva_operations(report: Any) -> Any:
    try:
        import pva

        return list(pva.OperationAnalysis(report).operations)
    except Exception:  # needs debug.cbor; absent or unreadable means no links
        return None


def _link_profile_parts(source: Bundle, ctx: IngestContext) -> None:
    """A bundle standing in for profile.pop: take its profile columns as they are."""
    columns = [c for c in source.meta.get("columns", []) if c.startswith(PROFILE_COLUMN_PREFIXES)]
    ctx.writer.link_from(source, columns)
    for key in PROFILE_META_KEYS:
        if key in source.meta:
            ctx.meta[key] = source.meta[key]
    for part in source.meta.get("parts", []):
        if part in s.PROFILE_PARTS:
            ctx.add_part(part)
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
        except ReportError as exc:
            ctx.note(part, str(exc))
        except OSError as exc:
            ctx.note(part, f"{path}: cannot be read ({exc.strerror or exc})")


def _fill_target_from_archive(ctx: IngestContext) -> None:
    """Without profile.pop, the archive still says how many tiles there are."""
    if "target" in ctx.meta or "archive" not in ctx.meta["parts"]:
        return
    ctx.meta["target"] = {"num_tiles": ctx.meta.get("archive", {}).get("members")}


def is_current(bundle_path: Path, files: ReportFiles) -> bool:
    """True when a bundle was built from exactly the files present now."""
    try:
        meta = Bundle(bundle_path).meta
    except ReportError:
        return False
    recorded = meta.get("files", {})
    return all(_version(recorded.get(name)) == _version(stamp) for name, stamp in file_stamps(files).items())


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
) -> Report:
    """Open a report: its own bundle when current, else the cached or a new bundle.

    Files still being written are waited for and read again, up to READ_ATTEMPTS times.
    """
    cancel = cancel or CancelToken()
    for attempt in range(1, READ_ATTEMPTS + 1):
        try:
            return _load_once(files, progress, cancel, cache)
        except SourceChanged as changed:
            if attempt == READ_ATTEMPTS:
                raise SourceChanged(
                    changed.path, f"{changed.problem}, {READ_ATTEMPTS} times: open it once the run has finished writing"
                ) from None
            stage = f"{changed.problem}: waiting for the writes to settle, then reading again"
            (progress or no_progress)(stage, attempt, READ_ATTEMPTS)
            wait_until_settled(files.existing(), cancel)
    raise AssertionError("unreachable")


def open_current(files: ReportFiles, cache: Path | None = None) -> Report | None:
    """The report without reading any report file, when a bundle of exactly these files exists."""
    standalone = not files.existing()  # an exported bundle, away from its report
    if files.bundle is not None and (standalone or is_current(files.bundle, files)):
        return Report(files.bundle, files.name)
    dest = (cache or cache_dir()) / cache_key(files)
    if dest.exists() and is_current(dest, files):
        try:
            return Report(dest, files.name)
        except ReportError:
            pass  # a damaged cache entry is rebuilt, never trusted
    return None


def _load_once(files: ReportFiles, progress: Progress | None, cancel: CancelToken, cache: Path | None) -> Report:
    report = open_current(files, cache)
    if report is not None:
        return report
    dest = (cache or cache_dir()) / cache_key(files)
    build_bundle(files, dest, progress=progress, cancel=cancel)
    return Report(dest, files.name)
