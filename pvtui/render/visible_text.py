"""Outside text for Rich and Textual: as a `Text` whose shown control characters are dim, and escaped for
Textual markup. The rules and where they apply: `pvtui.safe_text`; the commands' console, which reads
no markup: `pvtui.render.console.TextConsole`."""

from __future__ import annotations

from rich.style import Style, StyleType
from rich.text import Text

from pvtui.safe_text import SHOWN_CHARACTER, visible

SHOWN_CONTROL = Style(dim=True)


def visible_text(text: str, style: StyleType = "") -> Text:
    """TEXT as a Rich Text in STYLE, made visible, the characters shown for controls dim; never markup."""
    shown = visible(text)
    out = Text(shown, style=style)
    if shown is not text:
        for match in SHOWN_CHARACTER.finditer(shown):
            out.stylize(SHOWN_CONTROL, match.start(), match.end())
    return out


def markup_escape(text: str) -> str:
    """TEXT made visible, for a Textual markup string: it shows as itself, never as markup.

    Every `[` is escaped: Textual's own escape() leaves `[` before a digit as it is, and a name like
    `ESC[6n[link=…]` then opens a tag that fails to parse (MarkupError: the app ends). A backslash
    before `[` escapes it, and there is no escaping a backslash: one that ends TEXT, before the markup's
    own next tag, gets a space after it.
    """
    shown = visible(text).replace("[", "\\[")
    return f"{shown} " if shown.endswith("\\") else shown
