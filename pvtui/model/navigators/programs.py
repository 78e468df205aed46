"""The Programs screen's navigator: the program tree's rows (what is open, the cursor) and the search by name.

`TreeRows` holds one row per program shown, in display order: its program, depth, parent row and whether it
is its parent's last child. A node's open subtree is the run of deeper rows right after it, so expanding
inserts its children's rows (a slice of the report's child list: 10,000 children are one array insert) and
collapsing deletes that run. Pure numpy; the ProgramTree widget draws the rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pvtui.model.program_search import ProgramSearch

if TYPE_CHECKING:
    from pvtui.model.report import Programs

EXPAND_CAP = 100_000  # most grandchild rows one "expand children" may add
ROW_FIELDS = [("program", "i8"), ("depth", "i4"), ("parent", "i8"), ("last", "?")]  # one shown row
# what a row shows left of its label for each ancestor below the roots, and for itself
GUIDE_LAST, GUIDE_MORE, BRANCH_LAST, BRANCH_MORE = "   ", "│  ", "└─ ", "├─ "


class ProgramsNavigator:
    """Where the Programs screen is: the tree's rows, once the report has programs, and the search, its
    matches and whether its bar is open (`searching`)."""

    def __init__(self) -> None:
        self.rows: TreeRows | None = None
        self.finder = ProgramSearch()
        self.searching = False

    def load(self, programs: Programs | None) -> TreeRows | None:
        """The tree of PROGRAMS (None: the report has none), its first root open; the old search's matches
        forgotten (they were of the programs before), its bar closed."""
        self.finder, self.searching = ProgramSearch(), False
        self.rows = None if programs is None else TreeRows(programs.child_offsets, programs.child_ids,
                                                           programs.roots)
        if self.rows is not None and len(self.rows):
            self.rows.expand(0)
        return self.rows

    @property
    def has_tree(self) -> bool:
        return self.rows is not None

    @property
    def has_matches(self) -> bool:
        return len(self.finder.matches) > 0

    @property
    def cursor_program(self) -> int | None:
        """The program under the cursor; None without a tree or rows."""
        rows = self.rows
        return int(rows.program[rows.cursor]) if rows is not None and rows.cursor < len(rows) else None


class TreeRows:
    """The rows of a program tree, roots first, from the report's child lists (CSR).

    `expanded` remembers the programs opened, so re-expanding a node reopens the
    descendants that were open under it. `cursor` is a row that every change keeps
    on its program (or on the node whose subtree it was in).
    """

    def __init__(self, child_offsets: np.ndarray, child_ids: np.ndarray, roots: np.ndarray) -> None:
        # plain arrays: indexing a memmap one element at a time is several times slower
        self._offsets = np.asarray(child_offsets, dtype=np.int64)
        self._ids = np.asarray(child_ids)
        self.rows = self._block(np.asarray(roots), -1, -1)
        self.expanded: set[int] = set()
        self.cursor = 0

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def program(self) -> np.ndarray:
        return self.rows["program"]

    @property
    def depth(self) -> np.ndarray:
        return self.rows["depth"]

    @property
    def parent(self) -> np.ndarray:
        return self.rows["parent"]

    # Questions --------------------------------------------------------------------

    def children(self, program: int) -> np.ndarray:
        return self._ids[self._offsets[program] : self._offsets[program + 1]]

    def count(self, program: int) -> int:
        return int(self._offsets[program + 1] - self._offsets[program])

    def expandable(self, row: int) -> bool:
        return self.count(int(self.rows["program"][row])) > 0

    def is_open(self, row: int) -> bool:
        depth = self.rows["depth"]
        return row + 1 < len(depth) and depth[row + 1] > depth[row]

    def end_of(self, row: int) -> int:
        """The row after ROW's open subtree."""
        beyond = self.rows["depth"][row + 1 :] <= self.rows["depth"][row]
        first = int(beyond.argmax()) if len(beyond) else 0
        return row + 1 + first if len(beyond) and beyond[first] else len(self.rows)

    def row_of(self, program: int) -> int | None:
        """The first row showing PROGRAM."""
        hits = np.flatnonzero(self.rows["program"] == program)
        return int(hits[0]) if len(hits) else None

    def guides(self, row: int) -> str:
        """The guide lines left of ROW's label: one part per ancestor below the roots, then ROW's branch."""
        rows = self.rows
        if rows["depth"][row] == 0:
            return ""
        parts = [BRANCH_LAST if rows["last"][row] else BRANCH_MORE]
        above = int(rows["parent"][row])
        while rows["depth"][above] > 0:
            parts.append(GUIDE_LAST if rows["last"][above] else GUIDE_MORE)
            above = int(rows["parent"][above])
        return "".join(reversed(parts))

    def previous_sibling(self, row: int) -> int | None:
        parent = int(self.rows["parent"][row])
        first = parent + 1
        hits = np.flatnonzero(self.rows["parent"][first:row] == parent)
        return first + int(hits[-1]) if len(hits) else None

    def next_sibling(self, row: int) -> int | None:
        after = self.end_of(row)
        return after if after < len(self.rows) and self.rows["parent"][after] == self.rows["parent"][row] else None

    # Changes: each returns the rows added (negative: removed) ---------------------

    def expand(self, row: int) -> int:
        if self.is_open(row) or not self.expandable(row):
            return 0
        program = int(self.rows["program"][row])
        self.expanded.add(program)
        return self._splice(row + 1, row + 1, self._open_rows(program, int(self.rows["depth"][row]), row, {program}))

    def collapse(self, row: int, forget: bool = False) -> int:
        """Hide ROW's descendants; FORGET also forgets which of them were open."""
        program = int(self.rows["program"][row])
        if forget:
            self._forget(program)
        else:
            self.expanded.discard(program)
        return self._splice(row + 1, self.end_of(row), self._block(np.zeros(0, np.int64), 0, row))

    def expand_children(self, row: int, cap: int = EXPAND_CAP) -> tuple[int, int, int]:
        """Open ROW and its children, in order, while their children's rows stay within CAP.

        Returns (children opened, expandable children, rows added).
        """
        program = int(self.rows["program"][row])
        kids = self.children(program)
        counts = self._offsets[kids + 1] - self._offsets[kids]
        expandable = kids[counts > 0]
        within = int(np.searchsorted(np.cumsum(counts[counts > 0]), cap, side="right"))
        self.expanded.add(program)
        self.expanded.update(expandable[:within].tolist())
        block = self._open_rows(program, int(self.rows["depth"][row]), row, {program})
        remembered = np.fromiter(self.expanded, np.int64, len(self.expanded))
        opened = int(np.isin(expandable, remembered).sum())
        return opened, len(expandable), self._splice(row + 1, self.end_of(row), block)

    def reveal(self, path: list[int]) -> int | None:
        """Open every program along PATH (a root first) and return the last one's row."""
        rows = self.rows
        hits = np.flatnonzero((rows["depth"] == 0) & (rows["program"] == path[0])) if path else []
        if not len(hits):
            return None
        row = int(hits[0])
        for program in path[1:]:
            self.expand(row)
            inside = self.rows[row + 1 : self.end_of(row)]
            depth = self.rows["depth"][row] + 1
            hits = np.flatnonzero((inside["program"] == program) & (inside["depth"] == depth))
            if not len(hits):
                return None
            row += 1 + int(hits[0])
        return row

    def open_programs(self) -> list[int]:
        """The programs whose rows are open now, in row order."""
        depth = self.rows["depth"]
        return self.rows["program"][:-1][depth[1:] > depth[:-1]].tolist()

    def reopen(self, programs: list[int]) -> None:
        """Just PROGRAMS open (those under an open parent), as open_programs said them; the cursor on the first row."""
        self.expanded = set(programs)
        self.rows = self._block(self.rows["program"][self.rows["depth"] == 0], -1, -1)
        self.cursor = 0
        remembered = np.fromiter(self.expanded, np.int64, len(self.expanded))
        for row in np.flatnonzero(np.isin(self.rows["program"], remembered))[::-1].tolist():
            self.expand(row)  # from the last root up: a root's rows go in below it, the rows above stay

    # Building rows ----------------------------------------------------------------

    def _block(self, programs: np.ndarray, depth: int, parent_row: int) -> np.ndarray:
        block = np.zeros(len(programs), ROW_FIELDS)
        block["program"] = programs
        block["depth"] = depth + 1
        block["parent"] = parent_row
        if len(block):
            block["last"][-1] = True
        return block

    def _open_rows(self, program: int, depth: int, row: int, path: set[int]) -> np.ndarray:
        """The rows under PROGRAM open at ROW: its children, each remembered open one with its own.

        PATH holds the programs above, so that a cycle in the child lists is not reopened.
        """
        kids = self.children(program)
        block = self._block(kids, depth, row)
        if not self.expanded:
            return block
        remembered = np.fromiter(self.expanded, np.int64, len(self.expanded))
        reopen = [i for i in np.flatnonzero(np.isin(kids, remembered)).tolist() if int(kids[i]) not in path]
        if not reopen:
            return block
        pieces, start, next_row = [], 0, row + 1
        for i in reopen:
            pieces.append(block[start : i + 1])
            next_row += i + 1 - start
            kid = int(kids[i])
            below = self._open_rows(kid, depth + 1, next_row - 1, path | {kid})
            pieces.append(below)
            next_row += len(below)
            start = i + 1
        pieces.append(block[start:])
        return np.concatenate(pieces)

    def _splice(self, start: int, stop: int, block: np.ndarray) -> int:
        """Put BLOCK (parents given as rows from START on) in place of rows [START, STOP)."""
        delta = len(block) - (stop - start)
        self.rows = np.concatenate([self.rows[:start], block, self.rows[stop:]])
        after = self.rows["parent"][start + len(block) :]
        after[after >= stop] += delta
        if self.cursor >= stop:
            self.cursor += delta
        elif self.cursor >= start:
            self.cursor = start - 1  # its row is gone: onto the node whose subtree it was in
        return delta

    def _forget(self, program: int) -> None:
        """Forget PROGRAM and every remembered-open program below it."""
        stack = [program]
        while stack and self.expanded:
            program = stack.pop()
            self.expanded.discard(program)
            remembered = np.fromiter(self.expanded, np.int64, len(self.expanded))
            kids = self.children(program)
            stack.extend(kids[np.isin(kids, remembered)].tolist())
