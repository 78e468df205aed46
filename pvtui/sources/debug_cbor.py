"""debug.cbor: the debug contexts, decoded one at a time into compact columns.

The file is `{"contexts": [...]}` (the shape of Poplar's JSON form), a bare array of
contexts, or a stream of concatenated context maps; arrays may be indefinite. The
outer headers are parsed here and the contexts are decoded by cbor2 a batch at a time
(an array header put before them), so the document is never held whole, and the
columns are built from each batch by a few C-level passes rather than Python code per
context. Per context we keep id, parent, layer, category (small int columns in memory),
a display name and the whole map as JSON text (the "fields"), both written to
temporary files as they come.
"""

from __future__ import annotations

import json
import os
import time
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from functools import partial
from itertools import accumulate, islice, repeat
from pathlib import Path
from typing import Any, BinaryIO, Iterable, Iterator, Mapping

import cbor2
import numpy as np

from pvtui.errors import ReportError
from pvtui.model import schema as s
from pvtui.model.bundle import BundleWriter
from pvtui.files.regular import open_regular
from pvtui.sources.base import CancelToken, IngestContext, Progress, no_progress

import orjson  # 4x faster than json here: what keeps debug.cbor ingest near cbor2.load

MAX_DEPTH = 64  # containers nested deeper than this reject the context
MAX_SKIP_DEPTH = 10_000  # bound on the nesting walked when skipping an item
MAX_NAMES = 32_767  # distinct layers or categories: they are stored as int16
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
PROGRESS_SECONDS = 0.1
TICK_EVERY = 64  # items read one at a time between looks at the clock
CANCEL_EVERY = 4096  # items read one at a time between cancel checks (a multiple of TICK_EVERY)
BATCH = 256  # contexts decoded by one call to cbor2 (256 measured a little faster than 128 or 512)
BATCH_READ_SIZE = 1 << 16  # bytes cbor2 reads at a time while decoding a batch
FILE_BUFFER = 1 << 20
ROWS_PER_CHUNK = 1 << 16  # rows moved per batch when strings are put in id order

NAME_KEYS = (
    "name", "opName", "op_name", "hlo_name", "api", "tensorId",
    "opType", "op_type", "class", "opid",
)  # fmt: skip
PARENT_KEYS = ("parentId", "parent_id", "parent", "parents", "parentIds")

ARRAY, MAP = 4, 5
BREAK = 0xFF

# Value sharing (tags 28/29) can build cycles, and string references (tag 25) let a
# few bytes repeat a long string without bound: keep both as plain tags.
_LITERAL_TAGS = {
    25: lambda value, immutable: cbor2.CBORTag(25, value),
    28: lambda value, immutable: value,
    29: lambda value, immutable: cbor2.CBORTag(29, value),
}


class _Damage(Exception):
    """The file stops making sense here: keep what was read before it."""


def read_debug(path: Path, ctx: IngestContext) -> None:
    """Read the debug contexts of PATH into the bundle's "debug" part."""
    path = Path(path)
    with _Columns(ctx.writer) as columns:
        problems = _read_contexts(path, columns, ctx.progress, ctx.cancel)
        if len(columns) == 0 and problems:
            raise ReportError(path, f"no debug contexts: {problems}")
        if problems:
            ctx.note("debug", f"{path}: {problems}; kept the {len(columns)} contexts read")
        columns.write(ctx.writer)
    ctx.meta["debug"] = columns.meta()
    ctx.add_part("debug")


@dataclass
class DebugScan:
    """What decoding a whole debug.cbor found, keeping no context."""

    contexts: int
    layers: list[str]
    problems: str  # what was skipped or stopped the decoding; "" when it decoded to the end


class _Tally:
    """A sink that counts the contexts and notes their layers."""

    def __init__(self) -> None:
        self.count = 0
        self.layers = _Labels("layer")

    def __len__(self) -> int:
        return self.count

    def extend(self, contexts: list[dict]) -> None:
        self.layers.indices(_values(contexts, "layer"))
        self.count += len(contexts)


