"""What every report screen shares: the shared model, its name shown, what is missing."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Static

from pvtui.units import format_bytes

if TYPE_CHECKING:
    from pvtui.app import PvtuiApp
    from pvtui.model.report import Report


class TitleBar(Static):
    """One line: the screen's name, the report's name, and the keys of the screens."""

    DEFAULT_CSS = """
    TitleBar {
        height: 1;
        background: $panel;
        color: $foreground;
        text-style: bold;
        padding: 0 1;
    }
    """


class Unavailable(Static):
    """A plain statement of what the report does not hold, where a view would be."""

    DEFAULT_CSS = """
    Unavailable {
        color: $warning;
        padding: 1 2;
        height: auto;
    }
    """


class ReportScreen(Screen):
    """A screen over the app's one shared report.

    Subclasses compose their body in `compose_body` and refresh from the model in
    `report_changed`, which runs after a reload swaps a new model in; they keep
    their selection across it where it still exists.
    """

    SCREEN_NAME: ClassVar[str] = ""

    @property
    def pv_app(self) -> "PvtuiApp":
        return self.app  # type: ignore[return-value]

    @property
    def report(self) -> "Report":
        return self.pv_app.report

    def on_mount(self) -> None:
        self.pv_app.report_screens.add(self)

    def compose(self) -> ComposeResult:
        yield TitleBar(self.title_text(), id="title")
        yield from self.compose_body()
        yield Footer()

    def compose_body(self) -> ComposeResult:
        yield from ()

    def title_text(self) -> str:
        keys = "  ".join(f"[b]{key}[/b] {name}" for key, name in SCREEN_KEYS)
        return f"{self.SCREEN_NAME} · {self.report.name}   [dim]{keys}[/dim]"

    def bytes(self, value: int | None) -> str:
        """VALUE in the units the user chose (u cycles binary, SI and bytes)."""
        return format_bytes(value, self.pv_app.units)

    def units_changed(self) -> None:
        """Called when the user switches units; redraw what shows bytes."""
        self.refresh()

    def report_changed(self) -> None:
        """Called after a reload: the model is new; redraw from it."""
        self.query_one(TitleBar).update(self.title_text())


SCREEN_KEYS = (("s", "Summary"), ("m", "Memory"), ("l", "Liveness"), ("p", "Programs"), ("t", "Trace"))
