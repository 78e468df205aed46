"""From report files to a bundle, and from a path to an opened report (via the cache)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any, Callable, Iterable

from pvtui.errors import BundleWriteError, ReportError
from pvtui.model import schema as s
from pvtui.model.bundle import SCHEMA_VERSION, Bundle, BundleWriter, bundle_meta
from pvtui.model.host_waits import device_cycles
from pvtui.model.queries import KEPT_MEMORY_SUMMARY, keep_memory_summary
from pvtui.model.report import Report, note_messages
from pvtui.process.digest import digest
from pvtui.sources.base import (CancelToken, IngestContext, Progress, ReportFiles, Settling, changed_files,
                                file_stamp, no_progress)
from pvtui.sources.cache import ENTRY_FORMAT, Cache, CacheUnusable, cached_or_private
from pvtui.sources.checked_bundles import check_unless_recorded
from pvtui.sources.readers import NATIVE, profile_reader, read_by_libpva, resolve
from pvtui.sources.unfinished import unfinished_notes

READ_ATTEMPTS = 3
# What profile.pop may give: its parts, and what views ask for within them (Report.missing)
PROFILE_NEEDS = (*s.PROFILE_PARTS, "tile_split", "program_tree", "step_details", "variable_liveness")


class SourceChanged(ReportError):
    """A report file changed while it was read: a bundle of it would mix two versions."""


def file_stamps(files: ReportFiles) -> dict[str, Any]:
    return {name: file_stamp(path) for name, path in files.present().items()}


def cache_key(files: ReportFiles, reader: str = "auto") -> str:
    """The cache entry's name: the report's directory name made safe and short, and a digest."""
    key = {"schema": SCHEMA_VERSION, "entry": ENTRY_FORMAT, "files": file_stamps(files)}
    if files.profile is not None:
        key["reader"] = resolve(reader)
    if files.bundle is not None:
        key["bundle"] = file_stamp(files.bundle / "meta.json")
    label = re.sub(r"[^\w.+-]+", "_", files.directory.name, flags=re.ASCII).strip("._")[:48]
    return f"{label or 'report'}-{digest(json.dumps(key, sort_keys=True))[:24]}"


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
    shown: Callable[[Bundle], None] | None = None,
) -> Path:
    """Read every file of a report into a new bundle at DEST (replacing any there), profile.pop by
    READER (sources/readers.py). SHOWN, where given, takes the parts read so far (a bundle of them,
    IngestContext.show_parts) as they are read: archive.a and profile.pop's memory first, the
    execution profile and the other files after.

    Raises ReportError when nothing usable is left, Cancelled when cancelled; in both
    cases no bundle is left behind.
    """
    def show(partial: Bundle) -> None:  # called while profile.pop is read: its parts and the later files' may come
        partial.meta["being_read"] = [*PROFILE_NEEDS, *(part for part, path in later if path is not None)]
        shown(partial)

    later = (("debug", files.debug), ("operations", files.debug), ("framework", files.framework), ("app", files.app))
    with BundleWriter(dest) as writer:
        ctx = IngestContext(writer, progress or no_progress, cancel or CancelToken(), show if shown else None)
        ctx.meta["name"] = files.name
        ctx.meta["files"] = file_stamps(files)
        ctx.meta["parts"] = []
        ctx.meta.update(meta or {})
        ctx.cancel.check()
        _read_other_files(files, ctx, ("archive",))
        _read_profile(files, ctx, pva_report, operations, reader)
        _keep_program_figures(ctx)
        _read_other_files(files, ctx, ("debug", "framework", "app"))
        if not {"memory", "archive", "programs"} & set(ctx.meta["parts"]):
            notes = "; ".join(note_messages(ctx.meta.get("notes", [])))
            raise ReportError(files.directory, f"no usable graph profile ({notes or 'no report files'})")
        _fill_target_from_archive(ctx)
        keep_summary_figures(writer)
        _check_unchanged(files, ctx.meta["files"])
        return writer.commit()


def keep_summary_figures(writer: BundleWriter) -> None:
    """The Summary's figures that read columns, kept in the bundle's meta: each run's device time
    (model/host_waits.device_cycles), a pass over every step (66 ms on the large report), and the memory
    figures (model/queries.memory_summary). The Summary is then shown from meta.json and the columns' headers,
    before numpy is imported."""
    written = writer.written()
    report = Report(written)  # device time as a report shown finds it: host syncs are known by name
    if report.execution is not None and report.execution.runs_known:
        writer.meta.setdefault("execution", {})["device_cycles"] = device_cycles(report)
    writer.meta[KEPT_MEMORY_SUMMARY] = keep_memory_summary(Report(written, exact_text=True))
    writer.meta[s.KEPT_OVER] = written.columns_stamp  # a copy whose columns were changed computes them again


def _keep_program_figures(ctx: IngestContext) -> None:
    """The Hotspots' figures per program over every step, kept beside the steps: the Hotspots screen's first
    table then reads a row per program instead of every step (over a million in a large report)."""
    from pvtui.model.hotspots import figures_by_id

    writer = ctx.writer
    steps = (s.STEP_PROGRAM, s.STEP_CYCLES, s.STEP_FROM)
    if not {*steps, s.PROGRAM_TYPE} <= set(writer.columns) or s.PROGRAM_FIGURES + "count" in writer.columns:
        return  # no steps or programs, or linked with the figures of the bundle they came from
    ctx.cancel.check()
    columns = [writer.written_column(name) for name in steps]
    if not len(columns[0]):
        return  # no step ran: nothing to count
    for key, values in figures_by_id(*columns, len(writer.written_column(s.PROGRAM_TYPE))).items():
        writer.array(s.PROGRAM_FIGURES + key, values)


def _check_unchanged(files: ReportFiles, before: dict[str, Any]) -> None:
    changed = changed_files(files, before)
    if changed:
        raise SourceChanged(files.directory, f"{', '.join(changed)} changed while being read")


def _read_profile(files: ReportFiles, ctx: IngestContext, pva_report: Any, operations: Any, reader: str) -> None:
    """profile.pop, or what stands for it, by the reader READER chooses (sources/readers.py)."""
    chosen = profile_reader(files, reader, ctx, pva_report, operations)
    if chosen is not None:
        chosen.read(ctx)
        _say_read_by(ctx, chosen.name)


def _say_read_by(ctx: IngestContext, reader: str) -> None:
    readers = ctx.meta.setdefault("readers", {})
    for part in ctx.meta["parts"]:
        if part in s.PROFILE_PARTS:
            readers.setdefault(part, reader)


def _read_other_files(files: ReportFiles, ctx: IngestContext, parts: tuple[str, ...]) -> None:
    """The files of PARTS other than profile.pop, each noted where it cannot be read."""
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
        if path is None or part not in parts:
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
        meta = bundle_meta(bundle_path)  # its columns are checked when it is opened
    except ReportError:
        return False
    return _built_from(meta, files)


def _built_from(meta: dict[str, Any], files: ReportFiles) -> bool:
    return not changed_files(files, meta.get("files", {}))


def _cached_bundle(path: Path, files: ReportFiles, reader: str) -> Bundle | None:
    """The cache entry at PATH, or None when any of it is damaged (it is ours, made from the
    report files: rebuilt whole, never trusted in part).

    Raises SourceChanged when the files changed since its key (its name) was made from them."""
    try:
        bundle = Bundle(path).require_whole()
    except ReportError:
        return None
    if _built_from(bundle.meta, files):
        return bundle
    if cache_key(files, reader) == path.name:  # the files are still those its name was made from: its meta is damaged
        return None
    raise SourceChanged(files.directory, "changed while being opened")


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
    shown: Callable[[Report], None] | None = None,
) -> Report:
    """Open a report: its own bundle when current, else the cached or a new bundle, profile.pop read
    by READER; its names as the files hold them where EXACT_TEXT (for JSON), else made visible
    (pvtui.safe_text). SHOWN, where given, takes a report of the parts read so far (`being_read`) each
    time a part is read, while a new bundle is made.

    Files still being written are waited for and read again, up to READ_ATTEMPTS times.
    """
    cancel = cancel or CancelToken()
    for attempt in range(1, READ_ATTEMPTS + 1):
        try:
            return _load_once(files, progress, cancel, cache, reader, exact_text, shown)
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
    own = _own_bundle(files, reader, cache)
    if own is not None:
        return own
    try:
        bundle = Cache(cache).held(cache_key(files, reader), lambda path: _cached_bundle(path, files, reader))
    except CacheUnusable:
        return None
    return None if bundle is None else _report(_checked(bundle, cache), files)


def _own_bundle(files: ReportFiles, reader: str, cache: Path | None, exact_text: bool = False) -> Report | None:
    """The report's own bundle (an export, or a synthetic report's), when it is current, and READER
    does not ask for profile.pop to be read."""
    standalone = not files.existing()  # an exported bundle, away from its report
    chosen = files.profile is None or reader == "auto"
    if files.bundle is not None and (standalone or chosen and is_current(files.bundle, files)):
        return _report(_checked(files.bundle, cache), files, exact_text=exact_text)
    return None


def _checked(bundle: Bundle | Path, cache: Path | None, lasting: bool = True) -> Bundle:
    """BUNDLE (a whole one, not one being written), its columns of indices checked unless CACHE records it
    found whole before (sources/checked_bundles.py): one breaking its rule takes out its part. LASTING false:
    a bundle read into a temporary directory."""
    bundle = bundle if isinstance(bundle, Bundle) else Bundle(bundle)
    check_unless_recorded(bundle, cache, lasting)
    return bundle


def _report(bundle: Bundle | Path, files: ReportFiles, notes: Iterable[str] = (), exact_text: bool = False) -> Report:
    """The report of FILES over BUNDLE, with NOTES and what is said at every opening, of a cached bundle
    too: a writer's file beside profile.pop (sources/unfinished.py)."""
    return Report(bundle, files.name, notes=[*notes, *unfinished_notes(files)], exact_text=exact_text)


