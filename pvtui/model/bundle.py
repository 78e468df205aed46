"""The bundle: a directory of `meta.json` plus one `.npy` per column.

Columns are opened memory-mapped, so opening a bundle costs the same for 10 MB and
10 GB. A string table is two columns: `NAME.blob` (UTF-8 bytes) and `NAME.offsets`
(n + 1 int64 offsets into the blob). Bundles are written into a temporary sibling
directory and renamed into place, so a crash never leaves a half bundle that looks
whole: a directory without a readable `meta.json` is not a bundle. Every failure to write
(a full disk, a quota, a file size limit) is a BundleWriteError, never mistaken for a
report file that cannot be read.
"""

from __future__ import annotations

import ast
import copy
import errno
import io
import json
import math
import mmap
import os
import re
import shutil
import stat
import tempfile
import threading
import tokenize
from pathlib import Path
from contextlib import contextmanager
from typing import Any, BinaryIO, Iterable, Iterator, NamedTuple, Sequence

import numpy as np

from pvtui.errors import BundleWriteError, ReportError
from pvtui.process.digest import digest
from pvtui.model.meta_entries import damaged_entry
from pvtui.model.references import REFERENCE_RULES, check_references, kind_damage, length_damage
from pvtui.model.strings import StringTable
from pvtui.files.regular import BUNDLE_JSON_LIMIT, open_regular, read_regular

SCHEMA_VERSION = 2  # 2: lowered variables
META = "meta.json"
FORMAT_TAG = "pvtui-bundle"
# bytes of meta.json read for its format tag: its keys are sorted, and "format" comes after the
# debug layers and the report files' paths, which may be long (a report's names are anyone's)
META_HEAD = 1 << 20


def is_bundle(path: Path) -> bool:
    """True when PATH looks like a bundle directory (it has our meta.json)."""
    meta = Path(path) / META
    try:  # is_file itself raises where the directory is unreadable (/proc/1/fdinfo)
        if not meta.is_file():
            return False
        with open_regular(meta) as f:
            head = f.read(META_HEAD)
    except OSError:
        return False
    return FORMAT_TAG.encode() in head


def release_pages(column: np.memmap) -> None:
    """Let go of a writable memory-mapped column's pages: they stay in the file (the page cache), out of
    this process's resident memory, so that filling a large column a slice at a time costs a slice.

    numpy keeps the mapping as `_mmap` (not public): without it, or without madvise, nothing is let go.
    """
    mapping = getattr(column, "_mmap", None)
    if mapping is not None and hasattr(mmap, "MADV_DONTNEED"):
        mapping.madvise(mmap.MADV_DONTNEED)


