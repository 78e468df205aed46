"""Per-tile memory as the Memory screen shows it: pure numpy, no textual.

`TileMemory` gathers what a row of the heatmap needs from either the profile
(categories, gaps, liveness) or archive.a (ELF code, data and bss per tile).
`TileRows` groups the tiles of one IPU filter into rows of `zoom` tiles, each row
standing for its largest tile. `MemoryNavigator` is where the screen is (filter, zoom,
tile, colour, the variable search), each key's change a method.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Callable, NamedTuple

import numpy as np

from pvtui.model import schema
from pvtui.model.arrays import distinct
from pvtui.model.queries import tile_ipus
from pvtui.model.report import Report
from pvtui.model.tables import Table

if TYPE_CHECKING:
    from pvtui.model.lowered import Lowered

ARCHIVE_CATEGORIES = ("code", "data", "bss")
# a tile's whole total, the one category of the tiles' memory shown before its categories are read
# (Report.categories_being_read): the bars and the map show the totals meanwhile
NOT_SPLIT_YET = "all (its categories not read yet)"
LIVENESS_PARTS = ("always-live", "not-always-live")  # the bars' breakdown by liveness (the map's colour names)
REST = "neither"  # a tile's bytes excluding gaps that neither part counts (none in the reports seen)
UNKNOWN_IPU = -1  # a tile's IPU where the report does not say it


class TileMemory:
    """Bytes per tile and per category, with the categories ordered largest first."""

    # A plain class, made on every start on the Memory screen: a dataclass would cost 3-4 M instructions more
    # (its methods are compiled from source: bench/missed.md).
    def __init__(self, source: str, categories: tuple[str, ...], by_category: np.ndarray, including_gaps: np.ndarray,
                 excluding_gaps: np.ndarray, ipu: np.ndarray, limit: int | None, always_live: np.ndarray | None = None,
                 not_always_live: np.ndarray | None = None, has_gaps: bool = False) -> None:
        self.source = source  # "profile" or "archive"
        self.categories = categories  # largest report-wide total first
        self.by_category = by_category  # int64 [T, C], columns in `categories` order
        self.including_gaps = including_gaps  # int64 [T]; archive.a has no gaps: the same as excluding
        self.excluding_gaps = excluding_gaps  # int64 [T]
        self.ipu = ipu  # int64 [T]; UNKNOWN_IPU where the report does not say
        self.limit = limit  # bytes per tile
        self.always_live = always_live
        self.not_always_live = not_always_live
        self.has_gaps = has_gaps  # whether including and excluding gaps differ (the profile read by libpva)

    def with_categories(self, categories: tuple[str, ...], by_category: np.ndarray) -> TileMemory:
        """The same tiles' memory split into CATEGORIES (BY_CATEGORY: [T, C] in their order)."""
        return TileMemory(self.source, categories, by_category, self.including_gaps, self.excluding_gaps, self.ipu,
                          self.limit, self.always_live, self.not_always_live, self.has_gaps)

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
        return tuple(int(i) for i in distinct(self.ipu)) if self.ipu_known else ()

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
        including = np.asarray(m.including_gaps, dtype=np.int64)
        if report.categories_being_read:
            by_category, names = including.reshape(-1, 1), [NOT_SPLIT_YET]
        else:
            by_category = np.asarray(m.by_category, dtype=np.int64)
            names = [m.categories[code] for code in range(by_category.shape[1])]  # as many as the column has
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
    return memory.with_categories(tuple(memory.categories[c] for c in order),
                                  np.ascontiguousarray(memory.by_category[:, order]))


def by_liveness(memory: TileMemory) -> TileMemory | None:
    """MEMORY with each tile's bytes broken down by liveness in place of the categories: always-live,
    not-always-live and, where they do not add up to the total excluding gaps, the rest; None where the
    report has no per-tile liveness (profile.pop read through libpva gives it)."""
    if memory.always_live is None or memory.not_always_live is None:
        return None
    parts = [memory.always_live, memory.not_always_live]
    rest = np.maximum(memory.excluding_gaps - memory.always_live - memory.not_always_live, 0)
    names = LIVENESS_PARTS + ((REST,) if rest.any() else ())
    parts += [rest] if rest.any() else []
    return memory.with_categories(names, np.stack(parts, axis=1).astype(np.int64))


