"""The page reader of profile.pop (pvtui.sources.sqlite) against SQLite: sound files read as SQLite reads
them; damaged b-tree pages (cell counts, pointers, child pointers, record headers, serial types, page
types) read as SQLite reads them or end in one clean line, in bounded time and memory, never by a
check the page reader missed; and the read through SQLite after it gives up, bounded too."""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pvtui.sources.base import CancelToken
from pvtui.sources.sqlite import database, pages
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


@pytest.mark.parametrize("decoders", [1, 2])
def test_every_integer_width_and_long_serial_types_are_read_from_the_pages(tmp_path, monkeypatch, decoders):
    """Values of every serial type before and among the wanted columns (texts too long for a one-byte serial
    type, NULLs, 0 and 1, 1 to 8 bytes, negative), over more serial types than one 8-byte read of the header
    holds and more reads of pages than there are decoders: as SQLite reads them, in order, never through it."""
    monkeypatch.setattr(database, "_sql_batches", lambda *args, **kwargs: pytest.fail("read through SQLite"))
    monkeypatch.setattr(pages, "DECODERS", decoders)
    monkeypatch.setattr(pages, "PAGES_PER_READ", 64)
    path = tmp_path / "widths.db"
    db = sqlite3.connect(path)
    names = [f"c{i}" for i in range(10)]
    db.execute(f"CREATE TABLE t (label TEXT, {', '.join(n + ' INTEGER' for n in names)})")
    values = [None, 0, 1, -1, 127, -128, 255, 2**15, -(2**23), 2**31 - 1, -(2**40), 2**47, 2**62, -(2**63), 2**63 - 1]
    rng = np.random.default_rng(3)
    rows = [("y" * int(rng.integers(0, 1500)) if i % 3 == 0 else "",
             *(values[int(k)] for k in rng.integers(0, len(values), len(names)))) for i in range(9_000)]
    db.executemany(f"INSERT INTO t VALUES ({', '.join('?' * (1 + len(names)))})", rows)
    db.commit()
    db.close()
    conn = database.connect(path, CancelToken())
    table = database.tables(conn)["t"]
    wanted = ["c9", "c0", "c4", "c8"]
    got = np.concatenate(list(database.integer_batches(conn, path, table, wanted, rowid=True)), axis=1)
    want = conn.execute(f"SELECT rowid, {', '.join(wanted)} FROM t ORDER BY rowid").fetchall()
    want = np.array([[database.NULL if v is None else v for v in row] for row in want], np.int64).T
    assert table.rows > 1, "rows"
    np.testing.assert_array_equal(got, want)
    assert path.stat().st_size > 4 * 64 * 4096 * decoders  # more reads than decoders


