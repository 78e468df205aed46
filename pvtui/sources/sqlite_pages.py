"""Integer columns of an SQLite table read straight from the leaf pages of its b-tree, with numpy.

Through the sqlite3 module every row becomes a Python tuple; here a batch of leaf pages is read
with one `pread` and every cell of it decoded at once (the record format is public:
sqlite.org/fileformat2.html, "B-tree Pages" and "Record Format"). Only what the format guarantees
is assumed, and every offset is checked against its page: a page that is not a table b-tree page,
a cell or record that leaves its page, a payload that spills to overflow pages or a value that is
not an integer stops this reader (`Unreadable`), and the caller reads the rest through SQLite,
which says what is wrong with the file, if anything is.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Iterator

import numpy as np

NULL = np.iinfo(np.int64).min
LEAF, INTERIOR = 0x0D, 0x05  # table b-tree page types
PAGES_PER_READ = 2048
VARINT_MAX = 9
# bytes of a value by serial type 0..11 (10 and 11 are reserved); 12 and up: (type - 12) // 2
SIZE = np.array([0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0], np.int64)


class Unreadable(Exception):
    """What this reader does not handle here; SQLite reads it instead."""


class PageFile:
    """An SQLite database file opened for reading pages: its page size and usable bytes a page."""

    def __init__(self, path: Path) -> None:
        self.fd = os.open(path, os.O_RDONLY)
        try:
            header = os.pread(self.fd, 100, 0)
            if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
                raise Unreadable("no SQLite header")
            size = struct.unpack_from(">H", header, 16)[0]
            self.page_size = 65536 if size == 1 else size
            self.usable = self.page_size - header[20]
            self.pages = os.fstat(self.fd).st_size // self.page_size
            if self.page_size < 512 or self.usable < 480:
                raise Unreadable("odd page size")
        except BaseException:
            os.close(self.fd)
            raise

    def close(self) -> None:
        os.close(self.fd)

    def read(self, first: int, count: int) -> np.ndarray:
        """Pages FIRST .. FIRST + COUNT - 1 (numbered from 1) as bytes."""
        if first < 1 or first + count - 1 > self.pages:
            raise Unreadable(f"page {first + count - 1} is past the end of the file")
        data = os.pread(self.fd, count * self.page_size, (first - 1) * self.page_size)
        if len(data) != count * self.page_size:
            raise Unreadable("the file is shorter than its pages")
        return np.frombuffer(data, np.uint8)

    def leaves(self, root: int) -> list[int]:
        """The leaf pages of the table b-tree at ROOT, in key (rowid) order."""
        out, stack, seen = [], [root], set()
        while stack:
            page = stack.pop()
            if page in seen:
                raise Unreadable(f"page {page} is reached twice")
            seen.add(page)
            data = self.read(page, 1)
            start = 100 if page == 1 else 0
            kind = int(data[start])
            if kind == LEAF:
                out.append(page)
            elif kind == INTERIOR:
                stack.extend(reversed(self._children(data, start)))
            else:
                raise Unreadable(f"page {page} is not a table b-tree page")
        return out

    def _children(self, data: np.ndarray, start: int) -> list[int]:
        cells = int(data[start + 3]) << 8 | int(data[start + 4])
        right = struct.unpack_from(">I", data, start + 8)[0]
        pointers = _be16(data, start + 12 + 2 * np.arange(cells))
        if cells and (pointers.min() < start + 12 or pointers.max() > self.usable - 4):
            raise Unreadable("a cell pointer leaves its page")
        children = _be32(data, pointers)
        return [*children.tolist(), right]


def _be16(data: np.ndarray, at: np.ndarray) -> np.ndarray:
    return data[at].astype(np.int64) << 8 | data[at + 1]


def _be32(data: np.ndarray, at: np.ndarray) -> np.ndarray:
    return (data[at].astype(np.int64) << 24 | data[at + 1].astype(np.int64) << 16
            | data[at + 2].astype(np.int64) << 8 | data[at + 3])


def _varint(data: np.ndarray, at: np.ndarray, value: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(values, lengths) of the varints at AT (values 0 unless VALUE); DATA is padded by VARINT_MAX."""
    length = np.ones(len(at), np.int64)
    going = data[at] >= 0x80
    v = (data[at] & 0x7F).astype(np.uint64) if value else None
    for i in range(1, VARINT_MAX):
        if not going.any():
            break
        byte = data[at + i]
        if value:
            last = i == VARINT_MAX - 1
            part = byte.astype(np.uint64) if last else (byte & 0x7F).astype(np.uint64)
            v = np.where(going, (v << np.uint64(8 if last else 7)) | part, v)
        length += going
        going = going & (byte >= 0x80)
    return (v.view(np.int64) if value else np.zeros(len(at), np.int64)), length


