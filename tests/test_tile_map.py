"""The tile map: its geometry (every tile on one screen), its colours, and the keys over it."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import open_screen, wait_until_loaded

from pvtui.model.tile_map import BLOCK_GAP, LEVELS, OVER, ZERO, Block, block_label, blocks_of, colour_codes, fit_layout
from pvtui.screens.memory import MemoryScreen
from pvtui.widgets.tile_map import TileMap

MK2 = 1472


def _blocks(ipus: int):
    ipu = np.repeat(np.arange(ipus), MK2)
    return blocks_of(ipu, np.arange(ipus * MK2))


def _groups_of_tiles(layout, num_tiles: int) -> np.ndarray:
    """The group (half cell) each tile is drawn in."""
    return np.array([layout.group_of(tile) for tile in range(num_tiles)])


@pytest.mark.parametrize("ipus, width, height", [(2, 80, 10), (16, 107, 44), (1, 40, 5)])
def test_every_tile_fits_on_one_screen(ipus, width, height):
    layout = fit_layout(_blocks(ipus), width, height)
    assert layout.lines <= height and layout.width <= width
    assert len(layout.blocks) == ipus
    groups = _groups_of_tiles(layout, ipus * MK2)
    assert np.array_equal(np.unique(groups), np.arange(layout.num_groups))  # every group stands for tiles
    assert np.all(np.diff(groups) >= 0)  # in tile order
    assert all(layout.line_of(g) < layout.lines for g in (0, layout.num_groups - 1))


def test_one_tile_per_half_cell_when_there_is_room():
    layout = fit_layout(_blocks(2), 160, 48)
    assert layout.per_cell == 1
    assert fit_layout(_blocks(2), 80, 10).per_cell > 1


def test_a_half_cell_shows_its_fullest_tile():
    layout = fit_layout(_blocks(2), 40, 10)
    values = np.random.default_rng(1).integers(0, 1000, 2 * MK2)
    representative = layout.representatives(values)
    groups = _groups_of_tiles(layout, 2 * MK2)
    for g in range(0, layout.num_groups, 37):
        assert groups[representative[g]] == g
        assert values[representative[g]] == values[groups == g].max()


def test_moving_steps_across_blocks_in_tile_order():
    layout = fit_layout(_blocks(2), 80, 10)
    last_of_first = int(layout.group_offsets[1]) - 1
    assert layout.moved(last_of_first, 1, 0) == last_of_first + 1  # right, into IPU 1
    assert layout.block_of_group(layout.moved(last_of_first, 0, 1)) == 1  # down, into IPU 1
    assert layout.block_of_group(layout.moved(int(layout.group_offsets[1]), 0, -1)) == 0
    assert layout.moved(0, -1, 0) == 0 and layout.moved(0, 0, -1) == 0
    end = layout.num_groups - 1
    assert layout.moved(end, 1, 0) == end and layout.moved(end, 0, 1) == end


def test_colour_codes_mark_over_the_limit_and_nothing():
    codes = colour_codes(np.array([0, 1, 500, 999, 1000, 1001]), 1000, 1000)
    assert codes[0] == ZERO and codes[-1] == OVER
    assert 0 <= codes[1] < codes[2] < codes[3] <= codes[4] == LEVELS - 1





async def _open_map(pilot) -> tuple[MemoryScreen, TileMap]:
    screen = await open_screen(pilot, "m", MemoryScreen)
    await pilot.press("v")
    await pilot.pause()
    return screen, screen.query_one(TileMap)


@pytest.mark.parametrize("width, label", [
    (20, "IPU 10: 14720-16191"), (12, "IPU 10"), (6, "IPU 10"), (3, "10"), (1, "I"),
])
def test_a_block_label_never_shows_a_range_cut_short(width, label):
    assert block_label(Block(10, 14720, MK2), width) == label


def test_sixteen_ipus_at_160_columns_label_their_blocks_with_no_cut_range():
    layout = fit_layout(_blocks(16), 90, 44)
    labels = [block_label(b, layout.block_width) for b in layout.blocks]
    assert all(label == f"IPU {i}" or label.startswith(f"IPU {i}: ") for i, label in enumerate(labels))
    assert all(not label.startswith(f"IPU {i}: ") or label.endswith(f"-{(i + 1) * MK2 - 1}")
               for i, label in enumerate(labels))


@pytest.mark.anyio
async def test_the_map_shows_every_tile_and_follows_the_keys(make_app, tiny_report):
    memory = tiny_report.memory
    worst = int(np.argmax(memory.including_gaps))
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen, tile_map = await _open_map(pilot)
        assert tile_map.visible and not screen.heatmap.visible
        assert tile_map.grid.lines <= tile_map.scrollable_content_region.height
        await pilot.press("w")
        assert tile_map.selected == worst
        assert f"Tile {worst} ·" in "\n".join(w.text.plain for w in screen.query("DetailText"))
        await pilot.press("home", "right")
        grid = tile_map.grid
        assert grid.group_of(tile_map.selected) == 1
        await pilot.press("end")
        assert grid.group_of(tile_map.selected) == grid.num_groups - 1
        await pilot.press("pageup")  # the same place in IPU 0's block
        assert int(memory.ipu[tile_map.selected]) == 0
        selected = tile_map.selected
        await pilot.press("v")  # back to the bars, the tile kept
        assert screen.heatmap.visible and screen.heatmap.selected == selected


@pytest.mark.anyio
@pytest.mark.parametrize("no_color", [False, True])
async def test_the_cursor_cell_keeps_its_tiles_colour(make_app, tiny_report, monkeypatch, no_color):
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen, tile_map = await _open_map(pilot)
        await pilot.press("w", "pagedown", "right", "right")  # on IPU 1's block, beside IPU 0's at 80 columns
        grid, colours = tile_map.grid, tile_map.colours
        group = grid.group_of(tile_map.selected)
        line = grid.line_of(group)
        cells = [(s.text, s.style) for s in tile_map.render_line(line - int(tile_map.scroll_y)) for _ in s.text]
        block, within = grid.block_of_group(group), line % grid.lines_per_block
        halves = [grid.half_row_groups(block, 2 * (within - 1) + r) for r in (0, 1)]
        column = next(int(np.flatnonzero(h == group)[0]) for h in halves if (h == group).any())
        column += (block % grid.block_columns) * (grid.block_width + BLOCK_GAP)  # the blocks left of it
        code = int(tile_map._codes[group])
        glyph, style = cells[column]
        if no_color:  # the tile's own glyph, reversed
            assert glyph == colours.glyphs[code] and style.reverse
        else:  # the tile's colour behind a mark in a colour that reads on it
            assert glyph == colours.mark and style.bgcolor == colours.colours[code]
            assert style.color != style.bgcolor
        await pilot.press("right")  # the cell left behind draws its two tiles again
        glyph, style = [(s.text, s.style) for s in tile_map.render_line(line - int(tile_map.scroll_y))
                        for _ in s.text][column]
        assert glyph != colours.mark and not style.reverse


@pytest.mark.anyio
async def test_colour_by_cycles_through_totals_liveness_and_categories(make_app, tiny_report):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen, tile_map = await _open_map(pilot)
        seen = [tile_map.values.name]
        for _ in range(3):
            await pilot.press("c")
            seen.append(tile_map.values.name)
        assert seen[:3] == ["total incl. gaps", "always-live", "not-always-live"]
        assert seen[3] == screen.nav.memory.categories[0]
        assert np.array_equal(tile_map.values.values, screen.nav.memory.by_category[:, 0])


async def _press_m_v(pilot):
    await wait_until_loaded(pilot)
    await pilot.press("m", "v")
    await pilot.pause()


async def _press_m_v_w(pilot):
    await _press_m_v(pilot)
    await pilot.press("w")
    await pilot.pause()


def test_snapshot_tile_map_80x24(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_press_m_v_w)


def test_snapshot_tile_map_light_160x48(snap_compare, make_app):
    assert snap_compare(make_app(theme="light"), terminal_size=(160, 48), run_before=_press_m_v)


@pytest.mark.anyio
async def test_colouring_by_other_values_draws_what_a_fresh_layout_draws(make_app, tiny_report):
    """A new colouring of the same tiles repaints only the lines that changed, from the new values."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen, tile_map = await _open_map(pilot)
        height = tile_map.scrollable_content_region.height
        before = [list(tile_map.render_line(y)) for y in range(height)]
        await pilot.press("c")  # always-live: the same tiles, other values
        await pilot.pause()
        recoloured = [list(tile_map.render_line(y)) for y in range(height)]
        assert recoloured != before
        tile_map.grid = None  # forget the layout: the next colouring lays the map out afresh
        screen._update_map(tile_map.selected)
        await pilot.pause()
        assert [list(tile_map.render_line(y)) for y in range(height)] == recoloured


