"""The Memory screen: keyboard flows over the tiny report, other sources, and snapshots."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import frames_of_key, open_screen, panes_built, resize, wait_until_loaded
from test_heatmap import write_bundle

from pvtui.screens.memory import MemoryScreen
from pvtui.widgets.heatmap import TileHeatmap

pytestmark = pytest.mark.anyio


async def open_memory(pilot) -> MemoryScreen:
    return await open_screen(pilot, "m", MemoryScreen)


def detail_text(screen: MemoryScreen) -> str:
    return "\n".join(w.text.plain for w in screen.query("DetailText"))


async def test_find_the_worst_tile(make_app, tiny_report):
    worst = int(np.argmax(tiny_report.memory.including_gaps))
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_memory(pilot)
        await pilot.press("w")
        await pilot.pause()
        heatmap = screen.query_one(TileHeatmap)
        assert heatmap.selected == worst
        assert heatmap.cursor_row == heatmap.rows.row_of(worst)
        assert f"Tile {worst} · IPU {int(tiny_report.memory.ipu[worst])}" in detail_text(screen)


async def test_cursor_keys_move_the_selected_tile(make_app, tiny_report):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_memory(pilot)
        heatmap = screen.query_one(TileHeatmap)
        await pilot.press("down", "down")
        assert heatmap.selected == 2
        await pilot.press("end")
        assert heatmap.selected == tiny_report.memory.num_tiles - 1
        assert heatmap.scroll_y > 0  # the viewport followed the cursor
        await pilot.press("home", "pagedown")
        assert heatmap.selected == heatmap.scrollable_content_region.height - 1
        await pilot.press("up")
        assert heatmap.selected == heatmap.scrollable_content_region.height - 2


async def test_ipu_filter_zoom_and_gaps(make_app, tiny_report):
    memory = tiny_report.memory
    ipus = sorted(set(np.asarray(memory.ipu).tolist()))
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_memory(pilot)
        heatmap = screen.query_one(TileHeatmap)
        await pilot.press("I")
        assert heatmap.ipu_filter == ipus[0]
        assert set(np.asarray(memory.ipu)[heatmap.rows.tiles].tolist()) == {ipus[0]}
        await pilot.press(*["I"] * len(ipus))
        assert heatmap.ipu_filter is None
        await pilot.press("minus", "minus")
        assert heatmap.zoom == 4
        assert len(heatmap.rows) == -(-memory.num_tiles // 4)
        totals = np.asarray(memory.including_gaps)
        assert totals[heatmap.rows.representative[0]] == totals[:4].max()
        await pilot.press("plus")
        assert heatmap.zoom == 2
        await pilot.press("g")
        assert not heatmap.gaps
        assert "excl. gaps" in str(screen.query_one("#memory-header").render())


async def test_a_zoom_paints_the_header_and_the_bars_in_one_frame(make_app):
    """The header says the zoom: its repaint, asked for after the heatmap's, reached the screen a turn after
    it, once the frame had started, and was painted a frame (16 ms) later (TimerOnTheBeat waits that turn)."""
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_memory(pilot)
        await pilot.press("minus", "plus")  # the header as wide as it gets at these zooms: laid out once
        await pilot.pause(0.3)
        header = screen.query_one("#memory-header")
        before = header.text.plain
        frames = await frames_of_key(pilot, "minus", lambda: header.text.plain)
        assert len(frames) == 1 and frames[0] != before


async def test_units_and_reload_keep_the_selection(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_memory(pilot)
        heatmap = screen.query_one(TileHeatmap)
        await pilot.press("down", "down", "down")
        await pilot.press("u")
        assert heatmap.units == "si"
        assert " kB" in detail_text(screen) or " MB" in detail_text(screen)
        screen.report_changed()
        await pilot.pause()
        assert heatmap.selected == 3


async def test_archive_only_report_shows_elf_sections(make_app, tmp_path):
    path = write_bundle(tmp_path / "archive-only", memory=False)
    async with make_app(path).run_test(size=(80, 24)) as pilot:
        screen = await open_memory(pilot)
        heatmap = screen.query_one(TileHeatmap)
        assert heatmap.memory.source == "archive"
        assert "archive.a" in str(screen.query_one("#memory-header").render())
        await pilot.press("w")
        assert heatmap.selected == 1
        assert "Allocated" in detail_text(screen)


async def test_without_memory_or_archive_says_so(make_app, empty_bundle):
    async with make_app(empty_bundle).run_test(size=(80, 24)) as pilot:
        screen = await open_memory(pilot)
        notice = screen.query_one("#memory-unavailable")
        assert notice.display
        assert "profile.pop" in str(notice.render())
        await pilot.press("w", "I", "minus", "g")  # disabled, and harmless


async def _press_m(pilot):
    await wait_until_loaded(pilot)
    await pilot.press("m")
    await pilot.pause()
    await panes_built(pilot)


async def _press_m_w(pilot):
    await _press_m(pilot)
    await pilot.press("w")
    await pilot.pause()


def test_snapshot_memory_80x24(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_press_m)


def test_snapshot_memory_160x48(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(160, 48), run_before=_press_m)


def test_snapshot_memory_worst_tile_160x48(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(160, 48), run_before=_press_m_w)


async def test_the_header_explains_every_mark_within_the_width(make_app):
    from pvtui.widgets.detail_text import DetailText

    async with make_app().run_test(size=(120, 30)) as pilot:
        screen = await open_screen(pilot, "m", MemoryScreen)
        await pilot.press(*["minus"] * 6)  # zoomed out: the longest status
        await pilot.pause()
        for width in (120, 80, 60):
            await resize(pilot, width, 30)
            header = screen.query_one("#memory-header", DetailText).text.plain.rstrip("\n")
            lines = header.splitlines()
            assert all(len(line) <= width - 2 for line in lines), (width, lines)
            assert "…" not in header, width
            for mark in ("░░ gaps", "│ limit", "over the limit", "the other", " over"):
                assert mark in header, (width, mark, lines)
            assert "tiles/row" in header, width


def test_item_lines_break_between_items_and_count_the_rest():
    from rich.text import Text

    from pvtui.render.item_lines import item_lines

    items = [Text(word) for word in ("alpha", "beta", "gamma", "delta", "epsilon")]
    assert [line.plain for line in item_lines(items, 80)] == ["alpha  beta  gamma  delta  epsilon"]
    assert [line.plain for line in item_lines(items, 12)] == ["alpha  beta", "gamma  +2"]
    assert [line.plain for line in item_lines(items, 14, gap=" · ", max_lines=5)] == [
        "alpha · beta", "gamma · delta", "epsilon"]


async def test_category_names_keep_room_at_60_columns(make_app):
    from pvtui.widgets.detail_text import DetailText

    async with make_app().run_test(size=(60, 24)) as pilot:
        screen = await open_screen(pilot, "m", MemoryScreen)
        await pilot.pause()
        categories = screen.query_one("#detail-categories", DetailText)
        lines = categories.text.plain.splitlines()[1:]
        names_at = max(line.rindex("  ") + 2 for line in lines if line.strip())
        assert categories.size.width - names_at >= len("constant")


async def test_tile_facts_are_never_cut_when_a_wider_text_follows(make_app):
    """The narrow layout's facts are as wide as their text: a wider one (bytes in full) widens them."""
    from pvtui.widgets.detail_text import DetailText

    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_memory(pilot)
        for _ in range(2):  # KiB, then kB, then bytes in full: the widest figures
            await pilot.press("u")
            await pilot.pause()
        await pilot.press("w")
        await pilot.pause()
        facts = screen.query_one("#detail-facts", DetailText)
        widest = max(line.cell_len for line in facts.text.split())
        assert " B\n" in facts.text.plain and facts.content_size.width >= widest