MAX_COMPARED = 64  # tiles side by side: more is no comparison a terminal shows


def parse_tiles(text: str, num_tiles: int) -> list[int] | str:
    """The tiles TEXT lists (`3,17,1461`, ranges `8-11`, spaces allowed), in order, each once; else the one
    line saying what is wrong."""
    tiles: list[int] = []
    for part in text.replace(" ", ",").split(","):
        if not part:
            continue
        low, _, high = part.partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            return f"not a tile number or range: {part[:20]}"
        first, last = int(low), int(high or low)
        if first > last or last >= num_tiles:
            return f"no tile {last if last >= num_tiles else part}: tiles are 0 to {num_tiles - 1:,}"
        tiles += [t for t in range(first, min(last, first + MAX_COMPARED) + 1) if t not in tiles]
        if len(tiles) > MAX_COMPARED:
            return f"more than {MAX_COMPARED} tiles"
    return tiles if tiles else "no tile listed"


def compare_tiles(memory: TileMemory, tiles: list[int]) -> tuple[list[str], list[list[int | None]]]:
    """TILES side by side: the names of the figures (the totals, liveness where known, then each category
    in the report's order, largest first) and a row per figure of each tile's bytes (None: not known)."""
    names, rows = [], []
    for name, value in (("including gaps", lambda t: memory.tile_totals(t)[0]),
                        ("excluding gaps", lambda t: memory.tile_totals(t)[1])):
        if any(value(t) is not None for t in tiles):
            names.append(name)
            rows.append([value(t) for t in tiles])
    if memory.always_live is not None and memory.not_always_live is not None:
        names += list(LIVENESS_PARTS)
        rows += [[int(memory.always_live[t]) for t in tiles], [int(memory.not_always_live[t]) for t in tiles]]
    names += list(memory.categories)
    rows += memory.by_category[tiles].T.tolist()
    return names, rows


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


class TileRows:
    """The heatmap's rows: TILES grouped ZOOM at a time, each shown by its largest tile."""

    def __init__(self, tiles: np.ndarray, zoom: int, representative: np.ndarray) -> None:
        self.tiles = tiles  # visible tile numbers, ascending
        self.zoom = zoom  # tiles per row
        self.representative = representative  # int64 [rows]: the largest tile of each row

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


class TileVertex(NamedTuple):
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


def tiles_table(memory: TileMemory, ipu_filter: int | None) -> Table:
    """The tiles under IPU_FILTER: their totals with and without gaps (where the report has gaps),
    always-live and not-always-live bytes where known, and each category."""
    tiles = visible_tiles(memory.ipu, ipu_filter)
    if memory.has_gaps:
        columns = [memory.including_gaps, memory.excluding_gaps]
        names = ["tile", "ipu", "bytes_including_gaps", "bytes_excluding_gaps"]
    else:
        columns, names = [memory.excluding_gaps], ["tile", "ipu", "bytes"]
    if memory.always_live is not None and memory.not_always_live is not None:
        columns += [memory.always_live, memory.not_always_live]
        names += ["always_live_bytes", "not_always_live_bytes"]
    by_category = memory.by_category
    rows = ([int(tile), memory.ipu_of(tile), *(int(column[tile]) for column in columns),
             *by_category[tile].tolist()] for tile in tiles)
    scope = "" if ipu_filter is None else f"-ipu{ipu_filter}"
    return Table(f"memory-tiles{scope}", names + list(memory.categories), rows)


class MapValues(NamedTuple):
    """What the map colours tiles by: a value per tile, the scale's top, the limit that marks over."""

    name: str  # shown in the header: "total incl. gaps", "vertexCode", "variable x"
    values: np.ndarray  # per tile
    scale: float
    limit: int | None  # only for the total: the bytes per tile


CHOSEN = "chosen variable"  # colour by the variable found with / (no category name has a space)


