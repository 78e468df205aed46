"""Searching program names, stepping through the matches, and the table of the programs found.

Pure helpers for the program tree: no decoding of every name, no textual.
"""

from __future__ import annotations

import numpy as np

from pvtui.model.strings import StringTable
from pvtui.model.tables import Table


class NameSearch:
    """Case-insensitive substring search over a string table's blob.

    The blob is lowered once; each search is a few array passes over it and decodes
    nothing: a pattern found in most names (one letter) costs what a rare one does.
    """

    def __init__(self, names: StringTable) -> None:
        self._blob = np.frombuffer(bytes(names.blob).lower(), dtype=np.uint8)
        self._offsets = np.asarray(names.offsets, dtype=np.int64)

    def matches(self, needle: str) -> np.ndarray:
        """Indices of every string containing NEEDLE, ascending."""
        pattern = needle.encode("utf-8").lower()
        blob = self._blob
        if not pattern or len(pattern) > len(blob):
            return no_matches()
        # where the pattern starts: at its first byte, kept while each next byte follows
        at = np.flatnonzero(blob[: len(blob) - len(pattern) + 1] == pattern[0])
        for shift, byte in enumerate(pattern[1:], 1):
            at = at[blob[at + shift] == byte]
        index = np.searchsorted(self._offsets, at, side="right") - 1
        index = index[at + len(pattern) <= self._offsets[index + 1]]  # within one string, not across two
        if not len(index):
            return no_matches()
        return index[np.concatenate(([True], index[1:] != index[:-1]))]  # ascending: each string once


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


class ProgramSearch:
    """The Programs screen's search: the programs whose names contain what was asked, in the tree's
    order, and the next or previous of them. Its index (the names lowered, each program's place in
    the tree) is built on the first search of a report's programs."""

    def __init__(self) -> None:
        # program ids found, in the tree's order; none yet (without numpy: a screen makes one for its first frame)
        self.matches: np.ndarray | tuple = ()
        self._names: tuple[object, NameSearch] | None = None
        self._order: tuple[object, np.ndarray] | None = None

    def order(self, programs) -> np.ndarray:
        """Each program's position in the tree (display_order), built once per table of PROGRAMS."""
        if self._order is None or self._order[0] is not programs:
            self._order = (programs, display_order(programs.child_offsets, programs.child_ids, programs.roots,
                                                   programs.parent))
        return self._order[1]

    def find(self, programs, needle: str) -> np.ndarray:
        """The programs whose names contain NEEDLE, in the tree's order (to become `matches`)."""
        if self._names is None or self._names[0] is not programs:
            self._names = (programs, NameSearch(programs.names))
        return in_display_order(self._names[1].matches(needle), self.order(programs))

    def step(self, current: int | None, forward: bool) -> int:
        """The match after (FORWARD) or before program CURRENT, round the ends; -1 when none."""
        order = self._order[1] if self._order is not None else None
        return step_match(self.matches, -1 if current is None else current, forward, order)

    def position(self, program: int) -> int | None:
        """Where PROGRAM is among the matches, if it is one."""
        found = np.flatnonzero(np.asarray(self.matches) == program)
        return int(found[0]) if len(found) else None

    def clear(self) -> None:
        self.matches = ()


def programs_table(programs, found: np.ndarray | None, needle: str = "") -> Table:
    """Every program, or those FOUND by a search for NEEDLE: name, type, parent, compute set, code, children."""
    ids = found.tolist() if found is not None else range(len(programs))
    columns = ["program", "name", "type", "parent", "compute_set", "compute_set_name", "code_bytes", "children"]

    def rows():
        for program in ids:
            compute_set = int(programs.compute_set[program])
            parent = int(programs.parent[program])
            yield [
                program, programs.names[program], programs.type_name(program), None if parent < 0 else parent,
                None if compute_set < 0 else compute_set,
                None if compute_set < 0 else programs.compute_set_names[compute_set],
                None if programs.code_bytes is None else int(programs.code_bytes[program]),
                programs.num_children(program),
            ]

    return Table(f"programs-matching-{needle}" if needle else "programs", columns, rows())