class BundleWriter:
    """Writes a bundle into a temporary directory; `commit` renames it into place.

    Use as a context manager: leaving the block by an exception removes the
    temporary directory, so a cancelled or failed ingest leaves nothing behind.
    """

    def __init__(self, final_dir: str | Path) -> None:
        self.final_dir = Path(final_dir)
        with _writing(self.final_dir):
            self.final_dir.parent.mkdir(parents=True, exist_ok=True)
            self.tmp_dir = Path(
                tempfile.mkdtemp(prefix=f".{self.final_dir.name}.tmp-", dir=self.final_dir.parent)
            )
        self.meta: dict[str, Any] = {"format": FORMAT_TAG, "schema_version": SCHEMA_VERSION}
        self.columns: list[str] = []
        self._committed = False

    def __enter__(self) -> "BundleWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None or not self._committed:
            self.abort()

    def _path(self, name: str) -> Path:
        if "/" in name or name.startswith("."):
            raise ValueError(f"bad column name {name!r}")
        return self.tmp_dir / f"{name}.npy"

    def array(self, name: str, values: Any, dtype: Any = None) -> None:
        """Write one column; one written before is replaced by a new file (a snapshot may map the old)."""
        arr = np.ascontiguousarray(values, dtype=dtype)
        path = self._path(name)
        with _writing(path):
            if name in self.columns:
                np.save(path.with_name(f".{path.name}"), arr, allow_pickle=False)
                os.replace(path.with_name(f".{path.name}"), path)
                return
            np.save(path, arr, allow_pickle=False)
        self.columns.append(name)

    def written_column(self, name: str) -> np.ndarray:
        """Column NAME as written so far, memory-mapped read-only (an empty one, which cannot be mapped, as an
        empty array): for figures derived from it."""
        path = self._path(name)
        with open_regular(path) as f:
            header = _column_header(f)
        return np.zeros(header.shape, header.dtype) if 0 in header.shape else map_column(path)

    def open_array(self, name: str, shape: tuple[int, ...], dtype: Any) -> np.memmap:
        """A writable memory-mapped column, for columns too large to build in memory."""
        path = self._path(name)
        with _writing(path):
            arr = np.lib.format.open_memmap(path, mode="w+", dtype=dtype, shape=shape)
            _reserve(path)
        if name not in self.columns:  # opened again: written anew
            self.columns.append(name)
        return arr

    @contextmanager
    def byte_column(self, name: str, size: int) -> Iterator[BinaryIO]:
        """A uint8 column of SIZE bytes filled through a plain file, for blobs streamed from disk."""
        with self.column_file(name, (size,), np.uint8) as out:
            yield out

    @contextmanager
    def column_file(self, name: str, shape: tuple[int, ...], dtype: Any) -> Iterator[BinaryIO]:
        """A column of SHAPE filled in order through a plain file (its values' bytes, C order)."""
        header = self.open_array(name, shape, dtype)
        path, data_start = header.filename, header.offset
        del header  # write through the file, so no mapped pages count against RSS
        with _writing(path), open(path, "r+b") as out:
            out.seek(data_start)
            yield out

    def spool(self, buffering: int = -1) -> "SpooledBytes":
        """Bytes for a uint8 column whose length is known only once they are all written."""
        return SpooledBytes(self, buffering)

    def strings(self, name: str, values: Iterable[str]) -> None:
        """Write a string table (blob + offsets)."""
        blob, offsets = StringTable.encode(values)
        self.array(f"{name}.blob", blob)
        self.array(f"{name}.offsets", offsets)

    def link_from(self, source: "Bundle", names: Sequence[str]) -> None:
        """Take columns unchanged from another bundle: hard links where the file is this user's
        and has the mode a new one would (a link shares it: a private cache entry's column
        exported is copied, to get the user's umask), else copies."""
        for name in names:
            src = source.path / f"{name}.npy"
            dst = self._path(name)
            if not _linked(src, dst):
                with _writing(dst):
                    shutil.copyfile(src, dst)
            self.columns.append(name)

    def write_json(self, name: str, value: Any) -> None:
        """Keep a JSON document (framework.json, app.json) beside the columns."""
        with _writing(self.tmp_dir / name), (self.tmp_dir / name).open("w", encoding="utf-8") as f:
            json.dump(value, f)

    def written(self) -> "Bundle":
        """What is written so far, opened read-only where it is (its meta.json written now, and again by
        `commit`): for a figure computed over the written columns before the bundle is committed."""
        self.meta["columns"] = sorted(set(self.columns))
        with _writing(self.tmp_dir / META), (self.tmp_dir / META).open("w", encoding="utf-8") as f:
            json.dump(self.meta, f)
        return Bundle(self.tmp_dir)

    def commit(self) -> Path:
        """Write meta.json last, then rename the directory into place."""
        self.meta["columns"] = sorted(set(self.columns))
        with _writing(self.final_dir):
            with (self.tmp_dir / META).open("w", encoding="utf-8") as f:
                json.dump(self.meta, f, indent=1, sort_keys=True)
            os.chmod(self.tmp_dir, 0o777 & ~_umask())  # mkdtemp made it private; a bundle is not
            old = None
            if self.final_dir.exists():
                old = self.final_dir.with_name(f".{self.final_dir.name}.old-{os.getpid()}")
                if old.exists():
                    shutil.rmtree(old)
                os.rename(self.final_dir, old)
            os.rename(self.tmp_dir, self.final_dir)
        self._committed = True
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return self.final_dir

    def abort(self) -> None:
        shutil.rmtree(self.tmp_dir, ignore_errors=True)

    def snapshot(self) -> "Bundle":
        """The parts written so far as a bundle over the temporary directory (its meta a copy, not written to
        disk): its columns are opened now, so it stays whole when the directory is renamed into place on
        commit, or removed on a cancel."""
        from pvtui.model.schema import part_of_column

        parts = set(self.meta.get("parts", []))
        meta = json.loads(json.dumps(self.meta))  # a copy the writer goes on filling without
        meta["columns"] = sorted({c for c in self.columns if part_of_column(c) in parts})
        bundle = Bundle(self.tmp_dir, meta=meta)
        for name in bundle.columns:
            try:
                bundle.array(name)
            except ReportError:  # a column breaking its rule (model/references.py): its part is left out
                pass
        return bundle


