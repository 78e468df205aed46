"""archive.a: the ar/ELF writers in pvtui.synth.elf and the reader in pvtui.sources.archive."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile

from pvtui.errors import Cancelled, ReportError
from pvtui.model import schema
from pvtui.model.bundle import Bundle, BundleWriter
from pvtui.sources.archive import read_archive
from pvtui.sources.base import CancelToken, IngestContext
from pvtui.synth.elf import ElfSection, build_elf, write_ar

# --- helpers -----------------------------------------------------------------


def ingest(tmp_path: Path, archive: Path, **context) -> Bundle:
    """Read ARCHIVE into a committed bundle and open it."""
    with BundleWriter(tmp_path / "bundle") as writer:
        read_archive(archive, IngestContext(writer, **context))
        writer.commit()
    return Bundle(tmp_path / "bundle")


def tiles(bundle: Bundle) -> list[tuple[str, int, int, int]]:
    """(member, code, data, bss) per tile."""
    names = (schema.ARCHIVE_CODE, schema.ARCHIVE_DATA, schema.ARCHIVE_BSS)
    columns = [bundle.array(name) for name in names]
    names = list(bundle.strings(schema.ARCHIVE_MEMBER))
    return [(name, *(int(c[i]) for c in columns)) for i, name in enumerate(names)]


def require(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"not on PATH: {', '.join(missing)}")


# "[Nr] Name Type Addr Off Size ES Flg Lk Inf Al": captures Type, Size and Flg
SECTION_ROW = re.compile(
    r"\]\s.*?(\S+)\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+[0-9a-f]{2}"
    r"\s+([A-Za-z]*)\s+\d+\s+\d+\s+\d+\s*$"
)


def readelf_sizes(archive: Path) -> list[tuple[str, int, int, int]]:
    """(member, code, data, bss) per member as `readelf -S -W` reports the sections."""
    out = subprocess.run(
        ["readelf", "-S", "-W", str(archive)], capture_output=True, text=True, check=True
    )
    assert not out.stderr, out.stderr
    members: list[list] = []
    for line in out.stdout.splitlines():
        file_line = re.match(rf"File: {re.escape(str(archive))}\((.*)\)$", line)
        if file_line:
            members.append([file_line.group(1), 0, 0, 0])
            continue
        row = SECTION_ROW.search(line)
        if row and members and "A" in row.group(3):
            sh_type, size, flags = row.group(1), int(row.group(2), 16), row.group(3)
            column = 3 if sh_type == "NOBITS" else 1 if "X" in flags else 2
            members[-1][column] += size
    return [tuple(m) for m in members]


def pyelftools_sizes(elf: bytes) -> tuple[int, int, int]:
    """(code, data, bss) through pyelftools' full ELFFile, the reference parser."""
    code = data = bss = 0
    for section in ELFFile(io.BytesIO(elf)).iter_sections():
        flags = section["sh_flags"]
        if not flags & SH_FLAGS.SHF_ALLOC:
            continue
        if section["sh_type"] == "SHT_NOBITS":
            bss += section["sh_size"]
        elif flags & SH_FLAGS.SHF_EXECINSTR:
            code += section["sh_size"]
        else:
            data += section["sh_size"]
    return code, data, bss


def tile_elf(code: int, data: int, rodata: int, bss: int) -> bytes:
    return build_elf(
        [
            ElfSection(".text", "code", code, fill=code),
            ElfSection(".data", "data", data, fill=1),
            ElfSection(".rodata", "rodata", rodata, fill=2),
            ElfSection(".bss", "bss", bss),
        ]
    )


def ar_header(name: bytes, size: int, terminator: bytes = b"`\n") -> bytes:
    return b"%-16s%-12d%-6d%-6d%-8s%-10d" % (name, 0, 0, 0, b"644", size) + terminator


def ar_member(name: bytes, data: bytes) -> bytes:
    return ar_header(name, len(data)) + data + b"\n" * (len(data) % 2)


# --- (a) members compiled by gcc, archived by ar -----------------------------

C_SOURCES = {
    "tile_zero.c": """
        int counter;
        static char scratch[1000];
        int table[50] = {1, 2, 3};
        const char message[] = "hello from tile zero";
        int work(int x) { scratch[x % 1000] = (char)x; return table[x % 50] * x + message[x % 5]; }
    """,
    "a_member_name_longer_than_fifteen.c": """
        double weights[300] = {0.5};
        static long big_buffer[4096];
        const int lookup[7] = {1, 1, 2, 3, 5, 8, 13};
        long sum(int n) {
            long s = 0;
            for (int i = 0; i < n; i++) s += big_buffer[i] + lookup[i % 7];
            return s;
        }
        double scale(int i) { return weights[i] * 2.0; }
        void put(int i, long v) { big_buffer[i] = v; }
    """,
    "empty.c": "",
}


