"""The Hotspots screen (issue 31): reached by H from any screen; the two questions of the issue answered
from the Summary in at most three keys at 80x24; Enter, T, L and w reach the row's program, longest step,
model layer and slowest tile; the filter's total; `?` says what each column counts."""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import open_screen, wait_for, wait_until_loaded

from pvtui.model.hotspots import INTER_IPU, Hotspots, TileBalance
from pvtui.render.hotspots import COLUMN_WORDS
from pvtui.screens.base import SCREEN_KEYS, TitleBar
from pvtui.screens.hotspots import HotspotsScreen

pytestmark = pytest.mark.anyio


async def open_hotspots(pilot) -> HotspotsScreen:
    screen = await open_screen(pilot, "H", HotspotsScreen)
    await wait_for(pilot, lambda: screen.nav.ready and screen.table.row_count)
    await pilot.pause()
    return screen


def details(screen: HotspotsScreen) -> str:
    return str(screen.query_one("#hotspot-details").render())


async def test_the_costliest_compute_set_and_its_debug_context_in_one_key(make_app, tiny_report):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_hotspots(pilot)  # from the Summary: H
        table = Hotspots(tiny_report).table("compute-set")
        assert screen.nav.by == "compute-set" and screen.nav.selected() == 0
        assert screen.table.get_row_at(0)[0] == table.names[0]
        program = int(table.programs[0])
        context = tiny_report.programs.debug_context(program)
        debug = tiny_report.debug
        text = details(screen)
        assert f"Debug context {context} " in text and debug.names[debug.index_of(context)] in text
        await pilot.press("enter")  # its program, in the Programs tree
        await wait_for(pilot, lambda: pilot.app.screen.SCREEN_NAME == "Programs")
        await pilot.pause()
        assert pilot.app.screen.selected_program() == program


async def test_the_longest_exchange_step_and_its_program_in_three_keys(make_app, tiny_report):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_hotspots(pilot)
        await pilot.press("g")  # exchanges
        await wait_for(pilot, lambda: screen.nav.by == "exchange" and screen.nav.ready)
        await pilot.press("S")  # by the longest single step
        await pilot.pause()
        execution = tiny_report.execution
        exchanges = Hotspots(tiny_report).table("exchange")
        steps = np.isin(np.asarray(execution.program), exchanges.programs)
        longest = int(np.where(steps[:, None] & (execution.cycles_from >= 0), execution.cycles, 0).max())
        row = screen.nav.selected()
        assert screen.nav.sort == "longest" and int(exchanges.longest[row]) == longest
        program = screen.nav.selected_program()
        text = details(screen)
        assert f"Program       {program} " in text and f"Longest       {longest:,} on IPU" in text
        assert exchanges.kinds[row] == INTER_IPU  # the inter-IPU copies are the longest exchanges here
        step, ipu = screen.nav.selected_step()
        await pilot.press("T")  # that step, in the Trace
        await wait_for(pilot, lambda: pilot.app.screen.SCREEN_NAME == "Trace")
        trace = pilot.app.screen
        await wait_for(pilot, lambda: trace.nav.selected_step == step)
        assert trace.nav.cursor_ipu == ipu and int(execution.cycles[step, ipu]) == longest
        await pilot.press("H")  # and back, as it was
        await pilot.pause()
        assert pilot.app.screen is screen and screen.nav.by == "exchange" and screen.nav.selected() == row


async def test_l_shows_the_model_layer_and_w_the_slowest_tile(make_app, tiny_report):
    async with make_app().run_test(size=(160, 48)) as pilot:
        screen = await open_hotspots(pilot)
        layer = screen.nav.selected_layer()
        await pilot.press("L")
        await wait_for(pilot, lambda: pilot.app.screen.SCREEN_NAME == "Operations")
        operations = pilot.app.screen
        await wait_for(pilot, lambda: operations.nav.outline is not None and operations.nav.selected_node() is not None)
        assert operations.nav.outline.tree.paths[operations.nav.selected_node()] == layer
        await pilot.press("H")
        await pilot.pause()
        table = screen.nav.table
        with_tiles = next(i for i, row in enumerate(screen.nav.shown.tolist())
                          if isinstance(Hotspots(tiny_report).tile_balance(int(table.ids[row])), TileBalance))
        screen.table.move_cursor(row=with_tiles)
        await pilot.pause()
        slowest = screen.nav.selected_balance().slowest
        assert f"Slowest tile  {slowest:,}:" in details(screen)
        await pilot.press("w")
        await wait_for(pilot, lambda: pilot.app.screen.SCREEN_NAME == "Memory")
        memory = pilot.app.screen
        await wait_for(pilot, lambda: memory.view == "map" and memory.selected == slowest)


async def test_a_filter_keeps_names_and_totals_them(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_hotspots(pilot)
        await pilot.press("slash", *"attention", "enter")
        await pilot.pause()
        table, shown = screen.nav.table, screen.nav.shown
        assert len(shown) and all("attention" in table.names[row] for row in shown.tolist())
        last = screen.table.get_row_at(screen.table.row_count - 1)
        assert last[0].startswith(f"total of the {len(shown):,} rows kept")
        assert last[1] == f"{int(table.cycles[shown].sum()):,}"
        await pilot.press("escape")
        await pilot.pause()
        assert screen.nav.filter_text == "" and len(screen.nav.shown) == len(table)


async def test_every_screen_has_the_tab_and_help_says_what_each_column_counts(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert ("H", "Hotspots") in SCREEN_KEYS
        for key in ("m", "l", "p", "t", "i", "o"):
            await pilot.press(key)
            await pilot.pause()
            bar = pilot.app.screen.query_one(TitleBar)
            assert "Hotspots" in [name for _, _, name in bar.tab_columns]
            await pilot.press("H")
            await pilot.pause()
            assert isinstance(pilot.app.screen, HotspotsScreen)
        await pilot.press("question_mark")
        await pilot.pause()
        listing = re.sub(r"\s+", " ", str(pilot.app.screen.query_one("#help-keys Static").render()))
        for name, words in COLUMN_WORDS:
            assert f"{name}: {words}" in listing
async def _hotspots_at_80x24(pilot):
    await open_hotspots(pilot)


def test_snapshot_hotspots_80x24(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_hotspots_at_80x24)


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_every_row_is_reached_and_drawn(make_app, size):
    """Every row of the order is in the table (not the first 60): End reaches the last, drawn at the foot."""
    async with make_app().run_test(size=size) as pilot:
        screen = await open_hotspots(pilot)
        table, nav = screen.table, screen.nav
        assert table.row_count == len(nav.shown) == len(nav.table) > 60
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_row == table.row_count - 1 and nav.selected() == int(nav.shown[-1])
        last = table.get_row_at(table.cursor_row)[0]
        foot = table.scrollable_content_region.height - 1
        assert last.strip() and last in table.render_line(foot).text
        assert table.line_width <= table.scrollable_content_region.width
        await pilot.press("pageup", "home")
        await pilot.pause()
        assert table.cursor_row == 0 and nav.selected() == int(nav.shown[0])
        assert table.get_row_at(0)[0] in table.render_line(1).text  # under the header line
        assert "IPU-cycles▼" in table.render_line(0).text
