"""A screen's one-line search bar: `/` and a field, and what the search found; shown while open."""

from __future__ import annotations

from textual.containers import Horizontal


class SearchBar(Horizontal):
    """Hidden until it has the class `open` (the screen's `/` adds it, Escape or Enter takes it away)."""

    DEFAULT_CSS = """
    SearchBar { height: 1; display: none; background: $panel; }
    SearchBar.open { display: block; }
    SearchBar > Label { width: auto; padding: 0 1; }
    """
