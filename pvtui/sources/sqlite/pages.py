"""Integer columns of an SQLite table read straight from the leaf pages of its b-tree, with numpy.

Through the sqlite3 module every row becomes a Python tuple; here a batch of leaf pages is read
with one `pread` and every cell of it decoded at once (the record format is public:
sqlite.org/fileformat2.html, "B-tree Pages" and "Record Format").

The file is untrusted: what a page says is checked against the page before it is used. A cell count
the page cannot hold, a pointer, payload, record header or value outside its page, a serial type
of no width, a child pointer to a page already read, a page that is not a table b-tree page, a payload
that spills to overflow pages or a value that is not an integer stops this reader (`Unreadable`,
the one error `leaf_batches` raises), and the caller reads the rest through SQLite, which says what
is wrong with the file, if anything is.
"""

from __future__ import annotations

import os
import struct
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Iterator

import numpy as np

from pvtui.files.regular import open_regular

NULL = np.iinfo(np.int64).min
LEAF, INTERIOR = 0x0D, 0x05  # table b-tree page types
PAGES_PER_READ = 512  # a read: small enough that each batch's arrays stay in the processor's caches
# reads decoded at once, each on a thread of its own (numpy lets go of the GIL in its passes): as many as
# the processors this process may run on, up to four (each read in flight holds about 10 MB)
DECODERS = min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
VARINT_MAX = 9
# bytes of a value by serial type: 0..11 (10 and 11 are reserved), then (type - 12) // 2
SIZE = np.array([0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0, *((np.arange(12, 256) - 12) >> 1)], np.int32)
WIDTHS = bytes(SIZE.tolist())  # the same, for bytes.translate (a byte to a byte: 4x a numpy lookup by uint8)
# each serial type's bit among those a column holds: 1 to 6 (1 to 8 bytes) their own, 0, 8 and 9 (NULL, 0 and
# 1, no bytes) one, 7 (a float), the reserved types, texts and blobs another
NO_BYTES, NOT_AN_INTEGER = 0x40, 0x80
CLASS_BITS = bytes([NO_BYTES, 1, 2, 4, 8, 16, 32, NOT_AN_INTEGER, NO_BYTES, NO_BYTES, *[NOT_AN_INTEGER] * 246])
NO_BYTE_VALUES = ((0, NULL), (8, 0), (9, 1))  # (serial type, its value)
WORD_READ = 4  # values this wide or wider are read as the 8 bytes from their start, one gather (fewer passes)
WIDEST_TYPE = 12 + 2 * 65536  # a serial type at least this wide leaves any page
# the fewest bytes of a cell and its 2-byte pointer: a child page number and a varint on an interior page,
# a payload size, rowid and record header size (one byte each, at least) on a leaf
INTERIOR_CELL, LEAF_CELL = 2 + 5, 2 + 3
# what decoding bytes the checks missed raises: still this reader's to give up on, not the caller's
DECODING = (IndexError, ValueError, struct.error, OverflowError)


class Unreadable(Exception):
    """What this reader does not handle here; SQLite reads it instead."""


def leaf_batches(path: Path, root: int, columns: list[int], alias: int,
                 with_rowid: bool) -> Iterator[tuple[int, int, np.ndarray]]:
    """(leaves read, leaves, the batch of their rows) of the table b-tree at ROOT, a read of pages at a
    time (LeafBatches says what a batch holds). Raises Unreadable and nothing else: where the checks
    missed something the bytes say, decoding them fails, and that too is Unreadable (its cause the
    failure, so that a test can tell the two apart)."""
    try:
        file = PageFile(path)
    except OSError as exc:
        raise Unreadable(f"cannot be read ({exc.strerror or exc})") from exc
    with closing(file):
        try:
            leaves = LeafBatches(file, root, columns, alias, with_rowid)
            for done, batch in leaves:
                yield done, len(leaves.leaves), batch
        except (OSError, *DECODING) as exc:
            raise Unreadable(f"a page does not decode ({type(exc).__name__}: {exc})") from exc


