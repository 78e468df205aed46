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
