"""The tile map's geometry: every tile on one screen, one block per IPU, in tile order.

A block is a label line then rows of cells; each cell holds two half cells (upper and
lower, as the ▀ glyph draws them) and each half cell stands for `per_cell` tiles,
showing the fullest. Pure numpy: the widget only turns codes into colours.
"""

from __future__ import annotations

from functools import cached_property
from typing import NamedTuple

import numpy as np

from pvtui.model.navigators.memory import UNKNOWN_IPU

BLOCK_GAP = 2  # columns between blocks side by side
MIN_BLOCK_WIDTH = 8
LEVELS = 16  # colour steps from empty to the scale's top
OVER, ZERO, NONE = LEVELS, LEVELS + 1, LEVELS + 2  # codes beyond the levels


class Block(NamedTuple):
    ipu: int | None  # None where the report does not say
    first: int  # first tile
    count: int


def block_label(block: Block, width: int) -> str:
    """BLOCK's heading in WIDTH columns: its IPU and tile range, else the IPU alone (a range cut short
    would name other tiles: "IPU 10: 6" for 640-703), else as much of the name as fits."""
    name = "tiles" if block.ipu is None else f"IPU {block.ipu}"
    full = f"{name}: {block.first}-{block.first + block.count - 1}"  # ASCII: every console draws it
    for text in (full, name, "" if block.ipu is None else str(block.ipu)):
        if text and len(text) <= width:
            return text
    return name[:width]


def blocks_of(ipu: np.ndarray, tiles: np.ndarray) -> tuple[Block, ...]:
    """One block per IPU of TILES (ascending, each IPU's tiles contiguous), or one block when IPUs are unknown."""
    if len(tiles) == 0:
        return ()
    if np.any(ipu == UNKNOWN_IPU):
        return (Block(None, int(tiles[0]), len(tiles)),)
    ipus = ipu[tiles]
    starts = np.flatnonzero(np.concatenate([[True], ipus[1:] != ipus[:-1]]))
    ends = np.append(starts[1:], len(tiles))
    return tuple(Block(int(ipus[s]), int(tiles[s]), int(e - s)) for s, e in zip(starts, ends))


