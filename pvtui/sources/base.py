"""What every reader shares: the report's files, and the context an ingest runs in."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from pvtui.errors import Cancelled
from pvtui.model.bundle import BundleWriter

# progress(stage, done, total): a reader reports how far it is, in its own units.
Progress = Callable[[str, float, float], None]


def no_progress(stage: str, done: float, total: float) -> None:
    pass


@dataclass
class ReportFiles:
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


@dataclass
class IngestContext:
    """Where a reader writes its columns, reports progress and notes problems."""

    writer: BundleWriter
    progress: Progress = no_progress
    cancel: CancelToken = field(default_factory=CancelToken)

    @property
    def meta(self) -> dict:
        return self.writer.meta

    def add_part(self, part: str) -> None:
        parts = self.meta.setdefault("parts", [])
        if part not in parts:
            parts.append(part)

    def note(self, part: str, message: str) -> None:
        """Record what could not be read: `[part] file: problem`, shown by the views."""
        self.meta.setdefault("notes", []).append(f"[{part}] {message}")
