"""`pvtui capture --live`: the explorer waits while the program runs, with the tail of its output, and
hands over the reports once their files have settled; an engine's report that settles later is offered."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Label, Static

from pvtui.errors import ReportError
from pvtui.files.regular import open_regular
from pvtui.safe_text import visible
from pvtui.sources.base import ReportFiles, Settling
from pvtui.sources.discovery import discover
from pvtui.sources.written import look
from pvtui.sources.watch import POLL_SECONDS, SETTLE_SECONDS

TAIL_BYTES = 16 << 10
LATER_POLL_SECONDS = 1.0  # a look for reports written after the first, while one is shown


class CaptureWait(Screen[list[ReportFiles] | None]):
    """Waits for PROGRAM to write a report under DIRECTORY (ENGINE's, where given); STATUS() is its exit
    status once it has ended, else None; ENDING(status) says how it ended. Once STOP is set (pvtui was
    asked to end), the app quits, on this screen or after it."""

    BINDINGS = [Binding("escape,q", "dismiss(None)", "Quit")]
    DEFAULT_CSS = """
    CaptureWait #capture-wait { padding: 1 2; }
    CaptureWait #capture-title { margin-bottom: 1; width: 100%; }
    CaptureWait #capture-tail { color: $text-muted; }
    """

    def __init__(self, program: str, directory: Path, log: Path, status: Callable[[], int | None],
                 ending: Callable[[int], str], stop: threading.Event, engine: str | None = None) -> None:
        super().__init__()
        self.program, self.directory, self.log_path, self.engine = program, directory, log, engine
        self.status, self.ending, self.stop = status, ending, stop
        self.settling: Settling | None = None
        self.later: Settling | None = None  # the files of reports written after those handed over
        self.handed_over = False  # the reports are shown: the program's end is told in a notification
        self.told_ending = False

    def compose(self) -> ComposeResult:
        with Vertical(id="capture-wait"):
            yield Label(visible(self._waiting()), id="capture-title", markup=False)
            yield Static("", id="capture-tail")

    def on_mount(self) -> None:
        self.look()
        self.set_interval(POLL_SECONDS, self.look)
        self.app.set_interval(POLL_SECONDS, self.follow_program)  # the app's: it outlives this screen
        if self.engine is None:
            self.app.set_interval(LATER_POLL_SECONDS, self.look_for_later_reports)

    def follow_program(self) -> None:
        """After the report is shown: say when the program ends; quit once pvtui is asked to end."""
        if self.stop.is_set():
            self.app.exit()
        status = self.status()
        if status is not None and self.handed_over and not self.told_ending:
            self.told_ending = True
            self.app.notify(f"{self.program} {self.ending(status)}", timeout=8)

    def look_for_later_reports(self) -> None:
        """After the reports are shown: offer those of engines that write theirs later, once settled."""
        if not self.handed_over:
            return
        offered = {r.name for r in self.app.reports}
        later = [r for r in self._reports() if r.name not in offered]
        paths = _files_of(later)
        if not later:
            self.later = None
        elif self.later is None or self.later.paths != paths:
            self.later = Settling(paths, SETTLE_SECONDS, LATER_POLL_SECONDS)
        elif self.later.poll() and _whole(paths):
            self.later = None
            names = ", ".join(r.name for r in later)
            self.app.offer_reports(later, f"{self.program} wrote {names} too")

    def _waiting(self) -> str:
        which = f"the {self.engine!r} report" if self.engine else "a report"
        return f"Waiting for {self.program} to write {which} under {self.directory}…"

    def _reports(self) -> list[ReportFiles]:
        try:
            reports = discover(self.directory) if self.directory.is_dir() else []
        except ReportError:
            return []
        return [r for r in reports if self.engine is None or r.name == self.engine]

    def look(self) -> None:
        """Once a poll: the program's output, and whether its reports have been written and settled."""
        self.query_one("#capture-tail", Static).update(self._tail())
        reports = self._reports()
        status = self.status()
        title = self.query_one("#capture-title", Label)
        if not reports:
            self.settling = None
            if status is not None:
                which = f"the {self.engine!r} report" if self.engine else "a report"
                title.update(visible(f"{self.program} {self.ending(status)} without writing {which} under "
                                     f"{self.directory}. q quits."))
            return
        paths = _files_of(reports)
        if self.settling is None or self.settling.paths != paths:
            self.settling = Settling(paths, SETTLE_SECONDS, POLL_SECONDS)
        elif self.settling.poll() and _whole(paths):
            self.handed_over = True
            self.dismiss(reports)
            return
        title.update(visible(f"{self.program} is writing {', '.join(r.name for r in reports)}…"))

    def _tail(self) -> Text:
        """The last lines of the program's output that fit the screen, made visible: its colours and
        cursor moves are shown, not done (they would write over the explorer)."""
        try:
            with open_regular(self.log_path) as f:
                f.seek(max(0, f.seek(0, 2) - TAIL_BYTES))
                lines = f.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return Text("")
        room = max(1, self.size.height - 4)
        return Text("\n".join(map(visible, lines[-room:])))


def _files_of(reports: list[ReportFiles]) -> list[Path]:
    return [p for r in reports for p in r.existing() + ([r.bundle] if r.bundle else [])]


def _whole(paths: list[Path]) -> bool:
    """Whether every one of PATHS looks completely written."""
    return all(look(p).problem is None for p in paths)
