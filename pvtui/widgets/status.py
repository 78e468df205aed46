"""The status line's message: what the app and its screens say (a step marked, a report reloaded, a file
written) on the key bar's line, where no data is, instead of in a toast over the data.

The app (a StatusLine) owns one StatusMessage; `notify` (the app's, or any widget's, as Textual has it)
says a message with it, and every key bar shows the one said last. A message goes after its time or when
the next is said; an error stays until the next message, a click on it, or Escape (where the screen gives
Escape nothing else to do).
"""

from __future__ import annotations

from functools import cached_property
from typing import NamedTuple

from textual.app import App
from textual.binding import Binding
from textual.dom import DOMNode
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen, Screen
from textual.signal import Signal
from textual.timer import Timer

from pvtui.safe_text import visible

SECONDS = 5.0  # a message's time where its sayer gives none (Textual's toasts': 5 s)
MAX_ROWS = 3  # the rows a long message may take on the key bar's line; past them it is cut


class Said(NamedTuple):
    text: str
    severity: str  # "information", "warning" or "error", as Textual's notify has them

    @property
    def stays(self) -> bool:
        """Whether the message stays until replaced or dismissed (an error), rather than for its time."""
        return self.severity == "error"


class StatusMessage:
    """The message the key bars show (None: the keys alone); `changed` publishes each new one."""

    def __init__(self, owner: DOMNode) -> None:
        self.owner = owner
        self.said: Said | None = None
        self.changed: Signal[Said | None] = Signal(owner, "status-changed")
        self._timer: Timer | None = None

    def say(self, text: str, severity: str = "information", seconds: float | None = None) -> None:
        """Show TEXT (plain: it is not read as markup) until the next message, and for SECONDS at most
        unless it is an error."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        said = Said(visible(" ".join(str(text).split())), severity)  # one line, that drives no terminal
        if not said.stays:
            self._timer = self.owner.set_timer(SECONDS if seconds is None else seconds, lambda: self._expire(said))
        self._show(said)

    def dismiss(self) -> None:
        """The keys alone again."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._show(None)

    def _expire(self, said: Said) -> None:
        if self.said is said:
            self._timer = None
            self._show(None)

    def _show(self, said: Said | None) -> None:
        self.said = said
        self.changed.publish(said)


def shows_status(stack: list[Screen]) -> bool:
    """Whether the screen in front of STACK, or the one a dialog is over, has a key bar to show the status.
    Asked of the screen's class (KEY_BAR), not of its children: a report screen composing its body over
    the opening line (`recompose`) has none for a moment, and a message said then became a toast."""
    for screen in reversed(stack):
        if getattr(screen, "KEY_BAR", False):
            return True
        if not isinstance(screen, ModalScreen):
            return False
    return False


class StatusLine(App):
    """The app's status line: its StatusMessage, `notify` saying messages with it, and Escape taking the
    message away where nothing on the screen takes Escape."""

    BINDINGS = [Binding("escape", "dismiss_message", "Dismiss the message", show=False)]

    @cached_property
    def status(self) -> StatusMessage:
        return StatusMessage(self)

    def action_dismiss_message(self) -> None:
        self.status.dismiss()

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """What the app and its screens say shows on the status line, where no data is, as plain text; in a
        toast (Textual's) only over a screen without one (the wait for `pvtui capture --live`), made
        visible and never markup there too, whatever the caller asks: messages quote names and paths."""
        if shows_status(self.screen_stack):
            self.status.say(f"{title}: {message}" if title else message, severity, timeout)
        else:
            super().notify(visible(message), title=visible(title), severity=severity, timeout=timeout, markup=False)
