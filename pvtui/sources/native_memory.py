"""The native reader's tile memory and variable pieces: memory_by_tile, vars_info, var_categories and
vars_string_table.

A tile's total is memory_by_tile's `total` (taken as including gaps: the record calls it the tile's
allocated memory); its bytes by category are the sums of vars_info's pieces. The tables do not say
which pieces share memory over time (not-always-live ones), so where the pieces add up to more than
the total, that is said; gaps, always-live and not-always-live bytes and vertices are not in them.
"""

from __future__ import annotations

import sqlite3

import numpy as np

from pvtui.model import schema as s
from pvtui.model.arrays import distinct
from pvtui.sources.native_pieces import PieceSorter
from pvtui.sources.native_tables import LIBPVA, READER, Lookup, ProfileTables, beyond, numbered
from pvtui.sources.pop_schema import PROFILE
from pvtui.sources.sqlite.database import NULL, NotIntegers, interrupted, quote

NO_NAME = "(no name in vars_string_table)"
# a piece's bytes are at most this (more than any tile holds): the sums of a tile's pieces, made by numpy in
# floating point, then stay exact
MOST_PIECE_BYTES = 1 << 32


def read_memory(profile: ProfileTables) -> list[str]:
    """The memory part (and the lowered part from the same rows): the parts filled.

    The tiles' totals are written and shown first (memory_by_tile is a few thousand rows); the categories,
    summed from vars_info's pieces (most of the time here), replace their empty column after the scan."""
    ctx = profile.ctx
    found = profile.get("memory_by_tile", "memory")
    totals = None if found is None else _totals(profile, found)
    if totals is None:
        ctx.note("memory", f"{PROFILE}: has no memory_by_tile table the native reader can use: no per-tile"
                           f" memory from it ({LIBPVA} gives it)")
    num_tiles = len(totals) if totals is not None else _tiles_in_vars_info(profile)
    profile.num_tiles = num_tiles or profile.num_tiles
    categories = Categories(profile, num_tiles)
    pieces = Pieces(profile, num_tiles)
    filled = []
    if totals is not None:
        _write_totals(profile, totals)
        filled.append("memory")
        ctx.show_parts()
    vars_info = profile.get("vars_info", "memory")
    damaged = False  # vars_info, noted
    if vars_info is not None and num_tiles:
        damaged = not _read_vars_info(profile, vars_info, num_tiles, categories, pieces)
        if damaged:
            categories, pieces = Categories(profile, num_tiles), Pieces(profile, num_tiles)  # none of it kept
    elif vars_info is None:
        ctx.note("lowered", f"{PROFILE}: has no vars_info table the native reader can use: no variables")
    if totals is not None:
        _write_categories(profile, totals, categories)
        if not categories.seen and not damaged:
            ctx.note("memory", f"{PROFILE}: without a usable vars_info, tiles have no memory categories")
    if pieces.write():
        filled.append("lowered")
    return filled


def _read_vars_info(profile: ProfileTables, found, num_tiles: int, categories: Categories, pieces: Pieces) -> bool:
    """Whether vars_info was read whole into CATEGORIES and PIECES; where it is damaged or of an unknown
    schema, that is noted and the tiles' totals stand alone."""
    try:
        _scan_vars_info(profile, found, num_tiles, categories, pieces)
        return True
    except (NotIntegers, sqlite3.DatabaseError) as exc:
        if profile.ctx.cancel.cancelled or (isinstance(exc, sqlite3.Error) and interrupted(exc)):
            raise
        profile.ctx.note("memory", f"{PROFILE}: vars_info not read ({exc}): tiles have their totals only, no"
                                   " memory categories or variables")
        return False


