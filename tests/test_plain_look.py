"""Without colour (NO_COLOR, 16 colours) every heavy view reads by its glyphs, reverse and bold;
on a basic console (TERM=linux) the views draw in ASCII."""

from __future__ import annotations

import pytest
from conftest import wait_for, wait_until_loaded
from test_line_styles import line_api_views

from pvtui.app import PvtuiApp
from pvtui.sources.discovery import discover
from pvtui.widgets.look import ASCII, UNICODE, look_of

pytestmark = pytest.mark.anyio

CONSOLE_LINES = "─│┌┐└┘├┤┬┴┼"  # box drawing: the Linux console's font has these, not blocks or shades
HEAVY_VIEWS = {"TileHeatmap", "TileMap", "LivenessChart", "FlameView", "BspView", "DiffHeatmap", "CompareChart",
               "ProgramTree"}


@pytest.fixture
def compare_app(tiny_dir, other_dir, cache_root):
    def make() -> PvtuiApp:
        return PvtuiApp(discover(tiny_dir), path=tiny_dir, watch=False, cache=cache_root,
                        compare_with=discover(other_dir)[0])

    return make


def showing(screen: str, *keys: str):
    """A run_before that shows SCREEN, waits for its views, then presses KEYS."""
    async def run_before(pilot) -> None:
        await wait_until_loaded(pilot)
        await pilot.app.run_action(f"show('{screen}')")

        def ready() -> bool:
            """the screen is shown over the report, with what its workers compute (the comparison, the lanes)"""
            shown = pilot.app.screen
            return (getattr(shown, "SCREEN_NAME", "").lower() == screen and not shown.opening
                    and getattr(shown, "comparison", True) is not None and getattr(shown, "available", True))

        await wait_for(pilot, ready)
        await pilot.press(*keys)
        for _ in range(3):
            await pilot.pause()

    return run_before


@pytest.mark.parametrize("environ, plain, glyphs", [
    ({}, False, UNICODE),
    ({"NO_COLOR": "1"}, True, UNICODE),
    ({"TERM": "xterm", "COLORTERM": ""}, True, UNICODE),  # 16 colours
    ({"TERM": "linux", "COLORTERM": ""}, True, ASCII),
])
def test_the_look_follows_the_terminal(make_app, monkeypatch, environ, plain, glyphs):
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    look = look_of(make_app())
    assert (look.plain, look.glyphs) == (plain, glyphs)


# One monochrome snapshot of each heavy view, at a place that shows what colour would:
# the memory cursor on an over-limit tile, the liveness peak marked and the cursor before it, trace phases and several
# steps, the BSP view's working and waiting tiles, the comparison's grown and shrunk tiles
# and its A and B curves.
PLAIN_VIEWS = {
    "memory": showing("memory", "w"),
    "memory_map": showing("memory", "v", "w"),
    "liveness": showing("liveness", "b", "shift+left"),  # the peak marked, the cursor before it
    "trace": showing("trace", "plus", "plus", "plus", "plus"),
    "bsp": showing("trace", "b", "n"),
    "programs": showing("programs", "right"),
    "compare_tiles": showing("compare", "2"),
    "compare_liveness": showing("compare", "3"),
}


@pytest.mark.parametrize("view", PLAIN_VIEWS)
def test_snapshot_no_color(snap_compare, compare_app, monkeypatch, view):
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(compare_app(), terminal_size=(100, 30), run_before=PLAIN_VIEWS[view])


async def test_a_basic_console_gets_ascii_views(compare_app, monkeypatch):
    monkeypatch.setenv("TERM", "linux")
    monkeypatch.setenv("COLORTERM", "")
    app = compare_app()
    seen = set()
    async with app.run_test(size=(100, 30)) as pilot:
        for view, run_before in PLAIN_VIEWS.items():
            await run_before(pilot)
            for widget in line_api_views(app.screen):
                name = type(widget).__name__
                if name not in HEAVY_VIEWS:
                    continue
                seen.add(name)
                lines = widget.render_lines(widget.region.reset_offset)
                text = "".join(segment.text for line in lines for segment in line)
                unknown = {c for c in text if not c.isascii() and c not in CONSOLE_LINES}
                assert not unknown, (name, sorted(unknown))
    assert seen == HEAVY_VIEWS


async def test_a_basic_console_gets_every_glyph_in_ascii(compare_app, monkeypatch):
    """Not the heavy views alone: tab underlines, splitters, borders, scrollbars and the text's separators."""
    monkeypatch.setenv("TERM", "linux")
    monkeypatch.setenv("COLORTERM", "")
    app = compare_app()
    async with app.run_test(size=(80, 24)) as pilot:
        for screen in ("summary", "memory", "liveness", "programs", "trace", "insights", "operations", "hotspots",
                       "compare"):
            await showing(screen)(pilot)
            for widget in [app.screen, *app.screen.walk_children()]:
                if not widget.display or not widget.region:
                    continue
                lines = widget.render_lines(widget.region.reset_offset)
                text = "".join(segment.text for line in lines for segment in line)
                assert text.isascii(), (screen, type(widget).__name__, sorted({c for c in text if not c.isascii()}))


def test_a_basic_console_shows_a_names_controls_in_caret_notation():
    """Its font has no Control Pictures: the ␛ that safe_text shows a name's ESC with reads ^ there."""
    from pvtui.render.glyphs import ascii_glyphs
    from pvtui.safe_text import visible

    assert ascii_glyphs(visible("a\x1b[6n\x07b")) == "a^[6n^b"