class VariableSearch:
    """The variables whose names contain what is typed, largest first, and the one chosen of them."""

    def __init__(self) -> None:
        self.open = False  # the search bar is open
        self.ready: Lowered | None = None  # the lowered variables whose names and totals are indexed
        self.matches: np.ndarray | tuple = ()  # variable ids, largest first
        self.variable: int | None = None  # the one chosen: it colours the map and the bars' swatches
        self._bytes: tuple[int, np.ndarray] | None = None  # the chosen variable's bytes per tile

    def find(self, lowered: Lowered | None, text: str) -> int | None:
        """The variables containing TEXT; the largest of them, to be chosen."""
        self.matches = lowered.find(text) if lowered is not None and text else ()
        return int(self.matches[0]) if len(self.matches) else None

    def only(self, variable: int) -> None:
        """VARIABLE alone matches (picked from a table, not searched for)."""
        self.matches = np.array([variable], np.int64)

    @property
    def index(self) -> int:
        """Where the chosen variable is among the matches (0 when it is not one of them)."""
        matches = list(self.matches)
        return matches.index(self.variable) if self.variable in matches else 0

    def stepped(self, step: int) -> int | None:
        """The match STEP after the chosen one, round the end; None when nothing is chosen."""
        if self.variable is None or not len(self.matches):
            return None
        return int(self.matches[(self.index + step) % len(self.matches)])

    def bytes_by_tile(self, lowered: Lowered) -> np.ndarray:
        """The chosen variable's bytes per tile (read once per variable)."""
        assert self.variable is not None
        if self._bytes is None or self._bytes[0] != self.variable:
            self._bytes = (self.variable, lowered.bytes_by_tile(self.variable))
        return self._bytes[1]

    def forget(self) -> None:
        """A new model: its variable ids are not the old ones'."""
        self.matches, self.variable, self._bytes = (), None, None