def scan_debug(path: Path, cancel: CancelToken | None = None) -> DebugScan:
    """Decode every context of PATH, as ingest does, to tell whether it reads to the end."""
    tally = _Tally()
    problems = _read_contexts(Path(path), tally, no_progress, cancel or CancelToken())
    return DebugScan(len(tally), tally.layers.names(), problems)


def _read_contexts(path: Path, sink: "_Columns | _Tally", progress: Progress, cancel: CancelToken) -> str:
    """Read PATH into SINK; return what was skipped or stopped the reading ("" if none)."""
    try:
        with open_regular(path, buffering=FILE_BUFFER) as fp:
            size = os.fstat(fp.fileno()).st_size
            if size == 0:
                raise ReportError(path, "empty file: no debug contexts")
            reader = _ContextReader(_CborInput(fp, size), sink, progress, cancel)
            damage = reader.run()
    except OSError as exc:
        raise ReportError(path, f"cannot read ({exc.strerror or exc})") from None
    progress("debug.cbor", size, size)
    return reader.problems(damage)


class _CborInput:
    """The outer CBOR structure, read by hand; whole items are decoded by cbor2."""

    def __init__(self, fp: BinaryIO, size: int) -> None:
        self.fp = fp
        self.size = size
        self.decoder = self._new_decoder("strict")
        self.batch_input = _HeaderFirst(fp)
        self.batch_decoder = self._new_batch_decoder()

    @property
    def position(self) -> int:
        return self.fp.tell()

    def _peek(self) -> int | None:
        """The next byte, not consumed (BufferedReader.peek would copy its whole buffer)."""
        head = self.fp.read(1)
        if not head:
            return None
        self.fp.seek(-1, 1)
        return head[0]

    def at_end(self) -> bool:
        return self._peek() is None

    def next_major(self) -> int:
        head = self._peek()
        if head is None:
            raise _Damage(f"file ends at byte {self.size:,} where an item was expected")
        return head >> 5

    def at_break(self) -> bool:
        """Consume the break that ends an indefinite container, if it comes next."""
        head = self._peek()
        if head is None:
            raise _Damage(f"file ends at byte {self.size:,} inside an indefinite-length item")
        if head == BREAK:
            self.fp.read(1)
            return True
        return False

    def header(self) -> tuple[int, int | None]:
        """Major type and argument of the next item; None for indefinite length."""
        start = self.position
        initial = self._read(1, start)[0]
        major, info = initial >> 5, initial & 0x1F
        if info < 24:
            argument: int | None = info
        elif info <= 27:
            argument = int.from_bytes(self._read(1 << (info - 24), start), "big")
        elif info == 31 and major in (2, 3, ARRAY, MAP, 7):
            if major == 7:
                raise _Damage(f"unexpected break code at byte {start:,}")
            argument = None
        else:
            raise _Damage(f"invalid CBOR header 0x{initial:02x} at byte {start:,}")
        self._check_length(major, argument, start)
        return major, argument

    def _check_length(self, major: int, length: int | None, start: int) -> None:
        minimum_bytes = {2: 1, 3: 1, ARRAY: 1, MAP: 2}.get(major)
        if length is None or minimum_bytes is None:
            return
        if length * minimum_bytes > self.size - self.position:
            raise _Damage(
                f"file ends at byte {self.size:,} inside the item at byte {start:,}"
                f" (declared length {length:,})"
            )

    def _read(self, n: int, start: int) -> bytes:
        data = self.fp.read(n)
        if len(data) < n:
            raise _Damage(f"file ends at byte {self.size:,} inside the item at byte {start:,}")
        return data

    def elements(self, length: int | None) -> Iterable[Any]:
        """One step per element of a container whose header was just read."""
        return self._until_break() if length is None else range(length)

    def _until_break(self) -> Iterator[None]:
        while not self.at_break():
            yield

    def _new_decoder(self, str_errors: str) -> cbor2.CBORDecoder:
        return cbor2.CBORDecoder(
            self.fp, max_depth=MAX_DEPTH, semantic_decoders=_LITERAL_TAGS, str_errors=str_errors
        )

    def _new_batch_decoder(self) -> cbor2.CBORDecoder:
        return cbor2.CBORDecoder(
            self.batch_input, max_depth=MAX_DEPTH + 1, semantic_decoders=_LITERAL_TAGS,
            read_size=BATCH_READ_SIZE,
        )

    def decode_many(self, count: int) -> list[Any] | None:
        """The next COUNT items, decoded by one call to cbor2 as the array they would make.

        None, with the file where it was, when any of them fails to decode (bad UTF-8,
        too deep, a break or the end of the file among them): decode_or_skip then
        reads them one at a time.
        """
        start = self.fp.tell()
        self.batch_input.header = b"\x9a" + count.to_bytes(4, "big")
        try:
            return self.batch_decoder.decode()
        except Exception:  # cbor2 raises many types from its tag decoders
            self.batch_decoder = self._new_batch_decoder()
            self.batch_input.header = b""
            self.fp.seek(start)
            return None

    def decode_or_skip(self) -> tuple[Any, str | None]:
        """The next item, or (None, why) when cbor2 cannot build it though it is well formed.

        A decoder that raised keeps stale read-ahead, so it is replaced. Replacing bad
        UTF-8 slows every string down: the lenient decoder is only for items that need it.
        """
        start = self.fp.tell()
        try:
            return self.decoder.decode(), None
        except Exception:  # cbor2 raises many types from its tag decoders
            self.decoder = self._new_decoder("strict")
        self.fp.seek(start)
        try:
            return self._new_decoder("replace").decode(), None
        except Exception as exc:
            self.fp.seek(start)
            self.skip()
            return None, f"byte {start:,}: {_first_line(exc)}"

    def skip(self) -> None:
        """Move past one item without building it (structure checks only)."""
        pending: list[int | None] = [1]  # items left at each open level; None = until break
        while pending:
            left = pending[-1]
            if left == 0 or (left is None and self.at_break()):
                pending.pop()
                continue
            if left is not None:
                pending[-1] = left - 1
            self._skip_one(pending)

    def _skip_one(self, pending: list[int | None]) -> None:
        major, argument = self.header()
        if major in (2, 3) and argument is not None:
            self.fp.seek(argument, 1)
            return
        if major in (0, 1, 7):
            return
        if len(pending) > MAX_SKIP_DEPTH:
            raise _Damage(f"nested deeper than {MAX_SKIP_DEPTH:,} levels at byte {self.position:,}")
        if major == 6:
            pending.append(1)
        elif major == MAP and argument is not None:
            pending.append(2 * argument)
        else:
            pending.append(argument)