class MapLayout:
    """Where the map's blocks of tiles go. A plain class, made on every start on the Memory screen: a dataclass
    would cost 3-4 M instructions more (bench/missed.md)."""

    def __init__(self, blocks: tuple[Block, ...], per_cell: int, block_width: int, block_columns: int) -> None:
        self.blocks = blocks
        self.per_cell = per_cell  # tiles per half cell
        self.block_width = block_width  # cells across a block
        self.block_columns = block_columns  # blocks side by side

    def groups(self, block: int) -> int:
        return -(-self.blocks[block].count // self.per_cell)

    @cached_property
    def group_offsets(self) -> np.ndarray:
        """Where each block's groups start in the flat list of all groups."""
        return np.concatenate([[0], np.cumsum([self.groups(b) for b in range(len(self.blocks))])]).astype(np.int64)

    @property
    def num_groups(self) -> int:
        return int(self.group_offsets[-1])

    @cached_property
    def half_rows(self) -> int:
        """Half-cell rows of the tallest block."""
        return max((-(-self.groups(b) // self.block_width) for b in range(len(self.blocks))), default=0)

    @property
    def lines_per_block(self) -> int:
        return 1 + -(-self.half_rows // 2)

    @property
    def lines(self) -> int:
        return -(-len(self.blocks) // self.block_columns) * self.lines_per_block

    @property
    def width(self) -> int:
        return self.block_columns * self.block_width + (self.block_columns - 1) * BLOCK_GAP

    def group_of(self, tile: int) -> int:
        """The flat group holding TILE (the nearest block's, when no block holds it)."""
        firsts = [b.first for b in self.blocks]
        block = max(int(np.searchsorted(firsts, tile, side="right")) - 1, 0)
        local = min(max(tile - self.blocks[block].first, 0), self.blocks[block].count - 1)
        return int(self.group_offsets[block]) + local // self.per_cell

    def block_of_group(self, group: int) -> int:
        return int(np.searchsorted(self.group_offsets, group, side="right")) - 1

    def line_of(self, group: int) -> int:
        """The line a group's cell is drawn on."""
        return int(self.lines_of(np.array([group]))[0])

    def lines_of(self, groups: np.ndarray) -> np.ndarray:
        """The line each of GROUPS' cells is drawn on."""
        blocks = np.searchsorted(self.group_offsets, groups, side="right") - 1
        local = groups - self.group_offsets[blocks]
        return (blocks // self.block_columns) * self.lines_per_block + 1 + (local // self.block_width) // 2

    def moved(self, group: int, across: int, down: int) -> int:
        """The group ACROSS cells right or DOWN half rows below GROUP (one of them), stepping into the
        neighbouring block in tile order past a block's edge, in the same column."""
        if across:
            return min(max(group + across, 0), self.num_groups - 1)
        block = self.block_of_group(group)
        column = (group - int(self.group_offsets[block])) % self.block_width
        local = group - int(self.group_offsets[block]) + down * self.block_width
        if local >= self.groups(block) and block + 1 < len(self.blocks):
            block, local = block + 1, column
        elif local < 0 and block > 0:
            block -= 1
            local = (-(-self.groups(block) // self.block_width) - 1) * self.block_width + column
        local = min(max(local, 0), self.groups(block) - 1)
        return int(self.group_offsets[block]) + local

    def representatives(self, values: np.ndarray) -> np.ndarray:
        """Per flat group, its tile with the largest VALUE (the first, on ties)."""
        out = np.empty(self.num_groups, np.int64)
        g = self.per_cell
        for b, block in enumerate(self.blocks):
            groups = self.groups(b)
            padded = np.full(groups * g, -np.inf)
            padded[: block.count] = values[block.first : block.first + block.count]
            picks = padded.reshape(groups, g).argmax(axis=1)
            out[self.group_offsets[b] : self.group_offsets[b + 1]] = block.first + np.arange(groups) * g + picks
        return out

    def half_row_groups(self, block: int, half_row: int) -> np.ndarray:
        """The flat groups of one half row of BLOCK, block_width of them, -1 past its last tile."""
        local = half_row * self.block_width + np.arange(self.block_width)
        return np.where(local < self.groups(block), int(self.group_offsets[block]) + local, -1)


def fit_layout(blocks: tuple[Block, ...], width: int, height: int) -> MapLayout:
    """The fewest tiles per half cell that put every block in WIDTH x HEIGHT; of the arrangements
    that do, the one with the fewest lines. A screen too small still gets a layout (it scrolls)."""
    width, height = max(width, MIN_BLOCK_WIDTH), max(height, 2)
    most = max((b.count for b in blocks), default=1)
    per_cell = 1
    while True:
        fits = []
        for columns in range(1, len(blocks) + 1):
            block_width = (width - (columns - 1) * BLOCK_GAP) // columns
            if block_width < MIN_BLOCK_WIDTH:
                break
            layout = MapLayout(blocks, per_cell, block_width, columns)
            if layout.lines <= height:
                fits.append(layout)
        if fits or per_cell >= most:
            if fits:
                return min(fits, key=lambda layout: (layout.lines, layout.block_columns))
            return MapLayout(blocks, per_cell, width, 1)
        per_cell = per_cell + 1 if per_cell < 8 else per_cell * 5 // 4


def colour_codes(values: np.ndarray, scale: float, limit: int | None) -> np.ndarray:
    """Per tile: a level in [0, LEVELS) of VALUES against SCALE, OVER above LIMIT, ZERO for nothing."""
    values = np.asarray(values, dtype=np.float64)
    levels = np.clip((values / max(scale, 1.0) * LEVELS).astype(np.int64), 0, LEVELS - 1)
    codes = np.where(values <= 0, ZERO, levels)
    if limit:
        codes = np.where(values > limit, OVER, codes)
    return codes
