"""The scrolling container of a screen's details pane."""

from __future__ import annotations

from textual.containers import VerticalScroll

from pvtui.ui.textual_private import AlikeRows


class PaneScroll(AlikeRows, VerticalScroll):
    """A VerticalScroll whose own rows (its background, its border beside the main view) are drawn once for
    each kind, not once a row: 7-13 M instructions of a screen's first frame with the report."""