class PageFile:
    """An SQLite database file opened for reading pages: its page size and usable bytes a page."""

    def __init__(self, path: Path) -> None:
        with open_regular(path) as file:  # a FIFO in its place would block the open
            self.fd = os.dup(file.fileno())
        try:
            header = os.pread(self.fd, 100, 0)
            if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
                raise Unreadable("no SQLite header")
            size = struct.unpack_from(">H", header, 16)[0]
            self.page_size = 65536 if size == 1 else size
            self.usable = self.page_size - header[20]
            if self.page_size < 512 or self.page_size & (self.page_size - 1) or self.usable < 480:
                raise Unreadable("odd page size")
            self.pages = os.fstat(self.fd).st_size // self.page_size
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
        """The leaf pages of the table b-tree at ROOT, in key (rowid) order; no page read twice.

        A b-tree's leaves are all at one depth: where an interior page's first child is a leaf, so
        are the others (each is checked when it is decoded), and they are not read here."""
        if not 1 <= root <= self.pages:
            raise Unreadable(f"the root page {root} is not in the file")
        level, seen = [root], {root}
        while True:
            first = self.read(level[0], 1)
            kind = int(first[100 if level[0] == 1 else 0])
            if kind == LEAF:
                return level
            if kind != INTERIOR:
                raise Unreadable(f"page {level[0]} is not a table b-tree page")
            below = []
            for page in level:
                data = first if page == level[0] else self.read(page, 1)
                start = 100 if page == 1 else 0
                if data[start] != INTERIOR:
                    raise Unreadable(f"page {page} is not an interior table b-tree page")
                for child in self._children(page, data, start):
                    if child in seen:
                        raise Unreadable(f"page {page} leads to page {child}, already read")
                    seen.add(child)
                    below.append(child)
            level = below

    def _children(self, page: int, data: np.ndarray, start: int) -> list[int]:
        """The child pages of interior page PAGE (DATA; its header at START), each one of the file's."""
        cells = int(data[start + 3]) << 8 | int(data[start + 4])
        if cells * INTERIOR_CELL > self.usable - start - 12:
            raise Unreadable(f"page {page} says it holds {cells:,} cells, more than it can")
        right = struct.unpack_from(">I", data, start + 8)[0]
        pointers = _be16(data, start + 12 + 2 * np.arange(cells))
        if cells and (pointers.min() < start + 12 + 2 * cells or pointers.max() > self.usable - 5):
            raise Unreadable(f"a cell pointer of page {page} leaves its cells")
        children = [*_be32(data, pointers).tolist(), right]
        if min(children) < 1 or max(children) > self.pages:
            raise Unreadable(f"page {page} leads to a page the file does not have")
        return children


def _words(data: np.ndarray, dtype: str) -> np.ndarray:
    """DATA as integers of DTYPE starting at every byte (one gather reads a value at any offset)."""
    size = np.dtype(dtype).itemsize
    return np.ndarray((len(data) - size + 1,), dtype=dtype, buffer=data, strides=(1,))


def _be16(data: np.ndarray, at: np.ndarray) -> np.ndarray:
    return _words(data, ">u2")[at].astype(np.int64)


def _be32(data: np.ndarray, at: np.ndarray) -> np.ndarray:
    return _words(data, ">u4")[at].astype(np.int64)


def _signed(data: np.ndarray, at: np.ndarray, width: int) -> np.ndarray:
    """The big-endian two's complement integers of WIDTH (1 to 8) bytes at AT: narrow ones a byte at a time,
    wide ones as the 8 bytes from each start shifted down (DATA is padded past its last value)."""
    if width >= WORD_READ:
        return _words(data, ">i8")[at].astype(np.int64) >> (64 - 8 * width)
    values = data.view(np.int8)[at].astype(np.int64)  # the first byte carries the sign
    for k in range(1, width):
        values <<= 8
        values |= data[at + k]
    return values