BYTES_HEADER = 128  # the .npy header of a 1-D uint8 column, whatever its length (numpy pads it to this)


class SpooledBytes:
    """Bytes appended to a file beside the columns, after room for a uint8 column's header.

    `keep(name)` makes the file that column, in place, once the length is known; closing
    it without keeping deletes it (it was scratch). A failure to write is the bundle's.
    """

    def __init__(self, writer: BundleWriter, buffering: int = -1) -> None:
        self.writer = writer
        self.size = 0
        self.kept = False
        with _writing(writer.tmp_dir):
            fd, path = tempfile.mkstemp(prefix=".spool-", dir=writer.tmp_dir)
            self.path = Path(path)
            self.file = os.fdopen(fd, "w+b", buffering=buffering)
            self.file.write(bytes(BYTES_HEADER))

    def write(self, data: bytes) -> None:
        with _writing(self.path):
            self.file.write(data)
        self.size += len(data)

    def flush(self) -> None:
        with _writing(self.path):
            self.file.flush()

    def read(self, offset: int, n: int) -> bytes:
        """N bytes from OFFSET of those written (and flushed)."""
        return os.pread(self.file.fileno(), n, BYTES_HEADER + offset)

    def keep(self, name: str) -> None:
        """Make the bytes written the uint8 column NAME."""
        header = io.BytesIO()
        np.lib.format.write_array_header_1_0(header, {"descr": "|u1", "fortran_order": False, "shape": (self.size,)})
        assert len(header.getvalue()) == BYTES_HEADER
        path = self.writer._path(name)
        with _writing(path):
            self.file.seek(0)
            self.file.write(header.getvalue())
            self.file.close()
            os.chmod(self.path, 0o666 & ~_umask())  # mkstemp made it private; the columns are not
            os.rename(self.path, path)
        self.kept = True
        self.writer.columns.append(name)

    def close(self) -> None:
        try:
            self.file.close()
        except OSError:
            pass  # bytes never flushed go with the file; the write that failed has raised already
        if not self.kept:
            self.path.unlink(missing_ok=True)


def _linked(src: Path, dst: Path) -> bool:
    """True when DST is now a hard link to SRC: a file of this user's with the mode DST would have."""
    try:
        st = os.stat(src)
        if st.st_uid != os.geteuid() or stat.S_IMODE(st.st_mode) != 0o666 & ~_umask():
            return False
        os.link(src, dst)
    except OSError:
        return False
    return True