def _totals(profile: ProfileTables, found) -> np.ndarray | None:
    """Each tile's total: by the tile column where there is one, else in row order."""
    ctx = profile.ctx
    if not found.has("tile"):
        ctx.note("memory", f"{PROFILE}: memory_by_tile has no column for the tile: its rows are taken as tiles"
                           " 0, 1, … in their order")
        totals = profile.column(found, "total")
        return np.where(totals == NULL, 0, totals)
    batches = list(profile.batches(found, ["tile", "total"]))
    tile, total = np.concatenate(batches, axis=1) if batches else np.zeros((2, 0), np.int64)
    num_tiles = numbered(distinct(tile[tile >= 0]))
    stray = (tile < 0) | (tile >= num_tiles)
    if stray.any():
        ctx.note("memory", beyond("memory_by_tile", "tiles", distinct(tile[stray]), int(stray.sum()), num_tiles))
        tile, total = tile[~stray], total[~stray]
    out = np.zeros(num_tiles, np.int64)
    out[tile] = np.where(total == NULL, 0, total)
    absent = len(out) - len(distinct(tile))
    if absent:
        ctx.note("memory", f"{PROFILE}: memory_by_tile has no row for {absent:,} of {len(out):,} tiles: shown as 0")
    return out


def _tiles_in_vars_info(profile: ProfileTables) -> int:
    found = profile.get("vars_info", "memory")
    if found is None:
        return 0
    tile = quote(found["tile"])
    named = [row[0] for row in profile.db.execute(f"SELECT DISTINCT {tile} FROM {quote(found.table.name)}"
                                                  f" WHERE typeof({tile}) = 'integer' AND {tile} >= 0 ORDER BY 1")]
    return numbered(np.array(named, np.int64))


class Categories:
    """Per tile, the bytes of vars_info's pieces in each category of var_categories."""

    def __init__(self, profile: ProfileTables, num_tiles: int) -> None:
        self.num_tiles = num_tiles
        self.ids, self.names = np.zeros(0, np.int64), []
        found = profile.get("var_categories", "memory")
        if found is not None:
            ids, names = profile.texts(found, "id", "name")
            order = np.argsort(ids, kind="stable")
            self.ids, self.names = ids[order], [names[i] for i in order.tolist()]
        self.width = len(self.names) + 1  # the last column: ids var_categories does not name
        self.index = Lookup(self.ids, len(self.names))
        self.sums = np.zeros(num_tiles * self.width, np.int64)
        self.seen = False

    def add(self, tile: np.ndarray, category: np.ndarray, size: np.ndarray) -> None:
        cell = tile * self.width + self.index(category)
        self.sums += np.bincount(cell, weights=size, minlength=len(self.sums)).astype(np.int64)
        self.seen = self.seen or len(tile) > 0

    def table(self) -> tuple[list[str], np.ndarray]:
        """(names, bytes [tiles, categories]), without a column no piece is in."""
        sums = self.sums.reshape(self.num_tiles, self.width)
        names = self.names + ["(category not in var_categories)"]
        keep = [c for c in range(self.width) if c < len(self.names) or sums[:, c].any()]
        return [names[c] for c in keep], sums[:, keep]


class Pieces:
    """The variable pieces, their names from vars_string_table, into the lowered part."""

    def __init__(self, profile: ProfileTables, num_tiles: int) -> None:
        self.profile, self.num_tiles = profile, num_tiles
        self.keys, self.names = np.zeros(0, np.int64), [NO_NAME]
        found = profile.get("vars_string_table", "lowered")
        if found is not None and found.has("string"):
            keys, names = profile.texts(found, "id" if found.has("id") else None, "string")
            order = np.argsort(keys, kind="stable")
            self.keys, self.names = keys[order], [names[i] for i in order.tolist()] + [NO_NAME]
        self.index = Lookup(self.keys, len(self.keys))
        self.sorter: PieceSorter | None = None

    def start(self) -> None:
        self.sorter = PieceSorter(self.num_tiles, len(self.names))

    def add(self, tile: np.ndarray, name_id: np.ndarray, size: np.ndarray) -> None:
        self.sorter.add(tile, self.index(name_id), size)

    def write(self) -> bool:
        if self.sorter is None:
            return False
        ctx = self.profile.ctx
        self.sorter.write(ctx.writer, self.names)
        ctx.meta["lowered"] = {"steps": None, "named": len(self.names) > 1}
        ctx.add_part("lowered")
        return True


