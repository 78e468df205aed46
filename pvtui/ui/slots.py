"""The app's reports: A, the one opened, and in a comparison B, compared with it.

Each is a slot: the files it reads, and the model once they are read. Loading, reloading,
watching and the reload prompt act on one slot; the single-report screens show one of them.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from pvtui.errors import ReportError

if TYPE_CHECKING:
    from pvtui.model.report import Report
    from pvtui.sources.base import ReportFiles


class Slot(Enum):
    A = "A"  # the report opened; in a comparison, the first
    B = "B"  # the report compared with A (`pvtui compare A B`)


class ReportSlot:
    """One of the app's reports: its files, and its model once read (None until then). A plain class, made on
    every start: a dataclass would cost 3-4 M instructions more (bench/missed.md)."""

    def __init__(self, which: Slot, files: ReportFiles | None, report: Report | None = None) -> None:
        self.which = which
        self.files = files  # None while the user picks one of several reports
        self.report = report

    @property
    def is_open(self) -> bool:
        """Whether a model of this slot is shown: loading it again is a reload."""
        return self.report is not None

    def files_now(self, where: Path | None = None) -> ReportFiles:
        """This report's files as they are now (a debug.cbor may have appeared), found again under
        WHERE (by default its own directory)."""
        from pvtui.sources.discovery import discover

        current = self.files
        assert current is not None
        try:
            for files in discover(where or current.directory):
                if files.name == current.name:
                    return files
        except ReportError:
            pass
        return current
