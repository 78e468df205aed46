"""A thread worker's result reaches its widget only while the widget is still in the app."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets import Static

from pvtui.widgets.to_ui import to_ui

pytestmark = pytest.mark.anyio


async def test_a_result_reaches_a_widget_still_shown_and_not_one_removed():
    app = App()
    async with app.run_test():
        shown, removed = Static("shown"), Static("removed")
        await app.mount(shown, removed)
        await removed.remove()
        got_shown, got_removed = [], []
        for node, calls in ((shown, got_shown), (removed, got_removed)):
            worker = app.run_worker(lambda node=node, calls=calls: to_ui(node, calls.append, "result"), thread=True)
            await worker.wait()
        assert got_shown == ["result"]
        assert got_removed == []  # a screen's callback would query widgets that are gone