def test_gcc_members_match_readelf(tmp_path: Path) -> None:
    require("gcc", "ar", "readelf")
    objects = []
    for name, source in C_SOURCES.items():
        (tmp_path / name).write_text(source)
        obj = tmp_path / name.replace(".c", ".o")
        compile_c = ["gcc", "-c", "-O1", "-fno-common", "-o", str(obj), str(tmp_path / name)]
        subprocess.run(compile_c, check=True)
        objects.append(obj)
    archive = tmp_path / "archive.a"
    subprocess.run(["ar", "rcs", str(archive), *map(str, objects)], check=True, cwd=tmp_path)

    expected = readelf_sizes(archive)
    assert [m[0] for m in expected] == [o.name for o in objects]
    assert all(code > 0 and data > 0 and bss > 0 for _, code, data, bss in expected[:2])
    bundle = ingest(tmp_path, archive)
    assert tiles(bundle) == expected
    assert [pyelftools_sizes(o.read_bytes()) for o in objects] == [m[1:] for m in expected]
    assert bundle.meta["archive"] == {"members": 3, "unusable": 0}
    assert "archive" in bundle.meta["parts"]
    assert "notes" not in bundle.meta


# --- (b) our own writers -----------------------------------------------------

TILE_SIZES = [(1000, 200, 33, 4096), (1, 3, 5, 7), (0, 0, 0, 0), (40_000, 6_001, 123, 12_345)]


def write_tiles(path: Path) -> list[tuple[str, int, int, int]]:
    """An archive of TILE_SIZES members; returns the expected (name, code, data, bss)."""
    names = [f"tile{i:04d}.elf" for i in range(len(TILE_SIZES))]
    write_ar(path, ((n, tile_elf(*s)) for n, s in zip(names, TILE_SIZES)))
    return [(n, c, d + r, b) for n, (c, d, r, b) in zip(names, TILE_SIZES)]


def test_written_archive_reads_back(tmp_path: Path) -> None:
    archive = tmp_path / "archive.a"
    expected = write_tiles(archive)
    assert tiles(ingest(tmp_path, archive)) == expected
    assert [pyelftools_sizes(tile_elf(*s)) for s in TILE_SIZES] == [e[1:] for e in expected]


def test_written_archive_matches_binutils(tmp_path: Path) -> None:
    require("readelf", "ar", "size")
    archive = tmp_path / "archive.a"
    expected = write_tiles(archive)
    assert readelf_sizes(archive) == expected
    listed = subprocess.run(["ar", "t", str(archive)], capture_output=True, text=True, check=True)
    assert listed.stdout.split() == [e[0] for e in expected]
    size = subprocess.run(["size", "-A", "-d", str(archive)], capture_output=True, text=True)
    assert size.returncode == 0 and not size.stderr, size.stderr


def test_elf_layout() -> None:
    elf = ELFFile(io.BytesIO(tile_elf(10, 20, 30, 40)))
    assert elf["e_type"] == "ET_EXEC" and elf.elfclass == 32 and elf.little_endian
    sections = {s.name: s for s in elf.iter_sections()}
    assert list(sections) == ["", ".text", ".data", ".rodata", ".bss", ".comment", ".shstrtab"]
    assert sections[".comment"]["sh_flags"] & SH_FLAGS.SHF_ALLOC == 0
    assert sections[".text"].data() == (10).to_bytes(4, "little") * 2 + b"\n\0"
    allocated = [sections[n] for n in (".text", ".data", ".rodata", ".bss")]
    for before, after in zip(allocated, allocated[1:]):
        assert after["sh_addr"] >= before["sh_addr"] + before["sh_size"]
        assert after["sh_addr"] % 4 == 0


