"""Keys that several views share, defined once so that they are the same keys on every screen.

A screen or widget binding ZOOM implements action_zoom(direction), 1 in and -1 out; one binding
`pages` implements action_page(pages), `ends` action_move_to_end(last), `open_search` and
`close_search` action_open_search and action_close_search.
"""

from __future__ import annotations

from textual.binding import Binding

ZOOM_KEYS = Binding.Group("Zoom")  # one item on the key bar, "+ - Zoom": both keys or neither
ZOOM = [
    Binding("plus,equals_sign", "zoom(1)", "Zoom in", key_display="+", id="zoom_in", group=ZOOM_KEYS),
    Binding("minus", "zoom(-1)", "Zoom out", key_display="-", id="zoom_out", group=ZOOM_KEYS),
]


def pages(back: str = "Page up", forward: str = "Page down") -> list[Binding]:
    """Page up and down, described as BACK and FORWARD."""
    return [Binding("pageup", "page(-1)", back, show=False), Binding("pagedown", "page(1)", forward, show=False)]


def ends(first: str = "First tile", last: str = "Last tile") -> list[Binding]:
    """Home and end, described as FIRST and LAST."""
    return [Binding("home", "move_to_end(False)", first, show=False),
            Binding("end", "move_to_end(True)", last, show=False)]


PAGE_AND_ENDS = pages() + ends()  # the tile views'


def open_search(description: str) -> Binding:
    """/ opens the screen's search (action_open_search): DESCRIPTION says what it finds."""
    return Binding("slash", "open_search", description, key_display="/", id="open_search")


def close_search(description: str) -> Binding:
    """Escape closes the screen's search (action_close_search): DESCRIPTION says what else it undoes."""
    return Binding("escape", "close_search", description, id="close_search")
