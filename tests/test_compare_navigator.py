"""The Compare screen without Textual: its navigator, the heatmap's rows, and the words and table rows
that the screen and `pvtui compare` share (render/compare.py)."""

from __future__ import annotations

import numpy as np
import pytest
from rich.style import Style
from rich.text import Text

from pvtui.cli import main
from pvtui.model.compare import compare, summary_table
from pvtui.model.navigators.compare import CompareNavigator, TileGrid
from pvtui.model.unavailable import Unavailable
from pvtui.render.compare import (
    Differences,
    changes_counts,
    changes_rows,
    column_detail,
    fitted_widths,
    layer_rows,
    names_line,
    summary_rows,
    tile_detail,
)
from pvtui.render.compare_json import comparison_json

GROWTH, SHRINKAGE = Style(color="red"), Style(color="green")


@pytest.fixture(scope="module")
def comparison(tiny_report, other_report):
    """A (two IPUs, 128 tiles) against B (one IPU, 64 tiles)."""
    return compare(tiny_report, other_report)


def styles_of(text: Text) -> set:
    return {span.style for span in text.spans} | ({text.style} if text.style else set())


# The navigator --------------------------------------------------------------------------------


def test_the_tile_and_peak_keys_apply_on_their_section_once_it_compares(comparison):
    nav = CompareNavigator()
    assert not nav.on_tiles and nav.export_table() is None  # still comparing
    nav.comparison = comparison
    assert not nav.on_tiles and not nav.on_liveness  # on the summary
    nav.section = "tiles"
    assert nav.on_tiles and not nav.on_liveness
    delta = comparison.tiles.delta
    assert nav.most_changed_tile(grown=True) == int(np.argmax(delta))
    assert nav.most_changed_tile(grown=False) == int(np.argmin(delta))
    nav.section = "liveness"
    assert nav.on_liveness and nav.peak("b") == comparison.liveness.b.peak_step / len(comparison.liveness.b)


def test_no_tile_grew_is_none(tiny_report):
    nav = CompareNavigator()
    nav.comparison = compare(tiny_report, tiny_report)
    assert nav.most_changed_tile(grown=True) is None and nav.most_changed_tile(grown=False) is None


@pytest.mark.parametrize("section, table", [
    ("deltas", "compare-summary"), ("tiles", "compare-tiles"), ("liveness", "compare-liveness"),
    ("programs", "compare-programs"), ("operations", "compare-operations"), ("layers", "compare-layers"),
])
def test_each_section_exports_its_own_table(comparison, section, table):
    nav = CompareNavigator()
    nav.comparison, nav.section = comparison, section
    assert nav.export_table().name == table


def test_a_section_that_does_not_compare_exports_the_summary_and_its_keys_are_off(comparison):
    from dataclasses import replace

    nav = CompareNavigator()
    nav.comparison = replace(comparison, tiles=Unavailable("Report B has no per-tile memory."))
    nav.section = "tiles"
    assert nav.export_table().name == "compare-summary" and not nav.on_tiles and nav.tiles is None


def test_the_model_layers_sort_growth_first_and_by_any_column_host_waits_last(comparison):
    from pvtui.model.layer_compare import LAYER_SORTS

    nav = CompareNavigator()
    nav.comparison = comparison
    nav.section = "layers"
    assert nav.on_layers
    for _column in LAYER_SORTS:
        layers = nav.layers
        assert sorted(change.name for change in layers) == sorted(change.name for change in comparison.layers)
        ranked = [change for change in layers if not change.host]
        assert all(change.host for change in layers[len(ranked):])  # the host waits last, whatever the sort
        sort = LAYER_SORTS[nav.layer_sort]
        if sort == "name":
            assert [c.name.lower() for c in ranked] == sorted(c.name.lower() for c in ranked)
        else:
            figure, side = sort.rsplit("_", 1)
            values = [c.delta(figure) if side == "delta" else getattr(c.a if side == "a" else c.b, figure, None)
                      for c in ranked]
            known = [v for v in values if v is not None]
            assert known == sorted(known, reverse=True) and values[:len(known)] == known
        nav.next_layer_sort()
    assert LAYER_SORTS[CompareNavigator().layer_sort] == "cycles_delta"  # growth first by default