class _HeaderFirst:
    """The file as cbor2 reads it for a batch: an array header, then the file's own bytes.

    Seekable, so that cbor2 reads ahead in large blocks and seeks the file back to the
    end of the batch when it is done.
    """

    def __init__(self, fp: BinaryIO) -> None:
        self.fp = fp
        self.header = b""

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def read(self, n: int) -> bytes:
        header, self.header = self.header, b""
        return header + self.fp.read(n - len(header)) if header else self.fp.read(n)

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.fp.seek(offset, whence)


class _StringColumn:
    """A string table built on disk: rows of UTF-8 appended to a file that becomes its blob
    column when the rows stay in file order."""

    def __init__(self, writer: BundleWriter) -> None:
        self.blob = writer.spool(buffering=FILE_BUFFER)
        self.offsets = array("q", [0])

    def extend(self, data: bytes, lengths: Iterable[int]) -> None:
        """Append rows of LENGTHS bytes, DATA holding them one after the other."""
        start = self.blob.size
        self.blob.write(data)
        ends = accumulate(lengths, initial=start)
        next(ends)
        self.offsets.extend(ends)

    def close(self) -> None:
        self.blob.close()

    def write(self, writer: BundleWriter, name: str, order: np.ndarray | None) -> None:
        """Write the string table `name.blob` + `name.offsets`, rows permuted by ORDER."""
        offsets = np.frombuffer(self.offsets, dtype=np.int64)
        if order is None:
            self.blob.keep(f"{name}.blob")
        else:
            with writer.byte_column(f"{name}.blob", self.blob.size) as out:
                self._copy_rows(offsets, order, out)
            offsets = _offsets_of(np.diff(offsets)[order])
        writer.array(f"{name}.offsets", offsets)

    def _copy_rows(self, offsets: np.ndarray, order: np.ndarray, out: BinaryIO) -> None:
        self.blob.flush()
        for first in range(0, len(order), ROWS_PER_CHUNK):
            rows = order[first : first + ROWS_PER_CHUNK]
            for lo, hi in zip(offsets[rows].tolist(), offsets[rows + 1].tolist()):
                out.write(self.blob.read(lo, hi - lo))


