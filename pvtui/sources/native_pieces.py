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
    """Records spooled to one scratch file per bucket, read back a bucket at a time."""

    def __init__(self, count: int, dtype: np.dtype) -> None:
        self.dtype = dtype
        self.files = [tempfile.TemporaryFile() for _ in range(count)]

    def add(self, bucket: np.ndarray, records: np.ndarray) -> None:
        order = np.argsort(bucket.astype(np.uint8), kind="stable")
        records = records[order]
        edges = np.searchsorted(bucket[order], np.arange(len(self.files) + 1))
        for b in np.flatnonzero(np.diff(edges)).tolist():
            self.files[b].write(records[edges[b] : edges[b + 1]].tobytes())

    def take(self, b: int) -> np.ndarray:
        """Bucket B's records, in the order they were added; its file is closed."""
        with self.files[b] as f:
            f.seek(0)
            return np.frombuffer(f.read(), self.dtype)

    def close(self) -> None:
        for f in self.files:
            f.close()


class PieceSorter:
    """Takes vars_info's rows a batch at a time (tile, name index, bytes); writes the lowered columns."""

    def __init__(self, num_tiles: int, num_names: int) -> None:
        self.num_tiles, self.num_names = num_tiles, num_names
        self.count = int(np.clip(-(-num_tiles // TILES_PER_BUCKET), 1, MAX_BUCKETS))
        self.tiles_per_bucket = -(-max(num_tiles, 1) // self.count)
        self.piece = np.dtype([("tile", _index_dtype(num_tiles)), ("name", _index_dtype(num_names)), ("bytes", "<i8")])
        self.by_tile = Buckets(self.count, self.piece)
        self.tile_counts = np.zeros(num_tiles, np.int64)
        self.name_counts = np.zeros(num_names, np.int64)

    def add(self, tile: np.ndarray, name: np.ndarray, size: np.ndarray) -> None:
        records = np.empty(len(tile), self.piece)
        records["tile"], records["name"], records["bytes"] = tile, name, size
        self.by_tile.add(tile // self.tiles_per_bucket, records)
        self.tile_counts += np.bincount(tile, minlength=self.num_tiles)
        self.name_counts += np.bincount(name, minlength=self.num_names)

    def write(self, writer: BundleWriter, names: list[str]) -> None:
        """The lowered columns, names keeping only those some piece has."""
        used = self.name_counts > 0
        kept = int(used.sum())
        dense = (np.cumsum(used) - 1).astype(_index_dtype(kept))
        names_per_bucket = -(-max(kept, 1) // self.count)
        by_name = Buckets(self.count, np.dtype([("name", dense.dtype), ("piece", "<u4")]))
        total = int(self.tile_counts.sum())
        try:
            with writer.column_file(s.LOWERED_TILE, (total,), np.int32) as tiles, \
                    writer.column_file(s.LOWERED_NAME, (total,), np.int32) as name_col, \
                    writer.column_file(s.LOWERED_BYTES, (total,), np.int64) as sizes:
                done = 0
                for b in range(self.count):
                    block = self.by_tile.take(b)
                    block = block[np.argsort(block["tile"], kind="stable")]  # in row order within a tile
                    name = dense[block["name"]]
                    tiles.write(block["tile"].astype(np.int32).tobytes())
                    name_col.write(name.astype(np.int32).tobytes())
                    sizes.write(block["bytes"].tobytes())
                    pieces = np.empty(len(block), by_name.dtype)
                    pieces["name"], pieces["piece"] = name, done + np.arange(len(block))
                    by_name.add(name // names_per_bucket, pieces)
                    done += len(block)
            with writer.column_file(s.LOWERED_NAME_PIECES, (total,), np.int64) as out:
                for b in range(self.count):
                    block = by_name.take(b)
                    out.write(block["piece"][np.argsort(block["name"], kind="stable")].astype(np.int64).tobytes())
        finally:
            by_name.close()
            self.by_tile.close()
        writer.array(s.LOWERED_TILE_OFFSETS, np.concatenate([[0], np.cumsum(self.tile_counts)]), np.int64)
        writer.array(s.LOWERED_NAME_OFFSETS, np.concatenate([[0], np.cumsum(self.name_counts[used])]), np.int64)
        writer.strings(s.LOWERED_NAMES, [name for name, keep in zip(names, used.tolist()) if keep])
