"""pvtui's own colours (the pv-* theme variables), derived from any theme's base colours.

pvtui's theme files set every pv-* colour. Any other theme (Textual's built-in ones in
the palette's theme picker, a user's theme that leaves them out) gets them from its
primary, secondary, accent, warning, error, success, foreground and background, kept
apart from each other and from the background so that categories and phases stay
distinguishable. ANSI themes get ANSI colours, which the terminal's palette defines.
"""

from __future__ import annotations

from textual.color import Color
from textual.theme import Theme

HEAT = tuple(f"pv-heat-{i}" for i in range(5))
CATEGORIES = tuple(f"pv-cat-{i}" for i in range(6))
PHASES = ("pv-compute", "pv-exchange", "pv-stream", "pv-sync", "pv-control", "pv-other")
LIVENESS = ("pv-not-always-live", "pv-always-live", "pv-peak", "pv-cursor")
PV_VARIABLES = (*HEAT, *CATEGORIES, *PHASES, *LIVENESS, "pv-over", "pv-limit", "pv-idle",
                "pv-muted")
# the pv-* colours pvtui writes text in, on the background and on surfaces (detail panes, status lines);
# pv-cursor is the other way round: the background's colour is written on it (the cursor's row)
TEXT_COLOURS = ("pv-muted", *PHASES, "pv-peak", "pv-over")
MIN_CONTRAST = 4.5  # WCAG AA for text

_MIN_DISTANCE = 70.0  # RGB distance below which two colours read as one in a small cell

_ANSI_COMMON = {
    **dict(zip(HEAT, ("ansi_blue", "ansi_cyan", "ansi_green", "ansi_yellow", "ansi_magenta"))),
    # never the over-the-limit red: a category is memory within the limit
    **dict(zip(CATEGORIES, ("ansi_blue", "ansi_yellow", "ansi_green", "ansi_magenta", "ansi_cyan",
                            "ansi_bright_blue"))),
    **dict(zip(PHASES, ("ansi_green", "ansi_blue", "ansi_magenta", "ansi_red", "ansi_cyan", "ansi_yellow"))),
    **dict(zip(LIVENESS, ("ansi_blue", "ansi_magenta", "ansi_red", "ansi_yellow"))),
    "pv-over": "ansi_red",
}
_ANSI = {
    True: {**_ANSI_COMMON, "pv-limit": "ansi_bright_white", "pv-idle": "ansi_black", "pv-muted": "ansi_bright_black"},
    False: {**_ANSI_COMMON, "pv-limit": "ansi_black", "pv-idle": "ansi_white", "pv-muted": "ansi_bright_black"},
}


def _distance(a: Color, b: Color) -> float:
    return float(((a.r - b.r) ** 2 + (a.g - b.g) ** 2 + (a.b - b.b) ** 2) ** 0.5)


def _luminance(colour: Color) -> float:
    def linear(channel: int) -> float:
        c = channel / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(colour.r) + 0.7152 * linear(colour.g) + 0.0722 * linear(colour.b)


def contrast(a: Color, b: Color) -> float:
    """The WCAG contrast ratio of two colours, 1 to 21."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def readable(colour: Color, backgrounds: list[Color], dark: bool) -> Color:
    """COLOUR lightened (on DARK backgrounds) or darkened just enough to reach MIN_CONTRAST on each of
    BACKGROUNDS; its hue kept."""
    for _ in range(50):
        if min(contrast(colour, background) for background in backgrounds) >= MIN_CONTRAST:
            break
        colour = colour.lighten(0.02) if dark else colour.darken(0.02)
    return colour


def _hue_wheel(start: Color, dark: bool) -> list[Color]:
    """The other eleven of twelve hues around START's, the farthest from it first, at a lightness
    that reads on a dark or a light background; then the same hues lighter (dark) or darker."""
    hue = start.hsl.h
    return [Color.from_hsl((hue + k / 12) % 1.0, 0.6, lightness)
            for lightness in ((0.62, 0.78) if dark else (0.4, 0.28)) for k in (6, 3, 9, 2, 8, 4, 10, 1, 7, 5, 11)]


def _apart(wanted: list[Color], background: Color, spare: list[Color], avoid: list[Color]) -> list[Color]:
    """WANTED (the most important first), each one too close to the background, to a colour to AVOID or
    to an earlier one swapped for a SPARE hue; where no spare is far enough from them all, the one
    farthest from the nearest (a colour to AVOID is never kept)."""
    chosen: list[Color] = []
    for colour in wanted:
        taken = [background, *avoid, *chosen]

        def nearest(candidate: Color) -> float:
            return min(_distance(candidate, other) for other in taken)

        if nearest(colour) < _MIN_DISTANCE:
            colour = next((c for c in spare if nearest(c) >= _MIN_DISTANCE), None) or max(spare, key=nearest)
        chosen.append(colour)
    return chosen


def derived_variables(theme: Theme) -> dict[str, str]:
    """Every pv-* colour for THEME, from its base colours (its own variables override these)."""
    if theme.ansi:
        return dict(_ANSI[theme.dark])
    base = theme.to_color_system().generate()
    c = {name: Color.parse(base[name]) for name in
         ("primary", "secondary", "accent", "warning", "error", "success", "foreground", "background")}
    background, foreground = c["background"], c["foreground"]
    grounds = [background, Color.parse(base["surface"])]

    def text(colour: Color) -> Color:
        return readable(colour, grounds, theme.dark)

    muted = text(foreground.blend(background, 0.4))
    spare = _hue_wheel(c["primary"], theme.dark)
    heat = [background.blend(c["primary"], 0.4), c["primary"], c["success"], c["warning"],
            c["error"].blend(c["warning"], 0.4)]  # a ramp, not a set: no swapping
    over = text(c["error"])  # memory over the limit: no category takes it (nor one near it), whatever the theme
    groups = {  # each group's colours, most important first, and the colours they must keep away from
        CATEGORIES: ([c["primary"], c["warning"], c["success"], c["accent"], c["secondary"], spare[0]], [over]),
        PHASES: ([c["success"], c["primary"], c["secondary"], c["error"], muted, c["warning"]], []),
        LIVENESS: ([c["primary"], c["secondary"], c["error"], c["accent"]], []),
    }
    variables = {}
    for names, (wanted, avoid) in groups.items():
        spares = spare
        if names is PHASES:  # written as text too: readable, then kept apart
            wanted, spares = [text(colour) for colour in wanted], [text(colour) for colour in spare]
        variables.update((name, colour.hex) for name, colour in zip(names, _apart(wanted, background, spares, avoid)))
    for name in ("pv-peak", "pv-cursor"):  # the peak is written as text, the background's colour on the cursor
        variables[name] = text(Color.parse(variables[name])).hex
    variables.update({name: colour.hex for name, colour in zip(HEAT, heat)})
    variables.update({
        "pv-over": over.hex, "pv-limit": foreground.hex,
        "pv-idle": background.blend(foreground, 0.12).hex, "pv-muted": muted.hex,
    })
    return variables