def _scan_vars_info(profile: ProfileTables, found, num_tiles: int, categories: Categories, pieces: Pieces) -> None:
    """One pass over vars_info: category sums, and the pieces spooled by tile."""
    ctx = profile.ctx
    named = found.has("name")
    if not named:
        ctx.note("lowered", f"{PROFILE}: vars_info has no column naming its piece in vars_string_table:"
                            " variables are not named")
    pieces.start()
    stray = unsized = 0
    roles = ["tile", "category", "size_bytes"] + (["name"] if named else [])
    for batch in profile.batches(found, roles):
        ctx.show_due()  # the tiles' totals, read before vars_info, once it is time
        size = batch[2]
        if (size == NULL).any():
            size = np.where(size == NULL, 0, size)
        columns = [batch[0], batch[1], size, batch[3] if named else np.full(batch.shape[1], -1, np.int64)]
        on_tile = (batch[0] >= 0) & (batch[0] < num_tiles)
        sized = (size >= 0) & (size < MOST_PIECE_BYTES)
        if not (on_tile & sized).all():  # copies only where some row is on no tile or of no size
            stray += int((~on_tile).sum())
            unsized += int((on_tile & ~sized).sum())
            columns = [column[on_tile & sized] for column in columns]
        tile, category, size, name = columns
        categories.add(tile, category, size)
        pieces.add(tile, name, size)
    if stray:
        ctx.note("memory", f"{PROFILE}: {stray:,} rows of vars_info are on no tile of memory_by_tile: left out")
    if unsized:
        ctx.note("memory", f"{PROFILE}: {unsized:,} rows of vars_info have a size_bytes below 0 or of 4 GiB or more,"
                           " more than a tile holds: left out")


def _write_totals(profile: ProfileTables, totals: np.ndarray) -> None:
    """The memory part with each tile's total and IPU, its categories not read yet (Report.categories_being_read:
    meta's memory has no `categories` until _write_categories)."""
    ctx = profile.ctx
    per_ipu = profile.target()["tiles_per_ipu"]
    w = ctx.writer
    w.array(s.TILE_INCLUDING_GAPS, totals, np.int64)
    w.array(s.TILE_IPU, _tile_ipus(len(totals), per_ipu), np.int16)
    profile.memory_split = per_ipu
    w.array(s.TILE_CATEGORIES, np.zeros((len(totals), 0), np.int64), np.int64)
    ctx.meta["memory"] = {}
    ctx.meta["target"] = profile.target()
    ctx.meta.setdefault("readers", {})["memory"] = READER  # as read_native_profile records it once all is read
    ctx.add_part("memory")


def _write_categories(profile: ProfileTables, totals: np.ndarray, categories: Categories) -> None:
    ctx = profile.ctx
    num_tiles = len(totals)
    names, by_category = categories.table() if categories.seen else ([], np.zeros((num_tiles, 0), np.int64))
    ctx.writer.array(s.TILE_CATEGORIES, by_category, np.int64)  # replaces the empty column written first
    ctx.meta["memory"] = {"categories": names}
    over = int((by_category.sum(axis=1) > totals).sum())
    if over:
        ctx.note("categories", f"{PROFILE}: on {over:,} of {num_tiles:,} tiles, vars_info's pieces add up to more than"
                               " the tile's total (pieces live at different times share memory)")


def _tile_ipus(num_tiles: int, per_ipu: int | None) -> np.ndarray:
    return np.arange(num_tiles) // per_ipu if per_ipu else np.full(num_tiles, -1)


def split_into_ipus(profile: ProfileTables) -> None:
    """The memory's tiles split again into IPUs, where the execution profile, read after it, names other
    IPUs than its first rows did (ipus_named_first)."""
    per_ipu = profile.target()["tiles_per_ipu"]
    if "memory" in profile.ctx.meta["parts"] and profile.memory_split != per_ipu:
        profile.ctx.writer.array(s.TILE_IPU, _tile_ipus(profile.num_tiles or 0, per_ipu), np.int16)
