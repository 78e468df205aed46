"""Min/max envelopes: a pyramid of reductions built at ingest.

Level k holds, for each block of FANOUT**k consecutive samples, the block's min and
max. Drawing W columns over any range reads the finest level whose blocks are no
wider than a column, so the cost is O(W) whatever the length of the series.
"""

from __future__ import annotations

import numpy as np

FANOUT = 8
SMALLEST_LEVEL = 64  # stop building when a level has fewer samples than this


def build_pyramid(series: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Levels 1.. of (min, max); level 0 is the series itself and is not copied."""
    levels: list[tuple[np.ndarray, np.ndarray]] = []
    lo = hi = np.asarray(series)
    while len(lo) > SMALLEST_LEVEL:
        n = len(lo)
        pad = (-n) % FANOUT
        if pad:
            lo = np.concatenate([lo, np.repeat(lo[-1:], pad)])
            hi = np.concatenate([hi, np.repeat(hi[-1:], pad)])
        lo = lo.reshape(-1, FANOUT).min(axis=1)
        hi = hi.reshape(-1, FANOUT).max(axis=1)
        levels.append((lo, hi))
    return levels


def column_names(name: str, level: int) -> tuple[str, str]:
    return f"env.{name}.L{level}.min", f"env.{name}.L{level}.max"


class Envelope:
    """A series and its pyramid, answering min/max per column for any range. A plain class, made on every
    start: a dataclass would cost 3-4 M instructions more (bench/missed.md)."""

    def __init__(self, series: np.ndarray, levels: list[tuple[np.ndarray, np.ndarray]]) -> None:
        self.series = series
        self.levels = levels

    def __len__(self) -> int:
        return len(self.series)

    def columns(self, start: int, stop: int, width: int) -> tuple[np.ndarray, np.ndarray]:
        """Min and max of the series over WIDTH equal slices of [START, STOP)."""
        start = max(0, start)
        stop = min(len(self.series), stop)
        width = max(1, width)
        if stop <= start:
            empty = np.zeros(width, dtype=np.int64)
            return empty, empty.copy()
        edges = np.linspace(start, stop, width + 1)
        first = np.minimum(np.floor(edges[:-1]).astype(np.int64), stop - 1)
        last = np.clip(np.ceil(edges[1:]).astype(np.int64), first + 1, stop)  # exclusive
        per_column = (stop - start) / width
        level = 0
        while level < len(self.levels) and FANOUT ** (level + 1) <= per_column:
            level += 1
        return self._exact(level, first, last)

    def _exact(self, level: int, first: np.ndarray, last: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Exact min/max of samples [first, last): whole blocks of LEVEL, ragged ends below it."""
        if level == 0:
            return _reduce_ranges(self.series, self.series, first, last)
        block = FANOUT**level
        lo, hi = self.levels[level - 1]
        whole_first = -(-first // block)
        whole_last = np.maximum(last // block, whole_first)
        mins, maxs = _reduce_ranges(lo, hi, whole_first, whole_last)
        has_whole = whole_last > whole_first
        head_last = np.where(has_whole, np.minimum(whole_first * block, last), last)
        tail_first = np.where(has_whole, np.maximum(whole_last * block, first), last)
        n = len(first)
        sub_min, sub_max = self._exact(
            level - 1, np.concatenate([first, tail_first]), np.concatenate([head_last, last])
        )
        mins = np.minimum(mins, np.minimum(sub_min[:n], sub_min[n:]))
        maxs = np.maximum(maxs, np.maximum(sub_max[:n], sub_max[n:]))
        return mins, maxs


def _reduce_ranges(lo, hi, first: np.ndarray, last: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Min of LO and max of HI over each short range [first, last); empty ranges give identities."""
    big, small = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    width = int((last - first).max(initial=0))
    if width == 0 or len(lo) == 0:
        return np.full(len(first), big), np.full(len(first), small)
    index = first[:, None] + np.arange(width)
    inside = index < last[:, None]
    index = np.minimum(index, len(lo) - 1)
    lo_vals = np.where(inside, np.asarray(lo)[index], big)
    hi_vals = np.where(inside, np.asarray(hi)[index], small)
    return lo_vals.min(axis=1), hi_vals.max(axis=1)
