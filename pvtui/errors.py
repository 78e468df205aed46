"""The project's own error types: what every reader raises for input it cannot use."""

from __future__ import annotations

from pathlib import Path

from pvtui.safe_text import visible


class ReportError(Exception):
    """A report file pvtui cannot use. Its text is one line naming the file and the problem, made
    visible (pvtui.safe_text): it quotes paths and names, and is shown wherever it goes."""

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path = str(path)
        self.problem = problem
        super().__init__(visible(f"{self.path}: {problem}"))


class Cancelled(Exception):
    """The user cancelled a long operation (an ingest); nothing was left behind."""


class BundleWriteError(ReportError):
    """A bundle cannot be written where it was to go (a full disk, a quota, a file size limit,
    no permission): a fault of the place, not of the report, so readers never note it as one."""

    def __init__(self, path: str | Path, error: OSError) -> None:
        self.error = error
        super().__init__(path, f"cannot be written ({error.strerror or error})")
