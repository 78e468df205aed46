"""The page reader of profile.pop (pvtui.sources.sqlite) against SQLite: sound files read as SQLite reads
them; damaged b-tree pages (cell counts, pointers, child pointers, record headers, serial types, page
types) read as SQLite reads them or end in one clean line, in bounded time and memory, never by a
check the page reader missed; and the read through SQLite after it gives up, bounded too."""

from __future__ import annotations

import shutil
import sqlite3
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from pvtui.sources.base import CancelToken
from pvtui.sources.sqlite import database
from pvtui.sources.sqlite.pages import Unreadable, leaf_batches

LEAF, INTERIOR = 0x0D, 0x05


def sound_tree(path: Path, root: int) -> tuple[list[int], list[int]]:
    """(interior pages, leaf pages) of the table b-tree at ROOT of a sound file, read here byte by byte."""
    data = path.read_bytes()
    size = int.from_bytes(data[16:18], "big")
    interior, leaves, level = [], [], [root]
    while level:
        below = []
        for page in level:
            at = (page - 1) * size + (100 if page == 1 else 0)
            if data[at] == LEAF:
                leaves.append(page)
                continue
            interior.append(page)
            for i in range(int.from_bytes(data[at + 3 : at + 5], "big")):
                cell = (page - 1) * size + int.from_bytes(data[at + 12 + 2 * i : at + 14 + 2 * i], "big")
                below.append(int.from_bytes(data[cell : cell + 4], "big"))
            below.append(int.from_bytes(data[at + 8 : at + 12], "big"))
        level = below
    return interior, leaves



def test_pages_read_as_sqlite_reads_them(tmp_path):
    path = tmp_path / "mixed.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, label TEXT, a INTEGER, b)")
    rng = np.random.default_rng(1)
    values = [None, 0, 1, -1, 127, -128, 255, 2**15, -(2**23), 2**31 - 1, -(2**40), 2**47, 2**62, -(2**63),
              2**63 - 1]
    rows = [(i * 3 + 7, "x" * int(rng.integers(0, 9000)) if i % 50 == 0 else f"row {i}", values[i % len(values)],
             int(rng.integers(-(2**40), 2**40))) for i in range(20_000)]
    db.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", rows)  # long labels spill to overflow pages
    db.execute("CREATE TABLE plain (a INTEGER, b INTEGER)")
    db.executemany("INSERT INTO plain VALUES (?, ?)", [(i, -i) for i in range(30_000)])
    db.execute("ALTER TABLE plain ADD COLUMN c INTEGER")  # old rows hold fewer values than the table has columns
    db.execute("INSERT INTO plain VALUES (1, 2, 3)")
    db.commit()
    db.close()
    conn = database.connect(path, CancelToken())
    tables = database.tables(conn)
    for name, columns in (("t", ["a", "id", "b"]), ("plain", ["c", "b", "a"])):
        got = np.concatenate(list(database.integer_batches(conn, path, tables[name], columns, rowid=True)), axis=1)
        quoted = ", ".join(columns)
        want = conn.execute(f"SELECT rowid, {quoted} FROM {name} ORDER BY rowid").fetchall()
        want = np.array([[database.NULL if v is None else v for v in row] for row in want], np.int64).T
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_a_plain_table_is_read_from_its_pages_not_through_sqlite(tiny_dir, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("read through SQLite")

    monkeypatch.setattr(database, "_sql_batches", refuse)
    path = tiny_dir / "profile.pop"
    conn = database.connect(path, CancelToken())
    table = database.tables(conn)["vars_info"]
    rows = sum(batch.shape[1] for batch in database.integer_batches(conn, path, table, ["tile", "size_bytes"]))
    assert rows == table.rows


def test_a_damaged_page_is_read_by_sqlite_which_says_so(tiny_dir, tmp_path):
    path = tmp_path / "profile.pop"
    shutil.copy(tiny_dir / "profile.pop", path)
    conn = database.connect(path, CancelToken())
    table = database.tables(conn)["vars_info"]
    leaf = sound_tree(path, table.root)[1][3]
    conn.close()
    data = bytearray(path.read_bytes())
    data[(leaf - 1) * 4096] = 0x42  # not a b-tree page any more
    path.write_bytes(bytes(data))
    conn = database.connect(path, CancelToken())
    with pytest.raises(sqlite3.DatabaseError):
        list(database.integer_batches(conn, path, table, ["tile"]))
