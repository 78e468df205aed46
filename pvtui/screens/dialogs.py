"""The app's dialogs: pick a report, loading with progress, why a report did not open, the reload
prompt, help."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Sequence

from rich.console import RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Label, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option

from pvtui.errors import Cancelled, ReportError
from pvtui.render.figures import FIGURE_WORDS, FIGURES_HEADING
from pvtui.render.visible_text import markup_escape as escape, visible_text
from pvtui.safe_text import visible
from pvtui.screens.base import Needs, key_state
from pvtui.sources.base import CancelToken, ReportFiles
from pvtui.user.state import Recent
from pvtui.units import format_bytes
from pvtui.widgets.key_bar import KeyBar
from pvtui.widgets.to_ui import to_ui


SHOWN_MARK = "●"  # before the report shown, in the picker opened over it
GONE = "no longer there"  # a report opened before whose directory is gone


class ReportPicker(Screen[ReportFiles | None]):
    """Several reports under one path (engines, runs), then those opened before: choose one.

    Opened over a report (E), it marks that report and Escape goes back to it; opened before
    any report, Escape and q quit, there being nothing to go back to.
    """

    KEY_BAR = True  # composes one: the status line shows there (pvtui.widgets.status)

    BINDINGS = [  # one of the two applies; over a report, q is the app's Quit
        Binding("escape", "back", "Back"),
        Binding("escape,q", "quit", "Quit"),
    ]
    KEYS = {"back": Needs(shown=("over_a_report",)), "quit": Needs(shown=("before_any_report",))}

    def __init__(self, reports: list[ReportFiles], shown: ReportFiles | None = None,
                 recent: Sequence[Recent] = ()) -> None:
        super().__init__()
        self.reports = reports
        self.shown = shown
        self.recent = list(recent)  # the reports opened before, newest first, listed after those found

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return key_state(self.KEYS, action, parameters, self)

    @property
    def over_a_report(self) -> bool:
        return self.shown is not None

    @property
    def before_any_report(self) -> bool:
        return self.shown is None

    def action_back(self) -> None:
        self.dismiss(None)

    action_quit = action_back  # before any report, the app ends when none is picked

    def compose(self) -> ComposeResult:
        found = f"{len(self.reports)} found" if self.reports else "none here"
        found += "" if self.shown is None else f" ({SHOWN_MARK} shown now)"
        back = "Escape quits" if self.shown is None else "Escape goes back"
        options: list[Option | None] = [Option(self._describe(r), id=str(i)) for i, r in enumerate(self.reports)]
        if self.recent:
            options += [None, Option(Text("Opened before", style="bold"), disabled=True)]
            options += [Option(self._describe_recent(r), id=f"recent-{i}") for i, r in enumerate(self.recent)]
        with Vertical(id="picker"):
            yield Label(f"[b]Reports[/b] — {found}; Enter opens one, {back}", id="picker-title")
            yield OptionList(*options)
        yield KeyBar()

    def _describe_recent(self, recent: Recent) -> Text:
        """The report's path (and its name where that is not its directory's), its size when last opened,
        and when that was; marked where it is no longer there."""
        units = getattr(self.app, "units", "binary")
        text = Text()
        text.append_text(visible_text(recent.path, "bold" if recent.there else "dim"))
        if recent.name != os.path.basename(recent.path):
            text.append_text(visible_text(f" ({recent.name})", "" if recent.there else "dim"))
        opened = time.strftime("%Y-%m-%d %H:%M", time.localtime(recent.opened))
        text.append(f"\n  {format_bytes(recent.size, units)} · opened {opened}", style="dim")
        if not recent.there:
            text.append(f" · {GONE}", style="bold")
        return text

    def on_mount(self) -> None:
        shown = [i for i, r in enumerate(self.reports) if self.shown is not None and r.name == self.shown.name]
        if shown:
            self.query_one(OptionList).highlighted = shown[0]

    def _describe(self, files: ReportFiles) -> Text:
        """The report's name, its size and when it was written; then each of its files and their sizes."""
        from pvtui.sources.written import sizes_and_date  # the picker only: stats, no report read

        sizes, newest = sizes_and_date(files)
        units = getattr(self.app, "units", "binary")
        total = sum(size or 0 for _, size in sizes)
        written = "" if newest is None else f" · written {time.strftime('%Y-%m-%d %H:%M', time.localtime(newest))}"
        text = Text()
        if self.shown is not None:
            text.append(f"{SHOWN_MARK} " if files.name == self.shown.name else "  ", style="bold")
        text.append_text(visible_text(files.name, "bold"))
        text.append(f"  {format_bytes(total, units)}{written}\n")
        listed = [f"{_relative(path, files.directory)} {'unreadable' if size is None else format_bytes(size, units)}"
                  for path, size in sizes]
        text.append(visible(f"  {' · '.join(listed) or 'no report files'}"), style="dim")
        return text

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        chosen = event.option.id or "0"
        if not chosen.startswith("recent-"):
            self.dismiss(self.reports[int(chosen)])
            return
        from pvtui.sources.discovery import discover

        recent = self.recent[int(chosen.removeprefix("recent-"))]
        try:
            found = discover(Path(recent.path))
        except ReportError as exc:
            self.notify(f"{GONE}: {exc}", severity="warning", timeout=6)
            return
        self.dismiss(next((files for files in found if files.name == recent.name), found[0]))


