"""Every theme the palette offers works on every screen: pvtui's colours derive from its base colours."""

from __future__ import annotations

import pytest
from conftest import wait_until_loaded
from textual.color import Color
from textual.theme import BUILTIN_THEMES

from pvtui.app import SCREENS, PvtuiApp
from pvtui.ui.pv_colours import CATEGORIES, PHASES, PV_VARIABLES, derived_variables
from pvtui.sources.discovery import discover
from pvtui.ui.theming import builtin_themes

pytestmark = pytest.mark.anyio

SCREEN_KEYS = {"summary": "s", "memory": "m", "liveness": "l", "programs": "p", "trace": "t",
               "insights": "i", "operations": "o", "hotspots": "H", "compare": "d"}


def test_pvtuis_theme_files_set_exactly_the_derived_colours():
    for theme in builtin_themes():
        assert set(theme.variables) == set(PV_VARIABLES), theme.name


@pytest.mark.parametrize("name", sorted(BUILTIN_THEMES))
def test_derived_categories_and_phases_are_told_apart(name):
    variables = derived_variables(BUILTIN_THEMES[name])
    assert set(PV_VARIABLES) <= set(variables)
    for group in (CATEGORIES, PHASES):
        colours = [variables[v] for v in group]
        assert len(set(colours)) == len(colours), (name, colours)


def test_every_screen_has_a_key_here():
    assert set(SCREEN_KEYS) == set(SCREENS)


THEME_GROUPS = 4  # one app session per group, each theme changed to in turn; the groups run apart under xdist


@pytest.mark.parametrize("group", range(THEME_GROUPS))
async def test_every_textual_theme_draws_every_screen(tiny_dir, other_dir, cache_root, group):
    """One app session per group of themes (a start and a report load, not one per theme): each theme
    in turn, and every screen shown under it."""
    app = PvtuiApp(discover(tiny_dir), path=tiny_dir, watch=False, cache=cache_root,
                   compare_with=discover(other_dir)[0])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        for theme in sorted(BUILTIN_THEMES)[group::THEME_GROUPS]:
            app.theme = theme
            assert set(PV_VARIABLES) <= set(app.theme_variables), theme
            for screen, key in SCREEN_KEYS.items():
                await pilot.press(key)
                await pilot.pause()
                assert app.screen.SCREEN_NAME.lower() == screen, theme
            assert app.return_code is None, theme  # nothing raised: the app is still running


@pytest.mark.parametrize("name", sorted(BUILTIN_THEMES) + [theme.name for theme in builtin_themes()])
def test_no_category_takes_the_over_the_limit_colour(name):
    from textual.color import Color

    from pvtui.ui.pv_colours import _MIN_DISTANCE, _distance

    theme = BUILTIN_THEMES.get(name) or next(t for t in builtin_themes() if t.name == name)
    variables = {**derived_variables(theme), **theme.variables}
    over = variables["pv-over"]
    for category in CATEGORIES:
        assert variables[category] != over, (name, category)
        if not theme.ansi:
            assert _distance(Color.parse(variables[category]), Color.parse(over)) >= _MIN_DISTANCE, (name, category)


@pytest.mark.parametrize("name", sorted(BUILTIN_THEMES) + [theme.name for theme in builtin_themes()])
def test_every_text_pvtui_writes_reaches_4_5_to_1_on_its_background(name):
    """pvtui's text colours on the background and on surfaces, and the background's colour on the cursor:
    pvtui's own themes as their files set them, Textual's as pvtui derives them (ANSI themes take the
    terminal's palette, which pvtui cannot see)."""
    from textual.color import Color

    from pvtui.ui.pv_colours import MIN_CONTRAST, TEXT_COLOURS, contrast

    theme = BUILTIN_THEMES.get(name) or next(t for t in builtin_themes() if t.name == name)
    if theme.ansi:
        pytest.skip("ANSI colours are the terminal's")
    variables = {**derived_variables(theme), **theme.variables}
    base = theme.to_color_system().generate()
    grounds = {ground: Color.parse(base[ground]) for ground in ("background", "surface")}
    low = [f"{text} on {ground} {contrast(Color.parse(variables[text]), colour):.2f}"
           for text in TEXT_COLOURS for ground, colour in grounds.items()
           if contrast(Color.parse(variables[text]), colour) < MIN_CONTRAST]
    cursor = contrast(grounds["background"], Color.parse(variables["pv-cursor"]))
    low += [f"background on pv-cursor {cursor:.2f}"] if cursor < MIN_CONTRAST else []
    assert not low, (name, low)


@pytest.mark.parametrize("theme", [None, "textual-dark"])
async def test_the_app_computes_the_css_variables_of_the_theme_it_shows_alone(tiny_dir, cache_root, monkeypatch,
                                                                             theme):
    """Textual's App.__init__ asks for its default theme's variables before pvtui chooses its own: not computed.
    Where the theme chosen is Textual's default (no watcher runs), its variables are set all the same."""
    from textual.app import App

    computed = []
    textuals = App.get_css_variables

    def counted(app):
        computed.append(app.current_theme.name)
        return textuals(app)

    monkeypatch.setattr(App, "get_css_variables", counted)
    app = PvtuiApp(discover(tiny_dir), path=tiny_dir, watch=False, cache=cache_root, theme=theme)
    shown = theme or "pvtui-dark"
    assert computed == [shown]
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert computed == [shown] and app.theme == shown
        variables = app.stylesheet._variables
        assert variables == app.theme_variables and set(PV_VARIABLES) <= set(variables)
        assert app.screen.styles.background == Color.parse(variables["background"])
