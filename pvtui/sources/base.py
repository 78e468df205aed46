"""What every reader shares: the report's files, and the context an ingest runs in."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, Callable, NamedTuple

from pvtui.errors import Cancelled
from pvtui.model.bundle import Bundle, BundleWriter

PROFILE_WORDS = ("memory", "programs", "liveness", "execution")  # the parts noted where profile.pop is not read
SHOW_EVERY = 1.0  # seconds between two showings of the parts of a report read so far (IngestContext.show_parts)
# progress(stage, done, total): a reader reports how far it is, in its own units.
Progress = Callable[[str, float, float], None]


def no_progress(stage: str, done: float, total: float) -> None:
    pass


class ReportFiles(NamedTuple):
    """The files of one report (one engine). Absent files are None."""

    directory: Path
    name: str
    profile: Path | None = None  # profile.pop
    debug: Path | None = None  # debug.cbor (may sit in the parent directory)
    archive: Path | None = None  # archive.a
    framework: Path | None = None  # framework.json
    app: Path | None = None  # app.json
    bundle: Path | None = None  # a pvtui bundle: the whole report, or what stands in for profile.pop

    def present(self) -> dict[str, Path | None]:
        return {
            "profile.pop": self.profile,
            "debug.cbor": self.debug,
            "archive.a": self.archive,
            "framework.json": self.framework,
            "app.json": self.app,
        }

    def existing(self) -> list[Path]:
        return [p for p in self.present().values() if p is not None]


class CancelToken:
    """Set from the UI or a signal handler; readers call `check()` between batches."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        if self._event.is_set():
            raise Cancelled()

    def wait(self, seconds: float) -> bool:
        """Sleep SECONDS or until cancelled; True when cancelled."""
        return self._event.wait(seconds)


class IngestContext:
    """Where a reader writes its columns, reports progress and notes problems. A plain class, made on every
    start: a dataclass would cost 3-4 M instructions more (bench/missed.md)."""

    def __init__(self, writer: BundleWriter, progress: Progress = no_progress, cancel: CancelToken | None = None,
                 shown: Callable[[Bundle], None] | None = None) -> None:
        self.writer = writer
        self.progress = progress
        self.cancel = CancelToken() if cancel is None else cancel
        self.shown = shown  # takes the parts read so far, while the rest are read
        self.last_shown = time.monotonic()  # when reading started, or parts were last shown
        self.unshown = False  # parts were read since parts were last shown

    def show_parts(self) -> None:
        """Hand the parts read so far to `shown` (an app shows them while the rest are read), at most every
        SHOW_EVERY seconds: a report read sooner is shown whole. Parts read sooner than that after the last
        showing wait for the next `show_due`, which a long read calls as it goes."""
        self.unshown = True
        self.show_due()

    def show_due(self) -> None:
        """Show the parts read since the last showing, if SHOW_EVERY seconds have passed since it."""
        if self.unshown and self.shown is not None and time.monotonic() - self.last_shown >= SHOW_EVERY:
            self.shown(self.writer.snapshot())
            self.last_shown = time.monotonic()
            self.unshown = False

    @property
    def meta(self) -> dict:
        return self.writer.meta

    def add_part(self, part: str) -> None:
        parts = self.meta.setdefault("parts", [])
        if part not in parts:
            parts.append(part)

    def note_unread(self, message: str) -> None:
        """What kept profile.pop from being read, for every view that needs it."""
        for part in PROFILE_WORDS:
            self.note(part, message)

    def note(self, part: str, message: str) -> None:
        """Record what could not be read: `[part] file: problem`, shown by the views."""
        self.meta.setdefault("notes", []).append(f"[{part}] {message}")


def file_stamp(path: Path | None) -> dict[str, Any] | None:
    """What identifies a file's version: its path, size and modification time."""
    if path is None:
        return None
    try:
        st = path.stat()
    except OSError:
        return None
    return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def version_of(stamp: dict[str, Any] | None) -> Any:
    """What of a stamp (file_stamp) tells one version of a file from another: its size and time (None for a
    file absent, or a stamp that is not one: a bundle's meta.json is read from disk)."""
    return (stamp.get("size"), stamp.get("mtime_ns")) if isinstance(stamp, dict) else None


def same_version(recorded: dict[str, Any] | None, now: dict[str, Any] | None) -> bool:
    """Whether two stamps (file_stamp) are of one version of a file."""
    return version_of(recorded) == version_of(now)


def changed_files(files: ReportFiles, recorded: dict[str, Any]) -> list[str]:
    """The names of FILES' report files that are not the versions RECORDED (their file_stamps, by name)."""
    return [name for name, path in files.present().items() if not same_version(recorded.get(name), file_stamp(path))]


class Settling:
    """Tells when files have stopped changing: sizes and times unchanged for SETTLE seconds.

    Call `poll()` every POLL seconds; the caller sleeps as suits it (blocking or async).
    """

    def __init__(self, paths: list[Path], settle: float, poll: float) -> None:
        self.paths, self.settle, self.interval = paths, settle, poll
        self.last = self._versions()
        self.quiet = 0.0

    def _versions(self) -> list[tuple[int, int] | None]:
        versions = []
        for path in self.paths:
            try:
                st = path.stat()
            except OSError:
                versions.append(None)
            else:
                versions.append((st.st_size, st.st_mtime_ns))
        return versions

    def poll(self) -> bool:
        """Look again, one interval after the last look; True once the files have settled."""
        now = self._versions()
        self.quiet = self.quiet + self.interval if now == self.last else 0.0
        self.last = now
        return self.quiet >= self.settle

