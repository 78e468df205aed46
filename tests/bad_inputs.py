"""A corpus of damaged reports, written on demand from the tiny synthetic report.

Each entry is a report directory (or bundle) damaged in one way, and the answer
pvtui owes it: exit status 0 with no warning (`WHOLE`), 0 with a warning line that
names the damaged file (`PARTIAL`), or 2 with one line naming the file or problem
(`UNUSABLE`). Nothing binary is committed: every entry is built from a copy of the
tiny report, undamaged files hard-linked to save time and disk.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import cbor2
import numpy as np

from pvtui.errors import ReportError
from pvtui.model.bundle import BundleWriter
from pvtui.model.report import Report
from pvtui.sources.base import IngestContext
from pvtui.synth.elf import ElfSection, build_elf, write_ar

WHOLE, PARTIAL, UNUSABLE = "whole", "partial", "unusable"
REPORT_FILE_NAMES = ("profile.pop", "debug.cbor", "archive.a", "framework.json", "app.json")
STAND_IN = "profile.pvtui"  # the synthetic report's bundle, standing in for profile.pop
SQLITE_HEADER = b"SQLite format 3\x00"
HUGE = 2**62


@dataclass(frozen=True)
class BadInput:
    name: str  # the entry's directory name in the corpus
    kind: str  # what is wrong, in a few words
    path: Path  # what the commands are given
    outcome: str  # WHOLE, PARTIAL or UNUSABLE
    mentions: str  # text the warning or error line must contain


def read_or_report_error(read: Callable[[Path, IngestContext], None], data: bytes, name: str, part: str,
                         check: Callable[[Report], None] | None = None) -> None:
    """Run READ over DATA saved as NAME, a file of PART. It may raise ReportError, one line naming the
    file; or it reads what it can: into a bundle the model opens whole, every column readable, with a
    note naming the file for anything left out, and PART there unless such a note says why not. CHECK
    then looks at what PART holds."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / name
        path.write_bytes(data)
        with BundleWriter(Path(scratch) / "bundle") as writer:
            try:
                read(path, IngestContext(writer))
            except ReportError as error:
                assert "\n" not in str(error) and str(path) in str(error), error
                return
            bundle = writer.commit()
        report = Report(bundle)
        assert not report.bundle.damaged, report.bundle.damaged
        assert all("\n" not in note and str(path) in note for note in report.notes), report.notes
        for column in report.bundle.columns:
            np.asarray(report.bundle.array(column)).sum()
        if part not in report.parts:
            assert str(path) in report.missing(part), report.notes
        elif check is not None:
            check(report)


def debug_read(report: Report) -> None:
    """Every debug context counted is there; at most one note says what was left out."""
    assert len(report.debug) == report.meta["debug"]["contexts"]
    assert len(report.notes) <= 1


def build_corpus(tiny: Path, root: Path) -> list[BadInput]:
    """Write every entry under ROOT (a fresh directory) from the tiny report at TINY."""
    root.mkdir(parents=True, exist_ok=True)
    entries = []
    for name, kind, outcome, mentions, write in _entries(tiny):
        where = root / name
        path = write(where) or where  # a writer returns what to open when it is not WHERE itself
        entries.append(BadInput(name, kind, path, outcome, mentions))
    return entries


