"""The app shell: screen keys, help, palette, themes, picker and live reload."""

from __future__ import annotations

import asyncio
import io
import json
import shutil

import pytest
from conftest import resize, wait_for, wait_until_loaded, watching
from rich.text import Text
from textual.widgets import OptionList

from pvtui.app import PvtuiApp, ScreenActions, run_app
from pvtui.screens.dialogs import HelpScreen, ReloadPrompt, ReportPicker
from pvtui.sources.discovery import discover
from pvtui.sources.watch import settled

pytestmark = pytest.mark.anyio

SCREEN_KEYS = {"s": "Summary", "m": "Memory", "l": "Liveness", "p": "Programs", "t": "Trace"}


async def test_each_key_shows_its_screen_by_name(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        for key, name in SCREEN_KEYS.items():
            await pilot.press(key)
            await pilot.pause()
            assert pilot.app.screen.SCREEN_NAME == name
            title = pilot.app.screen.query_one("#title")
            assert title.current == name
            current = [span for span in title.line_text().spans if "reverse" in str(span.style)]
            assert len(current) == 1  # one tab stands out: this screen's


async def test_a_click_on_a_tab_shows_its_screen(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        for size in ((80, 24), (160, 48)):
            await resize(pilot, *size)
            for name in ("Operations", "Liveness", "Summary", "Trace", "Memory", "Insights", "Programs"):
                title = pilot.app.screen.query_one("#title")
                line = "".join(segment.text for segment in title.render_line(0))
                assert await pilot.click("#title", offset=(line.index(f" {name} ") + 2, 0))
                await pilot.pause()
                assert pilot.app.screen.SCREEN_NAME == name, size
            assert await pilot.click("#title", offset=(1, 0))  # the report's name: no tab
            await pilot.pause()
            assert pilot.app.screen.SCREEN_NAME == "Programs", size


async def test_a_mouse_press_on_a_widget_just_removed_leaves_the_app_running(make_app):
    """As when the body replaces the opening line and a press lands before the repaint (seen in a browser)."""
    from textual import events

    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.app.screen.query_one("#title").remove()
        # straight to the app, as a terminal's input comes: the pilot's click would wait for a repaint
        pilot.app.post_message(events.MouseDown(None, 10, 0, 0, 0, 1, False, False, False, screen_x=10, screen_y=0))
        await pilot.pause()
        assert pilot.app.is_running


async def test_help_lists_the_keys_of_the_screen(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("m", "question_mark")
        await pilot.pause()
        assert isinstance(pilot.app.screen, HelpScreen)
        text = "\n".join(str(w.render()) for w in pilot.app.screen.query("Static"))
        assert "Worst tile" in text and "Summary" in text
        await pilot.press("escape")
        assert pilot.app.screen.SCREEN_NAME == "Memory"


async def test_help_puts_the_screen_keys_first_and_scrolls(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("o")
        await pilot.pause()
        pilot.app.screen._bindings.bind("left_square_bracket", "app.bell", "Ring [b]the bell[/b]", key_display="[")
        await pilot.press("question_mark")
        await pilot.pause()
        help_screen = pilot.app.screen
        assert isinstance(help_screen, HelpScreen)
        listing = str(help_screen.query_one("#help-keys Static").render())
        lines = listing.splitlines()
        ours, everywhere = listing.split("Everywhere")
        assert "Sort" in ours and "Filter" in ours and "Summary" in everywhere
        assert ours.index("Sort") < ours.index("Row above")  # the screen's keys before the table's
        assert "Focus Next" in everywhere
        assert any(line.split() == ["[", "Ring", "[b]the", "bell[/b]"] for line in lines)  # no markup
        body = help_screen.query_one("#help-keys")
        assert body.has_focus and body.max_scroll_y > 0
        assert body.region.bottom <= help_screen.query_one(".dialog").region.bottom
        await pilot.press("end")
        await pilot.pause()
        assert body.scroll_target_y == body.max_scroll_y > 0
        await pilot.press("escape")
        assert pilot.app.screen.SCREEN_NAME == "Operations"


async def test_the_palette_offers_every_action_of_the_screen(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("l")
        await pilot.pause()
        provider = ScreenActions(pilot.app.screen)
        names = [hit.display async for hit in provider.discover()]
        assert {"Summary", "Memory", "Trace", "Quit"} <= {str(n) for n in names}
        assert any("peak" in str(n).lower() for n in names)


async def test_an_action_chosen_in_the_palette_runs_on_its_screen(make_app, tiny_report):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("l", "right", "right")
        await pilot.pause()
        screen = pilot.app.screen
        assert screen.nav.cursor != tiny_report.liveness.peak_step
        hits = [hit async for hit in ScreenActions(screen).search("peak")]
        await hits[0].command()  # was a crash: the screen's node passed where namespaces go
        await pilot.pause()
        assert screen.nav.cursor == tiny_report.liveness.peak_step
        await pilot.press("t")
        await pilot.pause()
        (flame,) = [hit async for hit in ScreenActions(pilot.app.screen).search("Flame")]
        await flame.command()
        await pilot.pause()
        assert pilot.app.screen.nav.view == "flame"


async def test_themes_from_files_and_the_theme_option(make_app):
    app = make_app(theme="light")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert app.theme == "pvtui-light"
        assert {"pvtui-dark", "pvtui-light", "pvtui-high-contrast"} <= set(app.available_themes)
        assert app.theme_variables["pv-over"]


def test_an_unknown_theme_is_refused(tiny_dir, capsys):
    assert run_app(tiny_dir, theme="no-such-theme") == 2
    assert "no-such-theme" in capsys.readouterr().err


def escape_label(screen) -> tuple[str, str]:
    """What the key bar and the help say Escape does on SCREEN."""
    from pvtui.widgets.key_bar import KeyBar

    bar = screen.query_one(KeyBar).line_text().plain
    help_line = next(line for line in HelpScreen(screen)._listing().plain.splitlines() if "esc" in line)
    return bar.split("esc ", 1)[1].split("  ")[0], help_line.split()[-1]


def prompt(picker, index: int) -> str:
    return Text.from_markup(str(picker.query_one(OptionList).get_option_at_index(index).prompt)).plain


async def test_several_engines_offer_a_picker_which_later_marks_the_one_shown(tiny_dir, tmp_path, cache_root):
    for engine in ("inference", "training"):
        shutil.copytree(tiny_dir, tmp_path / engine)
    app = PvtuiApp(discover(tmp_path), path=tmp_path, watch=False, cache=cache_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ReportPicker)
        assert escape_label(app.screen) == ("Quit", "Quit")  # nothing to go back to yet
        assert "●" not in prompt(app.screen, 1)
        await pilot.press("down", "enter")
        await wait_until_loaded(pilot)
        assert app.report.name == "training"
        shown = app.screen
        await pilot.press("E")
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, ReportPicker)
        assert picker.query_one(OptionList).highlighted == 1 and prompt(picker, 1).startswith("● training")
        assert "●" not in prompt(picker, 0)
        assert escape_label(picker) == ("Back", "Back")
        await pilot.press("E")  # no second picker over the first
        await pilot.pause()
        assert app.screen is picker
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is shown and app.is_running and app.report.name == "training"


async def test_the_picker_gives_each_reports_size_date_and_files(tiny_dir, tmp_path, cache_root):
    import os
    import time

    from pvtui.sources.cache import tree_size
    from pvtui.units import format_bytes

    for engine in ("inference", "training"):
        shutil.copytree(tiny_dir, tmp_path / engine)
    (tmp_path / "inference" / "app.json").unlink()
    when = time.mktime((2024, 5, 1, 12, 34, 0, 0, 0, -1))
    for path in (tmp_path / "training").iterdir():
        os.utime(path, (when, when))
    app = PvtuiApp(discover(tmp_path), path=tmp_path, watch=False, cache=cache_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        inference, training = prompt(app.screen, 0), prompt(app.screen, 1)
        sizes = {path.name: tree_size(path) if path.is_dir() else path.stat().st_size
                 for path in (tmp_path / "training").iterdir()}
        total = format_bytes(sum(sizes.values()))
        assert training.splitlines()[0] == f"training  {total} · written 2024-05-01 12:34"
        for name, size in sizes.items():
            assert f"{name} {format_bytes(size)}" in " ".join(training.split())
        assert "app.json" in training and "app.json" not in inference


async def test_writes_settle_before_a_reload_is_offered(tmp_path):
    path = tmp_path / "profile.pop"
    path.write_bytes(b"x")

    async def keep_writing():
        for _ in range(4):
            await asyncio.sleep(0.1)
            with path.open("ab") as f:
                f.write(b"more")

    writer = asyncio.ensure_future(keep_writing())
    started = asyncio.get_running_loop().time()
    await settled([path], settle=0.3, poll=0.05)
    assert writer.done()
    assert asyncio.get_running_loop().time() - started >= 0.7


async def test_accept_a_reload_keeps_the_screen_and_selection(tiny_dir, tmp_path, cache_root):
    folder = tmp_path / "report"
    shutil.copytree(tiny_dir, folder)
    app = PvtuiApp(discover(folder), path=folder, watch=True, cache=cache_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("m", "w")
        await pilot.pause()
        from pvtui.widgets.heatmap import TileHeatmap

        worst = app.screen.query_one(TileHeatmap).selected
        await wait_for(pilot, lambda: watching(app))
        (folder / "framework.json").write_text(json.dumps({"framework": "popart", "version": "9.9"}))
        await wait_for(pilot, lambda: isinstance(app.screen, ReloadPrompt))
        assert [p.name for p in app.screen.changed] == ["framework.json"]
        old = app.report
        await pilot.press("r")
        await wait_for(pilot, lambda: app.report is not old and app.screen.SCREEN_NAME == "Memory")
        assert app.report.framework_json == {"framework": "popart", "version": "9.9"}
        assert app.screen.SCREEN_NAME == "Memory"
        assert app.screen.query_one(TileHeatmap).selected == worst


async def test_dismissing_a_reload_keeps_the_model(make_app, tiny_dir):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        old = app.report
        app.reloads.offer([tiny_dir / "archive.a"], app.a)
        await pilot.pause()
        assert isinstance(app.screen, ReloadPrompt)
        await pilot.press("escape")
        await pilot.pause()
        assert app.report is old and app.screen.SCREEN_NAME == "Summary"


def test_summary_snapshot_80x24(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=wait_until_loaded)


def test_summary_snapshot_160x48(snap_compare, make_app):
    assert snap_compare(make_app(), terminal_size=(160, 48), run_before=wait_until_loaded)


@pytest.mark.parametrize("key", ["s", "m", "l", "p", "t"])
def test_light_theme_snapshots(snap_compare, make_app, key):
    async def run_before(pilot):
        await wait_until_loaded(pilot)
        await pilot.press(key)
        await pilot.pause()

    assert snap_compare(make_app(theme="light"), terminal_size=(80, 24), run_before=run_before)


async def test_escape_cancels_the_first_load(make_app, monkeypatch):
    import pvtui.sources.ingest as ingest
    from pvtui.errors import Cancelled
    from pvtui.screens.dialogs import LoadingScreen

    def slow_load(files, *, progress=None, cancel=None, cache=None, reader="auto", shown=None):
        while not cancel.cancelled:
            progress("archive.a", 1, 10)
            cancel._event.wait(0.05)
        raise Cancelled()

    monkeypatch.setattr(ingest, "load_report", slow_load)
    monkeypatch.setattr(ingest, "open_current", lambda files, cache=None, reader="auto": None)  # never read
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, LoadingScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.return_code is not None)
    assert app.report is None
    assert app.return_code == 0


def test_user_themes_load_and_bad_ones_are_named(tmp_path, monkeypatch):
    from pvtui.ui.pv_colours import derived_variables
    from pvtui.ui.theming import user_themes

    folder = tmp_path / "pvtui" / "themes"
    folder.mkdir(parents=True)
    (folder / "mine.json").write_text(json.dumps({"name": "mine", "primary": "#FF0000", "dark": False}))
    (folder / "broken.json").write_text("{not json")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    themes, problems = user_themes()
    assert [t.name for t in themes] == ["mine"]
    primary = themes[0].to_color_system().generate()["primary"]
    assert derived_variables(themes[0])["pv-not-always-live"] == primary  # from its own colours
    assert len(problems) == 1 and "broken.json" in problems[0]


def test_a_user_theme_with_a_bad_colour_is_named_and_never_reaches_the_app(tmp_path, monkeypatch, tiny_dir):
    from pvtui.app import PvtuiApp, theme_problem
    from pvtui.ui.theming import user_themes

    folder = tmp_path / "pvtui" / "themes"
    folder.mkdir(parents=True)
    (folder / "bad.json").write_text(json.dumps({"name": "bad", "primary": "notacolour"}))
    (folder / "pv.json").write_text(json.dumps({"name": "pv", "primary": "#FF0000", "variables": {"pv-over": "red!"}}))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    themes, problems = user_themes()
    assert themes == [] and len(problems) == 2
    assert "primary: 'notacolour' is not a colour" in problems[0] and "pv-over: 'red!'" in problems[1]
    line = theme_problem(PvtuiApp([]), "bad")
    assert line == f"pvtui: {folder / 'bad.json'}: not a usable theme (primary: 'notacolour' is not a colour)"


def facts_text(screen) -> str:
    from rich.console import Console

    console = Console(width=100, record=True, file=io.StringIO())
    for widget in screen.query(".facts"):
        console.print(widget.content)
    return console.export_text()


@pytest.mark.parametrize("with_json", [True, False])
async def test_the_summary_offers_f_only_where_there_is_a_json_tree(make_app, tiny_dir, tmp_path, with_json):
    folder = tmp_path / "report"
    folder.mkdir()
    shutil.copy(tiny_dir / "archive.a", folder / "archive.a")
    if with_json:
        shutil.copy(tiny_dir / "app.json", folder / "app.json")
    async with make_app(folder).run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert bool(pilot.app.screen.check_action("focus_next_tree", ())) is with_json
        assert ("f" in pilot.app.screen.active_bindings) is with_json


async def test_units_redraw_the_summary_in_place(make_app):
    from pvtui.widgets.json_tree import JsonTree

    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        trees = list(pilot.app.screen.query(JsonTree))
        before = facts_text(pilot.app.screen)
        await pilot.press("u")
        await pilot.pause()
        after = facts_text(pilot.app.screen)
        assert "kB" in after and "kB" not in before
        assert list(pilot.app.screen.query(JsonTree)) == trees  # not rebuilt: expansions survive


async def test_a_screen_shown_before_is_switched_to_without_textuals_hold(make_app, monkeypatch):
    """Textual holds the frame 50 ms after a mode switch to hide a screen being built: a new screen's frames
    are held only until it is mounted, and a built one needs no hold."""
    from textual.app import App

    from pvtui.ui.textual_private import InstantModeSwitch

    held, delayed = [], []
    real = InstantModeSwitch._paint_once_mounted
    monkeypatch.setattr(InstantModeSwitch, "_paint_once_mounted",
                        lambda self, mounted: held.append(self.current_mode) or real(self, mounted))
    monkeypatch.setattr(App, "delay_update", lambda self, delay=0.05: delayed.append(self.current_mode))
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("m")
        await wait_for(pilot, lambda: pilot.app.screen.SCREEN_NAME == "Memory")
        assert held == ["memory"]  # the new screen: held until it is mounted
        for key, name in (("s", "Summary"), ("m", "Memory")):
            await pilot.press(key)
            await wait_for(pilot, lambda: pilot.app.screen.SCREEN_NAME == name)
        assert held == ["memory"] and delayed == [] and pilot.app._batch_count == 0


@pytest.mark.parametrize("key,name", [("m", "Memory"), ("p", "Programs"), ("o", "Operations")])
async def test_the_detail_panes_go_under_the_main_view_below_120_columns(make_app, key, name):
    """One mechanism for every screen (Textual's breakpoints): 'narrow' below 120 columns, 'wide' from it."""
    async with make_app().run_test(size=(119, 30)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press(key)
        await wait_for(pilot, lambda: pilot.app.screen.SCREEN_NAME == name)
        screen = pilot.app.screen
        assert screen.has_class("narrow") and not screen.has_class("wide")
        await pilot.resize_terminal(120, 30)
        await wait_for(pilot, lambda: screen.has_class("wide"))
        assert not screen.has_class("narrow")


@pytest.mark.parametrize("key, main, pane", [
    ("m", "#heatmap", "#detail-pane"), ("o", "#operations-table", "#operation-scroll"),
    ("p", "#program-tree", "#details-scroll"), ("l", "LivenessChart", "#details"),
])
async def test_on_a_short_terminal_the_panes_give_way_to_the_main_view(make_app, key, main, pane):
    async with make_app().run_test(size=(60, 15)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press(key)

        def laid_out() -> bool:
            """the screen's main view is shown, at least 5 rows high, and higher than its pane"""
            screen = pilot.app.screen
            if getattr(screen, "opening", True) or not screen.query(main):
                return False
            main_height = screen.query_one(main).size.height
            return main_height >= 5 and main_height > screen.query_one(pane).size.height

        await wait_for(pilot, laid_out)


@pytest.mark.parametrize("key", ["s", "m", "l", "p", "t", "i", "o"])
async def test_the_key_bar_leaves_keys_out_whole_and_keeps_help(make_app, key):
    from pvtui.widgets.key_bar import KeyBar

    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press(key)
        await pilot.pause()
        bar = pilot.app.screen.query_one(KeyBar)
        line = bar.line_text().plain
        assert len(line) <= 80
        shown = [binding for _start, _end, binding, _enabled in bar.spans]
        assert any(binding.id == "help" for binding in shown)
        left_out = "palette" not in line  # keys left out: the palette's key shows alone
        for start, end, binding, _enabled in bar.spans:  # each key shown whole: "k Go to peak", never "k Go t"
            if binding.id == "help":  # "? more" where keys are left out: help lists them
                assert line[start:end].strip() == ("? more" if left_out else "? Help")
            elif binding.action == "command_palette" and left_out:  # then the palette's key alone
                assert line[start:end].strip() == pilot.app.get_key_display(binding)
            elif binding.group is None:
                assert line[start:end].strip() == f"{pilot.app.get_key_display(binding)} {binding.description}"


@pytest.mark.parametrize(("key", "wanted"), [
    ("m", {"]", "v", "/", "f"}),  # the keys a new user's tasks needed on Memory
    ("l", {"k", "v", "b"}),
    ("t", {"b", "f", "M", "S"}),
])
async def test_at_80_columns_the_key_bar_keeps_the_keys_that_lead_somewhere(make_app, key, wanted):
    from pvtui.widgets.key_bar import KeyBar

    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press(key)
        await pilot.pause()
        bar = pilot.app.screen.query_one(KeyBar)
        bar.line_text()
        shown = {pilot.app.get_key_display(binding) for _start, _end, binding, _enabled in bar.spans}
        assert wanted <= shown, bar.line_text().plain
        assert "q" not in shown  # the obvious keys gave way first


async def test_the_key_bar_repaints_when_its_keys_change_and_only_then(make_app):
    """Textual announces a change of bindings after every focus move; the bar repaints only for a real change."""
    from pvtui.widgets.key_bar import KeyBar

    async with make_app().run_test(size=(120, 30)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("m")
        await pilot.pause()
        screen = pilot.app.screen
        bar = screen.query_one(KeyBar)
        bar.line_text()
        repaints = []
        original = bar.refresh
        bar.refresh = lambda *args, **kwargs: (repaints.append(1), original(*args, **kwargs))[1]
        screen.refresh_bindings()
        await pilot.pause()
        assert repaints == []
        await pilot.press("v")  # the map: "Colour by" applies, "Zoom" does not
        await pilot.pause()
        assert repaints and "Colour by" in bar.line_text().plain


def test_the_readme_lists_every_key_the_key_bar_can_show():
    """The README's Keys section: a table per screen, each key the key bar shows there in it."""
    from pathlib import Path

    from pvtui.screens.compare import CompareScreen
    from pvtui.screens.hotspots import HotspotsScreen
    from pvtui.screens.insights import InsightsScreen
    from pvtui.screens.liveness import LivenessScreen
    from pvtui.screens.memory import MemoryScreen
    from pvtui.screens.operations import OperationsScreen
    from pvtui.screens.programs import ProgramsScreen
    from pvtui.screens.summary import SummaryScreen
    from pvtui.screens.trace import TraceScreen

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    keys = readme.split("### Keys", 1)[1].split("### Each screen in more detail", 1)[0]
    tables = {block.split("**", 1)[0]: block for block in keys.split("\n\n**")[1:]}
    screens = {"Everywhere": PvtuiApp, "Summary": SummaryScreen, "Memory": MemoryScreen, "Liveness": LivenessScreen,
               "Programs": ProgramsScreen, "Trace": TraceScreen, "Insights": InsightsScreen,
               "Operations": OperationsScreen, "Hotspots": HotspotsScreen, "Compare": CompareScreen}
    for name, owner in screens.items():
        for binding in owner.BINDINGS:
            if getattr(binding, "show", False) and binding.description:
                key = binding.key.split(",")[0]
                display = binding.key_display or {"escape": "Esc", "enter": "Enter", "slash": "/"}.get(key, key)
                assert f"`{display}`" in tables[name], (name, binding.description)
