"""Per-tile memory as the Memory screen shows it: pure numpy, no textual.

`TileMemory` gathers what a row of the heatmap needs from either the profile
(categories, gaps, liveness) or archive.a (ELF code, data and bss per tile).
`TileRows` groups the tiles of one IPU filter into rows of `zoom` tiles, each row
standing for its largest tile.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from pvtui.model import schema
from pvtui.model.queries import tile_ipus
from pvtui.model.report import Report

ARCHIVE_CATEGORIES = ("code", "data", "bss")
UNKNOWN_IPU = -1  # a tile's IPU where the report does not say it


@dataclass(frozen=True, eq=False)
class TileMemory:
    """Bytes per tile and per category, with the categories ordered largest first."""

    source: str  # "profile" or "archive"
    categories: tuple[str, ...]  # largest report-wide total first
    by_category: np.ndarray  # int64 [T, C], columns in `categories` order
    including_gaps: np.ndarray  # int64 [T]; archive.a has no gaps: the same as excluding
    excluding_gaps: np.ndarray  # int64 [T]
    ipu: np.ndarray  # int64 [T]; UNKNOWN_IPU where the report does not say
    limit: int | None  # bytes per tile
    always_live: np.ndarray | None = None
    not_always_live: np.ndarray | None = None
    has_gaps: bool = False  # whether including and excluding gaps differ (the profile read by libpva)

    @property
    def num_tiles(self) -> int:
        return len(self.including_gaps)

    def tile_totals(self, tile: int) -> tuple[int | None, int | None]:
        """(including gaps, excluding gaps) of TILE, each None where the source does not give it: archive.a has
        no gaps (its total excludes them), profile.pop read without libpva gives the total including them."""
        if self.has_gaps:
            return int(self.including_gaps[tile]), int(self.excluding_gaps[tile])
        if self.source == "profile":
            return int(self.including_gaps[tile]), None
        return None, int(self.excluding_gaps[tile])

    @cached_property
    def ipu_known(self) -> bool:
        return not bool(np.any(self.ipu == UNKNOWN_IPU))

    @cached_property
    def ipus(self) -> tuple[int, ...]:
        """The IPUs the tiles are on; none when the report does not say."""
        return tuple(int(i) for i in np.unique(self.ipu)) if self.ipu_known else ()

    def ipu_of(self, tile: int) -> int | None:
        return int(self.ipu[tile]) if self.ipu_known else None

    def totals(self, gaps: bool) -> np.ndarray:
        return self.including_gaps if gaps else self.excluding_gaps

    def scale(self, gaps: bool) -> int:
        """The bytes a full bar stands for: the limit, or the largest tile when above it."""
        largest = int(self.totals(gaps).max()) if self.num_tiles else 0
        return max(largest, self.limit or 0, 1)

    def tile_categories(self, tile: int) -> list[tuple[str, int]]:
        """The tile's (category, bytes), largest first, without the empty ones."""
        values = self.by_category[tile]
        order = np.argsort(-values, kind="stable")
        return [(self.categories[c], int(values[c])) for c in order if values[c] > 0]


def tile_memory(report: Report) -> TileMemory | None:
    """The tiles' memory from the profile, else from archive.a, else None."""
    limit = report.target.bytes_per_tile
    if report.memory is not None:
        m = report.memory
        by_category = np.asarray(m.by_category, dtype=np.int64).reshape(m.num_tiles, -1)
        names = list(m.categories)
        including = np.asarray(m.including_gaps, dtype=np.int64)
        live = m.always_live is not None and m.not_always_live is not None
        return _ordered(
            TileMemory(
                source="profile",
                categories=tuple(names),
                by_category=by_category,
                including_gaps=including,
                excluding_gaps=including if m.excluding_gaps is None else np.asarray(m.excluding_gaps, dtype=np.int64),
                ipu=np.asarray(m.ipu, dtype=np.int64),
                limit=limit,
                always_live=np.asarray(m.always_live, dtype=np.int64) if live else None,
                not_always_live=np.asarray(m.not_always_live, dtype=np.int64) if live else None,
                has_gaps=m.excluding_gaps is not None,
            )
        )
    if report.archive is not None:
        a = report.archive
        by_category = np.stack([np.asarray(a.code), np.asarray(a.data), np.asarray(a.bss)], axis=1)
        by_category = by_category.astype(np.int64)
        total = by_category.sum(axis=1)
        ipu = tile_ipus(report, len(total))
        return _ordered(
            TileMemory(
                source="archive",
                categories=ARCHIVE_CATEGORIES,
                by_category=by_category,
                including_gaps=total,
                excluding_gaps=total,
                ipu=np.full(len(total), UNKNOWN_IPU, np.int64) if ipu is None else ipu,
                limit=limit,
            )
        )
    return None


