"""A JSON value as the Summary screen shows it: strings quoted in green, numbers in cyan, null and booleans
in italics."""

from __future__ import annotations

from typing import Any

from rich.text import Text


def json_value(value: Any) -> Text:
    """VALUE (not an object nor an array), styled by its type."""
    if isinstance(value, str):
        return Text(f'"{value}"', style="green")
    if value is None or isinstance(value, bool):
        return Text(str(value).lower() if value is not None else "null", style="italic")
    return Text(str(value), style="cyan")
