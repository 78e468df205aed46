"""Keys that arrive together, as a fast typist's or a paste's do over SSH: the ones after the key
that opens a search or a filter go into it, not to the screen behind it."""

from __future__ import annotations

import pytest
from conftest import open_screen, wait_for
from textual import events
from textual.widgets import Input

from pvtui.screens.memory import MemoryScreen
from pvtui.screens.operations import OperationsScreen
from pvtui.screens.programs import ProgramsScreen

pytestmark = pytest.mark.anyio

CHARS = {"slash": "/"}


def arrive_together(app, *keys: str) -> None:
    """Queue KEYS as the terminal driver does for one read: none handled before the last is queued."""
    for key in keys:
        event = events.Key(key, CHARS.get(key, key))
        event.set_sender(app)
        app._driver.send_message(event)


@pytest.mark.parametrize("screen_key, screen_type, input_id", [
    ("m", MemoryScreen, "#variable-input"),
    ("p", ProgramsScreen, "#search-input"),
    ("o", OperationsScreen, "#filter-input"),
])
async def test_what_is_typed_right_after_slash_goes_into_the_search(make_app, screen_key, screen_type, input_id):
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot, screen_key, screen_type)
        arrive_together(pilot.app, "slash", *"lay")  # "l" alone would open Liveness
        await wait_for(pilot, lambda: screen.query_one(input_id, Input).value == "lay")
        assert pilot.app.screen is screen, pilot.app.screen
        assert pilot.app.focused is screen.query_one(input_id, Input), pilot.app.focused
        assert screen.query_one(input_id, Input).value == "lay"


async def test_keys_before_and_after_slash_keep_their_order(make_app):
    """`v` then `/lay` in one read: the map is shown, then the search gets "lay"."""
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot, "m", MemoryScreen)
        arrive_together(pilot.app, "v", "slash", *"lay", "slash", "f")
        await wait_for(pilot, lambda: screen.query_one("#variable-input", Input).value == "lay/f")
        assert screen.view == "map"
        assert screen.query_one("#variable-input", Input).value == "lay/f"
