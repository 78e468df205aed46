"""Keeping a selected row in view, for the line-API views that move a cursor through rows."""

from __future__ import annotations

from textual.binding import Binding
from textual.scroll_view import ScrollView


def keep_row_visible(view: ScrollView, row: int) -> None:
    """Scroll VIEW the least that shows ROW, at once (a key repaints in one frame)."""
    height = max(view.scrollable_content_region.height, 1)
    top = int(view.scroll_y)
    if row < top:
        view.scroll_to(y=row, animate=False, immediate=True)
    elif row >= top + height:
        view.scroll_to(y=row - height + 1, animate=False, immediate=True)


def cursor_bindings(above: str, below: str, first: str, last: str) -> list[Binding]:
    """The keys that move a view's cursor over its rows (its actions move, page and move_to_end), each
    described for the help."""
    return [
        Binding("up", "move(-1)", above, show=False),
        Binding("down", "move(1)", below, show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "move_to_end(False)", first, show=False),
        Binding("end", "move_to_end(True)", last, show=False),
    ]
