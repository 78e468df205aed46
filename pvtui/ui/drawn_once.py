"""Lines alike drawn once: Textual's styles run over each line a widget draws, though many may be alike."""

from __future__ import annotations

from typing import Callable, Hashable

from textual.geometry import Region
from textual.strip import Strip


def each_kind_drawn_once(draw: Callable[[Region], list[Strip]], crop: Region,
                         kind_of: Callable[[int], Hashable]) -> list[Strip]:
    """The lines of CROP, DRAW (a widget's Textual render_lines) called for one line of each kind (KIND_OF a
    line's y), the others of that kind the same Strip: Textual's styles run once a kind. For a widget whose
    line's place changes nothing of it but as its kind says (no padding above or below it, nor keylines)."""
    drawn: dict[Hashable, Strip] = {}
    lines = []
    for y in crop.line_range:
        kind = kind_of(y)
        if kind not in drawn:
            drawn[kind] = draw(Region(crop.x, y, crop.width, 1))[0]
        lines.append(drawn[kind])
    return lines