def _relative(path: Path, directory: Path) -> str:
    """PATH as the picker names it: its name, or its path from DIRECTORY's parent (a shared debug.cbor)."""
    return path.name if path.parent == directory else os.path.relpath(path, directory)


class LoadingScreen(ModalScreen[None]):
    """Progress while a report is read; Escape cancels and leaves no bundle behind."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, name: str, token: CancelToken) -> None:
        super().__init__()
        self.report_name = name
        self.token = token

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"Opening [b]{escape(self.report_name)}[/b]")
            yield Label("", id="stage")
            yield ProgressBar(total=None, show_eta=False, id="progress")
            yield Label("[dim]Escape cancels[/dim]")

    def show_progress(self, stage: str, done: float, total: float) -> None:
        self.query_one("#stage", Label).update(escape(stage))
        self.query_one(ProgressBar).update(total=max(total, 1), progress=done)

    def action_cancel(self) -> None:
        self.token.cancel()
        self.query_one("#stage", Label).update("Cancelling…")


class OpenFailed(ModalScreen[None]):
    """A report that did not open: the reason, then `pvtui check`'s findings for each of its files."""

    DEFAULT_CSS = """
    OpenFailed #check-findings { height: auto; max-height: 65vh; margin-top: 1; }  /* the dialog stays in 90% */
    OpenFailed #check-result { margin-top: 1; }
    """
    AUTO_FOCUS = "#check-findings"  # the arrows and pages scroll the findings
    BINDINGS = [Binding("escape,q,enter", "dismiss(None)", "Close")]

    def __init__(self, files: ReportFiles, message: str, reload: bool) -> None:
        super().__init__()
        self.files = files
        self.message = message
        self.reload = reload
        self.token = CancelToken()

    def compose(self) -> ComposeResult:
        heading = "Reload failed" if self.reload else "Cannot open"
        closes = "the report shown stays" if self.reload else "quits"
        with Vertical(classes="dialog", id="open-failed"):
            yield Label(f"[b]{heading}[/b] {escape(self.files.name)}  [dim]Escape {closes}[/dim]")
            with VerticalScroll(id="check-findings"):
                yield Static(Text(self.message, style="red"), id="open-problem")
                yield Static("Checking the files (as `pvtui check` does)…", id="check-result")

    def on_mount(self) -> None:
        self._check()

    @work(thread=True, exclusive=True, group="check")
    def _check(self) -> None:
        from pvtui.render.check import check_renderables
        from pvtui.sources.check import check_reports

        try:
            result = check_reports([self.files], self.files.directory, cancel=self.token)
        except Cancelled:
            return
        to_ui(self, self._show_findings, check_renderables(result.to_json()))

    def _show_findings(self, findings: RenderableType) -> None:
        self.query_one("#check-result", Static).update(findings)

    def on_unmount(self) -> None:
        self.token.cancel()