def test_the_largest_tile_is_named_and_a_move_says_where_as_largest_went(tiny_report, other_report):
    from pvtui.model.compare import summary_deltas
    from pvtui.model.queries import tile_totals

    rows = summary_deltas(tiny_report, other_report)
    a_tiles, b_tiles = tile_totals(tiny_report)[0], tile_totals(other_report)[0]
    worst_a, worst_b = int(np.argmax(a_tiles)), int(np.argmax(b_tiles))
    assert worst_a != worst_b  # the two reports' largest are different tiles
    largest = next(row for row in rows if row.label.startswith("Largest tile"))
    assert largest.label == f"Largest tile (A {worst_a}, B {worst_b})"
    moved = rows[rows.index(largest) + 1]
    assert moved.label == f"Tile {worst_a}, A's largest"
    assert (moved.a, moved.b) == (int(a_tiles[worst_a]), int(b_tiles[worst_a]) if worst_a < len(b_tiles) else None)
    same = next(row for row in summary_deltas(tiny_report, tiny_report) if row.label.startswith("Largest tile"))
    assert same.label == f"Largest tile ({worst_a})"


def test_the_heatmap_moves_down_and_up_in_its_column_within_its_rows():
    grid = TileGrid.of(np.array([0] * 5 + [1] * 3), per_row=2)  # rows 0-1, 2-3, 4 | 5-6, 7
    assert [grid.row_of(tile) for tile in range(8)] == [0, 0, 1, 1, 2, 3, 3, 4]
    assert grid.moved(1, 1) == 3
    assert grid.moved(3, 1) == 4  # the shorter row's last tile
    assert grid.moved(6, 5) == 7 and grid.moved(1, -3) == 1  # within the first and last rows
    assert grid.moved(7, -1) == 5  # from a short row, the same column above


# Words and rows ---------------------------------------------------------------------------------


def test_a_difference_reads_signed_and_coloured_by_its_sign():
    d = Differences(units="binary", minus="-", growth=GROWTH, shrinkage=SHRINKAGE)
    assert (d.delta(2048).plain, d.delta(2048).style) == ("+2.0 KiB", GROWTH)
    assert (d.delta(-3, "count").plain, d.delta(-3, "count").style) == ("-3", SHRINKAGE)
    assert (d.delta(0).plain, d.delta(0).style) == ("0 B", "")
    assert d.delta(None).plain == "—" and d.heading == "B - A"
    assert (d.bytes(None).plain, d.bytes(None).style) == ("absent", "dim")
    assert Differences(units="bytes").bytes(2048).plain == "2,048 B"


def test_the_cut_columns_share_the_room_the_others_leave():
    rows = [[Text("x" * 30), Text("12345"), Text("y" * 40)]]
    assert fitted_widths(("name", "figure", "other"), rows, cut=(), room=10) == [30, 6, 40]
    assert fitted_widths(("name", "figure", "other"), rows, cut=(0, 2), room=56) == [25, 6, 25]
    assert fitted_widths(("name", "figure", "other"), rows, cut=(0,), room=60) == [14, 6, 40]
    assert fitted_widths(("name", "figure", "other"), rows, cut=(0,), room=20) == [8, 6, 40]  # never below 8
    assert fitted_widths(("name", "figure", "other"), rows, cut=(0,), room=200) == [30, 6, 40]  # no wider than it is