def _umask() -> int:
    """The process's umask, read where Linux shows it: setting it to read it back would, for a
    moment, make files other threads create writable by everyone."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    umask = os.umask(0o077)
    os.umask(umask)
    return umask


@contextmanager
def _writing(path: Path) -> Iterator[None]:
    """Any OSError inside is a failure to write the bundle at PATH."""
    try:
        yield
    except OSError as exc:
        raise BundleWriteError(path, exc) from None


CANNOT_RESERVE = (errno.EINVAL, errno.EOPNOTSUPP)  # a file system without fallocate: written as is


def _reserve(path: Path) -> None:
    """Claim the disk blocks of PATH now: written through a memory map, a full disk would
    kill the process (SIGBUS) instead of raising."""
    with open(path, "r+b") as f:
        size = os.fstat(f.fileno()).st_size
        try:
            if size:
                os.posix_fallocate(f.fileno(), 0, size)
        except OSError as exc:
            if exc.errno not in CANNOT_RESERVE:
                raise


def bundle_meta(path: Path) -> dict[str, Any]:
    """The meta.json of the bundle at PATH, checked (no column is: Bundle checks each); ReportError where it
    is no bundle this pvtui reads."""
    meta_path = path / META
    try:
        meta = json.loads(read_regular(meta_path, BUNDLE_JSON_LIMIT).decode("utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise ReportError(meta_path, f"not a readable pvtui bundle ({getattr(exc, 'strerror', None) or exc})"
                          ) from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_TAG:
        raise ReportError(meta_path, "not a pvtui bundle")
    version = meta.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ReportError(
            meta_path, f"bundle schema {version}, this pvtui reads schema {SCHEMA_VERSION}"
        )
    damaged = damaged_entry(meta)
    if damaged is not None:
        raise ReportError(meta_path, f"not a pvtui bundle (its {damaged!r} is damaged)")
    if not all(_is_column_name(c) for c in meta.get("columns", [])):
        raise ReportError(meta_path, "not a pvtui bundle (a column name is damaged)")
    return meta


class Bundle:
    """A bundle opened read-only: columns are memory-mapped on first use.

    Every column's header and size are checked on opening; a damaged one is left out of
    `columns` and `has`, and kept in `damaged` (its ReportError) for the model to say so.
    """

    def __init__(self, path: str | Path, meta: dict[str, Any] | None = None) -> None:
        """The bundle at PATH, described by its meta.json, or by META (a bundle still being written)."""
        self.path = Path(path)
        self.meta: dict[str, Any] = meta if meta is not None else bundle_meta(self.path)
        columns = self.meta.get("columns", [])
        # A damaged column takes out only what needs it: the rest of the bundle stays usable.
        self.damaged: dict[str, ReportError] = {}
        self._headers: dict[str, ColumnHeader] = {}
        stamps = []  # each column's file as it is now: the figures kept from them hold while it is unchanged
        files = []  # and what tells it from any file written since (its inode, and the time it last changed)
        for name in columns:
            try:
                self._headers[name], st = _check_column(self.path / f"{name}.npy")
            except ReportError as exc:
                self.damaged[name] = exc
                continue
            stamps.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
            files.append(f"{name}:{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}")
        headers = self._headers
        for name, problem in {**length_damage({name: header.shape for name, header in headers.items()}),
                              **kind_damage({name: header.descr for name, header in headers.items()})}.items():
            self.damaged[name] = ReportError(self.path / f"{name}.npy", f"damaged column: {problem}")
        self.columns_stamp = _digest(sorted(stamps))
        self.files_identity = _digest(sorted(files))  # what the checks of its columns' values depend on
        self.columns = [name for name in columns if name not in self.damaged]
        self._columns = set(self.columns)
        self._arrays: dict[str, np.ndarray] = {}
        self._strings: dict[str, StringTable] = {}

    def with_meta(self, meta: dict[str, Any]) -> "Bundle":
        """This bundle described by META, of the same columns: what was found of its files (their headers, their
        damage, the columns mapped) holds for it, without reading them again."""
        other = copy.copy(self)
        other.meta = meta
        return other

    def has(self, name: str) -> bool:
        return name in self._columns or {f"{name}.blob", f"{name}.offsets"} <= self._columns

    def length(self, name: str) -> int:
        """Column NAME's length (its first dimension), from its header: no column is mapped."""
        if name in self.damaged:
            raise self.damaged[name]
        shape = self._headers[name].shape
        if not shape:
            raise TypeError(f"{name} has no length: it holds one value")  # as len() of the array would
        return shape[0]

    def require_whole(self) -> "Bundle":
        """This bundle, or ReportError naming its first damaged column."""
        if self.damaged:
            raise next(iter(self.damaged.values()))
        return self

    def array(self, name: str) -> np.ndarray:
        arr = self._arrays.get(name)
        if arr is None:
            if name in self.damaged:
                raise self.damaged[name]
            if name not in self._columns:
                raise KeyError(name)
            path = self.path / f"{name}.npy"
            try:
                arr = map_column(path)
            except (OSError, *BAD_NPY_HEADER) as exc:
                raise ReportError(path, f"unreadable column ({getattr(exc, 'strerror', None) or exc})") from None
            try:
                check_references(name, path, arr, self._count)
            except ReportError as exc:  # damaged from here on, as a column whose header is
                self.damaged[name] = exc
                self._columns.discard(name)
                raise
            self._arrays[name] = arr
        return arr

    def check_every_reference(self) -> None:
        """Map every column a rule of model/references.py covers: one that breaks it is damaged from then on
        (`damaged`), before a view reads it."""
        for name in [name for name in self.columns if name in REFERENCE_RULES]:
            try:
                self.array(name)
            except ReportError:
                pass  # kept in `damaged`

    def _count(self, name: str) -> int | None:
        """The length of column (or string table) NAME; None where the bundle has no whole one."""
        if name in self._columns:
            return self.length(name)
        offsets = f"{name}.offsets"
        return self.length(offsets) - 1 if offsets in self._columns else None

    def strings(self, name: str) -> StringTable:
        table = self._strings.get(name)
        if table is None:
            table = StringTable(self.array(f"{name}.blob"), self.array(f"{name}.offsets"))
            self._strings[name] = table
        return table

    def json(self, name: str) -> Any:
        path = self.path / name
        if not path.is_file():
            return None
        try:
            return json.loads(read_regular(path, BUNDLE_JSON_LIMIT).decode("utf-8"))
        except (OSError, ValueError, RecursionError) as exc:
            raise ReportError(path, f"unreadable JSON document ({getattr(exc, 'strerror', None) or exc})") from None

    def disk_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.path.iterdir() if p.is_file())


