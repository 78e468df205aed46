"""vars_info's variable pieces into the bundle's `lowered` columns (by tile, in their rows' order; by name,
in tile order) in memory bounded by a block: rows are spooled to scratch files by block of tiles, each
block sorted alone, then spooled again by block of names.

The tables give no liveness, so the pieces have no live steps: the lowered part is written without its
equivalence-class columns, and the views say where the live steps would come from.
"""

from __future__ import annotations

import tempfile

import numpy as np

from pvtui.model import schema as s
from pvtui.model.bundle import BundleWriter

TILES_PER_BUCKET = 64
MAX_BUCKETS = 255  # bucket numbers are bytes: numpy sorts those by radix


def _index_dtype(count: int) -> np.dtype:
    """The smallest integer type for indices below COUNT: numpy sorts 16-bit ones by radix."""
    return np.dtype("<u2") if count <= np.iinfo(np.uint16).max else np.dtype("<i4")


class Buckets:
    """Rows of some typed columns spooled to one scratch file per bucket, read back a bucket at a time.

    Each add writes, to each bucket it has rows for, a chunk: the rows' first column, then the next...
    (plain columns: numpy gathers those far faster than records)."""

    def __init__(self, count: int, dtypes: list[np.dtype]) -> None:
        self.dtypes = dtypes
        self.files = [tempfile.TemporaryFile() for _ in range(count)]
        self.chunks: list[list[int]] = [[] for _ in range(count)]  # rows of each chunk written

    def add(self, bucket: np.ndarray, columns: list[np.ndarray]) -> None:
        order = np.argsort(bucket.astype(np.uint8), kind="stable")
        columns = [column[order].astype(dtype, copy=False) for column, dtype in zip(columns, self.dtypes)]
        edges = np.searchsorted(bucket[order], np.arange(len(self.files) + 1))
        for b in np.flatnonzero(np.diff(edges)).tolist():
            lo, hi = edges[b], edges[b + 1]
            self.files[b].write(b"".join(column[lo:hi].tobytes() for column in columns))
            self.chunks[b].append(int(hi - lo))

    def take(self, b: int) -> list[np.ndarray]:
        """Bucket B's columns, their rows in the order they were added; its file is closed."""
        with self.files[b] as f:
            f.seek(0)
            data = f.read()
        parts: list[list[np.ndarray]] = [[] for _ in self.dtypes]
        at = 0
        for rows in self.chunks[b]:
            for i, dtype in enumerate(self.dtypes):
                parts[i].append(np.frombuffer(data, dtype, rows, at))
                at += rows * dtype.itemsize
        return [np.concatenate(p) if p else np.zeros(0, dtype) for p, dtype in zip(parts, self.dtypes)]

    def close(self) -> None:
        for f in self.files:
            f.close()


class PieceSorter:
    """Takes vars_info's rows a batch at a time (tile, name index, bytes); writes the lowered columns."""

    def __init__(self, num_tiles: int, num_names: int) -> None:
        self.num_tiles, self.num_names = num_tiles, num_names
        self.count = int(np.clip(-(-num_tiles // TILES_PER_BUCKET), 1, MAX_BUCKETS))
        self.tiles_per_bucket = -(-max(num_tiles, 1) // self.count)
        self.by_tile = Buckets(self.count, [_index_dtype(num_tiles), _index_dtype(num_names), np.dtype("<i8")])
        self.tile_counts = np.zeros(num_tiles, np.int64)
        self.name_counts = np.zeros(num_names, np.int64)
        self.largest = 0  # the largest piece's bytes, for the narrowest column that holds them

    def add(self, tile: np.ndarray, name: np.ndarray, size: np.ndarray) -> None:
        self.by_tile.add(tile // self.tiles_per_bucket, [tile, name, size])
        self.tile_counts += np.bincount(tile, minlength=self.num_tiles)
        self.name_counts += np.bincount(name, minlength=self.num_names)
        if len(size):
            self.largest = max(self.largest, int(np.abs(size).max()))

    def write(self, writer: BundleWriter, names: list[str]) -> None:
        """The lowered columns, names keeping only those some piece has."""
        used = self.name_counts > 0
        kept = int(used.sum())
        dense = (np.cumsum(used) - 1).astype(_index_dtype(kept))
        names_per_bucket = -(-max(kept, 1) // self.count)
        by_name = Buckets(self.count, [dense.dtype, np.dtype("<u4")])
        total = int(self.tile_counts.sum())
        size_type = np.dtype(np.int32 if self.largest <= np.iinfo(np.int32).max else np.int64)
        piece_type = np.dtype(np.int32 if total <= np.iinfo(np.int32).max else np.int64)
        try:
            with writer.column_file(s.LOWERED_TILE, (total,), np.int32) as tiles, \
                    writer.column_file(s.LOWERED_NAME, (total,), np.int32) as name_col, \
                    writer.column_file(s.LOWERED_BYTES, (total,), size_type) as sizes:
                done = 0
                for b in range(self.count):
                    tile, name, size = self.by_tile.take(b)
                    order = np.argsort(tile, kind="stable")  # in row order within a tile
                    name = dense[name[order]]
                    tiles.write(tile[order].astype(np.int32).tobytes())
                    name_col.write(name.astype(np.int32).tobytes())
                    sizes.write(size[order].astype(size_type).tobytes())
                    by_name.add(name // names_per_bucket, [name, done + np.arange(len(name))])
                    done += len(name)
            with writer.column_file(s.LOWERED_NAME_PIECES, (total,), piece_type) as out:
                for b in range(self.count):
                    name, piece = by_name.take(b)
                    out.write(piece[np.argsort(name, kind="stable")].astype(piece_type).tobytes())
        finally:
            by_name.close()
            self.by_tile.close()
        writer.array(s.LOWERED_TILE_OFFSETS, np.concatenate([[0], np.cumsum(self.tile_counts)]), np.int64)
        writer.array(s.LOWERED_NAME_OFFSETS, np.concatenate([[0], np.cumsum(self.name_counts[used])]), np.int64)
        writer.strings(s.LOWERED_NAMES, [name for name, keep in zip(names, used.tolist()) if keep])
