"""The theme's phase colours, in one place, so every view colours a program type the same.

Two variants from the same pv-* theme variables: text in a phase's colour (the
program tree, the details panels) and cells filled with it (the trace, the BSP view).
"""

from __future__ import annotations

from rich.style import Style

from pvtui.model.step_types import PHASES


def phase_text_styles(variables: dict[str, str]) -> dict[str, Style]:
    """Text in each phase's colour, and muted text."""
    styles = {phase: Style(color=variables[f"pv-{phase}"]) for phase in PHASES}
    styles["muted"] = Style(color=variables["pv-muted"])
    return styles


def phase_fill_styles(variables: dict[str, str]) -> dict[str, Style]:
    """Cells filled with each phase's colour (a glyph drawn on one is in that colour too), idle cells,
    the cursor's glyph and muted text."""
    styles = {phase: Style(color=variables[f"pv-{phase}"], bgcolor=variables[f"pv-{phase}"]) for phase in PHASES}
    styles["idle"] = Style(bgcolor=variables["pv-idle"])
    styles["cursor"] = Style(color=variables["pv-cursor"], bold=True)
    styles["muted"] = Style(color=variables["pv-muted"])
    return styles
