"""Every Line-API view draws every cell in a full style on the theme's background, and reads under NO_COLOR."""

from __future__ import annotations

import pytest
from conftest import wait_until_loaded
from textual.geometry import Region
from textual.widget import Widget

from pvtui.app import SCREENS, PvtuiApp
from pvtui.sources.discovery import discover

pytestmark = pytest.mark.anyio


def line_api_views(screen) -> list[Widget]:
    """pvtui's widgets that draw line by line, as shown on SCREEN."""
    return [w for w in screen.query("*") if type(w).__module__.startswith("pvtui.")
            and type(w).render_line is not Widget.render_line and w.display and w.size.area]


# keys that bring out a screen's other heavy views: the tile map, the BSP view, the comparison's tiles and liveness
MORE_VIEWS = {"memory": ("v",), "trace": ("b",), "compare": ("2", "3")}


async def visit_every_screen(pilot):
    """Yield each screen of the app once it shows its report (the comparison last), and again
    after each of its MORE_VIEWS keys."""
    await wait_until_loaded(pilot)
    for name in SCREENS:
        await pilot.app.run_action(f"show('{name}')")
        for key in ("", *MORE_VIEWS.get(name, ())):
            if key:
                await pilot.press(key)
            for _ in range(3):  # the heavy views paint a frame after the screen shows
                await pilot.pause()
            assert pilot.app.screen.SCREEN_NAME.lower() == name
            yield pilot.app.screen


@pytest.fixture
def compare_app(tiny_dir, other_dir, cache_root):
    def make(theme: str | None = None) -> PvtuiApp:
        return PvtuiApp(discover(tiny_dir), path=tiny_dir, watch=False, cache=cache_root, theme=theme,
                        compare_with=discover(other_dir)[0])

    return make


async def test_every_cell_of_every_heavy_view_is_on_the_theme_background(compare_app):
    app = compare_app(theme="light")
    seen = set()
    async with app.run_test(size=(100, 40)) as pilot:
        async for screen in visit_every_screen(pilot):
            for view in line_api_views(screen):
                seen.add(type(view).__name__)
                lines = view.render_lines(Region(0, 0, view.size.width, view.size.height))
                for y, line in enumerate(lines):
                    for segment in line:  # no cell left to the terminal's own background
                        style = segment.style
                        assert style is not None and style.bgcolor is not None, (type(view).__name__, y, segment)
                        assert not style.bgcolor.is_default, (type(view).__name__, y, segment)
    assert {"TileHeatmap", "LivenessChart", "ProgramTree", "FlameView", "BspView", "DiffHeatmap",
            "CompareChart"} <= seen


async def test_every_screen_draws_under_no_color(compare_app, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = compare_app()
    async with app.run_test(size=(100, 40)) as pilot:
        assert app.no_color
        async for screen in visit_every_screen(pilot):
            for view in line_api_views(screen):
                view.refresh()
            await pilot.pause()
    assert app.return_code in (None, 0)