@pytest.mark.anyio
async def test_switching_between_bars_and_map_moves_no_focus_and_lays_neither_out_again(make_app, monkeypatch):
    """`v` keeps the focus where it is and each view's layout: what makes the switch one frame."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, "m", MemoryScreen)
        await wait_until_loaded(pilot)
        views, tile_map, heatmap = screen.views, screen.tile_map, screen.heatmap
        assert pilot.app.focused is views
        assert tile_map.grid is not None  # laid out while hidden, before its first `v`
        laid_out = tile_map._version
        drawn = []
        draw = tile_map._line_segments
        monkeypatch.setattr(tile_map, "_line_segments", lambda *args: drawn.append(args) or draw(*args))
        await pilot.press("v")
        await pilot.pause()
        assert tile_map.visible and not drawn  # and drawn while hidden: the first `v` shows its lines
        await pilot.press("v")
        await pilot.press("down", "down")
        on_bars = heatmap.selected
        for _ in range(4):
            await pilot.press("v")
            await pilot.pause()
            assert pilot.app.focused is views
        assert tile_map._version == laid_out
        assert heatmap.selected == on_bars and not tile_map.visible
        await pilot.press("v", "right")  # the keys go to the view shown
        assert tile_map.selected != on_bars and heatmap.selected == on_bars
