"""Keys that several views share, defined once so that they are the same keys on every screen.

A screen or widget binding ZOOM implements action_zoom(direction), 1 in and -1 out; one binding
PAGES implements action_page(pages), and ENDS action_move_to_end(last).
"""

from __future__ import annotations

from textual.binding import Binding

ZOOM = [
    Binding("plus,equals_sign", "zoom(1)", "Zoom in", key_display="+", id="zoom_in"),
    Binding("minus", "zoom(-1)", "Zoom out", key_display="-", id="zoom_out"),
]


def pages(back: str = "Page up", forward: str = "Page down") -> list[Binding]:
    """Page up and down, described as BACK and FORWARD."""
    return [Binding("pageup", "page(-1)", back, show=False), Binding("pagedown", "page(1)", forward, show=False)]


def ends(first: str = "First tile", last: str = "Last tile") -> list[Binding]:
    """Home and end, described as FIRST and LAST."""
    return [Binding("home", "move_to_end(False)", first, show=False),
            Binding("end", "move_to_end(True)", last, show=False)]


PAGE_AND_ENDS = pages() + ends()  # the tile views'