def test_writer_rejects_bad_input(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        build_elf([ElfSection(".x", "heap", 10)])
    for name in ("", "a/b", "a\nb"):
        with pytest.raises(ValueError):
            write_ar(tmp_path / "bad.a", [(name, b"x")])


# --- (c) awkward and broken archives -----------------------------------------


def test_long_names_odd_members_and_non_elf(tmp_path: Path) -> None:
    long_name = "a_member_name_well_over_fifteen_characters.elf"
    archive = tmp_path / "archive.a"
    write_ar(
        archive,
        [
            ("odd.bin", b"xyz"),  # odd size: padded, and not ELF
            (long_name, tile_elf(100, 10, 0, 5)),
            ("notes.txt", b"plain text, not an ELF file\n"),
            ("another_long_member_name.elf", tile_elf(7, 0, 1, 0)),
        ],
    )
    bundle = ingest(tmp_path, archive)
    assert tiles(bundle) == [
        ("odd.bin", 0, 0, 0),
        (long_name, 100, 10, 5),
        ("notes.txt", 0, 0, 0),
        ("another_long_member_name.elf", 7, 1, 0),
    ]
    assert bundle.meta["archive"] == {"members": 4, "unusable": 2}
    [note] = bundle.meta["notes"]
    assert note.startswith(f"[archive] {archive}: member 'odd.bin' is not an ELF file")
    assert "2 of 4 members" in note


def test_broken_elf_members(tmp_path: Path) -> None:
    good = tile_elf(64, 32, 0, 16)
    header_only = good[:52]  # the section header table is cut off
    too_many_sections = bytearray(good)
    too_many_sections[48:50] = (5000).to_bytes(2, "little")  # e_shnum
    archive = tmp_path / "archive.a"
    write_ar(
        archive,
        [("a", header_only), ("b", bytes(too_many_sections)), ("c", b"\x7fELF"), ("d", good)],
    )
    bundle = ingest(tmp_path, archive)
    assert [t[1:] for t in tiles(bundle)] == [(0, 0, 0)] * 3 + [(64, 32, 16)]
    assert bundle.meta["archive"]["unusable"] == 3
    assert len(bundle.meta["notes"]) == 1


def test_symbol_tables_and_bsd_names(tmp_path: Path) -> None:
    elf = tile_elf(12, 8, 0, 4)
    bsd_name = b"a_bsd_style_long_member_name.elf"
    archive = tmp_path / "archive.a"
    archive.write_bytes(
        b"!<arch>\n"
        + ar_member(b"/", b"\0\0\0\0")  # GNU symbol table
        + ar_member(b"/SYM64/", bytes(8))
        + ar_member(b"#1/20", b"__.SYMDEF SORTED\0\0\0\0" + bytes(8))  # BSD symbol table
        + ar_member(b"#1/%d" % len(bsd_name), bsd_name + elf)
        + ar_member(b"short", elf)
    )
    assert tiles(ingest(tmp_path, archive)) == [
        (bsd_name.decode(), 12, 8, 4),
        ("short", 12, 8, 4),
    ]


def test_last_member_without_padding(tmp_path: Path) -> None:
    archive = tmp_path / "archive.a"
    first = ar_member(b"t0/", tile_elf(4, 4, 0, 0))
    archive.write_bytes(b"!<arch>\n" + first + ar_header(b"odd/", 1) + b"x")
    assert [t[0] for t in tiles(ingest(tmp_path, archive))] == ["t0", "odd"]


@pytest.mark.parametrize(
    "content, problem",
    [
        (b"", "empty file"),
        (b"PK\x03\x04 a zip file, not an archive", "not an ar archive"),
        (b"!<thin>\n", "thin ar archive"),
        (b"!<arch>\n", "no members"),
        (b"!<arch>\n" + ar_header(b"t0/", 4)[:30], "truncated member header"),
        (b"!<arch>\n" + ar_header(b"t0/", 400) + b"\x7fELF", "truncated: member at offset 8"),
        (b"!<arch>\n" + ar_header(b"t0/", 4, terminator=b"!!") + b"abcd", "corrupt member header"),
        (b"!<arch>\n" + ar_header(b"t0/", 4)[:48] + b"-4".ljust(10) + b"`\nabcd", "corrupt member"),
        (b"!<arch>\n" + ar_member(b"#1/99", b"short"), "corrupt BSD member name"),
    ],
)
def test_unusable_archives_raise_report_error(tmp_path: Path, content: bytes, problem: str) -> None:
    archive = tmp_path / "archive.a"
    archive.write_bytes(content)
    with pytest.raises(ReportError) as caught:
        ingest(tmp_path, archive)
    assert problem in caught.value.problem
    assert "\n" not in str(caught.value)
    assert not (tmp_path / "bundle").exists()


def test_truncated_archive_raises(tmp_path: Path) -> None:
    archive = tmp_path / "archive.a"
    write_tiles(archive)
    whole = archive.read_bytes()
    archive.write_bytes(whole[: len(whole) - 100])
    with pytest.raises(ReportError, match="truncated"):
        ingest(tmp_path, archive)


def test_missing_file_raises(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="cannot read"):
        ingest(tmp_path, tmp_path / "missing.a")


def test_progress_and_cancel(tmp_path: Path) -> None:
    archive = tmp_path / "archive.a"
    write_ar(archive, ((f"t{i}", tile_elf(4, 4, 4, 4)) for i in range(600)))
    reports = []
    ingest(tmp_path, archive, progress=lambda *report: reports.append(report))
    size = archive.stat().st_size
    assert reports[-1] == ("archive.a", size, size)

    cancel = CancelToken()
    cancel.cancel()
    with pytest.raises(Cancelled):
        ingest(tmp_path / "cancelled", archive, cancel=cancel)
    assert not (tmp_path / "cancelled" / "bundle").exists()