def test_decoding_threads_are_done_when_a_read_fails_or_its_caller_stops(tmp_path, monkeypatch):
    monkeypatch.setattr(pages, "DECODERS", 2)
    monkeypatch.setattr(pages, "PAGES_PER_READ", 4)
    path = tmp_path / "many.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE t (a INTEGER, b INTEGER)")
    db.executemany("INSERT INTO t VALUES (?, ?)", [(i, -i) for i in range(40_000)])
    db.commit()
    root = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 't'").fetchone()[0]
    db.close()
    leaves = sound_tree(path, root)[1]

    def decoding() -> list[str]:
        return [t.name for t in threading.enumerate() if t.name.startswith("pvtui-pages")]

    batches = leaf_batches(path, root, [0, 1], -1, True)
    next(batches)
    batches.close()
    assert not decoding()
    data = bytearray(path.read_bytes())
    data[(leaves[len(leaves) // 2] - 1) * 4096] = 0x42  # no page type
    path.write_bytes(bytes(data))
    read = 0
    with pytest.raises(Unreadable, match="a leaf page is not one"):
        for _, _, batch in leaf_batches(path, root, [0, 1], -1, True):
            read += batch.shape[1]
    assert 0 < read < 40_000 and not decoding()


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


# --- damaged pages: each case the issue names ----------------------------------------------------

COLUMNS = {"vars_info": ["tile", "category", "size_bytes"], "steps_by_ipu": ["step_id", "ipu", "cycles"],
           "memory_by_tile": ["tile", "total"]}
DEEP = "vars_info"  # three levels of b-tree at 512-byte pages


@pytest.fixture(scope="module")
def small_pop(tmp_path_factory) -> Path:
    """The tiny synthetic profile.pop with 512-byte pages: b-trees of three levels in 630 KB."""
    from pvtui.synth import generate
    from pvtui.synth.profile_pop import write_profile_pop

    path = tmp_path_factory.mktemp("pop") / "profile.pop"
    write_profile_pop(generate("tiny", seed=0), path)
    db = sqlite3.connect(path)
    db.execute("PRAGMA page_size = 512")
    db.execute("VACUUM")
    db.close()
    return path


class Damage:
    """A copy of a profile.pop to edit: its page size and the pages of one table's b-tree."""

    def __init__(self, source: Path, where: Path, table: str) -> None:
        shutil.copy(source, where)
        self.path, self.table = where, table
        self.sound = where.read_bytes()  # where things are is read here; edits go to DATA
        self.data = bytearray(self.sound)
        self.size = int.from_bytes(self.sound[16:18], "big")
        with database.connect(where, CancelToken()) as db:
            self.root = database.tables(db, count=False)[table].root
        self.interior, self.leaves = sound_tree(where, self.root)

    def header(self, page: int) -> int:
        return (page - 1) * self.size + (100 if page == 1 else 0)

    def cells(self, page: int) -> int:
        at = self.header(page)
        return int.from_bytes(self.sound[at + 3 : at + 5], "big")

    def pointer_at(self, page: int, cell: int) -> int:
        """Where in the file the pointer to CELL of PAGE is."""
        return self.header(page) + (12 if self.sound[self.header(page)] == INTERIOR else 8) + 2 * cell

    def cell_at(self, page: int, cell: int) -> int:
        at = self.pointer_at(page, cell)
        return (page - 1) * self.size + int.from_bytes(self.sound[at : at + 2], "big")

    def record_at(self, page: int, cell: int) -> int:
        """Where the record of leaf PAGE's CELL starts (after its payload size and rowid)."""
        at = self.cell_at(page, cell)
        for _ in range(2):
            while self.sound[at] >= 0x80:
                at += 1
            at += 1
        return at

    def set(self, at: int, value: int, width: int) -> None:
        self.data[at : at + width] = value.to_bytes(width, "big")

    def set_child(self, page: int, cell: int, child: int) -> None:
        """Interior PAGE's child CELL (its cell count: the right-most child) to CHILD."""
        at = self.header(page) + 8 if cell == self.cells(page) else self.cell_at(page, cell)
        self.set(at, child, 4)

    def write(self) -> Path:
        self.path.write_bytes(bytes(self.data))
        return self.path


def page_reader_reads(path: Path, table: str, columns: list[str]) -> np.ndarray | str:
    """TABLE's COLUMNS as the page reader reads them, or why it gives up: by a check of its own, never a
    decoding failure."""
    with database.connect(path, CancelToken()) as db:
        found = database.tables(db, count=False)[table]
    positions = [found.column(c).position for c in columns]
    try:
        return np.concatenate([np.zeros((1 + len(columns), 0), np.int64),
                               *(batch for _, _, batch in leaf_batches(path, found.root, positions, -1, True))], axis=1)
    except Unreadable as exc:
        assert exc.__cause__ is None, f"a check missed what this decoding met: {exc.__cause__!r}"
        return str(exc)


def page_reader_gives_up(path: Path, table: str, columns: list[str] | None = None) -> str:
    said = page_reader_reads(path, table, columns or COLUMNS[table])
    assert isinstance(said, str), "the page reader read a damaged table"
    return said


def read_through_pvtui(path: Path, table: str, columns: list[str] | None = None, rows: int = database.ROWS_PER_BATCH
                       ) -> np.ndarray | str:
    """TABLE's COLUMNS as pvtui reads them (through SQLite where the page reader gives up), or its one line."""
    columns = columns or COLUMNS[table]
    with database.connect(path, CancelToken()) as db:
        found = database.tables(db, count=False)[table]
        try:
            return np.concatenate([np.zeros((1 + len(columns), 0), np.int64),
                                   *database.integer_batches(db, path, found, columns, rowid=True, rows=rows)], axis=1)
        except (database.NotIntegers, sqlite3.DatabaseError) as exc:
            assert "\n" not in str(exc) and str(exc)
            return str(exc)


def sqlite_reads(path: Path, table: str, columns: list[str]) -> list[tuple] | None:
    """TABLE's rowids and COLUMNS as SQLite reads them, None where it finds the file damaged, or reads on past
    the rows the file's pages can hold or for more than five seconds."""
    db = database.connect(path, CancelToken())
    deadline = time.monotonic() + 5
    db.set_progress_handler(lambda: time.monotonic() > deadline, 10_000)
    pages, size = (db.execute(f"PRAGMA {name}").fetchone()[0] for name in ("page_count", "page_size"))
    limit = pages * size // 5 + 1
    try:
        rows = db.execute(f"SELECT rowid, {', '.join(columns)} FROM {table} LIMIT {limit}").fetchall()
    except sqlite3.DatabaseError:
        return None
    finally:
        db.close()
    return None if len(rows) == limit else rows


def equal_to_sqlite_or_one_line(path: Path, table: str, columns: list[str] | None = None) -> None:
    """What pvtui and its page reader read of TABLE is what SQLite reads, where it reads the table; or (pvtui)
    one clean line."""
    columns = columns or COLUMNS[table]
    want = sqlite_reads(path, table, columns)
    numbers = want is not None and all(v is None or type(v) is int for row in want for v in row)
    for got in (page_reader_reads(path, table, columns), read_through_pvtui(path, table, columns)):
        if isinstance(got, str) or want is None:
            continue
        assert numbers, f"read as numbers what SQLite reads as other values: {got}"
        expected = np.array([[database.NULL if v is None else v for v in row] for row in want], np.int64)
        np.testing.assert_array_equal(got, expected.reshape(-1, 1 + len(columns)).T)


@pytest.mark.parametrize("kind", ["blob", "text"])
def test_a_blob_or_text_of_an_integers_width_is_no_integer_through_sqlite_either(small_pop, tmp_path, kind):
    """The page reader gives up on the value; SQLite's read after it must too, where numpy's parse of
    group_concat's text read a one-byte blob "+" as 0 (found by the fuzzer)."""
    damage = Damage(small_pop, tmp_path / "profile.pop", "steps_by_ipu")
    page = damage.leaves[len(damage.leaves) // 2]
    first_type = damage.record_at(page, 0) + 1  # step_id's serial type: an integer of 1 to 8 bytes
    width = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8}[damage.data[first_type]]
    damage.data[first_type] = 12 + 2 * width + (kind == "text")  # the same width: the record still parses
    damage.write()
    assert read_through_pvtui(damage.path, "steps_by_ipu") == "steps_by_ipu.step_id holds values that are not whole numbers"
    equal_to_sqlite_or_one_line(damage.path, "steps_by_ipu")


@pytest.mark.parametrize("where", ["interior", "leaf"])
def test_a_cell_count_the_page_cannot_hold_allocates_nothing(small_pop, tmp_path, where):
    damage = Damage(small_pop, tmp_path / "profile.pop", DEEP)
    for page in damage.interior[:1] if where == "interior" else damage.leaves:  # every leaf, as the issue did
        damage.set(damage.header(page) + 3, 0xFFFF, 2)
    damage.write()
    tracemalloc.start()
    try:
        assert "more" in page_reader_gives_up(damage.path, DEEP)
        assert tracemalloc.get_traced_memory()[1] < 8 << 20
    finally:
        tracemalloc.stop()
    assert isinstance(read_through_pvtui(damage.path, DEEP), str)  # SQLite finds the file damaged too


def test_a_record_header_longer_than_its_cell(small_pop, tmp_path):
    damage = Damage(small_pop, tmp_path / "profile.pop", DEEP)
    last = damage.leaves[-1]  # the last page read: past its cells, only the buffer's end
    damage.data[damage.record_at(last, damage.cells(last) - 1)] = 0x7F
    damage.write()
    assert "header is longer" in page_reader_gives_up(damage.path, DEEP)
    equal_to_sqlite_or_one_line(damage.path, DEEP)


@pytest.mark.parametrize("serial", [b"\xff" * 9, b"\x81\x80\x80\x80\x80\x80\x80\x80\x00"],
                         ids=["negative", "wider-than-a-page"])
def test_a_serial_type_of_no_width_is_never_wrapped(tmp_path, serial):
    path = tmp_path / "wide.db"
    db = sqlite3.connect(path)
    db.execute(f"CREATE TABLE t ({', '.join(f'c{i} INTEGER' for i in range(12))})")
    db.executemany("INSERT INTO t VALUES (" + ", ".join("?" * 12) + ")", [(0,) * 11 + (i,) for i in range(50)])
    db.commit()
    db.close()
    damage = Damage(path, tmp_path / "damaged.db", "t")
    record = damage.record_at(damage.leaves[0], 0)
    assert damage.data[record] == 13  # a header of thirteen bytes: its size and twelve serial types
    damage.data[record + 1 : record + 10] = serial  # the first serial type, a varint of nine bytes
    damage.write()
    assert "serial type" in page_reader_gives_up(damage.path, "t", ["c11"])
    equal_to_sqlite_or_one_line(damage.path, "t", ["c11"])


@pytest.mark.parametrize("cycle", ["itself", "an-ancestor", "a-leaf-read-before"])
def test_a_child_pointer_to_a_page_already_read_ends(small_pop, tmp_path, cycle):
    damage = Damage(small_pop, tmp_path / "profile.pop", DEEP)
    root, middle = damage.interior[0], damage.interior[1]
    assert damage.data[damage.header(middle)] == INTERIOR, "three levels"
    if cycle == "itself":
        damage.set_child(middle, 1, middle)
    elif cycle == "an-ancestor":
        damage.set_child(middle, damage.cells(middle), root)
    else:
        first_leaf = damage.leaves[0]
        damage.set_child(damage.interior[2], 0, first_leaf)
    damage.write()
    assert "already read" in page_reader_gives_up(damage.path, DEEP)
    started = time.monotonic()
    said = read_through_pvtui(damage.path, DEEP)
    assert isinstance(said, str) and time.monotonic() - started < 30
    assert said in ("database disk image is malformed", f"{database.MALFORMED} ({DEEP} gives rows again or out of"
                    " order: its b-tree leads back to pages read before)")


def ancestor_cycle(small_pop: Path, where: Path) -> Path:
    """SMALL_POP with DEEP's second interior page leading back to the root: SQLite reads its rows again and
    again (until it is 20 pages deep)."""
    damage = Damage(small_pop, where, DEEP)
    middle = damage.interior[1]
    damage.set_child(middle, damage.cells(middle), damage.interior[0])
    return damage.write()


def test_the_read_through_sqlite_stops_where_rows_come_again(small_pop, tmp_path):
    path = ancestor_cycle(small_pop, tmp_path / "profile.pop")
    said = read_through_pvtui(path, DEEP, rows=100)  # batches SQLite fills before it gives up, the rows repeating
    assert said == (f"{database.MALFORMED} ({DEEP} gives rows again or out of order: its b-tree leads back to pages"
                    " read before)")


@pytest.mark.parametrize("bound, said", [("LEAF_CELL", "gives more rows than its file's pages can hold (0)"),
                                         ("SQLITE_SECONDS", "still gives rows after -1 s")])
def test_the_read_through_sqlite_stops_at_the_rows_and_time_a_sound_file_takes(small_pop, monkeypatch, bound, said):
    """Each bound alone, over a sound table the page reader is made to give up on."""

    def give_up(*args, **kwargs):
        raise Unreadable("made to give up")
        yield

    monkeypatch.setattr(database, "leaf_batches", give_up)
    assert isinstance(read_through_pvtui(small_pop, "memory_by_tile", rows=16), np.ndarray)
    monkeypatch.setattr(database, bound, 1 << 20 if bound == "LEAF_CELL" else -1)
    monkeypatch.setattr(database, "SQLITE_SECONDS_PER_MB", 0)
    assert read_through_pvtui(small_pop, "memory_by_tile", rows=16) == f"{database.MALFORMED} (memory_by_tile {said})"


def test_a_damaged_table_is_one_line_and_the_rest_of_the_report_opens(tiny_dir, tmp_path, capsys, monkeypatch):
    from pvtui.cli import main

    folder = tmp_path / "report"
    shutil.copytree(tiny_dir, folder, ignore=shutil.ignore_patterns("profile.pvtui"))
    damage = Damage(folder / "profile.pop", tmp_path / "copy.pop", DEEP)
    damage.set_child(damage.interior[0], 1, damage.interior[0])  # the root leads back to itself
    shutil.copy(damage.write(), folder / "profile.pop")
    monkeypatch.setenv("PVTUI_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["summary", str(folder), "--reader", "native"]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Memory" in out
    damaged = [line for line in err.splitlines() if "malformed" in line]
    # DEEP is vars_info: the tiles' totals (memory_by_tile) stay, without categories or variables
    assert len(damaged) == 1 and damaged[0].startswith("warning: profile.pop: vars_info not read (database disk image")
    assert main(["summary", str(folder), "--reader", "native", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["memory"]["total_including_gaps"] > 0


# --- the damage fuzzer -------------------------------------------------------------------------

LEAF_FIELDS = ("payload", "header", "serial")
FIELDS = ("type", "cells", "pointer", "child", *LEAF_FIELDS, "byte")
READ_MEMORY = 32 << 20  # a read of the 630 KB file, damaged as it may be, allocates less
READ_SECONDS = 20


def damage_a_field(damage: Damage, draw) -> None:
    """One edit placed on a real page of the b-tree: its type, cell count, a cell or child pointer, a leaf
    cell's payload size, record header size or serial type, or any byte of it."""
    field = draw(st.sampled_from(FIELDS if damage.interior else [f for f in FIELDS if f != "child"]))
    if field == "child":
        page = draw(st.sampled_from(damage.interior))
        others = [0, 1, len(damage.sound) // damage.size + 1, 2**32 - 1]
        damage.set_child(page, draw(st.integers(0, damage.cells(page))),
                         draw(st.sampled_from([*damage.interior, *damage.leaves[:4], *damage.leaves[-4:], *others])))
        return
    page = draw(st.sampled_from(damage.leaves if field in LEAF_FIELDS else damage.interior + damage.leaves))
    cell = draw(st.integers(0, max(damage.cells(page) - 1, 0)))
    byte = st.integers(0, 255)
    if field == "type":
        damage.data[damage.header(page)] = draw(st.sampled_from([0, 2, INTERIOR, 10, LEAF, 0xFF]))
    elif field == "cells":
        damage.set(damage.header(page) + 3, draw(st.integers(0, 0xFFFF)), 2)
    elif field == "pointer":
        damage.set(damage.pointer_at(page, cell), draw(st.integers(0, 0xFFFF)), 2)
    elif field == "payload":
        damage.data[damage.cell_at(page, cell)] = draw(byte)
    elif field == "header":
        damage.data[damage.record_at(page, cell)] = draw(byte)
    elif field == "serial":
        damage.data[damage.record_at(page, cell) + draw(st.integers(1, 4))] = draw(byte)
    else:
        damage.data[(page - 1) * damage.size + draw(st.integers(0, damage.size - 1))] = draw(byte)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(st.data())
def test_fuzzed_pages_read_as_sqlite_reads_them_or_end_in_one_line(small_pop, tmp_path_factory, data):
    table = data.draw(st.sampled_from(sorted(COLUMNS)))
    damage = Damage(small_pop, tmp_path_factory.mktemp("fuzz") / "profile.pop", table)
    for _ in range(data.draw(st.integers(1, 3))):
        damage_a_field(damage, data.draw)
    damage.write()
    started = time.monotonic()
    tracemalloc.start()
    try:
        equal_to_sqlite_or_one_line(damage.path, table)
        assert tracemalloc.get_traced_memory()[1] < READ_MEMORY
    finally:
        tracemalloc.stop()
    assert time.monotonic() - started < READ_SECONDS


@pytest.mark.parametrize("size", [0, 2, 1000])
def test_a_page_size_no_sqlite_file_has_is_given_up_on(small_pop, tmp_path, size):
    damage = Damage(small_pop, tmp_path / "profile.pop", "memory_by_tile")
    damage.set(16, size, 2)
    damage.write()
    with pytest.raises(Unreadable, match="^odd page size$") as raised:
        next(leaf_batches(damage.path, damage.root, [0], -1, True))
    assert raised.value.__cause__ is None


def test_a_text_that_is_no_utf8_reads_with_replacement_characters(tmp_path):
    """A damaged or foreign name is read with U+FFFD where its bytes are no UTF-8: Python's default refused
    the whole query, with the text quoted in its message."""
    path = tmp_path / "profile.pop"
    with sqlite3.connect(path) as made:
        made.execute("CREATE TABLE programs (id INTEGER, name TEXT)")
        made.execute("INSERT INTO programs VALUES (1, CAST(X'41FF42' AS TEXT))")
    made.close()
    with database.connect(path, CancelToken()) as db:
        keys, names = database.text_column(db, database.tables(db)["programs"], "id", "name")
    assert keys.tolist() == [1] and names == ["A\ufffdB"]
