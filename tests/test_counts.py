"""A count is followed by its noun in the singular for exactly one: `1 tile`, never `1 tiles`."""

from __future__ import annotations

import re

import pytest

from pvtui.commands.memory_detail import _render_variable
from pvtui.render.insights import histogram_text
from pvtui.units import count_of

ONE_PLURAL = re.compile(r"(?<![\d,.])1 (tiles|steps|variables|rows|columns|files|operations|blocks)\b")


@pytest.mark.parametrize("number, shown", [(0, "0 tiles"), (1, "1 tile"), (2, "2 tiles"), (2944, "2,944 tiles")])
def test_count_of_says_the_noun_in_the_singular_only_for_one(number, shown):
    assert count_of(number, "tile") == shown


def test_count_of_takes_an_irregular_plural():
    assert count_of(3, "vertex", "vertices") == "3 vertices" and count_of(1, "vertex", "vertices") == "1 vertex"


def test_a_histogram_of_one_tile_says_tile():
    text = histogram_text({"counts": [1, 0], "edges": [0, 10, 20], "bytes_per_tile": None}, str, 2).plain
    assert "1 tile by bytes" in text and "holds 1 tile" in text and not ONE_PLURAL.search(text)


def test_a_variable_on_one_tile_says_tile():
    from pvtui.units import format_bytes

    lines = _render_variable({"variable": "w", "total": 64, "tiles": 1, "by_tile": [0, 64]}, format_bytes)
    assert lines[0] == "w: 64 B on 1 tile"
