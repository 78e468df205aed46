"""Themes from theme files: the built-in ones in themes/ (installed as pvtui.themes), then the user's own.

A theme file is JSON with Textual's Theme fields (name, primary, background, ...)
and `variables`, the pv-* colours every view draws with. A theme may leave them
out: they are derived from its base colours (pvtui.ui.pv_colours), as for any theme.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.color import Color, ColorParseError
from textual.theme import Theme

from pvtui.files.regular import read_regular
from pvtui.ui.pv_colours import derived_variables
from pvtui.ui.textual_private import AppPart

if TYPE_CHECKING:
    from pvtui.user.config import Config

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


def builtin_theme_files() -> Path:
    """The installed pvtui.themes' folder; in a checkout run as it is (no install, or the current directory's
    pvtui/ shadowing the installed one), themes/ beside the package, which setup.py maps only at install.
    (Found by its spec: importlib.resources, which pip's unpacked installs do not need, took 4 ms to import.)"""
    spec = importlib.util.find_spec("pvtui.themes")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(folders[0]) if folders else Path(__file__).resolve().parents[2] / "themes"


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


class ThemeVariables(AppPart):
    """An App with pvtui's themes and the user's, whose CSS variables hold pvtui's pv-* colours for any theme,
    computed once per theme."""

    _css_variables: tuple[Theme, dict[str, str]] | None = None  # the theme, and its variables
    _theme_chosen = False  # set by use_themes
    theme_problems: list[str]  # what is wrong with the user's theme files, one line each

    def use_themes(self, theme: str | None, config: "Config") -> None:
        """Offer pvtui's themes and the user's, and show THEME, else CONFIG's, else pvtui's own."""
        extra, self.theme_problems = user_themes()
        for item in builtin_themes() + extra:
            self.register_theme(item)
        themes = list(self.available_themes)
        self._theme_chosen = True
        self.theme = resolve_theme_name(theme or default_theme(config, themes), themes) or DEFAULT_THEME
        self.stylesheet.set_variables(self.get_css_variables())  # no watcher does where THEME is Textual's default

    def get_css_variables(self) -> dict[str, str]:
        """Textual's, once per theme: as the app starts, Textual asks twice for the theme it has (3-4 ms each).
        None before use_themes chose the theme: App.__init__ asks for its default theme's (5 ms), to be
        replaced before any CSS is parsed."""
        if not self._theme_chosen:
            return {}
        theme = self.current_theme
        if self._css_variables is None or self._css_variables[0] is not theme:
            self._css_variables = (theme, super().get_css_variables())
        self.theme_variables = dict(self._css_variables[1])  # as Textual's sets it
        return dict(self._css_variables[1])

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """pvtui's pv-* colours (the palette offers Textual's themes too); a theme's own win."""
        return {**super().get_theme_variable_defaults(), **derived_variables(self.current_theme)}


def default_theme(config: "Config", themes: list[str]) -> str | None:
    """CONFIG's theme, where it names one of THEMES (else a problem of CONFIG's saying it does not)."""
    theme = config.defaults.get("theme")
    if theme is not None and resolve_theme_name(theme, themes) is None:
        config.problems.append(f"{config.path}: [defaults] no theme named {theme!r}; ignored")
        return None
    return theme