def _offsets_of(lengths: np.ndarray) -> np.ndarray:
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


class _Labels:
    """Distinct names (layers, categories) and their int16 indices."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.index: dict[str, int] = {}

    def index_of(self, value: Any) -> int:
        """The index of VALUE's text, given on first sight."""
        if type(value) is str and value in self.index:  # the common case, kept short
            return self.index[value]
        name = _text(value)
        index = self.index.get(name)
        if index is None:
            if len(self.index) >= MAX_NAMES:
                raise _Damage(f"more than {MAX_NAMES} distinct {self.kind} names")
            index = self.index[name] = len(self.index)
        return index

    def indices(self, values: list[Any], absent: int | None = None) -> list[int]:
        """The index of each of VALUES (ABSENT for None, if given); no new name is kept if one is too many."""
        known = self.index if absent is None else {**self.index, None: absent}
        try:
            found = list(map(known.get, values))
        except TypeError:  # an unhashable value: a list or map
            found = [None]
        if None not in found:
            return found
        before = len(self.index)
        try:
            return [absent if value is None and absent is not None else self.index_of(value) for value in values]
        except _Damage:
            self.forget(before)
            raise

    def forget(self, count: int) -> None:
        """Keep only the first COUNT names."""
        self.index = dict(islice(self.index.items(), count))

    def names(self) -> list[str]:
        return list(self.index)


class _Columns:
    """The compact per-context columns, in file order until written."""

    def __init__(self, writer: BundleWriter) -> None:
        self.ids = array("q")
        self.parents = array("q")
        self.layers = array("h")
        self.categories = array("h")
        self.names = _StringColumn(writer)
        self.fields = _StringColumn(writer)
        self.layer_labels = _Labels("layer")
        self.category_labels = _Labels("category")
        self.rows_without_id = array("q")

    def __enter__(self) -> "_Columns":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.names.close()
        self.fields.close()

    def __len__(self) -> int:
        return len(self.ids)

    def extend(self, contexts: list[dict]) -> None:
        """Append CONTEXTS, all of them or (raising _Damage) none."""
        layers_before = len(self.layer_labels.index)
        layers = self.layer_labels.indices(_values(contexts, "layer"))
        try:
            categories = self.category_labels.indices(_values(contexts, "category"), absent=-1)
        except _Damage:
            self.layer_labels.forget(layers_before)
            raise
        self.ids.extend(self._valid_ids(_values(contexts, "id")))
        self.parents.extend(_parents(contexts))
        self.layers.fromlist(layers)
        self.categories.fromlist(categories)
        self.names.extend(*_display_names(contexts))
        fields = _json_rows(contexts)
        self.fields.extend(b"".join(fields), map(len, fields))

    def _valid_ids(self, ids: list[Any]) -> array:
        """IDS as int64; 0 where a context has none (or not an int64), its row noted."""
        if set(map(type, ids)) == {int}:
            try:
                return array("q", ids)
            except OverflowError:
                pass
        first_row = len(self.ids)
        for row, value in enumerate(ids):
            if _int64(value) is None:
                self.rows_without_id.append(first_row + row)
                ids[row] = 0
        return array("q", ids)

    def write(self, writer: BundleWriter) -> None:
        ids = self._ids_with_fresh()
        order = None if np.all(ids[1:] >= ids[:-1]) else np.argsort(ids, kind="stable")

        def permuted(values: np.ndarray) -> np.ndarray:
            return values if order is None else values[order]

        writer.array(s.DEBUG_ID, permuted(ids))
        writer.array(s.DEBUG_PARENT, permuted(np.frombuffer(self.parents, dtype=np.int64)))
        writer.array(s.DEBUG_LAYER, permuted(np.frombuffer(self.layers, dtype=np.int16)))
        writer.array(s.DEBUG_CATEGORY, permuted(np.frombuffer(self.categories, dtype=np.int16)))
        self.names.write(writer, s.DEBUG_NAME, order)
        self.fields.write(writer, s.DEBUG_FIELDS, order)

    def _ids_with_fresh(self) -> np.ndarray:
        """The ids, contexts without one numbered after the largest id seen."""
        ids = np.array(self.ids, dtype=np.int64)
        missing = np.frombuffer(self.rows_without_id, dtype=np.int64)
        if len(missing):
            known = np.delete(ids, missing)
            first = int(known.max()) + 1 if len(known) else 0
            if first + len(missing) > INT64_MAX:
                first = int(known.min()) - len(missing)
            ids[missing] = np.arange(first, first + len(missing), dtype=np.int64)
        return ids

    def meta(self) -> dict[str, Any]:
        return {
            "layers": self.layer_labels.names(),
            "categories": self.category_labels.names(),
            "contexts": len(self),
        }


