"""archive.a: a Unix `ar` archive of ELF executables, one per tile, in tile order.

The ar container is parsed here without trusting it; pyelftools decodes each
member's ELF header. A tile's memory is the sum of its allocated
(SHF_ALLOC) sections, split into code (SHF_EXECINSTR), bss (SHT_NOBITS) and data.
A member that is not a usable ELF file counts 0 bytes, and the file gets one note.
"""

from __future__ import annotations

import io
import mmap
import os
import struct
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np
from elftools.common.exceptions import ELFError
from elftools.common.utils import struct_parse
from elftools.construct import Struct
from elftools.elf.constants import SH_FLAGS
from elftools.elf.enums import ENUM_SH_TYPE_BASE
from elftools.elf.structs import ELFStructs

from pvtui.errors import ReportError
from pvtui.model import schema
from pvtui.files.regular import open_regular
from pvtui.sources.base import IngestContext

AR_MAGIC = b"!<arch>\n"
THIN_MAGIC = b"!<thin>\n"
HEADER_SIZE = 60
HEADER_END = b"`\n"
SYMBOL_TABLES = (b"/", b"/SYM64/")  # GNU; BSD ones are named "__.SYMDEF..."
LONG_NAMES = b"//"
BSD_NAME = b"#1/"

SHT_NOBITS = ENUM_SH_TYPE_BASE["SHT_NOBITS"]
ELF_MAGIC = b"\x7fELF"
EI_NIDENT = 16
ELF_CLASSES = {1: 32, 2: 64}  # EI_CLASS -> bits
ELF_BYTE_ORDERS = {1: True, 2: False}  # EI_DATA -> little endian

MAX_MEMBER_BYTES = 1 << 48  # far beyond any tile; keeps every sum within int64
BATCH = 256  # members between cancel checks and progress reports
PROGRESS_INTERVAL = 0.1  # seconds


@dataclass(frozen=True)
class Member:
    name: str
    start: int  # offset of the member's data in the archive
    size: int


class BadMember(Exception):
    """A member that is not a usable ELF file; the text says why."""


def read_archive(path: Path, ctx: IngestContext) -> None:
    """Read per-tile code, data and bss bytes from archive.a into the bundle."""
    try:
        with open_regular(path) as f:
            file_size = os.fstat(f.fileno()).st_size
            if file_size == 0:
                raise ReportError(path, "empty file, not an ar archive")
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as view:
                _read_members(path, view, ctx)
    except OSError as exc:
        raise ReportError(path, f"cannot read: {exc.strerror or exc}") from None


def _read_members(path: Path, view: mmap.mmap, ctx: IngestContext) -> None:
    sizer = SectionSizer()
    names: list[str] = []
    sizes: list[tuple[int, int, int]] = []
    unusable: list[tuple[str, str]] = []  # (member name, problem)
    last_report = time.monotonic()
    for member in iter_members(path, view):
        try:
            sizes.append(sizer.sizes(view[member.start : member.start + member.size]))
        except BadMember as exc:
            sizes.append((0, 0, 0))
            unusable.append((member.name, str(exc)))
        names.append(member.name)
        if len(names) % BATCH == 0:
            ctx.cancel.check()
            if time.monotonic() - last_report >= PROGRESS_INTERVAL:
                ctx.progress("archive.a", member.start + member.size, len(view))
                last_report = time.monotonic()
    if not names:
        raise ReportError(path, "the ar archive has no members")
    ctx.progress("archive.a", len(view), len(view))
    _write_columns(ctx, names, sizes)
    if unusable:
        name, problem = unusable[0]
        ctx.note(
            "archive",
            f"{path}: member {name!r} {problem}; {len(unusable):,} of {len(names):,} members"
            " unusable, counted as 0 bytes",
        )
    ctx.meta["archive"] = {"members": len(names), "unusable": len(unusable)}
    ctx.add_part("archive")


def _write_columns(ctx: IngestContext, names: list[str], sizes: list[tuple[int, int, int]]) -> None:
    table = np.array(sizes, dtype=np.int64).reshape(len(sizes), 3)
    ctx.writer.array(schema.ARCHIVE_CODE, table[:, 0])
    ctx.writer.array(schema.ARCHIVE_DATA, table[:, 1])
    ctx.writer.array(schema.ARCHIVE_BSS, table[:, 2])
    ctx.writer.strings(schema.ARCHIVE_MEMBER, names)


# --- the ar container ---------------------------------------------------------


def iter_members(path: Path, view: mmap.mmap | bytes) -> Iterator[Member]:
    """The archive's file members in order, skipping symbol and long-name tables."""
    magic = view[: len(AR_MAGIC)]
    if magic == THIN_MAGIC:
        raise ReportError(path, "thin ar archive: the members are not stored in it")
    if magic != AR_MAGIC:
        raise ReportError(path, "not an ar archive (no !<arch> signature)")
    long_names = b""
    offset = len(AR_MAGIC)
    end = len(view)
    while offset < end:
        if end - offset < HEADER_SIZE:
            if view[offset:end].strip(b"\n"):
                raise ReportError(path, f"truncated member header at offset {offset:,}")
            return  # trailing padding
        field, size = _parse_header(path, view[offset : offset + HEADER_SIZE], offset)
        start = offset + HEADER_SIZE
        if size > end - start:
            raise ReportError(
                path,
                f"truncated: member at offset {offset:,} claims {size:,} bytes,"
                f" {end - start:,} remain",
            )
        offset = start + size + (size & 1)
        if field == LONG_NAMES:
            long_names = view[start : start + size]
        elif field not in SYMBOL_TABLES:
            member = _named_member(path, field, long_names, view, start, size)
            if not member.name.startswith("__.SYMDEF"):
                yield member


