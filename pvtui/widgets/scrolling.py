"""Keeping a selected row in view, for the line-API views that move a cursor through rows."""

from __future__ import annotations

from textual.scroll_view import ScrollView


def keep_row_visible(view: ScrollView, row: int) -> None:
    """Scroll VIEW the least that shows ROW, at once (a key repaints in one frame)."""
    height = max(view.scrollable_content_region.height, 1)
    top = int(view.scroll_y)
    if row < top:
        view.scroll_to(y=row, animate=False, immediate=True)
    elif row >= top + height:
        view.scroll_to(y=row - height + 1, animate=False, immediate=True)