def map_column(path: Path) -> np.memmap:
    """The column at PATH memory-mapped read-only, as numpy's load with mmap_mode "r" would, but on the file
    checked to be regular."""
    with open_regular(path) as f:
        header = _column_header(f)
        return np.memmap(f, dtype=header.dtype, mode="r", shape=header.shape, order="F" if header.fortran_order else "C",
                         offset=f.tell())


def _is_column_name(name: str) -> bool:
    return bool(name) and "/" not in name and not name.startswith(".")


# A column's .npy header, read without numpy (opening a bundle needs no numpy: the Summary is shown from a
# bundle before numpy is imported). Every column holds numbers of one plain type (strings are uint8 blobs),
# written by numpy's np.save or open_memmap in format 1.0, or 2.0 for a header over 64 KiB.
NPY_MAGIC = b"\x93NUMPY"
NPY_LENGTH_BYTES = {(1, 0): 2, (2, 0): 4}  # per format version, the bytes of the header's length
NPY_HEADER_LIMIT = 10_000  # the longest header read, as numpy's own reader (max_header_size)
COLUMN_DESCR = re.compile(r"[<>|=]([biuf])([1248])")  # byte order, kind, item size: a plain number type
# The header as numpy writes it, read in a tenth of literal_eval's time (a bundle's ~120 columns are all
# checked as it opens: 8-11 ms); any other header, as numpy reads it.
NPY_SIZE = r"(?:0|[1-9]\d*)"  # a whole number as Python writes it
NUMPY_WRITES = re.compile(r"\{'descr': '([^'\\]*)', 'fortran_order': (True|False), "
                          rf"'shape': \((|{NPY_SIZE},|{NPY_SIZE}(?:, {NPY_SIZE})+)\), \}} *\n")