class MemoryNavigator:
    """Where the Memory screen is: the tiles shown (an IPU's or all, with or without gaps), the bars'
    tiles per row, the view shown, what the map colours by, the variable search and the detail tab
    shown. Pure: each key's change is a method here, the screen draws the result.

    The selected tile is the view's shown (its moves follow the view's geometry: rows, blocks).
    """

    def __init__(self) -> None:
        self.memory: TileMemory | None = None
        self.ipu_filter: int | None = None
        self.gaps = True  # totals include gaps
        self.zoom = 1  # tiles per row of the bars
        self.map_shown = False  # the tile map shows, not the bars
        self.colour_by = "total"  # on the map: "total", "always-live", "not-always-live", a category or CHOSEN
        self.liveness: TileMemory | None = None  # the memory by liveness (by_liveness), where the report has it
        self.bars_by_liveness = False  # the bars break each tile down by liveness, not by category
        self.marked_tiles: list[int] = []  # the tiles marked to compare, in the order marked
        self.search = VariableSearch()
        self.tab = "details"  # the detail pane's tab shown
        self.tab_table = False  # it shows one of the tile's tables, with rows

    def load(self, memory: TileMemory | None, tile: int | None) -> int:
        """Show MEMORY (a reload's): the filter, gaps and colour kept where they still apply, the search's
        variable forgotten. The tile to select: TILE where it still exists, else the first."""
        self.memory = memory if memory is not None and memory.num_tiles else None
        self.search.forget()
        self.liveness = None if self.memory is None else by_liveness(self.memory)
        self.bars_by_liveness = self.bars_by_liveness and self.liveness is not None
        self.marked_tiles = [t for t in self.marked_tiles if self.memory is not None and t < self.memory.num_tiles]
        if self.memory is None:
            return 0
        if self.ipu_filter not in self.memory.ipus:
            self.ipu_filter = None
        self.gaps = self.gaps and self.memory.has_gaps
        if self.colour_by not in self.colour_choices():
            self.colour_by = "total"
        return tile if tile is not None and tile < self.memory.num_tiles else 0

    @property
    def tiles(self) -> np.ndarray:
        """The tiles shown under the IPU filter."""
        assert self.memory is not None
        return visible_tiles(self.memory.ipu, self.ipu_filter)

    def worst(self) -> int | None:
        """The fullest tile shown."""
        assert self.memory is not None
        return worst_tile(self.memory.including_gaps, self.tiles)

    def next_ipu(self) -> None:
        assert self.memory is not None
        self.ipu_filter = next_ipu_filter(self.ipu_filter, self.memory.ipus)

    def mark_tile(self, tile: int) -> None:
        """Mark TILE to compare (besides those marked before), or clear its mark."""
        if tile in self.marked_tiles:
            self.marked_tiles.remove(tile)
        elif len(self.marked_tiles) < MAX_COMPARED:
            self.marked_tiles.append(tile)

    @property
    def bars(self) -> TileMemory:
        """What the bars break each tile down by: its categories, or its liveness."""
        assert self.memory is not None
        return self.liveness if self.bars_by_liveness and self.liveness is not None else self.memory

    def zoomed(self, direction: int, rows: int) -> None:
        """DIRECTION 1 halves the tiles per row, -1 doubles them, up to a zoom that fits the tiles in ROWS."""
        most = max_zoom(len(self.tiles), rows)
        self.zoom = max(1, min(self.zoom // 2 if direction > 0 else self.zoom * 2, most))

    def colour_choices(self) -> list[str]:
        assert self.memory is not None
        live = ["always-live", "not-always-live"] if self.memory.always_live is not None else []
        chosen = [CHOSEN] if self.search.variable is not None else []
        return ["total", *live, *self.memory.categories, *chosen]

    def next_colour(self) -> None:
        choices = self.colour_choices()
        self.colour_by = choices[(choices.index(self.colour_by) + 1) % len(choices)]

    def choose(self, variable: int | None) -> bool:
        """Colour by VARIABLE's bytes per tile (None: by the totals again); False when it is chosen already."""
        if variable == self.search.variable:
            return False
        self.search.variable = variable
        if variable is not None:
            self.colour_by = CHOSEN
        elif self.colour_by == CHOSEN:
            self.colour_by = "total"
        return True

    def map_values(self, lowered: Lowered | None, chosen_name: Callable[[np.ndarray], str]) -> MapValues:
        """What the map colours by now; CHOSEN_NAME names the chosen variable from its bytes per tile."""
        memory, gaps = self.memory, self.gaps
        assert memory is not None
        if self.colour_by == "total":
            name = "total" if not memory.has_gaps else "total incl. gaps" if gaps else "total excl. gaps"
            totals = memory.totals(gaps)
            return MapValues(name, totals, memory.limit or float(totals.max(initial=1)), memory.limit)
        if self.colour_by == CHOSEN:
            assert lowered is not None
            values = self.search.bytes_by_tile(lowered)
            return MapValues(chosen_name(values), values, float(values.max(initial=1)), None)
        if self.colour_by in ("always-live", "not-always-live"):
            values = memory.always_live if self.colour_by == "always-live" else memory.not_always_live
        else:
            values = memory.by_category[:, memory.categories.index(self.colour_by)]
        return MapValues(self.colour_by, values, float(values.max(initial=1)), None)

    # Facts the keys need ------------------------------------------------------------

    @property
    def has_tiles(self) -> bool:
        return self.memory is not None

    @property
    def has_ipus(self) -> bool:
        """The report says which IPU each tile is on (the IPU filter)."""
        return self.memory is not None and bool(self.memory.ipus)

    @property
    def has_gaps(self) -> bool:
        return self.memory is not None and self.memory.has_gaps

    @property
    def has_tile_liveness(self) -> bool:
        """The report gives each tile's always-live and not-always-live bytes."""
        return self.liveness is not None

    @property
    def bars_shown(self) -> bool:
        return not self.map_shown

    @property
    def searching(self) -> bool:
        return self.search.open

    @property
    def searched(self) -> bool:
        """The search is open, or has a variable chosen (Escape closes it)."""
        return self.search.open or self.search.variable is not None

    @property
    def variables_listed(self) -> bool:
        """The Variables tab shows its table (Enter picks one)."""
        return self.tab == "variables" and self.tab_table

    @property
    def programs_listed(self) -> bool:
        """The Sets or Exchange tab shows its table (Enter shows a row's program)."""
        return self.tab in ("compute_sets", "exchanges") and self.tab_table
