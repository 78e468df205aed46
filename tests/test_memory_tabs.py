"""The Memory screen's detail tabs: what is on the selected tile, sortable and exportable."""

from __future__ import annotations

import subprocess
import sys
import threading

import numpy as np
import pytest
from conftest import frames_of_key, open_screen, resize, wait_for, wait_until_loaded
from textual.widgets import DataTable

from pvtui.model.lowered import Lowered
from pvtui.screens.memory import MemoryScreen
from pvtui.sources.base import ReportFiles
from pvtui.sources.ingest import build_bundle
from pvtui.widgets.tile_map import TileMap
from pvtui.widgets.tile_tables import TileTablePane


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
        assert f"Tile 0: {grid.row_count} variables" in screen.query_one("#missing-variables").text.plain


@pytest.mark.anyio
async def test_the_tables_names_take_the_room_the_pane_has(make_app):
    """At 80 columns the pane is the terminal's width: the exchange programs' names take it (past 26 cells),
    whole where they fit, else their ends."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await _open_tab(pilot, 4)
        for width in (80, 160):
            await resize(pilot, width, 24)
            grid = screen.query_one("#table-exchanges", DataTable)
            table = screen.export_table()
            column = table.columns.index("program")
            names = [str(row[column]) for row in table.rows]
            shown = [str(grid.get_row_at(row)[column]) for row in range(grid.row_count)]
            assert all(cell == name or (cell[0] == "…" and name.endswith(cell[1:]))
                       for cell, name in zip(shown, names)), width
            assert max(map(len, shown)) > 26 and any(cell == name and len(name) > 26
                                                     for cell, name in zip(shown, names)), width
            assert grid.virtual_size.width <= grid.size.width, width  # and the table needs no sideways scroll


def _cells(grid: DataTable, column: int) -> list[str]:
    return [str(grid.get_row_at(row)[column]) for row in range(grid.row_count)]


@pytest.mark.anyio
async def test_f_gives_the_details_the_whole_body_and_the_variables_names_and_contexts_are_whole(make_app):
    async with make_app().run_test(size=(160, 48)) as pilot:
        screen = await _open_tab(pilot, 1)
        grid = screen.query_one("#table-variables", DataTable)
        rows = screen.export_table().rows
        names, contexts = [row[3] for row in rows], [row[4] or "—" for row in rows]
        assert any(cell.startswith("…") for cell in _cells(grid, 3) + _cells(grid, 4))  # beside the bars: cut
        await pilot.press("f")
        await pilot.pause()
        assert not screen.views.display and screen.details.size.width == 160
        assert _cells(grid, 3) == names and _cells(grid, 4) == contexts
        assert grid.virtual_size.width <= grid.size.width  # and no sideways scroll
        await pilot.press("f")
        await pilot.pause()
        assert screen.views.display and screen.views.has_focus_within
        assert any(cell.startswith("…") for cell in _cells(grid, 3) + _cells(grid, 4))


@pytest.mark.anyio
async def test_a_cut_name_shows_whole_under_the_table_for_the_row_under_the_cursor(make_app):
    async with make_app().run_test(size=(160, 48)) as pilot:
        screen = await _open_tab(pilot, 1)
        grid = screen.query_one("#table-variables", DataTable)
        assert grid.virtual_size.width <= grid.size.width  # the columns share the pane's width, names first
        cut = next(row for row, cell in enumerate(_cells(grid, 4)) if cell.startswith("…"))
        grid.move_cursor(row=cut)
        await pilot.pause()
        name, context = screen.export_table().rows[cut][3:5]
        whole = screen.query_one("#whole-variables").text.plain
        assert f"name: {name}" in whole and f"debug context: {context}" in whole


@pytest.mark.anyio
async def test_a_tables_tab_is_built_when_first_shown_and_kept(make_app, tiny_report):
    """The screen's first showing mounts no table: each tab's widgets come when it is first shown."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, "m", MemoryScreen)
        built = lambda: {pane.table_name for pane in screen.query(TileTablePane) if pane.built}  # noqa: E731
        assert built() == set() and not screen.query(DataTable)
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert built() == {"variables"}
        assert screen.query_one("#table-variables", DataTable).row_count == len(
            tiny_report.lowered.tile_variables(screen.selected))
        await pilot.press("left_square_bracket", "right_square_bracket")  # away and back: the same widgets
        grid = screen.query_one("#table-variables", DataTable)
        await pilot.press("left_square_bracket", "right_square_bracket")
        await pilot.pause()
        assert screen.query_one("#table-variables", DataTable) is grid and built() == {"variables"}


