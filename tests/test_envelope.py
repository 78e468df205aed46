"""Envelopes: each column's min and max bound every sample it covers, and reach the extremes exactly."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from pvtui.model.envelope import Envelope, build_pyramid


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 5000),
    width=st.integers(1, 300),
    seed=st.integers(0, 1000),
    frac=st.tuples(st.floats(0, 1), st.floats(0, 1)),
)
def test_columns_bound_every_sample_they_cover(n, width, seed, frac):
    series = np.random.default_rng(seed).integers(0, 10**9, n)
    env = Envelope(series, build_pyramid(series))
    a, b = sorted(int(f * n) for f in frac)
    b = max(b, a + 1)
    b = min(b, n)
    a = min(a, b - 1)
    mins, maxs = env.columns(a, b, width)
    assert len(mins) == len(maxs) == width
    # Every sample in range lies inside the envelope of the column that covers it.
    edges = np.linspace(a, b, width + 1)
    for i in range(a, b):
        col = min(int(np.searchsorted(edges, i, side="right")) - 1, width - 1)
        assert mins[col] <= series[i] <= maxs[col]
    # The overall extremes are reached exactly.
    assert mins.min() == series[a:b].min()
    assert maxs.max() == series[a:b].max()


def test_a_million_steps_read_only_a_coarse_level():
    series = np.arange(1_000_000, dtype=np.int64)
    env = Envelope(series, build_pyramid(series))
    mins, maxs = env.columns(0, len(series), 200)
    assert mins[0] == 0 and maxs[-1] == 999_999
    assert np.all(np.diff(mins) > 0)
