"""The native reader's access to one open profile.pop: its known tables, found once, read a batch of
integer columns at a time, or as text for the small tables of names; and the lookup of ids."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Iterator

import numpy as np

from pvtui.sources.base import IngestContext
from pvtui.sources.pop_schema import PROFILE, Found, Unusable, find
from pvtui.sources.sqlite.database import integer_batches, quote, tables, text_column

LIBPVA = "libpva (Poplar SDK)"
READER = "native"  # the reader the parts it fills are recorded as read by (meta `readers`)
ROWIDS_PER_QUERY = 500
BYTES_PER_BATCH = 4 << 20
SPARSEST = 2  # tile and IPU numbers run to at most twice as many as the file names: what sizes their arrays


def numbered(named: np.ndarray) -> int:
    """How many numbers from 0 the distinct tile or IPU numbers NAMED (ascending, none negative) take: up to
    the largest below SPARSEST times their count. A larger number is not believed (the file names too few
    others to fill an array up to it): its rows are left out, and said (`beyond`)."""
    kept = named[named < SPARSEST * len(named)]
    return int(kept[-1]) + 1 if len(kept) else 0


def beyond(table: str, what: str, numbers: np.ndarray, rows: int, kept: int) -> str:
    """One line naming the ROWS of TABLE on NUMBERS (distinct, ascending) of WHAT (tiles, IPUs) beyond the KEPT."""
    listed = ", ".join(f"{n:,}" for n in numbers[:3].tolist()) + (", …" if len(numbers) > 3 else "")
    return (f"{PROFILE}: {rows:,} row{'s' if rows != 1 else ''} of {table} on {what} {listed}, beyond the {kept:,}"
            f" {what} its other rows name: left out")


class ProfileTables:
    """The known tables of one open profile.pop, each found once; a table that cannot be used is noted
    under the part that needed it."""

    def __init__(self, db: sqlite3.Connection, path: Path, ctx: IngestContext) -> None:
        self.db, self.path, self.ctx = db, path, ctx
        self.all = tables(db, count=False)  # SQLite counts a table by reading all of it: counted where needed
        self._found: dict[str, Found | None] = {}
        self.program_ids: np.ndarray | None = None  # programs.id of each program index, ascending
        self.steps_read: tuple[StepIds, np.ndarray] | None = None  # step ids ascending, their programs
        self.num_ipus: int | None = None
        self.num_tiles: int | None = None
        self.memory_split: int | None = None  # the tiles per IPU the memory part's tiles were split by

    def target(self) -> dict:
        """What the tables say of the target: tiles and IPUs; nothing of its memory or clock."""
        per_ipu = None
        if self.num_tiles and self.num_ipus and self.num_tiles % self.num_ipus == 0:
            per_ipu = self.num_tiles // self.num_ipus
        return {"num_tiles": self.num_tiles, "num_ipus": self.num_ipus, "tiles_per_ipu": per_ipu}

    def get(self, name: str, part: str) -> Found | None:
        """Table NAME, or None (absent or unusable: unusable is noted under PART)."""
        if name not in self._found:
            try:
                self._found[name] = find(self.all, name)
            except Unusable as exc:
                self._found[name] = None
                self.ctx.note(part, str(exc))
        return self._found[name]

    def batches(self, found: Found, roles: list[str], rowid: bool = False) -> Iterator[np.ndarray]:
        """ROLES' columns of FOUND, BYTES_PER_BATCH at a time ([len(ROLES), n]), after the rowid with ROWID:
        decoded in smaller batches, handed on in larger ones (each costs its consumer per call), never so
        large that the consumer's copies of them cost much memory."""
        rows = BYTES_PER_BATCH // (8 * (len(roles) + 1))
        held, count = [], 0
        stage = f"profile.pop: {found.table.name}"
        columns = [found[role] for role in roles]
        for batch in integer_batches(self.db, self.path, found.table, columns, rowid,
                                     progress=lambda done, total: self.ctx.progress(stage, done, total)):
            self.ctx.cancel.check()
            held.append(batch if rowid else batch[1:])
            count += batch.shape[1]
            if count >= rows:
                yield held[0] if len(held) == 1 else np.concatenate(held, axis=1)
                held, count = [], 0
        if held:
            yield held[0] if len(held) == 1 else np.concatenate(held, axis=1)

    def column(self, found: Found, role: str) -> np.ndarray:
        """One whole integer column (for tables of a row per program, step or tile)."""
        parts = [batch[0] for batch in self.batches(found, [role])]
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)

    def texts_at(self, found: Found, role: str, rowids: np.ndarray) -> list[str]:
        """ROLE's values as text at the rows ROWIDS ("" where absent)."""
        column, table = quote(found[role]), quote(found.table.name)
        texts: dict[int, str] = {}
        for lo in range(0, len(rowids), ROWIDS_PER_QUERY):
            chunk = rowids[lo : lo + ROWIDS_PER_QUERY].tolist()
            marks = ", ".join("?" * len(chunk))
            texts.update(self.db.execute(f"SELECT rowid, CAST({column} AS TEXT) FROM {table} WHERE rowid IN ({marks})",
                                         chunk).fetchall())
        return [texts.get(r) or "" for r in rowids.tolist()]

    def program_index(self, ids: np.ndarray) -> np.ndarray:
        """The program index of each program id, -1 where the programs table has no such id."""
        return Lookup(self.program_ids if self.program_ids is not None else np.zeros(0, np.int64), -1)(ids)

    def count(self, found: Found) -> int:
        return int(self.db.execute(f"SELECT count(*) FROM {quote(found.table.name)}").fetchone()[0])

    def empty(self, found: Found) -> bool:
        return self.db.execute(f"SELECT 1 FROM {quote(found.table.name)} LIMIT 1").fetchone() is None

    def texts(self, found: Found, key: str | None, text: str) -> tuple[np.ndarray, list[str]]:
        """(keys, texts) of a small table; KEY None means the rowid."""
        return text_column(self.db, found.table, found[key] if key else "rowid", found[text])