def test_the_memory_screen_imports_textuals_data_table_when_a_table_is_first_built():
    """Not with the screen, which most users open to look at the tiles: its import was 13 M instructions."""
    code = ("import sys; import pvtui.screens.memory; from pvtui.widgets.tile_tables import TileTablePane; "
            "print('textual.widgets._data_table' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.split() == ["False"], done.stderr[-2000:]


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
    from pvtui.synth import generate, standin

    truth = generate("tiny", seed=0)
    pva = standin.PvaReport(truth)
    del pva.compilation.loweredVariables
    folder = tmp_path / "nolowered"
    build_bundle(ReportFiles(directory=folder, name="nolowered"), folder / "profile.pvtui", pva_report=pva)
    async with make_app(folder).run_test(size=(80, 24)) as pilot:
        screen = await _open_tab(pilot, 1)
        assert not screen.query_one("#table-variables", DataTable).display
        assert "autoReport.outputLoweredVars" in screen.query_one("#missing-variables").text.plain
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


@pytest.mark.anyio
async def test_find_a_variable_by_name_and_see_its_tiles(make_app, tiny_report):
    lowered = tiny_report.lowered
    found = lowered.find("grad/tmp")
    assert len(found) > 1
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, "m", MemoryScreen)
        await pilot.press("v", "slash", *"Grad/tmp")  # any case
        await pilot.app.workers.wait_for_complete()  # the names and totals are read in a worker
        await pilot.pause()
        tile_map = screen.query_one(TileMap)
        largest = int(found[0])
        assert screen.nav.search.variable == largest
        assert np.array_equal(tile_map.values.values, lowered.bytes_by_tile(largest))
        by_tile = lowered.bytes_by_tile(largest)
        header = screen.query_one("#memory-header").text.plain
        assert lowered.names[largest] in header and f"on {np.count_nonzero(by_tile):,} tiles" in header
        await pilot.press("down")
        assert screen.nav.search.variable == int(found[1])
        await pilot.press("enter", "v")  # kept; the bars' swatches show it too
        assert screen.heatmap.swatch is not None and np.array_equal(screen.heatmap.swatch[0], lowered.bytes_by_tile(int(found[1])))
        await pilot.press("escape")
        assert screen.nav.search.variable is None and screen.heatmap.swatch is None


@pytest.mark.anyio
async def test_the_search_status_fits_at_80_columns(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, "m", MemoryScreen)
        await pilot.press("slash", *"grad")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        status = screen.query_one("#variable-status")
        assert screen.nav.search.variable is not None and "Enter keeps it" in status.text.plain
        assert len(status.text.plain) <= status.content_region.width


@pytest.mark.anyio
async def test_what_is_typed_while_the_names_are_read_is_searched_once_they_are(make_app, tiny_report, monkeypatch):
    read = threading.Event()
    prepare = Lowered.prepare_search
    monkeypatch.setattr(Lowered, "prepare_search", lambda self: (read.wait(10), prepare(self)))
    largest = int(tiny_report.lowered.find("grad/tmp")[0])
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, "m", MemoryScreen)
        await pilot.press("slash", *"grad/tmp")
        assert screen.nav.search.variable is None
        assert "reading" in screen.query_one("#variable-status").text.plain
        read.set()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.nav.search.variable == largest


@pytest.mark.anyio
async def test_enter_on_the_variables_tab_shows_where_the_variable_lives(make_app, tiny_report):
    lowered = tiny_report.lowered
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_screen(pilot, "m", MemoryScreen)
        await pilot.press("v", "home", "right_square_bracket", "enter")
        largest = lowered.tile_variables(0)[0]
        assert screen.nav.search.variable == largest.name_id
        assert np.array_equal(screen.query_one(TileMap).values.values, lowered.bytes_by_tile(largest.name_id))


