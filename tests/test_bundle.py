"""Bundles: every array and string survives a round trip; writes are atomic."""

from __future__ import annotations

import ast
import io
import json
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from pvtui.errors import ReportError
from pvtui.model.bundle import NUMPY_WRITES, SCHEMA_VERSION, Bundle, BundleWriter, _header_literal, is_bundle
from pvtui.model.meta_entries import ENTRIES, damaged_entry
from pvtui.model.references import CODES, INDICES, OFFSETS, STEPS

dtypes = st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
                         np.float32, np.float64, np.bool_])
arrays = dtypes.flatmap(lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=1, max_dims=2, max_side=20)))
texts = st.lists(st.text(max_size=30), max_size=40)


@settings(max_examples=40, deadline=None)
@given(arr=arrays, strings=texts)
def test_arrays_and_strings_survive_a_round_trip(tmp_path_factory, arr, strings):
    dest = tmp_path_factory.mktemp("b") / "bundle"
    with BundleWriter(dest) as w:
        w.array("col", arr)
        w.strings("names", strings)
        w.commit()
    b = Bundle(dest)
    assert b.length("col") == len(arr)  # from the header, before the column is mapped
    got = b.array("col")
    assert got.dtype == arr.dtype and got.shape == arr.shape
    np.testing.assert_array_equal(got, arr)
    assert isinstance(got, np.memmap) or got.size == 0
    assert list(b.strings("names")) == [s.encode("utf-8", "surrogatepass").decode("utf-8", "replace") for s in strings]