class ReloadPrompt(ModalScreen[bool]):
    """Report files changed on disk: offer a reload, never force it."""

    BINDINGS = [
        Binding("r,enter", "dismiss(True)", "Reload"),
        Binding("escape,d", "dismiss(False)", "Dismiss"),
    ]

    def __init__(self, changed: list[Path]) -> None:
        super().__init__()
        self.changed: list[Path] = []
        self.add_changes(changed, refresh=False)

    def add_changes(self, changed: list[Path], refresh: bool = True) -> None:
        for path in changed:
            if path not in self.changed:
                self.changed.append(path)
        if refresh:
            self.query_one("#changed", Static).update(self._listing())

    def _listing(self) -> str:
        lines = []
        for path in self.changed:
            try:
                size = format_bytes(path.stat().st_size)
            except OSError:
                size = "removed"
            lines.append(f"  {escape(path.name)}  [dim]{size}[/dim]")
        return "\n".join(lines)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("[b]The report changed on disk[/b]")
            yield Static(self._listing(), id="changed")
            with Horizontal(classes="buttons"):
                yield Button("Reload (r)", variant="primary", id="reload")
                yield Button("Dismiss (Esc)", id="dismiss")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "reload")


PALETTE = "Command palette: every action by name"


class HelpScreen(ModalScreen[None]):
    """The keys of the screen underneath (its own, then its focused widget's), then the app's,
    in a body that scrolls."""

    DEFAULT_CSS = """
    HelpScreen #help-keys { height: auto; max-height: 55vh; margin-top: 1; }
    """
    BINDINGS = [Binding("escape,question_mark,q", "dismiss(None)", "Close")]

    def __init__(self, under: Screen) -> None:
        super().__init__()
        self.under = under

    def _rows(self) -> tuple[list[tuple[str, str, bool]], list[tuple[str, str, bool]]]:
        """(keys, description, enabled) of the screen and its focused widget, then of the app; a binding
        with several keys appears once."""
        merged: dict[tuple, tuple[list[str], bool]] = {}  # (node, action, description) -> (keys, enabled)
        for active in self.under.active_bindings.values():
            binding = active.binding
            if not binding.description:
                continue
            description = PALETTE if binding.action == "command_palette" else binding.description
            keys, _ = merged.setdefault((active.node, binding.action, description), ([], active.enabled))
            shown = binding.key_display or self.app.get_key_display(binding)
            if shown not in keys:
                keys.append(shown)
        generic = {binding.action for binding in Screen.BINDINGS}  # textual's own: focus, copy

        def rank(node, action: str) -> int:  # the focused widget and its containers between
            return 2 if node is self.app or action in generic else 0 if node is self.under else 1

        ordered = sorted(merged.items(), key=lambda item: rank(*item[0][:2]))  # stable: chain order within
        rows = [(rank(node, action), ("/".join(keys), description, enabled))
                for (node, action, description), (keys, enabled) in ordered]
        return [row for group, row in rows if group < 2], [row for group, row in rows if group == 2]

    def _listing(self) -> Text:
        """Plain text, not markup: a key such as `[` shows as itself."""
        screen_rows, app_rows = self._rows()
        text = Text()
        for heading, rows in (("This screen", screen_rows), ("Everywhere", app_rows)):
            if not rows:
                continue
            if text:
                text.append("\n")
            text.append(f"{heading}\n", style="bold underline")
            for keys, description, enabled in rows:
                text.append(f"{keys:>12}  ", style="bold" if enabled else "dim")
                text.append(f"{description}\n", style="" if enabled else "dim")
        text.append(f"\n{FIGURES_HEADING}\n", style="bold underline")
        for name, meaning in (*getattr(self.under, "COLUMN_WORDS", ()), *FIGURE_WORDS):
            text.append(name, style="bold")
            text.append(f": {meaning}\n")
        text.rstrip()
        return text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"[b]Keys[/b] — {escape(getattr(self.under, 'SCREEN_NAME', '') or 'pvtui')}")
            with VerticalScroll(id="help-keys"):
                yield Static(self._listing())
            yield Label("[dim]↑↓ PgUp PgDn scroll · Escape closes[/dim]")