class Lookup:
    """The position of each of some keys in KEYS (ascending), MISSING for a key not among them: a table
    indexed by key where the keys are dense enough, else a binary search."""

    def __init__(self, keys: np.ndarray, missing: int) -> None:
        self.keys, self.missing = keys, missing
        self.low = int(keys[0]) if len(keys) else 0
        span = int(keys[-1]) - self.low + 1 if len(keys) else 0
        self.table = None
        if 0 < span <= 4 * len(keys) + 4096:
            self.table = np.full(span + 1, missing, np.int64)  # the last: every key out of range
            self.table[keys - self.low] = np.arange(len(keys))

    def __call__(self, ids: np.ndarray) -> np.ndarray:
        if not len(self.keys):
            return np.full(len(ids), self.missing, np.int64)
        if self.table is not None:
            offset = ids - self.low
            offset[(offset < 0) | (offset >= len(self.table))] = len(self.table) - 1
            return self.table[offset]
        index = np.minimum(np.searchsorted(self.keys, ids), len(self.keys) - 1)
        return np.where(self.keys[index] == ids, index, self.missing)


class StepIds:
    """The steps table's ids, ascending, and where an id is among them. Ids that run on without a gap (as
    an INTEGER PRIMARY KEY from 1 gives them) are kept as the first and their number: no array of a row
    per step, no search. Other ids are searched, never tabled as Lookup tables dense keys: a table over
    the span of millions of steps would cost several times the ids themselves."""

    def __init__(self, first: int, count: int, ids: np.ndarray | None = None) -> None:
        self.first, self.count, self.ids = first, count, ids

    def __len__(self) -> int:
        return self.count

    def where(self, step_id: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the index of each of STEP_ID, whether it is one of the ids); 0 where it is not."""
        if self.ids is None:
            step = step_id - self.first
            ok = (step >= 0) & (step < self.count)
            return (step, ok) if ok.all() else (np.where(ok, step, 0), ok)
        if not self.count:
            return np.zeros(len(step_id), np.int64), np.zeros(len(step_id), bool)
        step = np.minimum(np.searchsorted(self.ids, step_id), self.count - 1)
        ok = self.ids[step] == step_id
        return np.where(ok, step, 0), ok