@pytest.mark.anyio
@pytest.mark.parametrize("tabs, focus_table", [(2, False), (4, False), (2, True), (4, True)])
async def test_enter_on_the_sets_and_exchange_tabs_shows_the_rows_program(make_app, tiny_report, tabs, focus_table):
    """A compute set's row leads to the first program that runs it, an exchange's to its program: Enter
    from the tiles' view or from the table itself."""
    from pvtui.model.tile_detail import exchanges_on_tile
    from pvtui.screens.programs import ProgramsScreen

    programs = tiny_report.programs
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await _open_tab(pilot, tabs)
        table = screen.export_table()
        row = dict(zip(table.columns, table.rows[0]))
        if tabs == 2:
            expected = int(np.flatnonzero(np.asarray(programs.compute_set) == row["compute_set_id"])[0])
            assert programs.compute_set[expected] == row["compute_set_id"]
        else:
            worst = int(np.argmax(tiny_report.memory.including_gaps))
            expected = row["program_id"]
            assert expected in [e.program_id for e in exchanges_on_tile(tiny_report, worst)]
            assert programs.names[expected] == row["program"]
        assert screen.check_action("show_program", ()) and not screen.check_action("pick_variable", ())
        if focus_table:
            screen.details.focus_shown()
            await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ProgramsScreen))
        programs_screen = pilot.app.screen
        await wait_for(pilot, lambda: programs_screen.selected_program() == expected)


@pytest.mark.anyio
async def test_the_selected_tile_stays_in_view_when_the_header_grows_at_80x24(make_app):
    """`w ] Enter` at 80x24: choosing a variable adds a header line, the bars get a row shorter, and the
    worst tile's row (the last shown) stays in view."""
    from pvtui.widgets.heatmap import TileHeatmap

    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await _open_tab(pilot, 1)
        heatmap = screen.query_one(TileHeatmap)
        height = heatmap.scrollable_content_region.height
        await pilot.press("enter")
        await wait_for(pilot, lambda: heatmap.scrollable_content_region.height < height)
        top = int(heatmap.scroll_y)
        assert top <= heatmap.cursor_row < top + heatmap.scrollable_content_region.height


async def _variables_columns(make_app) -> tuple[list[str], list[int], DataTable]:
    """The Variables tab's headings and column widths at 160x48, and its table."""
    async with make_app().run_test(size=(160, 48)) as pilot:
        screen = await _open_tab(pilot, 1)
        grid = screen.query_one("#table-variables", DataTable)
        columns = list(grid.columns.values())
        for _column in columns:  # the sort goes round the columns shown, back to the first
            await pilot.press("S")
        assert str(list(grid.columns.values())[0].label) == "bytes▼"
        return [str(column.label) for column in columns], [column.width for column in columns], grid


@pytest.mark.anyio
async def test_a_column_with_nothing_in_it_takes_no_room_and_figures_align_right(make_app, monkeypatch):
    from pvtui.model.tables import Table
    from pvtui.widgets import tile_tables

    headings, widths, _grid = await _variables_columns(make_app)
    assert headings == ["bytes▼", "always", "steps", "name", "debug context"]
    read = tile_tables.tile_table

    def without_contexts(report, tile, name):
        table = read(report, tile, name)
        if table is None or "debug_context" not in table.columns:
            return table
        column = table.columns.index("debug_context")
        return Table(table.name, table.columns, [[*row[:column], None, *row[column + 1:]] for row in table.rows])

    monkeypatch.setattr(tile_tables, "tile_table", without_contexts)
    shown, room, grid = await _variables_columns(make_app)
    assert shown == ["bytes▼", "always", "steps", "name"]
    assert room[3] > widths[3]  # the room the empty column took went to the names
    assert grid.get_row_at(0)[0].justify == "right" and grid.get_row_at(0)[3].justify == "left"


@pytest.mark.anyio
async def test_each_key_of_the_variable_search_paints_the_field_and_the_status_in_one_frame(make_app):
    """The status is shown from the field's watcher: its repaint reached the screen a turn after the field's,
    once the frame had started, and was painted a frame (16 ms) later (TimerOnTheBeat waits that turn)."""
    async with make_app().run_test(size=(100, 30)) as pilot:
        screen = await open_screen(pilot, "m", MemoryScreen)
        await pilot.press("slash", *"layer")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause(0.3)
        status = screen.query_one("#variable-status")
        before = status.text.plain
        frames = await frames_of_key(pilot, "1", lambda: status.text.plain)  # fewer names match
        assert len(frames) == 1 and frames[0] != before