class _ContextReader:
    """Walks the top-level layout and feeds each context to the columns."""

    def __init__(self, cbor: _CborInput, columns: "_Columns | _Tally", progress: Progress, cancel: CancelToken) -> None:
        self.cbor = cbor
        self.progress = progress
        self.cancel = cancel
        self.columns = columns
        self.not_maps = 0
        self.unreadable = 0
        self.first_unreadable: str | None = None
        self.seen = 0
        self.next_progress = 0.0

    def run(self) -> str | None:
        """Read everything; return why reading stopped early, or None."""
        try:
            self._read_top_level()
        except _Damage as damage:
            return str(damage)
        return None

    def problems(self, damage: str | None) -> str:
        """One line saying what was skipped and where reading stopped."""
        parts = []
        if self.not_maps:
            parts.append(f"skipped {self.not_maps:,} items that are not context maps")
        if self.unreadable:
            first = self.first_unreadable
            parts.append(f"skipped {self.unreadable:,} unreadable contexts (first at {first})")
        if damage:
            parts.append(f"stopped: {damage}")
        return "; ".join(parts)

    def _read_top_level(self) -> None:
        stream = False  # once a top-level map proves to be a context, the rest is a stream
        while not self.cbor.at_end():
            major = self.cbor.next_major()
            if stream:
                self._read_until(self.cbor.at_end)
            elif major not in (ARRAY, MAP):
                self._read_context()
            elif major == ARRAY:
                self._read_array()
            else:
                stream = not self._read_wrapper()

    def _read_array(self) -> None:
        major, length = self.cbor.header()
        if major != ARRAY:
            raise _Damage(f"'contexts' is not an array (CBOR major type {major})")
        if length is None:
            self._read_until(self.cbor.at_break)
            return
        while length:
            count = min(BATCH, length)
            if not self._read_batch(count):
                for _ in range(count):
                    self._read_context()
            length -= count

    def _read_until(self, ended: Callable[[], bool]) -> None:
        """Contexts until ENDED says they end (a break, which it consumes, or the end of the file)."""
        while not ended():
            if self._read_batch(BATCH):
                continue
            self._read_context()
            for _ in range(BATCH - 1):
                if ended():
                    return
                self._read_context()

    def _read_wrapper(self) -> bool:
        """Read a top-level map: True if it held "contexts"; else it was a context itself."""
        start = self.cbor.position
        _, length = self.cbor.header()
        found = False
        for _ in self.cbor.elements(length):
            key, _error = self.cbor.decode_or_skip()
            if key == "contexts" and not found:
                self._read_array()
                found = True
            else:
                self.cbor.skip()
        if not found:
            self.cbor.fp.seek(start)
            self._read_context()
        return found

    def _read_batch(self, count: int) -> bool:
        """Read COUNT items decoded at once; False, having read none, when they need reading one at a time."""
        items = self.cbor.decode_many(count)
        if items is None:
            return False
        contexts = [item for item in items if isinstance(item, dict)]
        try:
            self.columns.extend(contexts)
        except _Damage:  # keep the contexts before the one that brought a name too many
            for item in items:
                self._take(item)
            raise
        self.not_maps += len(items) - len(contexts)
        self.seen += len(items)
        self.cancel.check()
        self._report_progress()
        return True

    def _read_context(self) -> None:
        context, error = self.cbor.decode_or_skip()
        if error is not None:
            self.unreadable += 1
            self.first_unreadable = self.first_unreadable or error
        else:
            self._take(context)
        self.seen += 1
        if self.seen % TICK_EVERY == 0:
            if self.seen % CANCEL_EVERY == 0:
                self.cancel.check()
            self._report_progress()

    def _take(self, item: Any) -> None:
        if isinstance(item, dict):
            self.columns.extend([item])
        else:
            self.not_maps += 1

    def _report_progress(self) -> None:
        if time.monotonic() >= self.next_progress:
            self.next_progress = time.monotonic() + PROGRESS_SECONDS
            self.progress("debug.cbor", self.cbor.position, self.cbor.size)


