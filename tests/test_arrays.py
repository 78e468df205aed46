"""The array helpers: the same answers as numpy's own."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from pvtui.model.arrays import distinct


@given(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=60), st.sampled_from([np.int64, np.int32, np.uint8]))
def test_distinct_is_np_unique(values, dtype):
    info = np.iinfo(dtype)
    array = np.array([min(max(v, info.min), info.max) for v in values], dtype=dtype)
    got, expected = distinct(array), np.unique(array)
    assert got.dtype == expected.dtype and got.tolist() == expected.tolist()


def test_distinct_reads_any_shape():
    assert distinct(np.array([[3, 1], [3, 2]])).tolist() == [1, 2, 3]
    assert distinct([]).tolist() == []