# The header is a Python literal (ast.literal_eval, as numpy reads it): damage surfaces as any of these.
BAD_NPY_HEADER = (ValueError, SyntaxError, TypeError, RecursionError, tokenize.TokenError)
# CPython (gh-106905; seen on 3.11.7 here) can raise "SystemError: AST constructor recursion depth mismatch"
# when two threads parse at once (the app's workers open columns beside the UI thread): one at a time.
_HEADER_PARSING = threading.Lock()


class ColumnHeader(NamedTuple):
    shape: tuple[int, ...]
    fortran_order: bool
    descr: str  # numpy's type string: "<i8", "|u1"...

    @property
    def itemsize(self) -> int:
        return int(self.descr[2:])

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(self.descr)


def _digest(lines: list[str]) -> str:
    return digest("\n".join(lines))


def _check_column(path: Path) -> tuple[ColumnHeader, os.stat_result]:
    """PATH's header and its file's status, or ReportError unless PATH is a whole .npy file: a bundle cut
    short is never trusted.

    Reads only the header, so checking costs the same for any column size.
    """
    try:
        with open_regular(path) as f:
            header = _column_header(f)
            expected = f.tell() + math.prod(header.shape) * header.itemsize
            stat = os.fstat(f.fileno())
            actual = stat.st_size
    except OSError as exc:
        raise ReportError(path, f"unreadable column ({exc.strerror or exc})") from None
    except BAD_NPY_HEADER as exc:
        raise ReportError(path, f"damaged column header ({_one_line(exc)})") from None
    if actual < expected:
        raise ReportError(path, f"truncated column ({actual} of {expected} bytes)")
    return header, stat


def _column_header(f: BinaryIO) -> ColumnHeader:
    """The .npy header at F's start, F left at the data; ValueError (or another of BAD_NPY_HEADER) where it
    is no header of a column of numbers."""
    start = f.read(len(NPY_MAGIC) + 2)
    if len(start) < len(NPY_MAGIC) + 2 or not start.startswith(NPY_MAGIC):
        raise ValueError("not a .npy file")
    version = (start[-2], start[-1])
    length_bytes = NPY_LENGTH_BYTES.get(version)
    if length_bytes is None:
        raise ValueError(f"unknown .npy format version {version}")
    length = int.from_bytes(f.read(length_bytes), "little")
    if length > NPY_HEADER_LIMIT:
        raise ValueError(f"a header of {length:,} bytes")
    text = f.read(length)
    if len(text) < length:
        raise ValueError("the header is cut short")
    header = _header_literal(text.decode("latin-1"))
    if not isinstance(header, dict) or header.keys() != {"descr", "fortran_order", "shape"}:
        raise ValueError(f"not a .npy header: {text!r}")
    descr, fortran_order, shape = header["descr"], header["fortran_order"], header["shape"]
    if not isinstance(descr, str) or not COLUMN_DESCR.fullmatch(descr):
        raise ValueError(f"holds {descr!r}, not numbers")
    if not isinstance(fortran_order, bool):
        raise ValueError(f"fortran_order is {fortran_order!r}")
    if not isinstance(shape, tuple) or not all(type(n) is int and n >= 0 for n in shape):
        raise ValueError(f"shape is {shape!r}")
    return ColumnHeader(shape, fortran_order, descr)


def _header_literal(text: str) -> object:
    """The Python literal of a .npy header's TEXT."""
    if written := NUMPY_WRITES.fullmatch(text):
        descr, fortran_order, shape = written.groups()
        return {"descr": descr, "fortran_order": fortran_order == "True",
                "shape": tuple(int(n) for n in shape.replace(",", " ").split())}
    with _HEADER_PARSING:
        return ast.literal_eval(text)


def _one_line(exc: Exception, limit: int = 100) -> str:
    """EXC's text on one short line: numpy quotes the whole (padded) header it could not parse."""
    text = " ".join(str(exc).replace("\\n", " ").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