def test_the_summary_rows_are_the_figures_of_both_and_their_difference(comparison):
    d = Differences(growth=GROWTH, shrinkage=SHRINKAGE)
    rows = summary_rows([row.as_dict() for row in comparison.summary], d)
    ipus = next(row for row in rows if row[0].plain == "IPUs")
    assert [cell.plain for cell in ipus] == ["IPUs", "2", "1", "−1", "−50.0%"] and ipus[3].style == SHRINKAGE
    poplar = next(row for row in rows if row[0].plain == "Poplar")
    assert poplar[3].plain == "—" and poplar[1].plain == poplar[2].plain
    assert len(rows) == len(summary_table(comparison.summary).rows)


def test_the_changes_rows_say_absent_where_one_report_lacks_the_name(comparison):
    d = Differences(minus="-")
    rows = changes_rows([change.as_dict() for change in comparison.programs.rows], d)
    only_a = next(row for row, change in zip(rows, comparison.programs.rows) if change.b is None)
    assert only_a[2].plain == "absent" and only_a[0].plain.startswith("-") and only_a[3].plain
    assert changes_counts(350, 203, 79, 71) == "350 changed; 203 in both, 79 only in A, 71 only in B."
    assert changes_counts(900, 1, 2, 3, listed=500) == \
        "900 changed (500 listed, largest change first); 1 in both, 2 only in A, 3 only in B."


def test_the_model_layers_dim_host_waits_and_colour_their_differences(comparison):
    d = Differences(growth=GROWTH, shrinkage=SHRINKAGE)
    changes = [change.as_dict() for change in comparison.layers]
    rows = layer_rows(changes, d)
    for change, row in zip(changes, rows):
        assert row[0].plain == change["name"] and (row[0].style == "dim") == change["host"]
        delta = change["memory_delta"]
        assert row[6].style == (GROWTH if delta and delta > 0 else SHRINKAGE if delta else "")


def test_a_tiles_detail_names_its_ipus_and_which_report_alone_has_it(comparison):
    diff = comparison.tiles
    d = Differences(growth=GROWTH, shrinkage=SHRINKAGE)
    grown = diff.ranked(True, 1)[0]
    detail = tile_detail(diff, grown, d)
    assert detail.plain.startswith(f"Tile {grown} · IPU 0\nA ") and "B − A +" in detail.plain
    assert GROWTH in styles_of(detail)
    only_a = tile_detail(diff, diff.num_tiles - 1, d).plain
    assert only_a.startswith(f"Tile {diff.num_tiles - 1} · IPU 1 in A, — in B\nonly in A: ")
    assert only_a.endswith("the other report has 64 tiles")


def test_a_liveness_column_names_the_steps_it_stands_for(comparison):
    pair = comparison.liveness
    detail = column_detail(pair, 0, 100, 1000, 3048, 0.0, Differences(units="bytes")).plain
    assert detail.startswith("At 0% · B − A +2,048 B (most live in the column)\n")
    assert f"A 1,000 B (steps 0–2 of {len(pair.a):,})" in detail and f"of {len(pair.b):,})" in detail


def test_the_names_line_says_whether_the_reports_differ():
    assert names_line("a", None, None, "−").plain == "A a · B — · comparing…"
    same = names_line("a", "b", True, "−")
    assert same.plain == "A a · B b · identical" and same.spans[-1].style == "bold"
    assert names_line("a", "b", False, "-").plain == "A a · B b · differences are B - A"


def test_the_printed_comparison_has_the_screens_rows(capsys, tiny_dir, other_dir, comparison):
    """`pvtui compare A B`, piped, prints the rows the screen shows: one builder for both."""
    assert main(["compare", str(tiny_dir), str(other_dir)]) == 0
    lines = capsys.readouterr().out.splitlines()
    for row in summary_rows([row.as_dict() for row in comparison.summary], Differences()):
        assert any(all(cell.plain in line for cell in row) for line in lines), [cell.plain for cell in row]
    top = comparison_json(comparison)["programs"]["grown"][0]
    printed = next(line for line in lines if top["name"] in line)
    assert printed.index("+") < printed.index(top["name"])  # B - A first, the name last, as on the screen
