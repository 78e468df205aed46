"""Array helpers that a screen's first showing can afford."""

from __future__ import annotations

import numpy as np


def distinct(values) -> np.ndarray:
    """np.unique(VALUES) for whole numbers: each value once, in order. np.unique without its return_* options
    imports numpy.ma on its first call (30-40 ms of the UI thread, in a screen's first showing)."""
    ordered = np.sort(np.asarray(values).ravel())
    first = np.ones(len(ordered), dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first]


def runs_by_row(values: np.ndarray, breaks: list[int] = ()) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, start, stop) of each run of equal VALUES along the rows of a [rows, columns] array, row by row and
    each row's in order, all found in one pass; a run also begins at each column of BREAKS."""
    starts_run = np.ones(values.shape, bool)
    starts_run[:, 1:] = values[:, 1:] != values[:, :-1]
    starts_run[:, list(breaks)] = True
    row, start = np.nonzero(starts_run)
    stop = np.append(start[1:], 0)
    stop[np.append(row[1:] != row[:-1], True)] = values.shape[1]  # a row's last run ends at its end
    return row, start, stop
