"""Bundles: every array and string survives a round trip; writes are atomic."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from pvtui.errors import ReportError
from pvtui.model.bundle import SCHEMA_VERSION, Bundle, BundleWriter, is_bundle

dtypes = st.sampled_from([np.int16, np.int32, np.int64, np.float32, np.float64, np.uint8])
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
