"""Rich styles from the theme's variables, in one place, for every view.

Colours are parsed by Textual, not Rich, so that any theme's colours work (an ANSI
theme's `ansi_red`, `ansi_default`). Phase colours come in two variants: text in a
phase's colour (the program tree, the details panels) and cells filled with it (the
trace, the BSP view), so every view colours a program type the same.
"""

from __future__ import annotations

from rich.color import Color as RichColor
from rich.style import Style
from textual.color import Color

from pvtui.model.step_types import PHASES


def theme_colour(variables: dict[str, str], name: str) -> Color:
    """The theme's colour NAME (a variable such as "pv-muted" or "background")."""
    return Color.parse(variables[name])


def rich_colour(variables: dict[str, str], name: str) -> RichColor:
    return theme_colour(variables, name).rich_color


def text_style(variables: dict[str, str], name: str, **attributes) -> Style:
    """Text in the theme's colour NAME over the theme's background."""
    return Style(color=rich_colour(variables, name), bgcolor=rich_colour(variables, "background"), **attributes)


def fill_style(variables: dict[str, str], name: str, glyph: str | None = None, **attributes) -> Style:
    """A cell filled with colour NAME, any glyph on it in colour GLYPH (NAME itself by default)."""
    return Style(color=rich_colour(variables, glyph or name), bgcolor=rich_colour(variables, name), **attributes)


def phase_text_styles(variables: dict[str, str]) -> dict[str, Style]:
    """Text in each phase's colour, and muted text."""
    styles = {phase: Style(color=rich_colour(variables, f"pv-{phase}")) for phase in PHASES}
    styles["muted"] = Style(color=rich_colour(variables, "pv-muted"))
    return styles


def phase_fill_styles(variables: dict[str, str]) -> dict[str, Style]:
    """Cells filled with each phase's colour (a glyph drawn on one is in that colour too); to be
    added to one: the idle and the waiting (sync) background, the cursor's glyph; and muted text."""
    styles = {phase: fill_style(variables, f"pv-{phase}") for phase in PHASES}
    styles["idle"] = Style(bgcolor=rich_colour(variables, "pv-idle"))
    styles["waiting"] = Style(bgcolor=rich_colour(variables, "pv-sync"))
    styles["cursor"] = Style(color=rich_colour(variables, "pv-cursor"), bold=True)
    styles["on_fill"] = Style(color=rich_colour(variables, "background"))  # a glyph on a phase's fill
    styles["muted"] = Style(color=rich_colour(variables, "pv-muted"))
    return styles
