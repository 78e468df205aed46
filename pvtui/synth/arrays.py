"""Vectorised helpers over tile ranges: values spread over [lo, hi) of many rows."""

from __future__ import annotations

import numpy as np


def range_sum(lo: np.ndarray, hi: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    """out[t] = sum of values[i] over the ranges [lo[i], hi[i]) that hold t."""
    values = np.asarray(values)
    diff = np.zeros(size + 1, np.result_type(values, np.int64))
    np.add.at(diff, lo, values)
    np.add.at(diff, hi, -values)
    return np.cumsum(diff)[:size]


def calibrate(values: np.ndarray, lo: np.ndarray, hi: np.ndarray, size: int, mean: float) -> np.ndarray:
    """Scale per-tile VALUES so that their sum over ranges averages MEAN bytes a tile."""
    per_tile = range_sum(lo, hi, values, size)
    factor = mean / max(per_tile.mean(), 1.0)
    return np.maximum(np.round(values * factor), 0).astype(np.int64) & ~np.int64(3)


def csr(counts: np.ndarray) -> np.ndarray:
    """Offsets [n + 1] of rows with COUNTS entries each."""
    offsets = np.zeros(len(counts) + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets


def expand_ranges(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row i, each t in [lo[i], hi[i]): (row, t) pairs, row-major."""
    lengths = (hi - lo).astype(np.int64)
    rows = np.repeat(np.arange(len(lo)), lengths)
    starts = csr(lengths)[:-1]
    tiles = np.arange(lengths.sum()) - np.repeat(starts, lengths) + np.repeat(lo, lengths)
    return rows, tiles