def _first_line(exc: Exception) -> str:
    lines = str(exc).splitlines()
    return lines[0] if lines else type(exc).__name__


def _int64(value: Any) -> int | None:
    if type(value) is int and INT64_MIN <= value <= INT64_MAX:
        return value
    return None


def _values(contexts: list[dict], key: str) -> list[Any]:
    """Each context's value of KEY (None where it has none)."""
    return list(map(dict.get, contexts, repeat(key)))


def _parents(contexts: list[dict]) -> array:
    """Each context's parent id, -1 for none; most contexts say it as "parentId": int."""
    parents = _values(contexts, PARENT_KEYS[0])
    if set(map(type, parents)) != {int}:
        parents = [value if type(value) is int else _parent(context) for value, context in zip(parents, contexts)]
    try:
        return array("q", parents)
    except OverflowError:
        return array("q", map(_parent, contexts))


def _parent(context: dict) -> int:
    for key in PARENT_KEYS:
        if key in context:
            value = context[key]
            if isinstance(value, (list, tuple)):
                value = value[0] if value else None
            parent = _int64(value)
            return -1 if parent is None else parent
    return -1


def _display_names(contexts: list[dict]) -> tuple[bytes, list[int]]:
    """The contexts' display names in UTF-8, one after the other, and the length of each."""
    names = list(map(_display_name, contexts))
    text = "".join(names)
    data = text.encode("utf-8", "surrogatepass")
    if len(data) == len(text):  # all ASCII: a name's length in bytes is its length in characters
        return data, list(map(len, names))
    return data, [len(name.encode("utf-8", "surrogatepass")) for name in names]


def _display_name(context: dict) -> str:
    for key in NAME_KEYS:
        value = context.get(key)
        if value is not None:
            return _text(value)
    return ""


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return "" if value is None else _json_text(value)


def _jsonable(value: Any) -> Any:
    """What json cannot encode itself: bytes as hex, tags as {tag, value}, the rest as text."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, cbor2.CBORTag):
        return {"tag": value.tag, "value": value.value}
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset)):
        return list(value)
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return str(value)


_ENCODER = json.JSONEncoder(default=_jsonable, separators=(",", ":"), check_circular=False)


def _json_text(value: Any) -> str:
    return _json_bytes(value).decode("utf-8")


_ORJSON_DUMPS = partial(orjson.dumps, default=_jsonable, option=orjson.OPT_NON_STR_KEYS)
_ORJSON_STR_KEYS = partial(orjson.dumps, default=_jsonable)  # faster; raises TypeError on other keys


def _json_rows(contexts: list[dict]) -> list[bytes]:
    """Each context as compact JSON in UTF-8."""
    try:
        return list(map(_ORJSON_STR_KEYS, contexts))
    except (TypeError, ValueError):  # one of them needs a slower path
        return list(map(_json_bytes, contexts))


def _json_bytes(value: Any) -> bytes:
    """VALUE as compact JSON in UTF-8."""
    try:
        return _ORJSON_DUMPS(value)
    except (TypeError, ValueError):  # keys json cannot take, integers beyond 64 bits or str()
        return _ENCODER.encode(_plain(value)).encode("ascii")


def _plain(value: Any) -> Any:
    """VALUE rebuilt from what json encodes as is; the slow path for odd values."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 8192:
        return hex(value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, Mapping):
        return {
            key if isinstance(key, str) else _json_text(key): _plain(item)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(item) for item in value]
    return _plain(_jsonable(value))