def _parse_header(path: Path, header: bytes, offset: int) -> tuple[bytes, int]:
    """The raw name field (spaces stripped) and data size of one member header."""
    size_field = header[48:58].strip(b" ")
    if header[58:60] != HEADER_END or not size_field.isdigit():
        raise ReportError(path, f"corrupt member header at offset {offset:,}")
    return header[:16].rstrip(b" "), int(size_field)


def _named_member(
    path: Path, field: bytes, long_names: bytes, view: mmap.mmap | bytes, start: int, size: int
) -> Member:
    """Resolve GNU "/N" long names, BSD "#1/N" names (stored before the data) and short names."""
    if field.startswith(BSD_NAME):
        length = field[len(BSD_NAME) :]
        if not length.isdigit() or int(length) > size:
            offset = start - HEADER_SIZE
            raise ReportError(path, f"corrupt BSD member name {field!r} at offset {offset:,}")
        name_size = int(length)
        name = view[start : start + name_size].rstrip(b"\0")
        return Member(_decode(name), start + name_size, size - name_size)
    if field[:1] == b"/" and field[1:].isdigit():
        name_at = int(field[1:])
        name_end = long_names.find(b"\n", name_at)
        if name_at < len(long_names) and name_end != -1:
            field = long_names[name_at:name_end]
    return Member(_decode(field.removesuffix(b"/")), start, size)


def _decode(name: bytes) -> str:
    return name.decode("utf-8", errors="replace")


# --- one ELF member -----------------------------------------------------------

# Elf32_Shdr / Elf64_Shdr by ELF class and byte order, unpacking only the fields
# we need: (sh_type, sh_flags, sh_offset, sh_size).
SECTION_FIELDS = {
    (32, True): struct.Struct("<4xII4xII16x"),
    (32, False): struct.Struct(">4xII4xII16x"),
    (64, True): struct.Struct("<4xIQ8xQQ24x"),
    (64, False): struct.Struct(">4xIQ8xQQ24x"),
}


class SectionSizer:
    """Sums a member's allocated section sizes.

    pyelftools decodes and checks each ELF header. `ELFFile` itself rebuilds its
    struct definitions for every file, and its construct-based parsing costs ~10 us
    per section header: about 0.8 ms a member, five seconds for 5,888 tiles. So the
    definitions are built once per ELF class and byte order, and the section header
    table, a plain array of fixed-size records, is unpacked with `struct`.
    """

    def __init__(self) -> None:
        self._headers: dict[tuple[int, bool], tuple[Struct, int]] = {}

    def sizes(self, member: bytes) -> tuple[int, int, int]:
        """(code, data, bss) bytes of one member; raises BadMember when it is unusable."""
        try:
            return self._sizes(member)
        except (ELFError, struct.error, ValueError) as exc:
            raise BadMember(f"has a broken ELF header ({exc})") from None

    def _sizes(self, member: bytes) -> tuple[int, int, int]:
        layout = _elf_layout(member)
        elf_header, header_size = self._elf_header(layout)
        if len(member) < header_size:
            raise BadMember("is too short for an ELF header")
        header = struct_parse(elf_header, io.BytesIO(member), stream_pos=0)
        code = data = bss = 0
        sections = _section_headers(SECTION_FIELDS[layout], header, member)
        for sh_type, flags, offset, size in sections:
            if not flags & SH_FLAGS.SHF_ALLOC:
                continue
            if sh_type == SHT_NOBITS:
                bss += size
            elif offset + size > len(member):
                raise BadMember("has a section extending past its end")
            elif flags & SH_FLAGS.SHF_EXECINSTR:
                code += size
            else:
                data += size
        if code + data + bss > MAX_MEMBER_BYTES:
            raise BadMember(f"claims an implausible {code + data + bss:,} bytes")
        return code, data, bss

    def _elf_header(self, layout: tuple[int, bool]) -> tuple[Struct, int]:
        """pyelftools' Elf_Ehdr for this layout, and its size."""
        cached = self._headers.get(layout)
        if cached is None:
            bits, little_endian = layout
            structs = ELFStructs(little_endian=little_endian, elfclass=bits)
            structs.create_basic_structs()
            cached = self._headers[layout] = (structs.Elf_Ehdr, structs.Elf_Ehdr.sizeof())
        return cached


def _elf_layout(member: bytes) -> tuple[int, bool]:
    """(class bits, little endian) from e_ident."""
    if member[:4] != ELF_MAGIC:
        raise BadMember("is not an ELF file")
    if len(member) < EI_NIDENT:
        raise BadMember("is too short for an ELF header")
    bits, little_endian = ELF_CLASSES.get(member[4]), ELF_BYTE_ORDERS.get(member[5])
    if bits is None or little_endian is None:
        raise BadMember("has an unknown ELF class or byte order")
    return bits, little_endian


def _section_headers(fields: struct.Struct, header, member: bytes) -> list[tuple[int, ...]]:
    """(sh_type, sh_flags, sh_offset, sh_size) of every section, bounds-checked."""
    table, entry_size = header["e_shoff"], header["e_shentsize"]
    if table == 0:
        return []
    if entry_size < fields.size:
        raise BadMember(f"has section headers of {entry_size:,} bytes")
    if table + entry_size > len(member):
        raise BadMember("has its section header table past its end")
    # e_shnum 0 with a table: the count is section 0's sh_size (extended numbering)
    count = header["e_shnum"] or fields.unpack_from(member, table)[3]
    if table + count * entry_size > len(member):
        raise BadMember(f"has {count:,} section headers, more than fit in it")
    return [fields.unpack_from(member, table + i * entry_size) for i in range(count)]
