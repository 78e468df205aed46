"""The status line: what the app and its screens say shows on the key bar's line, never over the data."""

from __future__ import annotations

import pytest
from conftest import open_screen, said, wait_until_loaded
from textual.screen import Screen
from textual.widgets import Static

from pvtui.screens.liveness import LivenessScreen
from pvtui.screens.memory import MemoryScreen
from pvtui.widgets.key_bar import KeyBar


def bar_text(app) -> str:
    return app.screen.query_one(KeyBar).line_text().plain


@pytest.mark.anyio
async def test_marking_a_step_says_so_on_the_status_line_not_in_a_toast_over_the_data(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, "l", LivenessScreen)
        await pilot.press("b")
        await pilot.pause()
        assert bar_text(pilot.app).startswith(f" Step {screen.nav.marked:,} marked")
        assert not pilot.app._notifications  # no toast
        # the keys that still fit stay beside it: help's at least ("? more" where others gave way), the palette's
        assert bar_text(pilot.app).rstrip().endswith(("palette", "^p")) and "? " in bar_text(pilot.app)


@pytest.mark.anyio
async def test_a_message_goes_after_its_time_and_the_next_one_replaces_it(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        app = pilot.app
        keys = bar_text(app)
        app.notify("first", timeout=30)
        app.notify("second", timeout=0.2)
        await pilot.pause()
        assert said(app) == "second" and bar_text(app).startswith(" second ") and "first" not in bar_text(app)
        await pilot.pause(0.4)
        assert said(app) == "" and bar_text(app) == keys


@pytest.mark.anyio
async def test_an_error_stays_until_escape_once_escape_has_nothing_else_to_do(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, "m", MemoryScreen)
        await pilot.press("slash", *"grad")
        await pilot.app.workers.wait_for_complete()
        await pilot.press("enter")  # the variable kept: Escape would forget it
        pilot.app.notify("Export failed: disk full", severity="error", timeout=0.1)
        await pilot.pause(0.3)
        assert said(pilot.app) == "Export failed: disk full" and "Esc dismisses" in bar_text(pilot.app)
        await pilot.press("escape")  # what it does on the screen comes first
        assert said(pilot.app) == "Export failed: disk full" and screen.nav.search.variable is None
        await pilot.press("escape")
        assert said(pilot.app) == "" and "Esc" not in bar_text(pilot.app)


@pytest.mark.anyio
async def test_a_message_longer_than_the_line_takes_rows_of_its_own(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        long = "Reloaded tiny, with a problem: " + "archive.a is cut short " * 5
        pilot.app.notify(long, severity="warning")
        await pilot.pause()
        bar = pilot.app.screen.query_one(KeyBar)
        assert bar.size.height == 2
        assert " ".join(bar.line_text().plain.split()) == long.strip()  # whole, the keys given way
        pilot.app.status.dismiss()
        await pilot.pause()
        assert bar.size.height == 1


class Waiting(Screen):
    def compose(self):
        yield Static("waiting")


@pytest.mark.anyio
async def test_over_a_screen_without_a_key_bar_a_message_is_a_toast(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.app.push_screen(Waiting())
        pilot.app.notify("the program ended")
        await pilot.pause()
        assert said(pilot.app) == "" and [n.message for n in pilot.app._notifications] == ["the program ended"]


@pytest.mark.anyio
async def test_a_message_said_while_a_report_screen_has_no_key_bar_child_still_goes_on_the_status_line(make_app):
    """As the screen composes its body over the opening line (`recompose`), its key bar is gone for a moment:
    a message said then (the configuration's problems, from a thread) became a toast, never on the line."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.app.screen.query_one(KeyBar).remove()
        pilot.app.notify("the keymap has a problem")
        await pilot.pause()
        assert said(pilot.app) == "the keymap has a problem" and not pilot.app._notifications
