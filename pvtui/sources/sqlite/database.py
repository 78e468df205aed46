"""profile.pop as SQLite sees it: opened read-only and immutable, its tables, columns and row counts,
and whole integer columns read in batches into numpy arrays.

Shared by `pvtui check` and the native reader. Nothing here knows what the tables mean.
"""

from __future__ import annotations

import os
import sqlite3
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import numpy as np

from pvtui.sources.base import CancelToken
from pvtui.sources.sqlite.pages import LEAF_CELL, NULL, Unreadable, leaf_batches

CANCEL_EVERY_OPS = 100_000  # SQLite virtual machine steps between looks at the cancel token
ROWS_PER_BATCH = 1 << 18
# SQLite reading a table's rows (where the page reader gave up) is given this long at least, and this
# long again for every MB of the file: far more than a sound file takes
SQLITE_SECONDS, SQLITE_SECONDS_PER_MB = 60.0, 1.0
MALFORMED = "database disk image is malformed"  # SQLite's own words for a damaged file


def connect(path: Path, cancel: CancelToken) -> sqlite3.Connection:
    """PATH opened by SQLite read-only and immutable, its long statements stopped by CANCEL, its texts read
    whatever their bytes.

    `mode=ro` alone still takes locks and, for a WAL database, creates -wal and -shm files
    beside it (and leaves them); `immutable=1` reads the file as it stands and touches
    nothing else. A writer's -journal or -wal is looked for separately.
    """
    db = sqlite3.connect(Path(os.path.abspath(path)).as_uri() + "?mode=ro&immutable=1", uri=True)
    # a damaged or foreign text is read with U+FFFD in place of what is no UTF-8, where Python's default
    # refuses the whole query with the text quoted in its message
    db.text_factory = lambda raw: raw.decode("utf-8", "replace")
    db.set_progress_handler(lambda: 1 if cancel.cancelled else 0, CANCEL_EVERY_OPS)
    return db


def interrupted(exc: sqlite3.Error) -> bool:
    """Whether EXC is SQLite stopping for the progress handler (a cancel, or Ctrl+C swallowed there)."""
    return getattr(exc, "sqlite_errorname", None) == "SQLITE_INTERRUPT" or str(exc) == "interrupted"


def quote(name: str) -> str:
    """NAME as an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def sql_text(text: str) -> str:
    """TEXT as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


@dataclass(frozen=True)
class Column:
    name: str
    declared: str  # the type the schema declares ("INTEGER", "TEXT", "" ...)
    position: int = 0  # in the table's records
    key: bool = False  # part of the primary key

    @property
    def affinity(self) -> str:
        """SQLite's type affinity of the declared type (sqlite.org/datatype3.html, 3.1)."""
        declared = self.declared.upper()
        if "INT" in declared:
            return "INTEGER"
        if any(word in declared for word in ("CHAR", "CLOB", "TEXT")):
            return "TEXT"
        if "BLOB" in declared or not declared:
            return "BLOB"
        if any(word in declared for word in ("REAL", "FLOA", "DOUB")):
            return "REAL"
        return "NUMERIC"

    @property
    def holds_integers(self) -> bool:
        """Whether the column can hold whole numbers as such (not text or floating point)."""
        return self.affinity in ("INTEGER", "NUMERIC", "BLOB")


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]
    rows: int | None  # None when counting failed
    rowid: bool  # False for a WITHOUT ROWID table
    root: int = 0  # its b-tree's root page
    problem: str = ""  # why counting its rows failed

    def column(self, name: str) -> Column | None:
        """The column called NAME, in any case (SQLite's names are case-insensitive)."""
        return next((c for c in self.columns if c.name.lower() == name.lower()), None)

    @property
    def alias(self) -> Column | None:
        """The INTEGER PRIMARY KEY column, which is the rowid (stored as NULL in the records)."""
        keys = [c for c in self.columns if c.key]
        if self.rowid and len(keys) == 1 and keys[0].declared.upper() == "INTEGER":
            return keys[0]
        return None

    def to_json(self) -> dict:
        return {"rows": self.rows, "columns": {c.name: c.declared for c in self.columns}}


