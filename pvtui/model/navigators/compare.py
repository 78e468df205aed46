"""The Compare screen's arithmetic: the heatmap's rows of tiles and shades of change, and the
screen's navigator (the comparison shown and its section, and what each key goes to).

Pure: the heatmap and the liveness chart draw what these give, and keep their own cursor (the
tile selected, the chart's column), whose moves follow their geometry.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from pvtui.model.compare import Comparison, LivenessPair, TileDiff, liveness_table, summary_table, tiles_table
from pvtui.model.layer_compare import DEFAULT_LAYER_SORT, LAYER_SORTS, LayerChange, layer_table, sorted_changes
from pvtui.model.tables import Table
from pvtui.model.unavailable import Unavailable

LEVELS = 4  # shades of growth and of shrinkage


@dataclass(frozen=True)
class GridRow:
    first: int  # the first tile of the row
    count: int
    ipu: int
    opens_ipu: bool  # the IPU's first row: its label names the IPU


def grid_rows(ipu: np.ndarray, per_row: int) -> list[GridRow]:
    """Tiles in rows of PER_ROW, each IPU (a run of equal IPU numbers) starting a new row."""
    rows: list[GridRow] = []
    starts = np.flatnonzero(np.diff(ipu)) + 1
    for lo, hi in zip([0, *starts.tolist()], [*starts.tolist(), len(ipu)]):
        for first in range(lo, hi, per_row):
            rows.append(GridRow(first, min(per_row, hi - first), int(ipu[lo]), first == lo))
    return rows


def change_levels(delta: np.ndarray, largest: int) -> np.ndarray:
    """-LEVELS..LEVELS per tile: the sign of B - A, its size against LARGEST in LEVELS steps."""
    if largest <= 0:
        return np.zeros(len(delta), dtype=np.int64)
    steps = np.ceil(np.abs(delta) / largest * LEVELS).astype(np.int64)
    return np.sign(delta) * np.clip(steps, 0, LEVELS)


@dataclass(frozen=True, eq=False)
class TileGrid:
    """The heatmap's rows: every tile of either report (IPU gives each one's IPU) in rows of PER_ROW."""

    rows: list[GridRow]

    @classmethod
    def of(cls, ipu: np.ndarray, per_row: int) -> "TileGrid":
        return cls(grid_rows(ipu, per_row))

    @cached_property
    def starts(self) -> np.ndarray:
        return np.array([row.first for row in self.rows], dtype=np.int64)

    def row_of(self, tile: int) -> int:
        return int(np.searchsorted(self.starts, tile, side="right")) - 1

    def moved(self, tile: int, rows: int) -> int:
        """The tile ROWS rows below TILE (above, for a negative number) in the same column, within the
        first and last rows; a shorter row's last tile where that row has no such column."""
        here = self.rows[self.row_of(tile)]
        target = self.rows[max(0, min(self.row_of(tile) + rows, len(self.rows) - 1))]
        return target.first + min(tile - here.first, target.count - 1)


class CompareNavigator:
    """Where the Compare screen is: the comparison shown (None while it is computed) and the section
    shown (deltas, tiles, liveness, programs, operations or layers). Pure: the screen draws from it."""

    def __init__(self) -> None:
        self.comparison: Comparison | None = None
        self.section = "deltas"
        self.layer_sort = DEFAULT_LAYER_SORT  # the model layers' sort column (LAYER_SORTS)

    @property
    def layers(self) -> list[LayerChange] | Unavailable | None:
        """The model layers compared, in the order of the sort column; None while the comparison is computed."""
        layers = self.comparison.layers if self.comparison is not None else None
        return layers if layers is None or isinstance(layers, Unavailable) else sorted_changes(layers, self.layer_sort)

    def next_layer_sort(self) -> None:
        self.layer_sort = (self.layer_sort + 1) % len(LAYER_SORTS)

    @property
    def tiles(self) -> TileDiff | None:
        """The per-tile difference, where the two reports' tiles compare."""
        tiles = self.comparison.tiles if self.comparison is not None else None
        return tiles if isinstance(tiles, TileDiff) else None

    @property
    def liveness(self) -> LivenessPair | None:
        """The two liveness curves, where the two reports' liveness compares."""
        live = self.comparison.liveness if self.comparison is not None else None
        return live if isinstance(live, LivenessPair) else None

    @property
    def on_tiles(self) -> bool:
        """The Tiles section shows, and the two reports' tiles compare."""
        return self.section == "tiles" and self.tiles is not None

    @property
    def on_liveness(self) -> bool:
        """The Liveness section shows, and the two reports' liveness compares."""
        return self.section == "liveness" and self.liveness is not None

    @property
    def on_layers(self) -> bool:
        """The Model layers section shows, and the two reports' layers compare."""
        return self.section == "layers" and isinstance(self.layers, list)

    def most_changed_tile(self, grown: bool) -> int | None:
        """The tile that grew (GROWN) or shrank the most; None where none did."""
        assert self.tiles is not None
        ranked = self.tiles.ranked(grown, 1)
        return ranked[0] if ranked else None

    def peak(self, which: str) -> float:
        """Where report WHICH ("a" or "b") peaks: the fraction of its program steps."""
        pair = self.liveness
        assert pair is not None
        return pair.peak(pair.a if which == "a" else pair.b)["fraction"]

    def export_table(self) -> Table | None:
        """The section's table, every row of it; the summary's where the section has none to give."""
        c = self.comparison
        if c is None:
            return None
        value = {"tiles": c.tiles, "liveness": c.liveness, "programs": c.programs,
                 "operations": c.operations, "layers": self.layers}.get(self.section)
        if value is None or isinstance(value, Unavailable):
            return summary_table(c.summary)
        if isinstance(value, list):
            return layer_table(value)
        if isinstance(value, TileDiff):
            return tiles_table(value)
        if isinstance(value, LivenessPair):
            return liveness_table(value)
        return value.table()
