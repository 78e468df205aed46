"""The lowered variables: each variable's piece on each tile, indexed by tile and by name.

Pieces are stored sorted by tile, largest first within a tile, so a tile's variables
are one slice; a name's pieces are one slice of `name_pieces`, in tile order.
"""

from __future__ import annotations

from functools import cached_property
from typing import NamedTuple

import numpy as np

from pvtui.model import schema as s
from pvtui.model.bundle import Bundle
from pvtui.model.part import Part
from pvtui.model.program_search import NameSearch
from pvtui.safe_text import may_be_shown


class TileVariable(NamedTuple):
    """One variable's piece on a tile; its liveness None where the reader gave none (without libpva)."""

    name: str
    name_id: int
    bytes: int
    always_live: bool | None
    steps_live: int | None
    intervals: tuple[tuple[int, int], ...] | None  # (first step, end step exclusive)
    debug_context: int  # a context id, -1 when debug.cbor links none


class Lowered(Part):
    def __init__(self, bundle: Bundle, exact_text: bool = False) -> None:
        super().__init__(bundle, exact_text)
        self.num_steps = int(bundle.meta.get("lowered", {}).get("steps") or 0)

    tile_offsets = cached_property(lambda self: self.col(s.LOWERED_TILE_OFFSETS))
    tile = cached_property(lambda self: self.col(s.LOWERED_TILE))
    name = cached_property(lambda self: self.col(s.LOWERED_NAME))
    bytes = cached_property(lambda self: self.col(s.LOWERED_BYTES))
    cls = cached_property(lambda self: self.col(s.LOWERED_CLASS))
    names = cached_property(lambda self: self.strings(s.LOWERED_NAMES))
    name_offsets = cached_property(lambda self: self.col(s.LOWERED_NAME_OFFSETS))
    name_pieces = cached_property(lambda self: self.col(s.LOWERED_NAME_PIECES))
    class_offsets = cached_property(lambda self: self.col(s.LOWERED_CLASS_OFFSETS))
    class_start = cached_property(lambda self: self.col(s.LOWERED_CLASS_START))
    class_end = cached_property(lambda self: self.col(s.LOWERED_CLASS_END))
    class_steps = cached_property(lambda self: self.col(s.LOWERED_CLASS_STEPS))

    def __len__(self) -> int:
        return len(self.tile)

    @property
    def has_liveness(self) -> bool:
        """Whether each piece's live steps are known (libpva gives them; profile.pop's known tables do not)."""
        return self.bundle.has(s.LOWERED_CLASS)

    @property
    def num_tiles(self) -> int:
        return len(self.tile_offsets) - 1

    @cached_property
    def search(self) -> NameSearch:
        return NameSearch(self.names)

    def name_id(self, name: str) -> int | None:
        """The id of the variable called exactly NAME, as stored or as shown (made visible), or None."""
        names = self.names
        for i in self.search.matches(name).tolist():
            if names.exact(i) == name or names[i] == name:
                return i
        if may_be_shown(name):  # the search reads the names as stored: look at each as shown
            return next((i for i, shown in enumerate(names.take(range(len(names)))) if shown == name), None)
        return None

    @cached_property
    def name_totals(self) -> np.ndarray:
        """Each variable's bytes over all its tiles."""
        totals = np.bincount(np.asarray(self.name), weights=np.asarray(self.bytes), minlength=len(self.names))
        return totals.astype(np.int64)

    def prepare_search(self) -> None:
        """Build what find() needs (the name index, each variable's total) ahead of the first search."""
        _ = self.search, self.name_totals

    def find(self, needle: str) -> np.ndarray:
        """The ids of the variables whose name contains NEEDLE (any case), the largest first."""
        matches = self.search.matches(needle)
        return matches[np.argsort(-self.name_totals[matches], kind="stable")]

    def tile_pieces(self, tile: int) -> slice:
        return slice(int(self.tile_offsets[tile]), int(self.tile_offsets[tile + 1]))

    def pieces_of(self, name_id: int) -> np.ndarray:
        return self.name_pieces[int(self.name_offsets[name_id]) : int(self.name_offsets[name_id + 1])]

    def always_live(self, cls: int) -> bool:
        return self.num_steps > 0 and int(self.class_steps[cls]) >= self.num_steps

    def intervals(self, cls: int) -> tuple[tuple[int, int], ...]:
        lo, hi = int(self.class_offsets[cls]), int(self.class_offsets[cls + 1])
        return tuple(zip(self.class_start[lo:hi].tolist(), self.class_end[lo:hi].tolist()))

    def debug_context(self, name_id: int) -> int:
        if not self.bundle.has(s.LOWERED_NAME_CONTEXT):
            return -1
        return int(self.col(s.LOWERED_NAME_CONTEXT)[name_id])

    def tile_variables(self, tile: int) -> list[TileVariable]:
        """The variables on TILE, largest first."""
        window = self.tile_pieces(tile)
        order = np.argsort(-np.asarray(self.bytes[window]), kind="stable")
        names, sizes = self.name[window][order].tolist(), self.bytes[window][order].tolist()
        if not self.has_liveness:
            return [TileVariable(self.names[n], n, size, None, None, None, self.debug_context(n))
                    for n, size in zip(names, sizes)]
        out = []
        for name_id, size, cls in zip(names, sizes, self.cls[window][order].tolist()):
            out.append(TileVariable(self.names[name_id], name_id, size, self.always_live(cls),
                                    int(self.class_steps[cls]), self.intervals(cls), self.debug_context(name_id)))
        return out

    def bytes_by_tile(self, name_id: int) -> np.ndarray:
        """The bytes of variable NAME_ID on each tile."""
        pieces = self.pieces_of(name_id)
        return np.bincount(self.tile[pieces], weights=self.bytes[pieces], minlength=self.num_tiles).astype(np.int64)