def test_a_failed_write_leaves_nothing(tmp_path):
    dest = tmp_path / "bundle"
    with pytest.raises(RuntimeError):
        with BundleWriter(dest) as w:
            w.array("a", [1, 2, 3])
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("size", [0, 1, 3000])
def test_spooled_bytes_kept_are_the_column_that_array_would_write_and_unkept_leave_nothing(tmp_path, size):
    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    for name, keep in (("kept", True), ("dropped", False)):
        with BundleWriter(tmp_path / name) as w:
            spool = w.spool()
            spool.write(data[: size // 2])
            spool.write(data[size // 2 :])
            if keep:
                spool.keep("blob")
            spool.close()
            w.array("same", np.frombuffer(data, np.uint8))
            w.commit()
    kept, dropped = tmp_path / "kept", tmp_path / "dropped"
    assert (kept / "blob.npy").read_bytes() == (kept / "same.npy").read_bytes()
    assert (kept / "blob.npy").stat().st_mode == (kept / "same.npy").stat().st_mode
    assert sorted(p.name for p in dropped.iterdir()) == ["meta.json", "same.npy"]


def test_commit_replaces_an_old_bundle_whole(tmp_path):
    dest = tmp_path / "bundle"
    for value in (1, 2):
        with BundleWriter(dest) as w:
            w.array("a", [value])
            w.commit()
    assert int(Bundle(dest).array("a")[0]) == 2
    assert [p.name for p in tmp_path.iterdir()] == ["bundle"]


def test_a_directory_without_meta_is_not_a_bundle(tmp_path):
    (tmp_path / "x.npy").write_bytes(b"junk")
    assert not is_bundle(tmp_path)
    with pytest.raises(ReportError, match="meta.json"):
        Bundle(tmp_path)


def test_a_newer_schema_is_refused(tmp_path):
    dest = tmp_path / "bundle"
    with BundleWriter(dest) as w:
        w.commit()
    meta = json.loads((dest / "meta.json").read_text())
    meta["schema_version"] = SCHEMA_VERSION + 1
    (dest / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(ReportError, match="schema"):
        Bundle(dest)


def test_string_find_matches_inside_one_string_only(tmp_path):
    dest = tmp_path / "b"
    with BundleWriter(dest) as w:
        w.strings("n", ["alpha", "Beta", "gam", "ma", "layer3/attention/Conv"])
        w.commit()
    table = Bundle(dest).strings("n")
    assert table.find("beta") == 1
    assert table.find("amma") == -1  # "gam" + "ma" must not match across strings
    assert table.find("ATTENTION") == 4
    assert table.find("a", start=2) == 2
    assert table.find("zzz") == -1


def _column_with_header(path, header: bytes, version: bytes = b"\x01\x00", data: bytes = b"") -> None:
    length = len(header).to_bytes(2 if version == b"\x01\x00" else 4, "little")
    path.write_bytes(b"\x93NUMPY" + version + length + header + data)


def _bundle_of(tmp_path, name: str = "col"):
    dest = tmp_path / "bundle"
    with BundleWriter(dest) as w:
        w.array(name, np.arange(3, dtype=np.int64))
        w.commit()
    return dest


@pytest.mark.parametrize("header, version, problem", [
    (b"{'descr': '|O', 'fortran_order': False, 'shape': (3,), }", b"\x01\x00", "not numbers"),
    (b"{'descr': '<U4', 'fortran_order': False, 'shape': (3,), }", b"\x01\x00", "not numbers"),
    (b"{'descr': [('a', '<i8')], 'fortran_order': False, 'shape': (3,), }", b"\x01\x00", "not numbers"),
    (b"{'descr': '<i8', 'fortran_order': 0, 'shape': (3,), }", b"\x01\x00", "fortran_order"),
    (b"{'descr': '<i8', 'fortran_order': False, 'shape': (-3,), }", b"\x01\x00", "shape"),
    (b"{'descr': '<i8', 'fortran_order': False, 'shape': [3], }", b"\x01\x00", "shape"),
    (b"{'descr': '<i8', 'fortran_order': False, 'shape': (3,), 'x': 1}", b"\x01\x00", "not a .npy header"),
    (b"__import__('os').system('true')", b"\x01\x00", "header"),
    (b"(" * 5000 + b")" * 5000, b"\x01\x00", "header"),
    (b" " * 10_001, b"\x02\x00", "a header of 10,001 bytes"),
    (b"{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", b"\x03\x00", "format version"),
    (b"{'descr': '|O', 'fortran_order': False, 'shape': (3,), }   \n", b"\x01\x00", "not numbers"),  # as numpy writes
    (b"{'descr': '<i8', 'fortran_order': False, 'shape': (3, -1), }\n", b"\x01\x00", "shape"),
])
def test_a_column_header_that_is_not_a_plain_column_of_numbers_is_damage(tmp_path, header, version, problem):
    """Read without numpy: anything numpy would read that is not one plain number type, or anything it would not."""
    dest = _bundle_of(tmp_path)
    _column_with_header(dest / "col.npy", header, version, bytes(24))
    bundle = Bundle(dest)
    assert "col" in bundle.damaged and problem in str(bundle.damaged["col"]), str(bundle.damaged.get("col"))
    with pytest.raises(ReportError):
        bundle.length("col")


@pytest.mark.parametrize("shape", [(), (0,), (7,), (1_071_360,), (4, 3), (2, 0, 5)])
@pytest.mark.parametrize("dtype", ["<i8", "|u1", "<f4", ">i2", "|b1"])
def test_a_header_as_numpy_writes_it_reads_as_numpys_literal(shape, dtype):
    """Read by NUMPY_WRITES in place of literal_eval: the same header."""
    for order in ("C", "F"):
        written = io.BytesIO()
        np.save(written, np.zeros(shape, dtype=dtype, order=order))
        text = written.getvalue()[10:10 + int.from_bytes(written.getvalue()[8:10], "little")].decode("latin-1")
        assert NUMPY_WRITES.fullmatch(text) and _header_literal(text) == ast.literal_eval(text)


def test_a_header_laid_out_otherwise_still_reads(tmp_path):
    dest = _bundle_of(tmp_path)
    _column_with_header(dest / "col.npy", b"{'shape': ( 3, ), 'fortran_order': False, 'descr': '<i8'}", data=bytes(24))
    assert Bundle(dest).length("col") == 3


def test_a_column_cut_short_inside_its_header_is_damage(tmp_path):
    dest = _bundle_of(tmp_path)
    whole = (dest / "col.npy").read_bytes()
    for end in (3, 9, 20):
        (dest / "col.npy").write_bytes(whole[:end])
        assert "col" in Bundle(dest).damaged, end


def test_a_bundle_opens_without_numpy(tmp_path):
    """Its meta.json and every column's header are read, and the columns' lengths known, with numpy deferred."""
    import subprocess
    import sys
    import textwrap

    dest = _bundle_of(tmp_path)
    script = textwrap.dedent(f"""
        from pvtui.process.deferred_import import defer_import, is_deferred
        defer_import("numpy")
        from pvtui.model.bundle import Bundle
        bundle = Bundle({str(dest)!r})
        print(bundle.length("col"), not bundle.damaged, is_deferred("numpy"))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["3", "True", "True"], done.stderr[-2000:]


ODD_VALUES = [None, "x", -1, 2**60, float("inf"), True, [], {}, [1], {"a": 1}]


@pytest.mark.parametrize("entry", list(ENTRIES))
def test_every_entry_the_model_reads_is_checked_for_its_type(entry, tiny_dir):
    """Each entry given values of other types: those it cannot be make the bundle damaged, by its name."""
    meta = json.loads((tiny_dir / "profile.pvtui" / "meta.json").read_text())
    assert damaged_entry(meta) is None  # what ingest writes fits
    within, _, key = entry.rpartition(".")
    holder = meta.setdefault(within, {}) if within else meta
    for value in ODD_VALUES:
        holder[key] = value
        assert damaged_entry(meta) in (None, entry)
        assert (damaged_entry(meta) is None) == ENTRIES[entry](value)
    assert any(not ENTRIES[entry](value) for value in ODD_VALUES)


def test_an_entry_within_one_of_another_type_is_said_as_that_one():
    assert damaged_entry({"target": ["num_tiles"]}) == "target"
    assert damaged_entry({"target": {"clock_hz": float("nan")}}) == "target.clock_hz"
    assert damaged_entry({"target": {"architecture": "Ipu2", "num_tiles": None}, "unknown": object()}) is None


@pytest.mark.parametrize("column", [*INDICES, *OFFSETS, *STEPS, *CODES])
def test_a_column_of_indices_beyond_what_it_refers_to_is_damaged_once_mapped(column, tiny_dir, tmp_path):
    """Each rule of model/references.py holds for what ingest writes, and a column breaking it is said as
    damaged, naming its file, when it is first mapped (not a huge count or an IndexError in a view)."""
    import shutil

    bundle = tmp_path / "bundle"
    shutil.copytree(tiny_dir / "profile.pvtui", bundle)
    if not (bundle / f"{column}.npy").exists():
        pytest.skip(f"the tiny report has no {column}")
    Bundle(bundle).array(column)  # whole as written
    values = np.load(bundle / f"{column}.npy")
    values.reshape(-1)[-1] = np.iinfo(values.dtype).min if column in CODES else np.iinfo(values.dtype).max
    np.save(bundle / f"{column}.npy", values)
    opened = Bundle(bundle)
    with pytest.raises(ReportError, match=f"{re.escape(column)}.npy: damaged column"):
        opened.array(column)
    assert column in opened.damaged and not opened.has(column)
