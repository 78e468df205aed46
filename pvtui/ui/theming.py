"""Themes from theme files: the built-in ones in themes/ (installed as pvtui.themes), then the user's own.

A theme file is JSON with Textual's Theme fields (name, primary, background, ...)
and `variables`, the pv-* colours every view draws with. A theme may leave them
out: they are derived from its base colours (pvtui.ui.pv_colours), as for any theme.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

from textual.color import Color, ColorParseError
from textual.theme import Theme

from pvtui.files.regular import read_regular

DEFAULT_THEME = "pvtui-dark"
THEME_LIMIT = 1 << 20  # bytes of a theme file read at most: a theme is a few hundred
_FIELDS = set(Theme.__dataclass_fields__)
_COLOUR_FIELDS = ("primary", "secondary", "warning", "error", "success", "accent", "foreground", "background",
                  "surface", "panel", "boost")


def user_theme_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "pvtui" / "themes"


def _theme_from(data: Any) -> Theme:
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) or "primary" not in data:
        raise ValueError("needs at least a string 'name' and a 'primary' colour")
    unknown = set(data) - _FIELDS
    if unknown:
        raise ValueError(f"unknown fields: {', '.join(sorted(unknown))}")
    variables = data.get("variables") or {}
    if not isinstance(variables, dict):
        raise ValueError("'variables' is not an object")
    colours = {field: data[field] for field in _COLOUR_FIELDS if data.get(field) is not None}
    colours.update((name, value) for name, value in variables.items() if name.startswith("pv-"))
    for field, value in colours.items():  # a bad colour would stop the app once it runs
        try:
            Color.parse(value)
        except (ColorParseError, TypeError, ValueError):
            raise ValueError(f"{field}: {value!r} is not a colour") from None
    return Theme(**{**data, "variables": dict(variables)})


def builtin_theme_files() -> Any:
    """The installed pvtui.themes; in a checkout run as it is (no install, or the current directory's
    pvtui/ shadowing the installed one), themes/ beside the package, which setup.py maps only at install."""
    try:
        return resources.files("pvtui.themes")
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[2] / "themes"


def builtin_themes() -> list[Theme]:
    themes = []
    for entry in sorted(builtin_theme_files().iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            themes.append(_theme_from(json.loads(entry.read_text("utf-8"))))
    return themes


def user_themes() -> tuple[list[Theme], list[str]]:
    """The user's themes and one line per file that could not be used."""
    folder = user_theme_dir()
    if not folder.is_dir():
        return [], []
    themes, problems = [], []
    for path in sorted(folder.glob("*.json")):
        try:
            themes.append(_theme_from(json.loads(read_regular(path, THEME_LIMIT).decode("utf-8"))))
        except (OSError, ValueError, TypeError) as exc:
            problems.append(f"{path}: not a usable theme ({getattr(exc, 'strerror', None) or exc})")
    return themes, problems


def resolve_theme_name(name: str | None, available: list[str]) -> str | None:
    """Accept `dark` for `pvtui-dark`; None when NAME names no theme."""
    if name is None:
        return DEFAULT_THEME
    for candidate in (name, f"pvtui-{name}"):
        if candidate in available:
            return candidate
    return None