def tables(db: sqlite3.Connection, count: bool = True) -> dict[str, Table]:
    """Every table of the database by name, with its columns and (with COUNT) its rows.

    Raises sqlite3.Error when the schema itself cannot be read; a table that cannot be counted has
    rows None."""
    listed = db.execute("SELECT name, sql, rootpage FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall()
    out = {}
    for name, sql, root in listed:
        columns = tuple(Column(str(row[1]), str(row[2] or ""), int(row[0]), bool(row[5]))
                        for row in db.execute(f"PRAGMA table_info({quote(name)})"))
        rows, problem = None, ""
        if count:
            try:
                rows = int(db.execute(f"SELECT count(*) FROM {quote(name)}").fetchone()[0])
            except sqlite3.DatabaseError as exc:
                if interrupted(exc):
                    raise
                problem = str(exc)
        rowid = "WITHOUT ROWID" not in " ".join(str(sql or "").upper().split())
        out[str(name)] = Table(str(name), columns, rows, rowid, root if isinstance(root, int) else 0, problem)
    return out


class NotIntegers(ValueError):
    """A column holds values that are not whole numbers (text, floating point, blobs)."""


def integer_batches(
    db: sqlite3.Connection, path: Path, table: Table, columns: list[str], rowid: bool = False,
    rows: int = ROWS_PER_BATCH, progress: Callable[[int, int], None] = lambda done, total: None,
) -> Iterator[np.ndarray]:
    """COLUMNS (names) of TABLE in rowid order, a batch at a time: int64 arrays [1 + len(COLUMNS), n],
    the rowid first (with ROWID; else -1 but for the last row's); NULL reads as NULL. Raises NotIntegers
    naming the first column with another kind of value, sqlite3.DatabaseError where the file is damaged
    (Damaged where SQLite reads on but cannot be right). PROGRESS(pages done, pages) follows the pages read.

    Read from the table's pages with numpy (sqlite.pages) as far as that reader goes, the rest
    through SQLite: no Python object per row either way.
    """
    last = NULL
    if table.rowid and table.root > 0:
        alias = table.alias
        positions = [table.column(c).position for c in columns]
        try:
            for done, leaves, batch in leaf_batches(path, table.root, positions, alias.position if alias else -1,
                                                    rowid):
                progress(done, leaves)
                last = int(batch[0, -1]) if batch.shape[1] else last
                yield batch
            return
        except Unreadable:
            pass  # SQLite reads from the row after the last one given
    bounds = Bounds(db, table)
    if not table.rowid:
        yield from _fetched_batches(db, table, columns, rows, bounds)
        return
    yield from _sql_batches(db, table, columns, rows, last, bounds)


class Damaged(sqlite3.DatabaseError):
    """SQLite reads on through a damaged table (its b-tree leads back to pages read before, or its rowids
    are out of order): said in SQLite's own words for a damaged file, the table's name and what gave it away."""

    def __init__(self, table: Table, why: str) -> None:
        super().__init__(f"{MALFORMED} ({table.name} {why})")


class Bounds:
    """What a read of TABLE through SQLite cannot exceed in a sound file: the rows its pages can hold (every
    page full of the smallest cells), a time; and rowids that only go up."""

    def __init__(self, db: sqlite3.Connection, table: Table) -> None:
        pages = int(db.execute("PRAGMA page_count").fetchone()[0])
        page_size = int(db.execute("PRAGMA page_size").fetchone()[0])
        self.table = table
        self.most_rows = pages * (page_size // LEAF_CELL)
        self.seconds = SQLITE_SECONDS + SQLITE_SECONDS_PER_MB * pages * page_size / 1e6
        self.deadline = time.monotonic() + self.seconds
        self.rows = 0

    def check(self, count: int, rowids: np.ndarray | None = None, last: int = NULL) -> None:
        """After a batch of COUNT rows (their ROWIDS, where the table has them; the rowid before them, LAST)."""
        self.rows += count
        if rowids is not None and count and (rowids[0] <= last or (np.diff(rowids) <= 0).any()):
            raise Damaged(self.table, "gives rows again or out of order: its b-tree leads back to pages read before")
        if self.rows > self.most_rows:
            raise Damaged(self.table, f"gives more rows than its file's pages can hold ({self.most_rows:,})")
        if time.monotonic() > self.deadline:
            raise Damaged(self.table, f"still gives rows after {self.seconds:,.0f} s")


def _sql_batches(db: sqlite3.Connection, table: Table, columns: list[str], rows: int, last: int,
                 bounds: Bounds) -> Iterator[np.ndarray]:
    """SQLite formats a batch of each column as one decimal text (group_concat) and numpy parses it. SQLite
    also counts each column's values that are not integers, which are refused: numpy's parse read some texts
    and blobs as numbers (a blob "+" as 0), and a blob that is no UTF-8 failed the text's decoding, so the
    text is of the values cast to integers."""
    labels = ["rowid", *columns]
    aggregates = ", ".join(f"group_concat(CAST(c{i} AS INTEGER))" for i in range(len(labels)))
    others = ", ".join(f"total(typeof(c{i}) != 'integer')" for i in range(len(labels)))
    inner = ", ".join(f"ifnull({quote(c) if i else 'rowid'}, {NULL}) AS c{i}" for i, c in enumerate(labels))
    query = (f"SELECT count(*), {others}, {aggregates} FROM (SELECT {inner} FROM {quote(table.name)}"
             f" WHERE rowid > ? ORDER BY rowid LIMIT ?)")
    while True:
        count, *found = db.execute(query, (last, rows)).fetchone()
        if not count:
            return
        odd, texts = found[: len(labels)], found[len(labels):]
        for label, not_integers in zip(labels, odd):
            if not_integers:
                raise NotIntegers(f"{table.name}.{label} holds values that are not whole numbers")
        batch = np.empty((len(labels), count), np.int64)
        for i, text in enumerate(texts):
            batch[i] = _parse(text, count, f"{table.name}.{labels[i]}")
        bounds.check(count, batch[0], last)
        yield batch
        last = int(batch[0, -1])


def _parse(text: str | bytes | None, count: int, label: str) -> np.ndarray:
    if isinstance(text, str):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy warns, or raises, where the text stops parsing: told below
            try:
                values = np.fromstring(text, np.int64, sep=",")
            except ValueError:
                values = np.zeros(0, np.int64)
        if len(values) == count:
            return values
    raise NotIntegers(f"{label} holds values that are not whole numbers")


def _fetched_batches(db: sqlite3.Connection, table: Table, columns: list[str], rows: int,
                     bounds: Bounds) -> Iterator[np.ndarray]:
    """The slow way, a row at a time, for a table without rowids (which has no rowid: -1 stands in)."""
    cursor = db.execute(f"SELECT {', '.join(quote(c) for c in columns)} FROM {quote(table.name)}")
    while fetched := cursor.fetchmany(rows):
        batch = np.full((1 + len(columns), len(fetched)), -1, np.int64)
        for i, column in enumerate(columns):
            values = [row[i] for row in fetched]
            if not all(v is None or type(v) is int for v in values):
                raise NotIntegers(f"{table.name}.{column} holds values that are not whole numbers")
            batch[1 + i] = [NULL if v is None else v for v in values]
        bounds.check(len(fetched))
        yield batch


def text_column(db: sqlite3.Connection, table: Table, key: str, text: str) -> tuple[np.ndarray, list[str]]:
    """(keys, texts) of TABLE's rows: KEY an integer column, TEXT shown as text; for small tables (names)."""
    rows = db.execute(f"SELECT {quote(key)}, {quote(text)} FROM {quote(table.name)}").fetchall()
    keys = [k for k, _ in rows]
    if not all(type(k) is int for k in keys):
        raise NotIntegers(f"{table.name}.{key} holds values that are not whole numbers")
    return np.array(keys, np.int64), [_text(t) for _, t in rows]


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)