def _ordered(memory: TileMemory) -> TileMemory:
    """The same memory with its categories sorted by report-wide total, largest first."""
    sums = memory.by_category.sum(axis=0)
    order = np.argsort(-sums, kind="stable")
    return TileMemory(
        source=memory.source,
        categories=tuple(memory.categories[c] for c in order),
        by_category=np.ascontiguousarray(memory.by_category[:, order]),
        including_gaps=memory.including_gaps,
        excluding_gaps=memory.excluding_gaps,
        ipu=memory.ipu,
        limit=memory.limit,
        always_live=memory.always_live,
        not_always_live=memory.not_always_live,
        has_gaps=memory.has_gaps,
    )


def visible_tiles(ipu: np.ndarray, ipu_filter: int | None) -> np.ndarray:
    """Tile numbers shown under the filter: every tile, or those of one IPU."""
    if ipu_filter is None:
        return np.arange(len(ipu))
    return np.flatnonzero(ipu == ipu_filter)


def next_ipu_filter(current: int | None, ipus: tuple[int, ...]) -> int | None:
    """All IPUs -> the first IPU -> the next ... -> all IPUs."""
    if not ipus:
        return None
    if current is None:
        return ipus[0]
    later = [i for i in ipus if i > current]
    return later[0] if later else None


def worst_tile(totals: np.ndarray, tiles: np.ndarray) -> int | None:
    """The tile with the most bytes among TILES (the first, on ties)."""
    if len(tiles) == 0:
        return None
    return int(tiles[int(np.argmax(totals[tiles]))])


@dataclass(frozen=True, eq=False)
class TileRows:
    """The heatmap's rows: TILES grouped ZOOM at a time, each shown by its largest tile."""

    tiles: np.ndarray  # visible tile numbers, ascending
    zoom: int  # tiles per row
    representative: np.ndarray  # int64 [rows]: the largest tile of each row

    def __len__(self) -> int:
        return len(self.representative)

    def span(self, row: int) -> tuple[int, int]:
        """First and last tile number of ROW."""
        lo = row * self.zoom
        hi = min(lo + self.zoom, len(self.tiles)) - 1
        return int(self.tiles[lo]), int(self.tiles[hi])

    def row_of(self, tile: int) -> int | None:
        """The row holding TILE, or None when the filter hides it."""
        i = int(np.searchsorted(self.tiles, tile))
        if i < len(self.tiles) and int(self.tiles[i]) == tile:
            return i // self.zoom
        return None

    def nearest_tile(self, tile: int) -> int | None:
        """TILE if visible, else the next visible tile (or the last one)."""
        if len(self.tiles) == 0:
            return None
        i = min(int(np.searchsorted(self.tiles, tile)), len(self.tiles) - 1)
        return int(self.tiles[i])


def tile_rows(totals: np.ndarray, tiles: np.ndarray, zoom: int) -> TileRows:
    """Group TILES into rows of ZOOM tiles; each row's representative is its largest tile."""
    count = len(tiles)
    rows = -(-count // zoom)
    padded = np.full(rows * zoom, -1, dtype=np.int64)
    padded[:count] = totals[tiles]
    picks = padded.reshape(rows, zoom).argmax(axis=1)
    representative = tiles[np.arange(rows) * zoom + picks] if rows else np.zeros(0, np.int64)
    return TileRows(tiles=tiles, zoom=zoom, representative=np.asarray(representative, np.int64))


def max_zoom(num_tiles: int, rows_wanted: int) -> int:
    """The largest power-of-two zoom still worth having: the one that fits ROWS_WANTED rows."""
    zoom = 1
    while -(-num_tiles // zoom) > max(rows_wanted, 1):
        zoom *= 2
    return zoom


@dataclass(frozen=True)
class TileVertex:
    type: int
    name: str
    code_bytes: int


def tile_vertices(report: Report, tile: int) -> list[TileVertex] | None:
    """The vertices on TILE, most code first; None when the report does not list them."""
    if report.memory is None or report.programs is None:
        return None
    if report.memory.opt(schema.TILE_VERTEX_OFFSETS) is None:
        return None
    vertices = report.memory.vertices_of_tile(tile)
    names = report.programs.vertex_type_names
    rows = [
        TileVertex(t, names[t] if 0 <= t < len(names) else f"vertex type {t}", int(b))
        for t, b in vertices
    ]
    return sorted(rows, key=lambda v: -v.code_bytes)