@pytest.mark.parametrize("no_color", [False, True])
async def test_the_details_category_swatches_show_in_every_look(make_app, monkeypatch, no_color):
    """A swatch is seen by its colour, or without colours by its category's fill glyph, as the bars draw it."""
    from pvtui.widgets.detail_text import DetailText
    from pvtui.widgets.palette import rich_colour

    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot, "m", MemoryScreen)
        await pilot.pause()
        categories = screen.query_one("#detail-categories", DetailText)
        background = rich_colour(pilot.app.theme_variables, "background")
        rows = [line for line in categories.text.split()[1:] if line.plain.strip()]
        assert rows
        for row in rows:
            swatch = row[:2]
            styles = {span.style.bgcolor for span in swatch.spans} or {None}
            assert swatch.plain.strip() or styles - {None, background}, row.plain


async def test_b_breaks_each_bar_down_by_liveness_and_back(make_app, tiny_report):
    memory = tiny_report.memory
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_memory(pilot)
        heatmap = screen.query_one(TileHeatmap)
        await pilot.press("w", "b")
        tile = heatmap.selected
        assert heatmap.memory.categories == ("always-live", "not-always-live")
        assert heatmap.memory.by_category[tile].tolist() == [int(memory.always_live[tile]),
                                                             int(memory.not_always_live[tile])]
        assert heatmap.selected == tile and "bars by liveness" in detail_text(screen)
        assert "always-live" in detail_text(screen)  # the legend names the parts
        await pilot.press("b")
        assert heatmap.memory.categories == screen.nav.memory.categories and "by liveness" not in detail_text(screen)


async def test_marked_tiles_or_a_typed_list_side_by_side(make_app, tiny_report):
    from textual.widgets import DataTable, Input

    from pvtui.screens.columns_dialog import ColumnsDialog, ListPrompt

    memory = tiny_report.memory
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_memory(pilot)
        await pilot.press("home", "space", "down", "down", "space", "T")
        assert screen.nav.marked_tiles == [0, 2] and isinstance(pilot.app.screen, ListPrompt)
        assert "marked 0, 2" in detail_text(screen)  # the header says which
        assert pilot.app.screen.query_one(Input).value == "0,2"
        await pilot.press("enter")
        dialog = pilot.app.screen
        assert isinstance(dialog, ColumnsDialog)
        table = dialog.query_one(DataTable)
        assert [str(c.label) for c in table.columns.values()] == ["", "tile 0", "tile 2"]
        rows = {str(table.get_row_at(i)[0]): [str(c) for c in table.get_row_at(i)[1:]] for i in range(table.row_count)}
        assert rows["including gaps"] == [screen.bytes(int(memory.including_gaps[t])) for t in (0, 2)]
        assert rows["always-live"] == [screen.bytes(int(memory.always_live[t])) for t in (0, 2)]
        from pvtui.model.tile_detail import tile_table

        assert rows["variables"] == [f"{len(list(tile_table(tiny_report, t, 'variables').rows)):,}" for t in (0, 2)]
        await pilot.press("escape", "T", "ctrl+u", *"1,99999", "enter")  # a tile the report lacks: said, not shown
        prompt = pilot.app.screen
        assert isinstance(prompt, ListPrompt) and "no tile 99999" in str(prompt.query_one("#list-problem").render())
        await pilot.press("escape")
        assert pilot.app.screen is screen
