"""How every view words a figure the report cannot give (the model's Unavailable) in the place of that figure,
on screen and in print; where a whole view is missing, the screens show its reason in an UnavailableNotice."""

from __future__ import annotations

from rich.text import Text

from pvtui.model.unavailable import Unavailable


def unavailable_text(why: Unavailable, title: str = "") -> Text:
    """WHY's reason, in italics, after TITLE (the part it stands for) where one is given."""
    return Text(f"{title}: {why.reason}" if title else why.reason, style="italic")
