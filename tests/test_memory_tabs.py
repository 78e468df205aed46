"""The Memory screen's detail tabs: what is on the selected tile, sortable and exportable."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import open_screen, wait_until_loaded
from textual.widgets import DataTable, Static

from pvtui.screens.memory import MemoryScreen
from pvtui.sources.base import ReportFiles
from pvtui.sources.ingest import build_bundle


async def _open_tab(pilot, tabs: int) -> MemoryScreen:
    screen = await open_screen(pilot, "m", MemoryScreen)
    await pilot.press("w", *["right_square_bracket"] * tabs)
    await pilot.pause()
    return screen


@pytest.mark.anyio
async def test_variables_tab_lists_the_tile_largest_first_and_follows_the_cursor(make_app, tiny_report):
    lowered = tiny_report.lowered
    worst = int(np.argmax(tiny_report.memory.including_gaps))
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await _open_tab(pilot, 1)
        grid = screen.query_one("#table-variables", DataTable)
        assert grid.row_count == len(lowered.tile_variables(worst))
        table = screen.export_table()
        assert table.name == f"tile{worst}-variables"
        sizes = [row[0] for row in table.rows]
        assert sizes == sorted(sizes, reverse=True) == [v.bytes for v in lowered.tile_variables(worst)]
        await pilot.press("S")  # by always-live: the always-live ones first
        flags = [row[1] for row in screen.export_table().rows]
        assert flags == sorted(flags, reverse=True) and flags[0]
        await pilot.press("home")  # the bars' cursor moves: the table follows
        assert grid.row_count == len(lowered.tile_variables(0))
        assert f"Tile 0: {grid.row_count} variables" in str(screen.query_one("#missing-variables", Static).render())


@pytest.mark.anyio
@pytest.mark.parametrize("tabs, name", [(2, "compute-sets"), (3, "vertices"), (4, "exchanges")])
async def test_the_other_tabs_list_the_tile(make_app, tiny_report, tabs, name):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await _open_tab(pilot, tabs)
        table = screen.export_table()
        worst = int(np.argmax(tiny_report.memory.including_gaps))
        assert table.name == f"tile{worst}-{name}" and list(table.rows)


@pytest.mark.anyio
async def test_a_report_without_lowered_variables_names_the_option(make_app, tmp_path):
    from pvtui.synth import generate

    truth = generate("tiny", seed=0)
    pva = truth.as_pva()
    del pva.compilation.loweredVariables
    folder = tmp_path / "nolowered"
    build_bundle(ReportFiles(directory=folder, name="nolowered"), folder / "profile.pvtui", pva_report=pva)
    async with make_app(folder).run_test(size=(80, 24)) as pilot:
        screen = await _open_tab(pilot, 1)
        assert not screen.query_one("#table-variables", DataTable).display
        assert "autoReport.outputLoweredVars" in str(screen.query_one("#missing-variables", Static).render())
        assert screen.export_table().name.startswith("memory-tiles")  # nothing in the tab: the tiles


def _tab_snapshot(tabs: int):
    async def run_before(pilot):
        await wait_until_loaded(pilot)
        await pilot.press("m", "v", "w", *["right_square_bracket"] * tabs)
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("tabs", [1, 2, 3, 4])
def test_snapshot_memory_tab_80x24(snap_compare, make_app, tabs):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=_tab_snapshot(tabs))