class LeafBatches:
    """Integer columns of a rowid table from its leaf pages, a read of pages at a time.

    COLUMNS are positions in the table's record; ALIAS the position of its INTEGER PRIMARY KEY (whose
    value is the rowid), or -1. Each batch is [1 + len(COLUMNS), n]: the rowid, then each column.
    """

    def __init__(self, file: PageFile, root: int, columns: list[int], alias: int) -> None:
        self.file, self.columns, self.alias = file, columns, alias
        self.leaves = file.leaves(root)
        self.local_max = file.usable - 35  # a longer payload spills to overflow pages

    def __iter__(self) -> Iterator[np.ndarray]:
        for lo in range(0, len(self.leaves), PAGES_PER_READ):
            pages = self.leaves[lo : lo + PAGES_PER_READ]
            yield self._decode(self._read(pages), len(pages), pages[0] == 1)

    def _read(self, pages: list[int]) -> np.ndarray:
        """The pages, in order, then VARINT_MAX zeros (so that no read past a cell leaves the buffer)."""
        size = self.file.page_size
        out = np.zeros(len(pages) * size + VARINT_MAX, np.uint8)
        start = 0
        while start < len(pages):
            end = start + 1
            while end < len(pages) and pages[end] == pages[end - 1] + 1:
                end += 1
            out[start * size : end * size] = self.file.read(pages[start], end - start)
            start = end
        return out

    def _decode(self, data: np.ndarray, count: int, first_is_page_one: bool) -> np.ndarray:
        size, usable = self.file.page_size, self.file.usable
        base = np.arange(count, dtype=np.int64) * size
        header = base + (100 if first_is_page_one else 0) * (np.arange(count) == 0)
        if (data[header] != LEAF).any():
            raise Unreadable("a leaf page is not one")
        cells = _be16(data, header + 3)
        page = np.repeat(np.arange(count), cells)
        index = np.arange(len(page)) - np.repeat(np.cumsum(cells) - cells, cells)
        pointer = _be16(data, header[page] + 8 + 2 * index)
        if len(pointer) and (pointer.min() < 8 or pointer.max() > usable - 4):
            raise Unreadable("a cell pointer leaves its page")
        cell = base[page] + pointer
        cell_end = base[page] + usable
        payload, n1 = _varint(data, cell)
        rowid, n2 = _varint(data, cell + n1)
        record = cell + n1 + n2
        if ((payload < 0) | (payload > self.local_max) | (record + payload > cell_end)).any():
            raise Unreadable("a record spills to overflow pages or leaves its page")
        values = self._values(data, record, record + payload)
        if self.alias in self.columns:
            values[self.columns.index(self.alias)] = rowid
        return np.vstack([rowid, *values])

    def _values(self, data: np.ndarray, record: np.ndarray, end: np.ndarray) -> list[np.ndarray]:
        """The wanted columns of each record: the usual record (a header of one-byte serial types) all at
        once, any other one serial type at a time."""
        needed = max(self.columns) + 1 if self.columns else 0
        head = data[record].astype(np.int64)
        simple = (head >= 1 + needed) & (head < 0x80)
        kinds = np.zeros((needed, len(record)), np.int64)
        for j in range(needed):
            kinds[j] = data[record + 1 + j]
            simple &= kinds[j] < 0x80
        if not simple.all():
            rest = np.flatnonzero(~simple)
            kinds[:, rest], head[rest] = self._serial_types(data, record[rest], needed)
        widths = SIZE[np.minimum(kinds, len(SIZE) - 1)]
        big = kinds >= len(SIZE)
        widths[big] = (kinds[big] - 12) >> 1
        starts = record + head + np.vstack([np.zeros(len(record), np.int64), np.cumsum(widths, axis=0)[:-1]]) \
            if needed else np.zeros((0, len(record)), np.int64)
        if needed and (starts[-1] + widths[-1] > end).any():
            raise Unreadable("a record's values leave it")
        return [self._integers(data, kinds[c], starts[c], widths[c], c) for c in self.columns]

    @staticmethod
    def _serial_types(data: np.ndarray, record: np.ndarray, needed: int) -> tuple[np.ndarray, np.ndarray]:
        """(serial types [NEEDED, n], header sizes) of records read a varint at a time; a record with
        fewer values than the table has columns ends in NULLs (a column added later)."""
        head, n = _varint(data, record)
        at, content = record + n, record + head
        kinds = np.zeros((needed, len(record)), np.int64)
        for j in range(needed):
            present = at < content
            kind, n = _varint(data, np.where(present, at, record))
            kinds[j] = np.where(present, kind, 0)
            at = at + np.where(present, n, 0)
        return kinds, head

    def _integers(self, data: np.ndarray, kind: np.ndarray, at: np.ndarray, width: np.ndarray,
                  column: int) -> np.ndarray:
        """Big-endian two's complement integers of WIDTH bytes at AT (serial types 1-6, 8, 9; 0 is NULL)."""
        if column != self.alias and ((kind == 7) | (kind >= 10)).any():
            raise Unreadable("a value is not an integer")
        values = np.zeros(len(at), np.int64)
        widest = int(width.max()) if len(width) else 0
        for k in range(widest):
            values = np.where(k < width, values << 8 | data[at + k], values)
        negative = (width > 0) & (width < 8) & (data[at] >= 0x80)
        values[negative] -= np.left_shift(1, 8 * width[negative])
        values = np.where(kind == 8, 0, np.where(kind == 9, 1, values))
        return np.where(kind == 0, NULL, values)