def _entries(tiny: Path) -> Iterator[tuple[str, str, str, str, Callable[[Path], Path | None]]]:
    """(name, kind, outcome, mentions, writer) of every entry."""
    archive = (tiny / "archive.a").read_bytes()
    debug = (tiny / "debug.cbor").read_bytes()
    framework = (tiny / "framework.json").read_bytes()
    noise = random.Random(5).randbytes(64 * 1024)

    def damaged(replace: dict[str, bytes] | None = None, drop: tuple[str, ...] = ()):
        """The tiny report with some files replaced (bytes) or left out."""
        return lambda where: copy_report(tiny, where, replace or {}, drop)

    def without_profile(replace: dict[str, bytes]):
        return damaged(replace, drop=(STAND_IN,))

    def alone(name: str, data: bytes):
        def write(where: Path) -> None:
            where.mkdir()
            (where / name).write_bytes(data)

        return write

    # archive.a, with the profile intact: the archive is noted, the rest opens
    yield "archive-truncated-in-magic", "truncated archive.a", PARTIAL, "archive.a", damaged({"archive.a": archive[:5]})
    yield "archive-truncated-in-header", "truncated archive.a", PARTIAL, "archive.a", damaged({"archive.a": archive[:38]})
    yield "archive-truncated-in-member", "truncated archive.a", PARTIAL, "archive.a", damaged({"archive.a": archive[: len(archive) // 3]})
    yield "archive-random", "random bytes", PARTIAL, "archive.a", damaged({"archive.a": noise})
    yield "archive-huge-member-length", "huge declared length", PARTIAL, "archive.a", damaged({"archive.a": huge_ar_member()})
    yield "archive-non-elf-members", "non-ELF archive members", PARTIAL, "archive.a", damaged({"archive.a": non_elf_archive()})
    yield "archive-elf-huge-shnum", "ELF with huge e_shnum", PARTIAL, "archive.a", damaged({"archive.a": bad_elf_archive("huge_shnum")})
    yield "archive-elf-offsets-past-end", "ELF offsets past the end", PARTIAL, "archive.a", damaged({"archive.a": bad_elf_archive("past_end")})
    # debug.cbor
    for label, cut in (("early", 7), ("middle", len(debug) // 2), ("late", len(debug) - 1)):
        yield f"debug-truncated-{label}", "truncated debug.cbor", PARTIAL, "debug.cbor", damaged({"debug.cbor": debug[:cut]})
    yield "debug-random", "random bytes", PARTIAL, "debug.cbor", damaged({"debug.cbor": noise})
    yield "debug-list-of-strings", "wrong CBOR types", PARTIAL, "debug.cbor", damaged({"debug.cbor": cbor2.dumps({"contexts": ["a", 1, [2]]})})
    yield "debug-contexts-a-map", "wrong CBOR types", PARTIAL, "debug.cbor", damaged({"debug.cbor": cbor2.dumps({"contexts": {"id": 1}})})
    yield "debug-odd-field-types", "wrong CBOR types", WHOLE, "", damaged({"debug.cbor": odd_contexts()})
    yield "debug-deep-nesting", "CBOR nested 100,000 deep", PARTIAL, "debug.cbor", damaged({"debug.cbor": deep_cbor()})
    yield "debug-huge-array", "huge declared length", PARTIAL, "debug.cbor", damaged({"debug.cbor": b"\x9b" + HUGE.to_bytes(8, "big")})
    yield "debug-huge-string", "huge declared length", PARTIAL, "debug.cbor", damaged({"debug.cbor": huge_cbor_string()})
    # framework.json and app.json
    yield "framework-truncated", "truncated JSON", PARTIAL, "framework.json", damaged({"framework.json": framework[: len(framework) // 2]})
    yield "framework-a-list", "wrong JSON types", WHOLE, "", damaged({"framework.json": b'["popart", 3, {"version": 1}]'})
    yield "framework-deep-nesting", "JSON nested 100,000 deep", PARTIAL, "framework.json", damaged({"framework.json": b"[" * 100_000 + b"]" * 100_000})
    yield "app-random", "random bytes", PARTIAL, "app.json", damaged({"app.json": noise})
    yield "app-latin-1", "non-UTF-8 JSON text", PARTIAL, "app.json", damaged({"app.json": '{"model": "café"}'.encode("latin-1")})
    yield "app-oversized", "JSON too large", PARTIAL, "app.json", lambda where: oversized_app_json(tiny, where)
    # profile.pop (libpva is not installed here) and the bundle that stands in for it
    yield "profile-sqlite-over-garbage", "SQLite header over garbage", PARTIAL, "libpva", without_profile({"profile.pop": SQLITE_HEADER + noise})
    yield "profile-random", "random bytes", PARTIAL, "profile.pop", without_profile({"profile.pop": noise})
    yield "standin-newer-schema", "bundle of a newer schema", PARTIAL, "schema", lambda where: stand_in_newer_schema(tiny, where)
    yield "standin-missing-column", "bundle with a .npy missing", PARTIAL, "tiles.including_gaps.npy", lambda where: stand_in_damaged(tiny, where, "tiles.including_gaps.npy", None)
    yield "standin-truncated-column", "bundle with a .npy truncated", PARTIAL, "programs.parent.npy", lambda where: stand_in_damaged(tiny, where, "programs.parent.npy", 100)
    yield "standin-column-header", "bundle with a .npy header damaged", PARTIAL, "liveness.program.npy", lambda where: stand_in_header_damaged(tiny, where, "liveness.program.npy")
    # empty files, one name at a time
    yield "empty-profile.pop", "empty file", PARTIAL, "profile.pop", without_profile({"profile.pop": b""})
    for name in REPORT_FILE_NAMES[1:]:
        yield f"empty-{name}", "empty file", PARTIAL, name, damaged({name: b""})
    # nothing usable left
    yield "empty-directory", "empty directory", UNUSABLE, "No graph profile found", lambda where: where.mkdir()
    yield "only-debug.cbor", "only debug.cbor", UNUSABLE, "No graph profile found", alone("debug.cbor", debug)
    yield "all-files-empty", "empty file", UNUSABLE, "no usable graph profile", without_profile({name: b"" for name in REPORT_FILE_NAMES})
    yield "only-archive-truncated", "truncated archive.a", UNUSABLE, "archive.a", alone("archive.a", archive[: len(archive) // 2])
    yield "only-archive-random", "random bytes", UNUSABLE, "archive.a", alone("archive.a", noise)
    yield "only-profile-sqlite", "SQLite header over garbage", UNUSABLE, "libpva", alone("profile.pop", SQLITE_HEADER + noise)
    yield "not-a-report-file", "unknown file", UNUSABLE, "not a report file", lambda where: not_a_report_file(where)
    yield "bundle-newer-schema", "bundle of a newer schema", UNUSABLE, "schema", lambda where: exported_bundle(tiny, where, "newer")
    yield "bundle-meta-truncated", "bundle with meta.json cut short", UNUSABLE, "meta.json", lambda where: exported_bundle(tiny, where, "meta-truncated")
    yield "bundle-meta-garbage", "bundle with meta.json garbage", UNUSABLE, "No graph profile found", lambda where: exported_bundle(tiny, where, "meta-garbage")
    yield "bundle-meta-entry-type", "bundle whose meta.json gives a figure as text", UNUSABLE, "'target.num_tiles' is damaged", lambda where: exported_bundle(tiny, where, "meta-entry")
    # an exported bundle may be the only copy: what is intact opens, the damaged column's part is named
    yield "bundle-missing-column", "bundle with a .npy missing", PARTIAL, "debug.id.npy", lambda where: exported_bundle(tiny, where, "missing")
    yield "bundle-truncated-column", "bundle with a .npy truncated", PARTIAL, "steps.from.npy", lambda where: exported_bundle(tiny, where, "truncated")
    yield "bundle-column-header", "bundle with a .npy header damaged", PARTIAL, "tiles.ipu.npy", lambda where: exported_bundle(tiny, where, "header")
    # unusual names: whole reports that must open as any other
    for name in ("with space", "ünïcødé 报告", "new\nline", os.fsdecode(b"latin-1-\xe9"), "-dash", "n" * 200):
        yield f"named-{name}", "unusual directory name", WHOLE, "", damaged()


# --- whole files and directories ---------------------------------------------------


def copy_report(tiny: Path, where: Path, replace: dict[str, bytes], drop: tuple[str, ...] = ()) -> None:
    """TINY's files hard-linked into WHERE, except DROP; REPLACE's files written anew."""
    left_out = set(drop) | set(replace)
    ignore = lambda directory, _names: left_out if Path(directory) == tiny else set()
    shutil.copytree(tiny, where, copy_function=_link, ignore=ignore)
    for name, data in replace.items():
        (where / name).write_bytes(data)


def _link(source: str, dest: str) -> None:
    try:
        os.link(source, dest)
    except OSError:
        shutil.copy2(source, dest)


def oversized_app_json(tiny: Path, where: Path) -> None:
    """An app.json larger than pvtui reads, as a sparse file."""
    from pvtui.sources.json_files import MAX_BYTES

    copy_report(tiny, where, {"app.json": b"{"})
    os.truncate(where / "app.json", MAX_BYTES + 1)


def stand_in_newer_schema(tiny: Path, where: Path) -> None:
    copy_report(tiny, where, {})
    _rewrite_meta(where / STAND_IN, schema_version=99)


def stand_in_damaged(tiny: Path, where: Path, column: str, keep_bytes: int | None) -> None:
    """The stand-in bundle with COLUMN cut to KEEP_BYTES, or removed (None)."""
    copy_report(tiny, where, {})
    _cut(where / STAND_IN / column, keep_bytes)


def exported_bundle(tiny: Path, where: Path, damage: str) -> Path:
    """A bundle on its own (as `pvtui export` writes), damaged."""
    shutil.copytree(tiny / STAND_IN, where, copy_function=_link)
    if damage == "newer":
        _rewrite_meta(where, schema_version=99)
    elif damage == "meta-truncated":  # cut just after the format tag, so it still looks like a bundle
        text = (where / "meta.json").read_bytes()
        _replace(where / "meta.json", text[: text.index(b"pvtui-bundle") + 20])
    elif damage == "meta-garbage":
        _replace(where / "meta.json", random.Random(7).randbytes(300))
    elif damage == "meta-entry":  # valid JSON, a figure of another type (with an escape: said made visible)
        _rewrite_meta(where, target={**json.loads((where / "meta.json").read_text())["target"], "num_tiles": "8\x1b[31m"})
    elif damage == "missing":
        _cut(where / "debug.id.npy", None)
    elif damage == "truncated":
        _cut(where / "steps.from.npy", 200)
    elif damage == "header":
        damage_header(where / "tiles.ipu.npy")
    return where


def stand_in_header_damaged(tiny: Path, where: Path, column: str) -> None:
    copy_report(tiny, where, {})
    damage_header(where / STAND_IN / column)


def damage_header(path: Path) -> None:
    """Overwrite the start of a .npy header's dictionary, as a stray write would."""
    data = bytearray(path.read_bytes())
    data[20:30] = b"#" * 10
    _replace(path, bytes(data))


def not_a_report_file(where: Path) -> Path:
    where.mkdir()
    (where / "notes.txt").write_text("not a report\n")
    return where / "notes.txt"


def _rewrite_meta(bundle: Path, **changes) -> None:
    meta = json.loads((bundle / "meta.json").read_text())
    meta.update(changes)
    _replace(bundle / "meta.json", json.dumps(meta).encode())


def _cut(path: Path, keep_bytes: int | None) -> None:
    """Truncate PATH to KEEP_BYTES, or remove it; never through a hard link to the original."""
    data = path.read_bytes()
    path.unlink()
    if keep_bytes is not None:
        path.write_bytes(data[:keep_bytes])


def _replace(path: Path, data: bytes) -> None:
    path.unlink()
    path.write_bytes(data)


# --- damaged contents --------------------------------------------------------------


def huge_ar_member() -> bytes:
    """An ar archive whose first member declares 9,999,999,999 bytes (the field's maximum)."""
    header = b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (b"tile0/", 0, 0, 0, b"644", 9_999_999_999)
    return b"!<arch>\n" + header + bytes(64)


def non_elf_archive() -> bytes:
    return _ar_bytes([("tile0", b"plain text, not ELF\n"), ("tile1", b"\x7fELF"), ("tile2", b"")])


def _elf(**fields: int) -> bytes:
    """A small ELF32 executable with header fields (e_shoff, e_shnum) overridden."""
    image = bytearray(build_elf([ElfSection(".text", "code", 16), ElfSection(".data", "data", 8)]))
    offsets = {"e_shoff": (32, "<I"), "e_shnum": (48, "<H")}
    for name, value in fields.items():
        at, form = offsets[name]
        struct.pack_into(form, image, at, value)
    return bytes(image)


def _extended_section_count(count: int) -> bytes:
    """An ELF whose e_shnum is 0, so section 0's sh_size (COUNT) is the section count."""
    image = bytearray(_elf(e_shnum=0))
    table = struct.unpack_from("<I", image, 32)[0]
    struct.pack_into("<I", image, table + 20, count)
    return bytes(image)


def bad_elf_archive(damage: str) -> bytes:
    good = ("good", _elf())
    if damage == "huge_shnum":
        return _ar_bytes([good, ("shnum", _elf(e_shnum=0xFFFF)), ("extended", _extended_section_count(0xFFFFFFFF))])
    past_end = bytearray(_elf())
    table = struct.unpack_from("<I", past_end, 32)[0]
    struct.pack_into("<I", past_end, table + 40 + 16, 1 << 30)  # section 1's sh_offset
    return _ar_bytes([good, ("table", _elf(e_shoff=0xFFFFFF00)), ("section", bytes(past_end))])


def _ar_bytes(members: list[tuple[str, bytes]]) -> bytes:
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "archive.a"
        write_ar(path, members)
        return path.read_bytes()


def odd_contexts() -> bytes:
    """Contexts whose fields have unexpected types: still contexts, shown as they are."""
    contexts = [
        {"id": "seven", "layer": 5, "parentId": [None], "name": {"nested": b"\xff"}},
        {"id": 2**70, "layer": None, "category": ["x"], "opName": 3.5},
        {1: "integer key", "layer": "popart"},
    ]
    return cbor2.dumps({"contexts": contexts})


def deep_cbor(depth: int = 100_000) -> bytes:
    """{"contexts": [[[...]]]} with DEPTH nested one-element arrays."""
    return cbor2.dumps({"contexts": []})[:-1] + b"\x81" + b"\x81" * depth + b"\x00"


def huge_cbor_string() -> bytes:
    """A context whose name declares a 2^62-byte string, in a file of a few bytes."""
    head = cbor2.dumps({"contexts": [{"name": ""}]})[:-1]  # up to the string's header
    return head + b"\x7b" + HUGE.to_bytes(8, "big") + b"abc"
