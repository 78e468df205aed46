"""A widget's news for its screen, handled before the frame that shows the widget's change."""

from __future__ import annotations

from textual.message import Message
from textual.widget import Widget


def tell_screen(widget: Widget, message: Message) -> None:
    """Post MESSAGE to WIDGET's screen itself, before the widget repaints (call it first): the screen handles
    it ahead of the frame the widget's change asks for, so what it redraws (a detail pane) joins that frame.
    A message bubbling up through the containers landed after that frame, and cost a second one per key."""
    widget.screen.post_message(message)
