"""The Hotspots filter (issue 31): `/` opens a line that takes the keys typed while the table keeps the
focus, as `less`'s prompt does; the screen's letters type there, they do not switch tables; Backspace,
a paste, Enter and Escape work as in a text field."""

from __future__ import annotations

import pytest
from conftest import wait_for
from test_hotspots_screen import open_hotspots
from test_typeahead import arrive_together
from textual import events

from pvtui.screens.hotspots import HotspotsScreen

pytestmark = pytest.mark.anyio


def kept_names(screen: HotspotsScreen) -> list[str]:
    return [screen.nav.table.names[row] for row in screen.nav.shown.tolist()]


async def test_the_screens_letters_typed_into_the_filter_filter_and_switch_nothing(make_app):
    """"layer" holds r (next run) and y (next step type); g (next table) after Enter switches again."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_hotspots(pilot)
        table, line = screen.table, screen.filter_line
        before = (screen.nav.by, screen.nav.run, screen.nav.type_name)
        await pilot.press("slash", *"layer")
        assert line.typing and line.value == "layer" and line.cursor_position == 5
        assert pilot.app.focused is table  # the focus never left the table
        assert (screen.nav.by, screen.nav.run, screen.nav.type_name) == before
        await pilot.press("enter")
        await pilot.pause()
        assert not line.typing and screen.nav.filter_text == "layer"
        assert kept_names(screen) and all("layer" in name.lower() for name in kept_names(screen))
        assert screen.query_one("#hotspots-filter").has_class("open")  # a filter is on
        await pilot.press("g")
        await wait_for(pilot, lambda: screen.nav.by != before[0])


async def test_backspace_a_paste_and_escape_edit_and_clear_the_filter(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_hotspots(pilot)
        line, every = screen.filter_line, len(screen.nav.table)
        await pilot.press("slash", *"attx", "backspace")
        assert line.value == "att"
        paste = events.Paste("ention\nsecond line")  # as the terminal driver sends it
        paste.set_sender(pilot.app)
        pilot.app._driver.send_message(paste)
        await wait_for(pilot, lambda: line.value == "attention")
        await pilot.press("enter")
        await pilot.pause()
        assert screen.nav.filter_text == "attention" and 0 < len(screen.nav.shown) < every
        await pilot.press("slash")  # open again: the text kept, the cursor after it
        assert line.typing and line.value == "attention" and line.cursor_position == len("attention")
        await pilot.press("escape")
        await pilot.pause()
        assert not line.typing and line.value == "" and screen.nav.filter_text == ""
        assert len(screen.nav.shown) == every and not screen.query_one("#hotspots-filter").has_class("open")
        await pilot.press("down")  # the table's keys move its cursor again
        assert screen.table.cursor_row == 1


async def test_what_is_typed_with_slash_and_enter_in_one_read_filters_in_order(make_app):
    """A burst: `/`, the text and Enter are queued before the first is handled; the filter gets them all,
    in order, and the letter after Enter runs its binding (g: the next table)."""
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_hotspots(pilot)
        by = screen.nav.by
        arrive_together(pilot.app, "slash", *"attention", "enter", "g")
        await wait_for(pilot, lambda: screen.nav.by != by)
        assert screen.nav.filter_text == "attention" and screen.filter_line.value == "attention"
        assert pilot.app.focused is screen.table
