"""Writers of real ELF executables and GNU `ar` archives, for synthetic reports.

Pure struct packing and bytes repetition: the large synthetic report writes an
archive of 5,888 ELF members, so nothing here loops over bytes in Python.
"""

from __future__ import annotations

import shutil
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

ELF_HEADER = struct.Struct("<16sHHIIIIIHHHHHH")  # Elf32_Ehdr
SECTION_HEADER = struct.Struct("<10I")  # Elf32_Shdr
ELF_IDENT = b"\x7fELF" + bytes([1, 1, 1, 0]) + bytes(8)  # ELFCLASS32, LSB, EV_CURRENT, SysV
ET_EXEC = 2
EM_NONE = 0
EV_CURRENT = 1

SHT_PROGBITS = 1
SHT_STRTAB = 3
SHT_NOBITS = 8
SHF_WRITE = 0x1
SHF_ALLOC = 0x2
SHF_EXECINSTR = 0x4
SHF_MERGE = 0x10
SHF_STRINGS = 0x20

# kind -> (sh_type, sh_flags)
SECTION_KINDS = {
    "code": (SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR),
    "data": (SHT_PROGBITS, SHF_ALLOC | SHF_WRITE),
    "rodata": (SHT_PROGBITS, SHF_ALLOC),
    "bss": (SHT_NOBITS, SHF_ALLOC | SHF_WRITE),
}

LOAD_ADDRESS = 0x4C000  # where tile memory starts on a Mk2 IPU; any value would do
ALIGN = 4
COMMENT = b"\0pvtui synthetic report\0"


@dataclass(frozen=True)
class ElfSection:
    name: str
    kind: str  # "code" | "data" | "rodata" | "bss"
    size: int
    fill: int = 0  # seeds the contents: a repeated 32-bit word


def _align(value: int, alignment: int = ALIGN) -> int:
    return (value + alignment - 1) & -alignment


def _contents(section: ElfSection) -> bytes:
    word = (section.fill & 0xFFFFFFFF).to_bytes(4, "little")
    whole, rest = divmod(section.size, 4)
    return word * whole + word[:rest]


class _StringTable:
    """Builds a `.shstrtab`: NUL-separated names, offset 0 is the empty name."""

    def __init__(self) -> None:
        self.data = bytearray(b"\0")

    def add(self, name: str) -> int:
        encoded = name.encode()
        if b"\0" in encoded:
            raise ValueError(f"section name {name!r} contains NUL")
        offset = len(self.data)
        self.data += encoded + b"\0"
        return offset


class _ElfImage:
    """Lays out section contents after the ELF header, collecting their section headers."""

    def __init__(self) -> None:
        self.names = _StringTable()
        self.headers = [bytes(SECTION_HEADER.size)]  # index 0: SHN_UNDEF
        self.chunks: list[bytes] = []
        self.offset = ELF_HEADER.size  # where the next contents go in the file
        self.address = LOAD_ADDRESS  # where the next allocated section goes in memory

    def place(self, contents: bytes) -> int:
        """Append aligned CONTENTS to the file; their file offset."""
        start = _align(self.offset)
        self.chunks.append(bytes(start - self.offset) + contents)
        self.offset = start + len(contents)
        return start

    def add_allocated(self, section: ElfSection) -> None:
        if section.kind not in SECTION_KINDS:
            raise ValueError(f"section {section.name!r}: unknown kind {section.kind!r}")
        if section.size < 0:
            raise ValueError(f"section {section.name!r}: negative size")
        sh_type, flags = SECTION_KINDS[section.kind]
        self.address = _align(self.address)
        if sh_type == SHT_NOBITS:
            file_offset = _align(self.offset)  # no file bytes
        else:
            file_offset = self.place(_contents(section))
        self._header(section.name, sh_type, flags, self.address, file_offset, section.size, ALIGN)
        self.address += section.size

    def add_unallocated(
        self, name: str, sh_type: int, flags: int, contents: bytes, entry_size: int = 0
    ) -> None:
        self._header(name, sh_type, flags, 0, self.place(contents), len(contents), 1, entry_size)

    def _header(
        self, name: str, sh_type: int, flags: int, address: int, offset: int, size: int,
        align: int, entry_size: int = 0,
    ) -> None:
        self.headers.append(
            SECTION_HEADER.pack(
                self.names.add(name), sh_type, flags, address, offset, size, 0, 0, align, entry_size
            )
        )

    def finish(self) -> bytes:
        """Add `.shstrtab` and the section header table; the whole file."""
        shstrtab_index = len(self.headers)
        name = self.names.add(".shstrtab")  # before the table is frozen into contents
        contents = bytes(self.names.data)
        offset = self.place(contents)
        self.headers.append(
            SECTION_HEADER.pack(name, SHT_STRTAB, 0, 0, offset, len(contents), 0, 0, 1, 0)
        )
        table = self.place(b"".join(self.headers))
        header = ELF_HEADER.pack(
            ELF_IDENT, ET_EXEC, EM_NONE, EV_CURRENT, LOAD_ADDRESS, 0, table, 0,
            ELF_HEADER.size, 0, 0, SECTION_HEADER.size, len(self.headers), shstrtab_index,
        )
        return header + b"".join(self.chunks)


def build_elf(sections: Sequence[ElfSection]) -> bytes:
    """An ELF32 little-endian executable holding SECTIONS, plus `.comment` and `.shstrtab`.

    Allocated sections get consecutive aligned addresses from LOAD_ADDRESS; file
    contents follow the ELF header, and the section header table comes last.
    """
    image = _ElfImage()
    for section in sections:
        image.add_allocated(section)
    image.add_unallocated(".comment", SHT_PROGBITS, SHF_MERGE | SHF_STRINGS, COMMENT, entry_size=1)
    return image.finish()


AR_MAGIC = b"!<arch>\n"
AR_SHORT_NAME = 15  # longer names go to the "//" table (the field holds 16 with the "/")


def _ar_header(name: bytes, size: int) -> bytes:
    # name, mtime, uid, gid, mode, size, terminator: fixed-width ASCII fields
    header = b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (name, 0, 0, 0, b"644", size)
    if len(header) != 60:
        raise ValueError(f"ar member {name!r} of {size} bytes does not fit a header")
    return header


def _padded(data: bytes) -> bytes:
    return data + b"\n" if len(data) % 2 else data


def write_ar(path: Path, members: Iterable[tuple[str, bytes]]) -> None:
    """Write a GNU ar archive of MEMBERS (name, contents), in order, without a symbol table.

    The "//" long-name table must precede the members, but MEMBERS may be a lazy
    stream too large to hold, so members are spooled to a temporary file first.
    """
    long_names = bytearray()
    with tempfile.TemporaryFile(dir=Path(path).parent) as spool:
        for name, data in members:
            encoded = name.encode()
            if not encoded or b"/" in encoded or b"\n" in encoded:
                raise ValueError(f"bad ar member name {name!r}")
            if len(encoded) <= AR_SHORT_NAME:
                field = encoded + b"/"
            else:
                field = b"/%d" % len(long_names)
                long_names += encoded + b"/\n"
            spool.write(_ar_header(field, len(data)))
            spool.write(_padded(data))
        spool.seek(0)
        with open(path, "wb") as out:
            out.write(AR_MAGIC)
            if long_names:
                out.write(_ar_header(b"//", len(long_names)))
                out.write(_padded(bytes(long_names)))
            shutil.copyfileobj(spool, out, 1 << 20)