def _show_native_first(files: ReportFiles, progress: Progress, cancel: CancelToken, cache: Path | None,
                       exact_text: bool, shown: Callable[[Report], None]) -> None:
    """Where libpva reads profile.pop (slowly: its traversal of a large report takes minutes), show first what
    the native reader gives (parts as it reads them, then whole, cached as its own entry), while libpva reads
    all of it in the background. Where both give a figure, libpva's is the one settled on: its report takes the
    native reader's place whole. The tiles' memory, their IPUs, the programs and each step's cycles are alike;
    a tile's "variable" category is not (vars_info's pieces counted each, where libpva counts memory shared
    over time once: the native report notes where they add up past the tile's total). What only libpva
    gives (liveness, gaps, runs, operations...) fills in. Where the native reader cannot read it, nothing
    is shown before libpva's."""
    from pvtui.sources.native import LIMITS

    try:
        native = _load_once(files, progress, cancel, cache, NATIVE, exact_text, shown)
    except ReportError:
        return
    meta = {**native.meta, "being_read": list(PROFILE_NEEDS)}  # libpva reads them now, in its place
    meta["notes"] = [note for note in native.meta.get("notes", []) if not note.endswith(LIMITS)]
    shown(_report(native.bundle.with_meta(meta), files, exact_text=exact_text))  # checked as it was read


def _load_once(files: ReportFiles, progress: Progress | None, cancel: CancelToken, cache: Path | None,
               reader: str, exact_text: bool, shown: Callable[[Report], None] | None = None) -> Report:
    own = _own_bundle(files, reader, cache, exact_text)
    if own is not None:
        return own
    progress = progress or no_progress
    if shown is not None and read_by_libpva(files, reader):
        _show_native_first(files, progress, cancel, cache, exact_text, shown)

    def show(partial: Bundle) -> None:
        if shown is not None:
            shown(_report(partial, files, exact_text=exact_text))

    def build(dest: Path) -> None:
        build_bundle(files, dest, progress=progress, cancel=cancel, reader=reader, shown=show)

    def wait() -> None:
        cancel.check()
        progress("waiting for another pvtui process reading this report", 0, 1)

    bundle, unused = cached_or_private(cache, cache_key(files, reader), build,
                                       lambda path: _cached_bundle(path, files, reader), wait)
    return _report(_checked(bundle, cache, lasting=not unused), files, [f"[cache] {unused}"] if unused else (),
                   exact_text)
