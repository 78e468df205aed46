"""The heatmap's pure parts: tile grouping, filters, the worst tile, and row rendering."""

from __future__ import annotations

import numpy as np
from pvtui.model import schema as s
from pvtui.model.bundle import BundleWriter
from pvtui.model.report import Report
from pvtui.model.navigators.memory import (
    TileMemory,
    max_zoom,
    next_ipu_filter,
    tile_memory,
    tile_rows,
    visible_tiles,
    worst_tile,
)
from pvtui.widgets.heatmap import (
    CATEGORY_COLOURS,
    HEAT_COLOURS,
    Palette,
    bar_cells,
    bar_segments,
    limit_column,
    row_layout,
    rows_segments,
)
from pvtui.widgets.look import UNICODE

VARIABLES = {
    name: f"#{i:02x}{i:02x}{i:02x}"
    for i, name in enumerate(
        [*CATEGORY_COLOURS, *HEAT_COLOURS, "pv-muted", "pv-idle", "pv-over", "pv-limit", "pv-cursor"],
        start=16,
    )
} | {"background": "#000000", "foreground": "#ffffff"}
PALETTE = Palette.from_variables(VARIABLES)


def memory_of(by_category, gaps=0, ipu=None, limit=100) -> TileMemory:
    by_category = np.asarray(by_category, dtype=np.int64)
    excluding = by_category.sum(axis=1)
    return TileMemory(
        source="profile",
        categories=tuple(f"c{i}" for i in range(by_category.shape[1])),
        by_category=by_category,
        including_gaps=excluding + gaps,
        excluding_gaps=excluding,
        ipu=np.zeros(len(excluding), np.int64) if ipu is None else np.asarray(ipu),
        limit=limit,
        always_live=excluding // 2,
        not_always_live=excluding - excluding // 2,
        has_gaps=True,
    )


def test_bar_cells_fill_by_category_then_gaps():
    cells = bar_cells(np.array([[30, 20], [0, 100], [10, 0]]), gaps_bytes=np.array([10, 0, -5]), scale=100, width=10)
    # 3 cells of c0, 2 of c1, 1 of gaps (index 2), 4 empty (index 3); each bar on its own
    assert cells.tolist() == [[0, 0, 0, 1, 1, 2, 3, 3, 3, 3], [1] * 10, [0, 3, 3, 3, 3, 3, 3, 3, 3, 3]]


def test_a_cell_shows_what_covers_its_centre():
    # centres at 5, 15, 25...: a part ending exactly on a centre leaves that cell to the next
    assert bar_cells(np.array([[15, 10]]), np.array([0]), scale=100, width=10).tolist() == [[0, 1] + [3] * 8]


def test_limit_column_stays_inside_the_bar():
    assert limit_column(100, 100, 10) == 9
    assert limit_column(50, 100, 10) == 5
    assert limit_column(None, 100, 10) is None


def test_bar_segments_mark_the_limit_and_colour_the_overflow():
    cells = bar_cells(np.array([[120], [60]]), np.array([0, 0]), scale=120, width=12)
    over, under = bar_segments(cells, 1, limit_col=9, palette=PALETTE, cursors=[False, True])
    assert "".join(seg.text for seg in over) == " " * 9 + UNICODE.limit + "  "
    assert over[0].style == PALETTE.category(0)
    assert over[-1].style == PALETTE.over
    assert [len(seg.text) for seg in under] == [6, 3, 1, 2]  # the bar, the empty cells, the limit, beyond it
    assert [seg.style for seg in under] == [PALETTE.category(0), PALETTE.cursor_empty,
                                            PALETTE.cursor_empty + PALETTE.limit, PALETTE.cursor_empty]


def test_row_is_exactly_as_wide_as_asked_and_labels_the_tile():
    memory = memory_of([[40, 20], [90, 30]], gaps=5, ipu=[0, 1])
    rows = tile_rows(memory.totals(True), np.arange(2), 1)
    for width in (30, 80, 200):
        layout = row_layout(memory, 1, "bytes", True)
        [segments] = rows_segments(memory, rows, [1], width, layout, True, "bytes", None, PALETTE)
        text = "".join(seg.text for seg in segments)
        assert len(text) == width
        assert text.startswith(" 1 IPU1")
        assert "125 B" in text
    layout = row_layout(memory, 1, "bytes", True)
    [over] = rows_segments(memory, rows, [1], 80, layout, True, "bytes", None, PALETTE)
    assert any(seg.style == PALETTE.over_label for seg in over)


