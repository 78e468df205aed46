"""Glyphs that the charts of the screens and of the commands share, and which consoles draw only ASCII."""

from __future__ import annotations

import os
from typing import Mapping

from pvtui.units import MINUS

BLOCKS = " ▁▂▃▄▅▆▇█"  # eighths of a cell, from empty to full
# TERM values of consoles without block elements (their fonts are a few hundred glyphs)
BASIC_TERMS = ("linux", "vt100", "vt102", "vt220", "vt52", "dumb", "cons25", "ansi", "sun", "wsvt25")


def basic_console(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether the terminal TERM names draws no block elements: pvtui draws it ASCII only."""
    term = environ.get("TERM", "").lower()
    return term in BASIC_TERMS or term.startswith("linux-")


# On a basic console, the ASCII for each glyph pvtui, or Textual under it, draws: lines and borders (tab
# underlines, splitters, panel edges), blocks and shades, marks, arrows and the typography of the text
# (· – — − × …), and the Control Pictures that pvtui.safe_text shows a name's controls with, as `^`
# (`␛[6n` reads `^[6n`, the caret notation of ESC). Letters from a report's names are left as they are.
ASCII_GLYPHS = str.maketrans({
    **dict.fromkeys(map(chr, range(0x2400, 0x2422)), "^"),
    **dict.fromkeys("─━╌╍┄┅┈┉╴╶╸╺╼╾▔▀═", "-"),
    **dict.fromkeys("│┃╎╏┆┇┊┋╵╷╹╻╽╿▏▕▌▐║", "|"),
    **dict.fromkeys("┌┐└┘├┤┬┴┼┏┓┗┛┣┫┳┻╋╭╮╯╰╔╗╚╝╠╣╦╩╬┍┎┑┒┕┖┙┚┝┞┟┠┡┢┥┦┧┨┩┪┭┮┯┰┱┲┵┶┷┸┹┺┽┾┿╀╁╂╃╄╅╆╇╈╉╊", "+"),
    **dict(zip(BLOCKS, " __---==#")), "░": ".", "▒": ":", "▓": "%",
    "·": "-", "•": "*", "–": "-", "—": "-", "−": "-", "×": "x", "…": ".", "→": ">", "←": "<", "↑": "^",
    "↓": "v", "▶": ">", "▸": ">", "◀": "<", "▼": "v", "▲": "^", "●": "*", "◆": "*", "◇": "o", "■": "#",
    "✓": "+", "✗": "x", "⏎": "<", "°": "o", "±": "+", "≈": "~", "≤": "<", "≥": ">",
})


def ascii_glyphs(text: str) -> str:
    """TEXT with every glyph of ASCII_GLYPHS as its ASCII: one cell for one cell."""
    return text.translate(ASCII_GLYPHS)


def text_minus(environ: Mapping[str, str] = os.environ) -> str:
    """The minus sign of a change in the commands' text: U+2212, or ASCII on a basic console."""
    return "-" if basic_console(environ) else MINUS
