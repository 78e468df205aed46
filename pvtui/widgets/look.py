"""How the heavy views draw on this terminal: which glyphs, and whether colour alone can tell things apart.

Two questions, asked once per app:
- Can the console draw block elements? The Linux console (TERM=linux) and other basic
  terminals have box-drawing lines at most, not eighth blocks, shades or heavy lines:
  they get an ASCII glyph set.
- Can colours tell things apart? Under NO_COLOR (Textual turns every colour into a grey
  of the same lightness) or with 16 colours or fewer (every colour snaps to the nearest
  of the terminal's few) they cannot: the views are *plain*, and say with glyphs,
  reverse and bold what colour says elsewhere.
"""

from __future__ import annotations

import os
from typing import NamedTuple

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from pvtui.render.glyphs import BLOCKS, ascii_glyphs, basic_console
from pvtui.units import MINUS
FEW_COLOURS = ("standard", "windows")  # Rich's names for 16 colours and the legacy Windows console


class Glyphs(NamedTuple):  # a NamedTuple, made at every start: a frozen dataclass of 20 fields took 3 ms
    blocks: str  # eighths of a cell, empty to full
    shades: str  # light, medium, dark
    axis: str  # a chart's vertical axis, its label tick, its corner, the horizontal axis, its tick
    axis_break: str  # the vertical axis where its scale changes (the top of a compressed band)
    tick: str  # a tick on the trace's cycle axis, before its label
    several: str  # a trace cell over several steps
    cursor_line: str  # the selected step in a trace lane
    pointer: str  # the selected row
    marker: str  # a peak or the cursor, above a chart
    marked: str  # the step marked to compare with, above a chart
    limit: str  # the per-tile limit across a memory bar
    gaps: str  # gaps in a memory bar
    only_one: str  # a tile that one report of two has
    selected: str  # the selected tile of a grid
    # plain views only: fills that stand for colours
    categories: str  # memory categories, largest first (then the rest)
    over: str  # memory beyond the limit
    heat: str  # the swatch of a tile's bytes against its limit, low to high
    phases: str  # compute, exchange, stream, sync, control, other (a trace cell of one step)
    higher: str  # where report A, B is the higher of two curves
    minus: str  # the sign of a negative change


UNICODE = Glyphs(
    blocks=BLOCKS, shades="░▒▓", axis="│┤└─┬", axis_break="≈", tick="▏", several="▓", cursor_line="━",
    pointer="▶", marker="▼", marked="◇", limit="│", gaps="░", only_one="·", selected="◆",
    categories="█▓▒=+:-", over="!", heat="·░▒▓█", phases=" ═~|·?", higher="AB", minus=MINUS,
)
ASCII = Glyphs(
    blocks=" __---==#", shades=".:%", axis="|+'-+", axis_break="~", tick="|", several="%", cursor_line="=", pointer=">",
    marker="v", marked="o", limit="|", gaps=".", only_one=".", selected="*",
    categories="#%=+:o-", over="!", heat=".:+%#", phases=" =~|-?", higher="AB", minus="-",
)


class Look(NamedTuple):
    glyphs: Glyphs = UNICODE
    plain: bool = False  # colours cannot tell things apart: glyphs, reverse and bold do


def look_of(app) -> Look:
    """APP's look, worked out the first time it is asked for."""
    look = getattr(app, "_pvtui_look", None)
    if look is None:
        console = getattr(app, "console", None)
        few_colours = console is not None and console.color_system in FEW_COLOURS
        look = Look(ASCII if basic_console(os.environ) else UNICODE, getattr(app, "no_color", False) or few_colours)
        app._pvtui_look = look
    return look


class AsciiGlyphs(LineFilter):
    """On a basic console, every line of every widget in ASCII (render/glyphs.py): the views draw with
    the ASCII glyph set, and this takes what they and Textual draw besides (tab underlines, borders,
    scrollbars, separators in text)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [segment if segment.control or segment.text.isascii()
                else Segment(ascii_glyphs(segment.text), segment.style, segment.control) for segment in segments]
