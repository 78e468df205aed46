"""Keys shared by the widgets that move a selection through tiles.

A widget binding them implements action_page(pages) and action_move_to_end(last).
"""

from __future__ import annotations

from textual.binding import Binding

PAGE_AND_ENDS = [
    Binding("pageup", "page(-1)", "Page up", show=False),
    Binding("pagedown", "page(1)", "Page down", show=False),
    Binding("home", "move_to_end(False)", "First tile", show=False),
    Binding("end", "move_to_end(True)", "Last tile", show=False),
]