def _translated(bytes_: np.ndarray, table: bytes) -> np.ndarray:
    """Each byte of BYTES_ through TABLE, in its shape: bytes.translate, 4x faster than a numpy lookup by uint8
    indices (which numpy first widens)."""
    return np.frombuffer(bytes_.tobytes().translate(table), np.uint8).reshape(bytes_.shape)


def _all_of_length(data: np.ndarray, at: np.ndarray, size: int) -> bool:
    """Whether each varint at AT takes SIZE bytes: a top bit set in each byte but its last (of nine, in
    every byte but the last)."""
    for k in range(size - 1):
        if not np.bitwise_and.reduce(data[at + k]) & 0x80:
            return False
    return size == VARINT_MAX or not np.bitwise_or.reduce(data[at + size - 1]) & 0x80


def _varint_length(data: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The bytes of each varint at AT: one, and one more for each byte with its top bit set (nine at most)."""
    length = np.ones(len(at), np.int64)
    going = np.flatnonzero(data[at] >= 0x80)
    for k in range(1, VARINT_MAX):
        if not len(going):
            break
        length[going] += 1
        if k < VARINT_MAX - 1:
            going = going[data[at[going] + k] >= 0x80]
    return length


def _varint(data: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(values, lengths) of the varints at AT; DATA is padded by VARINT_MAX. Those of one length are
    decoded together (most varints of a table have one or two lengths)."""
    length = _varint_length(data, at)
    values = np.zeros(len(at), np.uint64)
    for size in np.flatnonzero(np.bincount(length, minlength=VARINT_MAX + 1)).tolist():
        rows = np.flatnonzero(length == size)
        where = at[rows]
        v = np.zeros(len(rows), np.uint64)
        for k in range(size):
            byte = data[where + k].astype(np.uint64)
            v = v << np.uint64(8) | byte if k == VARINT_MAX - 1 else v << np.uint64(7) | byte & np.uint64(0x7F)
        values[rows] = v
    return values.view(np.int64), length


class LeafBatches:
    """Integer columns of a rowid table from its leaf pages, a read of pages at a time.

    COLUMNS are positions in the table's record; ALIAS the position of its INTEGER PRIMARY KEY (whose
    value is the rowid), or -1. Each batch is [1 + len(COLUMNS), n]: the rowid, then each column; the
    rowids are decoded only WITH_ROWID (else -1, but for the last row's).
    """

    def __init__(self, file: PageFile, root: int, columns: list[int], alias: int, with_rowid: bool) -> None:
        self.file, self.columns, self.alias = file, columns, alias
        self.with_rowid = with_rowid or alias in columns
        self.needed = max(columns) + 1 if columns else 0  # serial types read from each record's header
        # the top bit of each byte of a header read (its size and NEEDED serial types), by 8-byte word: set in none
        # where every one is a byte (a varint's bytes but its last have it)
        top = np.zeros(8 * (self.needed // 8 + 1), np.uint8)
        top[: 1 + self.needed] = 0x80
        self.top_bits = [int(word) for word in top.view(np.uint64)]
        self.leaves = file.leaves(root)
        self.local_max = file.usable - 35  # a longer payload spills to overflow pages

    def __iter__(self) -> Iterator[tuple[int, np.ndarray]]:
        """(leaves read so far, the batch of their rows), a read of pages at a time, in order: the next
        DECODERS reads decoded on threads while the caller takes this one. Every thread is done with the
        file before this returns or is closed."""
        starts = range(0, len(self.leaves), PAGES_PER_READ)
        if DECODERS < 2 or len(starts) < 2:
            yield from ((self._done(lo), self._batch(lo)) for lo in starts)
            return
        with ThreadPoolExecutor(DECODERS, thread_name_prefix="pvtui-pages") as pool:
            ahead: deque[tuple[int, Future]] = deque()
            try:
                for lo in starts:
                    ahead.append((lo, pool.submit(self._batch, lo)))
                    if len(ahead) > DECODERS:
                        done, future = ahead.popleft()
                        yield self._done(done), future.result()
                while ahead:
                    done, future = ahead.popleft()
                    yield self._done(done), future.result()
            finally:  # a caller that stops, or a read that fails: the reads not begun are not begun
                for _, future in ahead:
                    future.cancel()

    def _done(self, lo: int) -> int:
        return min(lo + PAGES_PER_READ, len(self.leaves))

    def _batch(self, lo: int) -> np.ndarray:
        pages = self.leaves[lo : lo + PAGES_PER_READ]
        return self._decode(self._read(pages), len(pages), pages[0] == 1)

    def _read(self, pages: list[int]) -> np.ndarray:
        """The pages, in order, then zeros (so that no read of a value near the end leaves the buffer)."""
        size = self.file.page_size
        # a cell's varints are read before its record is checked to fit its page: room for two past it
        out = np.zeros(len(pages) * size + 2 * VARINT_MAX + self.needed + 2, np.uint8)
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
        cells_start = header - base + 8 + 2 * cells  # within its page: where the first cell can begin
        if (cells * LEAF_CELL > usable - (header - base) - 8).any():
            raise Unreadable("a leaf page says it holds more cells than it can")
        page = np.repeat(np.arange(count), cells)
        index = np.arange(len(page)) - np.repeat(np.cumsum(cells) - cells, cells)
        pointer = _be16(data, header[page] + 8 + 2 * index)
        filled = np.flatnonzero(cells)  # each page's lowest pointer, against where its cells can begin
        lowest = np.minimum.reduceat(pointer, (np.cumsum(cells) - cells)[filled]) if len(pointer) else pointer
        if len(pointer) and ((lowest < cells_start[filled]).any() or pointer.max() > usable - 3):
            raise Unreadable("a cell pointer leaves its page's cells")
        cell = base[page] + pointer
        payload, n1 = _varint(data, cell) if (data[cell] >= 0x80).any() else (data[cell].astype(np.int64), 1)
        out = np.empty((1 + len(self.columns), len(cell)), np.int64)
        out[0], n2 = self._rowids(data, cell + n1)
        record = cell + n1 + n2
        end = record + payload
        if ((payload < 1) | (payload > self.local_max) | (end > base[page] + usable)).any():
            raise Unreadable("a record spills to overflow pages or leaves its page")
        self._values(data, record, end, out)
        return out

    def _rowids(self, data: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray | int]:
        """(rowids, their varints' lengths) at AT; without WITH_ROWID, -1 but for the last.

        Leaves hold their rows in rowid order, and a varint is no shorter for a larger non-negative
        number: where the batch's first and last rowids take as many bytes, every one does."""
        if not len(at):
            return np.zeros(0, np.int64), 0
        ends, end_lengths = _varint(data, at[[0, -1]])
        if end_lengths[0] != end_lengths[1] or (ends[0] < 0) != (ends[1] < 0):
            values, lengths = _varint(data, at)
            return (values if self.with_rowid else np.where(np.arange(len(at)) == len(at) - 1, values, -1)), lengths
        size = int(end_lengths[0])
        if not _all_of_length(data, at, size):
            values, lengths = _varint(data, at)
            return (values if self.with_rowid else np.where(np.arange(len(at)) == len(at) - 1, values, -1)), lengths
        if not self.with_rowid:
            values = np.full(len(at), -1, np.int64)
            values[-1] = ends[1]
            return values, size
        values = np.zeros(len(at), np.uint64)
        for k in range(size):
            byte = data[at + k].astype(np.uint64)
            last = k == VARINT_MAX - 1
            values = values << np.uint64(8 if last else 7) | (byte if last else byte & np.uint64(0x7F))
        return values.view(np.int64), size

    def _values(self, data: np.ndarray, record: np.ndarray, end: np.ndarray, out: np.ndarray) -> None:
        """The wanted columns of each record (from RECORD to END) into OUT's rows 1.. : the usual record (a
        header of one-byte serial types) all at once, any other one serial type at a time. Every header
        and value is checked to lie within its record before it is read."""
        needed = self.needed
        words = _words(data, "u8")  # the header's first bytes, 8 at a time: its size, then a serial type a value
        header = np.stack([words[record + 8 * k] for k in range(len(self.top_bits))], axis=1)
        simple = header[:, 0] & self.top_bits[0] == 0
        for k in range(1, len(self.top_bits)):
            simple &= header[:, k] & self.top_bits[k] == 0
        kinds = np.ascontiguousarray(header.view(np.uint8)[:, : 1 + needed].T)  # [1 + NEEDED, n]
        head = kinds[0].astype(np.int64)
        simple &= head >= 1 + needed
        at = record + head
        if bool(simple.all()):
            widths = _translated(kinds, WIDTHS)
        else:  # serial types of two bytes or more: long texts and blobs
            rest = np.flatnonzero(~simple)
            rest_kinds, rest_head = self._serial_types(data, record[rest], end[rest], needed)
            at[rest] = record[rest] + rest_head
            widths = _translated(kinds, WIDTHS).astype(np.int64)
            widths[1:, rest] = np.where(rest_kinds < len(SIZE), SIZE[np.minimum(rest_kinds, len(SIZE) - 1)],
                                        (rest_kinds - 12) >> 1)
            kinds[1:, rest] = np.minimum(rest_kinds, 12)  # 12 and up: no integer, as the rest of its class
        if (at > end).any():
            raise Unreadable("a record's header is longer than the record")
        starts = {}  # where each wanted value starts; none is read before all are seen to end within the record
        for j in range(needed):
            if j in self.columns:
                starts[j] = at
            at = at + widths[1 + j]
        if (at > end).any():
            raise Unreadable("a record's values leave it")
        present = np.bitwise_or.reduce(_translated(kinds, CLASS_BITS), axis=1)  # the classes each column holds
        for row, j in enumerate(self.columns, 1):
            out[row] = out[0] if j == self.alias else self._integers(data, kinds[1 + j], starts[j],
                                                                    int(present[1 + j]))

    @staticmethod
    def _serial_types(data: np.ndarray, record: np.ndarray, end: np.ndarray,
                      needed: int) -> tuple[np.ndarray, np.ndarray]:
        """(serial types [NEEDED, n], header sizes) of records read a varint at a time; a record with
        fewer values than the table has columns ends in NULLs (a column added later)."""
        head, n = _varint(data, record)
        if ((head < n) | (head > end - record)).any():
            raise Unreadable("a record's header is longer than the record")
        at, content = record + n, record + head
        kinds = np.zeros((needed, len(record)), np.int64)
        for j in range(needed):
            present = at < content
            kind, n = _varint(data, np.where(present, at, record))
            kinds[j] = np.where(present, kind, 0)
            at = at + np.where(present, n, 0)
        if ((kinds < 0) | (kinds >= WIDEST_TYPE)).any():
            raise Unreadable("a serial type is wider than any page")
        return kinds, head

    @staticmethod
    def _integers(data: np.ndarray, kind: np.ndarray, at: np.ndarray, present: int) -> np.ndarray:
        """The integers of serial types KIND at AT (1-6: big-endian two's complement of 1 to 8 bytes; 8 and 9:
        0 and 1; 0: NULL), those of one width read together; PRESENT the CLASS_BITS of KIND."""
        if present & NOT_AN_INTEGER:
            raise Unreadable("a value is not an integer")
        sized = [serial for serial in range(1, 7) if present & 1 << (serial - 1)]  # types of 1 to 8 bytes present
        if len(sized) == 1:  # the rows of other types (NULL, 0, 1) are set below
            values = _signed(data, at, int(SIZE[sized[0]]))
        else:
            values = np.zeros(len(at), np.int64)
            for serial in sized:
                rows = np.flatnonzero(kind == serial)
                values[rows] = _signed(data, at[rows], int(SIZE[serial]))
        if present & NO_BYTES:
            for serial, value in NO_BYTE_VALUES:
                where = kind == serial
                if where.any():
                    np.putmask(values, where, value)
        return values
