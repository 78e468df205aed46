"""A thread worker's result, handed to the UI thread only while the widget or screen it is for can take it."""

from __future__ import annotations

from inspect import isawaitable
from typing import Any, Callable

from textual.dom import DOMNode


def to_ui(node: DOMNode, callback: Callable[..., Any], *args: Any) -> None:
    """From a thread worker of NODE: CALLBACK(*ARGS) on the UI thread, unless by then the app is shutting
    down or NODE has left it. A thread worker cannot be stopped mid-read, so its result can land after
    the user quit or the screen closed, when the widgets the callback draws on are already gone."""

    async def deliver() -> None:
        if app.is_running and node.is_attached:
            result = callback(*args)
            if isawaitable(result):  # an async callback, as call_from_thread takes too
                await result

    if not node.is_attached:  # gone already: it no longer knows the app (node.app would raise)
        return
    app = node.app
    app.call_from_thread(deliver)