def test_cursor_row_is_marked():
    memory = memory_of([[40, 20], [10, 10]])
    rows = tile_rows(memory.totals(True), np.arange(2), 1)
    layout = row_layout(memory, 1, "binary", True)
    first, second = rows_segments(memory, rows, [0, 1], 60, layout, True, "binary", 1, PALETTE)
    assert "".join(seg.text for seg in second).startswith("▶")
    assert "".join(seg.text for seg in first).startswith(" 0")


def test_zoomed_rows_show_the_largest_tile_of_each_group():
    totals = np.array([5, 9, 1, 3, 7, 2, 8])
    rows = tile_rows(totals, np.arange(7), 2)
    assert len(rows) == 4
    assert rows.representative.tolist() == [1, 3, 4, 6]
    assert rows.span(3) == (6, 6)
    assert rows.row_of(5) == 2


def test_filtered_rows_hold_only_that_ipus_tiles():
    ipu = np.array([0, 0, 1, 1, 1])
    tiles = visible_tiles(ipu, 1)
    assert tiles.tolist() == [2, 3, 4]
    rows = tile_rows(np.array([1, 2, 3, 9, 4]), tiles, 2)
    assert rows.representative.tolist() == [3, 4]
    assert rows.row_of(0) is None
    assert rows.nearest_tile(0) == 2
    assert rows.nearest_tile(99) == 4


def test_worst_tile_and_ipu_cycle():
    totals = np.array([3, 9, 9, 1])
    assert worst_tile(totals, np.arange(4)) == 1
    assert worst_tile(totals, np.array([2, 3])) == 2
    assert worst_tile(totals, np.array([], dtype=np.int64)) is None
    assert [next_ipu_filter(f, (0, 1)) for f in (None, 0, 1)] == [0, 1, None]


def test_max_zoom_stops_once_the_rows_fit():
    assert max_zoom(2944, 20) == 256
    assert max_zoom(10, 20) == 1


def test_categories_are_ordered_largest_first(tmp_path):
    report = Report(write_bundle(tmp_path / "b", memory=True))
    memory = tile_memory(report)
    assert memory.categories == ("big", "small")
    assert memory.tile_categories(0) == [("big", 50), ("small", 10)]


def test_archive_only_reports_give_code_data_bss(tmp_path):
    report = Report(write_bundle(tmp_path / "b", memory=False))
    memory = tile_memory(report)
    assert memory.source == "archive" and not memory.has_gaps
    assert set(memory.categories) == {"code", "data", "bss"}
    assert memory.including_gaps.tolist() == [60, 70]
    assert memory.ipu.tolist() == [0, 1]


def test_no_tiles_without_memory_or_archive(empty_bundle):
    assert tile_memory(Report(empty_bundle)) is None


def write_bundle(path, memory: bool):
    """A two-tile bundle holding either the profile's memory or archive.a's."""
    with BundleWriter(path) as w:
        w.meta["name"] = "two-tiles"
        w.meta["target"] = {"tiles_per_ipu": 1, "bytes_per_tile": 100, "num_tiles": 2}
        if memory:
            w.meta["parts"] = ["memory"]
            w.meta["memory"] = {"categories": ["small", "big"]}
            w.array(s.TILE_IPU, [0, 1], np.int16)
            w.array(s.TILE_CATEGORIES, [[10, 50], [30, 40]], np.int64)
            w.array(s.TILE_EXCLUDING_GAPS, [60, 70], np.int64)
            w.array(s.TILE_INCLUDING_GAPS, [64, 70], np.int64)
            w.array(s.TILE_ALWAYS_LIVE, [30, 30], np.int64)
            w.array(s.TILE_NOT_ALWAYS_LIVE, [30, 40], np.int64)
        else:
            w.meta["parts"] = ["archive"]
            w.array(s.ARCHIVE_CODE, [40, 50], np.int64)
            w.array(s.ARCHIVE_DATA, [15, 10], np.int64)
            w.array(s.ARCHIVE_BSS, [5, 10], np.int64)
            w.strings(s.ARCHIVE_MEMBER, ["tile0.elf", "tile1.elf"])
        w.commit()
    return path
