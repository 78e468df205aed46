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


def step_match(matches: np.ndarray, current: int, forward: bool) -> int:
    """The match after (or before) program CURRENT, wrapping around; -1 when none."""
    if len(matches) == 0:
        return -1
    if forward:
        i = int(np.searchsorted(matches, current, side="right"))
        return int(matches[i % len(matches)])
    i = int(np.searchsorted(matches, current, side="left")) - 1
    return int(matches[i % len(matches)])

