"""The native reader: profile.pop read straight from its SQLite tables, without libpva.

It opens the file read-only and immutable (as `pvtui check` does), reads sqlite_master and each
table's columns, and fills from each table the public record shows (sources/pop_schema.py) what
its columns allow, a batch of rows at a time into numpy columns. What no such table gives
(liveness, the program tree, runs, tile balance, data moved, per-tile cycles, operations, the
target's memory and clock) is noted part by part, naming libpva; archive.a and the JSON files give
what they can beside it (sources/ingest.py).
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Iterator

import numpy as np

from pvtui.errors import Cancelled
from pvtui.sources.base import IngestContext
from pvtui.sources.pop_schema import KNOWN, PROFILE, Found, Unusable, find
from pvtui.sources.sqlite_file import NotIntegers, connect, integer_batches, interrupted, quote, tables, text_column

READER = "native"
ROWIDS_PER_QUERY = 500
BYTES_PER_BATCH = 4 << 20
LIBPVA = "libpva (Poplar SDK)"
# One line for every part the tables leave out or give in part: shown once, and by each view that lacks it.
LIMITS = (f"{PROFILE} read by the native reader: liveness, the program tree, runs, tile balance, per-tile cycles,"
          f" gaps, always-live bytes and the target's memory and clock are in none of its known tables;"
          f" {LIBPVA} reads them")
# the parts, and what views ask for within the parts read (Report.missing), that the tables leave out
LIMITED_PARTS = ("liveness", "liveness_tiles", "bsp", "operations", "tile_split", "program_tree", "step_details",
                 "variable_liveness")


class ProfileTables:
    """The known tables of one open profile.pop, each found once; a table that cannot be used is noted
    under the part that needed it."""

    def __init__(self, db: sqlite3.Connection, path: Path, ctx: IngestContext) -> None:
        self.db, self.path, self.ctx = db, path, ctx
        self.all = tables(db, count=False)  # SQLite counts a table by reading all of it: counted where needed
        self._found: dict[str, Found | None] = {}
        self.program_ids: np.ndarray | None = None  # programs.id of each program index, ascending
        self.steps_read: tuple[np.ndarray, np.ndarray] | None = None  # step ids ascending, their programs
        self.num_ipus: int | None = None
        self.num_tiles: int | None = None

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
        for batch in integer_batches(self.db, self.path, found.table, [found[role] for role in roles], rowid):
            self.ctx.cancel.check()
            held.append(batch if rowid else batch[1:])
            count += batch.shape[1]
            if count >= rows:
                yield np.concatenate(held, axis=1)
                held, count = [], 0
        if held:
            yield np.concatenate(held, axis=1)

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


def read_native_profile(path: Path, ctx: IngestContext) -> None:
    """Fill the bundle's profile parts from what profile.pop's known tables give; note the rest."""
    from pvtui.sources import native_memory
    from pvtui.sources import native_steps

    readers = ctx.meta.setdefault("readers", {})
    try:
        with closing(connect(path, ctx.cancel)) as db:
            profile = ProfileTables(db, path, ctx)
            if not any(name in {n.lower() for n in profile.all} for name in KNOWN):
                _note_unread(ctx, f"{PROFILE}: not read: none of its {len(profile.all):,} tables is one the"
                                  f" native reader knows (an unknown schema); {LIBPVA} is needed")
                return
            for part, read in (("programs", native_steps.read_programs), ("execution", native_steps.read_execution),
                               ("memory", native_memory.read_memory)):
                try:
                    readers.update(dict.fromkeys(read(profile), READER))
                except NotIntegers as exc:
                    ctx.note(part, f"{PROFILE}: {part} not read: {exc}; an unknown schema, {LIBPVA} is needed")
            ctx.meta["target"] = profile.target()
    except sqlite3.Error as exc:
        if ctx.cancel.cancelled or interrupted(exc):
            raise Cancelled() from None
        _note_unread(ctx, f"{PROFILE}: not read: SQLite cannot read it ({exc}); {LIBPVA} is needed")
        return
    for part in LIMITED_PARTS:
        ctx.note(part, LIMITS)


def _note_unread(ctx: IngestContext, message: str) -> None:
    for part in ("memory", "programs", "liveness", "execution"):
        ctx.note(part, message)
