"""The app's dialogs: pick a report, loading with progress, the reload prompt, help."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Label, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option

from pvtui.sources.base import CancelToken, ReportFiles
from pvtui.units import format_bytes


class ReportPicker(Screen[ReportFiles | None]):
    """Several reports under one path (engines, runs): choose one."""

    BINDINGS = [Binding("escape,q", "dismiss(None)", "Quit")]

    def __init__(self, reports: list[ReportFiles]) -> None:
        super().__init__()
        self.reports = reports

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Label(f"[b]Reports[/b] — {len(self.reports)} found; Enter opens one", id="picker-title")
            yield OptionList(*(Option(self._describe(r), id=str(i)) for i, r in enumerate(self.reports)))

    @staticmethod
    def _describe(files: ReportFiles) -> str:
        present = [name for name, path in files.present().items() if path is not None]
        if files.bundle is not None:
            present.append("bundle")
        return f"{files.name}  [dim]{', '.join(present)}[/dim]"

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.reports[int(event.option.id or 0)])


class LoadingScreen(ModalScreen[None]):
    """Progress while a report is read; Escape cancels and leaves no bundle behind."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, name: str, token: CancelToken) -> None:
        super().__init__()
        self.report_name = name
        self.token = token

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"Opening [b]{self.report_name}[/b]")
            yield Label("", id="stage")
            yield ProgressBar(total=None, show_eta=False, id="progress")
            yield Label("[dim]Escape cancels[/dim]")

    def show_progress(self, stage: str, done: float, total: float) -> None:
        self.query_one("#stage", Label).update(stage)
        self.query_one(ProgressBar).update(total=max(total, 1), progress=done)

    def action_cancel(self) -> None:
        self.token.cancel()
        self.query_one("#stage", Label).update("Cancelling…")


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
            lines.append(f"  {path.name}  [dim]{size}[/dim]")
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


class HelpScreen(ModalScreen[None]):
    """The keys of the screen underneath and of the app, with what they do."""

    BINDINGS = [Binding("escape,question_mark,q", "dismiss(None)", "Close")]

    def __init__(self, under: Screen) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        rows = []
        seen = set()
        for key, active in self.under.active_bindings.items():
            binding = active.binding
            if not binding.description or binding.action in seen:
                continue
            seen.add(binding.action)
            shown = binding.key_display or self.app.get_key_display(binding)
            rows.append(f"  [b]{shown:>10}[/b]  {binding.description}")
        rows.append(f"  [b]{'ctrl+p':>10}[/b]  Command palette: every action by name")
        with Vertical(classes="dialog"):
            yield Label(f"[b]Keys[/b] — {getattr(self.under, 'SCREEN_NAME', '') or 'pvtui'}")
            yield Static("\n".join(rows))
            yield Label("[dim]Escape closes[/dim]")
