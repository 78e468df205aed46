"""Searching program names, and stepping through the matches.

Pure helpers for the program tree: no decoding of every name, no textual.
"""

from __future__ import annotations

from bisect import bisect_right

import numpy as np

from pvtui.model.strings import StringTable


class NameSearch:
    """Case-insensitive substring search over a string table's blob.

    The blob is lowered once; each search scans it with `bytes.find` and decodes
    nothing, touching each matching string once.
    """

    def __init__(self, names: StringTable) -> None:
        self._blob = bytes(names.blob).lower()
        self._offsets = np.asarray(names.offsets).tolist()

    def matches(self, needle: str) -> np.ndarray:
        """Indices of every string containing NEEDLE, ascending."""
        pattern = needle.encode("utf-8").lower()
        if not pattern:
            return no_matches()
        blob, offsets = self._blob, self._offsets
        found: list[int] = []
        pos = blob.find(pattern)
        while pos >= 0:
            index = bisect_right(offsets, pos) - 1
            end = offsets[index + 1]
            if pos + len(pattern) <= end:
                found.append(index)
            # a hit crossing into the next string rules out any later hit in this one
            pos = blob.find(pattern, end)
        return np.asarray(found, dtype=np.int64)


def no_matches() -> np.ndarray:
    """What a search that found nothing returns: no program ids."""
    return np.zeros(0, dtype=np.int64)


def display_order(child_offsets: np.ndarray, child_ids: np.ndarray, roots: np.ndarray,
                  parent: np.ndarray) -> np.ndarray:
    """Each program's position in the tree as shown when opened down to it along first parents
    (pre-order, roots in order); programs the roots do not reach come after, by id."""
    offsets, ids, parent = (np.asarray(a, dtype=np.int64) for a in (child_offsets, child_ids, parent))
    count = len(parent)
    order = np.full(count, -1, dtype=np.int64)
    position = 0
    stack = [int(r) for r in np.asarray(roots)[::-1].tolist()]
    while stack:
        program = stack.pop()
        if not 0 <= program < count or order[program] >= 0:
            continue
        order[program] = position
        position += 1
        kids = ids[offsets[program]:offsets[program + 1]]
        # a child shown under another parent first is revealed there, not here
        own = kids[(kids >= 0) & (kids < count)]
        own = own[parent[own] == program]
        stack.extend(own[::-1].tolist())
    unreached = np.flatnonzero(order < 0)
    order[unreached] = position + np.arange(len(unreached))
    return order


def in_display_order(matches: np.ndarray, order: np.ndarray) -> np.ndarray:
    """MATCHES sorted by their position on screen (ORDER, from display_order)."""
    return matches[np.argsort(order[matches], kind="stable")]


def step_match(matches: np.ndarray, current: int, forward: bool, order: np.ndarray | None = None) -> int:
    """The match after (or before) program CURRENT, wrapping around; -1 when none.

    ORDER gives each program's position on screen (program ids when None); MATCHES are sorted by it.
    """
    if len(matches) == 0:
        return -1
    keys = matches if order is None else order[matches]
    at = current if order is None or current < 0 else int(order[current])
    if forward:
        i = int(np.searchsorted(keys, at, side="right"))
        return int(matches[i % len(matches)])
    i = int(np.searchsorted(keys, at, side="left")) - 1
    return int(matches[i % len(matches)])
