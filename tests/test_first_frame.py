"""The first frame: each screen paints its tabs and keys before the report is open, without numpy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading

import pytest
from conftest import at_first_body_frame, panes_built, wait_for, wait_until_loaded

import pvtui.sources.ingest as ingest
from pvtui.process.deferred_import import defer_import, is_deferred
from pvtui.screens.base import TitleBar
from pvtui.screens.summary import SummaryScreen
from pvtui.widgets.key_bar import KeyBar

pytestmark = pytest.mark.anyio


@pytest.fixture
def held_open(monkeypatch):
    """Opening a report waits until the test sets the returned event."""
    gate = threading.Event()
    real = ingest.open_current

    def open_current(*args, **kwargs):
        gate.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(ingest, "open_current", open_current)
    yield gate
    gate.set()


async def test_the_first_screen_shows_its_frame_then_the_report(make_app, tiny_dir, held_open):
    async with make_app().run_test(size=(80, 24)) as pilot:
        app = pilot.app
        await wait_for(pilot, lambda: isinstance(app.screen, SummaryScreen))
        screen = app.screen
        assert isinstance(screen, SummaryScreen) and screen.opening and app.report is None
        assert str(screen.query_one("#opening").render()) == f"Opening {tiny_dir.name}…"
        assert screen.query_one(TitleBar).current == "Summary"
        shown = {binding.key: enabled for _start, _end, binding, enabled in screen.query_one(KeyBar).spans}
        assert shown["f"] is False and shown["u"] is False  # dimmed: nothing to act on yet
        assert shown["q"] is True
        await pilot.press("m", "u", "x")  # other screens, units and export wait for the report
        await pilot.pause()
        assert app.screen is screen and app.units == "binary" and not app.report_shown

        held_open.set()
        await wait_until_loaded(pilot)
        assert app.screen is screen and not screen.opening
        assert not screen.query("#opening") and screen.query_one("#summary")
        assert screen.focused is screen.query_one("#summary")  # the keys scroll it, as on a screen shown later
        shown = {binding.key: enabled for _start, _end, binding, enabled in screen.query_one(KeyBar).spans}
        assert shown["f"] is True and shown["u"] is True
        await pilot.press("m")
        await pilot.pause()
        assert app.screen.SCREEN_NAME == "Memory"


async def test_the_report_opens_on_once_the_first_frame_is_painted_not_after_textuals_layouts_that_follow_it(
        tiny_dir, cache_root, monkeypatch):
    """The worker opening the report waits for the first screen's first frame before it imports numpy (every
    screen but the Summary needs it), not for the frames in which Textual lays that screen out once more as it
    starts, the last a beat (16 ms) after the first, while the worker waited."""
    from pvtui.app import PvtuiApp
    from pvtui.sources.discovery import discover

    frames, frames_when_set = [], []
    paint = PvtuiApp._display

    def display(app, screen, update):
        if update is not None:
            frames.append(screen)
        paint(app, screen, update)

    monkeypatch.setattr(PvtuiApp, "_display", display)
    app = PvtuiApp(discover(tiny_dir), path=tiny_dir, watch=False, cache=cache_root, first_screen="liveness")

    class FirstFrame(threading.Event):
        def set(self) -> None:
            if not self.is_set():
                frames_when_set.append(len(frames))
            super().set()

    app.first_frame = FirstFrame()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.pause(0.1)
    # after the first frame and the one of Textual's layout for the Resize it starts with; not after the third
    assert frames_when_set in ([1], [2]), frames_when_set


async def test_clicking_a_key_in_the_key_bar_presses_it(make_app):
    async with make_app().run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        bar = pilot.app.screen.query_one(KeyBar)
        start, _end, binding, _enabled = next(span for span in bar.spans if span[2].key == "u")
        await pilot.click(KeyBar, offset=(start + 1, 0))
        await pilot.pause()
        assert pilot.app.units == "si"


FIRST_FRAMES = textwrap.dedent("""
    import asyncio, json, sys, threading, time
    from pathlib import Path
    from pvtui.app import SCREENS, PvtuiApp, start_lightly
    from pvtui.process.deferred_import import is_deferred
    start_lightly()  # as run_app starts the app
    import pvtui.sources.ingest as ingest
    from pvtui.sources.discovery import discover

    path, cache = Path(sys.argv[1]), Path(sys.argv[2])
    gate, real = threading.Event(), ingest.open_current
    ingest.open_current = lambda *a, **k: gate.wait(10) and real(*a, **k)

    async def main():
        seen = {}
        app = PvtuiApp(discover(path), path=path, watch=False, cache=cache)
        async with app.run_test(size=(80, 24)) as pilot:
            for mode in SCREENS:
                await app.switch_mode(mode)
                await pilot.pause()  # its frame painted
                seen[mode] = [app.screen.opening, is_deferred("numpy")]
            await app.switch_mode("summary")  # compare shows only with a second report
            gate.set()
            deadline = time.monotonic() + 60
            while app.report is None or app.screen.opening:
                assert time.monotonic() < deadline, "the report never opened"
                await pilot.pause(0.02)
            seen["opened"] = [app.screen.opening, is_deferred("numpy")]
        print(json.dumps(seen))

    asyncio.run(main())
""")


def test_no_screen_needs_numpy_for_its_first_frame(tiny_dir, cache_root):
    """Every screen's frame paints with numpy still unimported; opening the report imports it."""
    done = subprocess.run([sys.executable, "-c", FIRST_FRAMES, str(tiny_dir), str(cache_root)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen.pop("opened") == [False, False]
    assert seen == {mode: [True, True] for mode in seen} and len(seen) == 9


IMPORT_ONLY = textwrap.dedent("""
    import json, os, sys
    import pvtui.app
    from pvtui.process.deferred_import import is_deferred
    seen = [is_deferred("numpy"), "numpy" in sys.modules, os.environ.get("OPENBLAS_NUM_THREADS")]
    pvtui.app.start_lightly()
    seen += [is_deferred("numpy"), os.environ.get("OPENBLAS_NUM_THREADS")]
    print(json.dumps(seen))
""")


def test_importing_the_app_changes_nothing_until_it_starts():
    """The numpy stand-in and the OpenBLAS default are set by the app's start, not by an import."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", IMPORT_ONLY], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[-1]) == [False, False, None, True, "1"]


NUMPY_UNUSED = textwrap.dedent("""
    import json
    import pvtui.app
    from pvtui.process.deferred_import import is_deferred
    pvtui.app.start_lightly()
    import numpy as np
    names = ("numpy._core._add_newdocs", "numpy._core._add_newdocs_scalars", "numpy._typing")
    seen = [float(np.linalg.norm(np.array([3.0, 4.0]))), [is_deferred(name) for name in names]]
    import numpy.typing as npt
    from numpy._core import _add_newdocs
    seen += [npt.NDArray[np.int64].__origin__ is np.ndarray, _add_newdocs.add_newdoc is not None,
             [is_deferred(name) for name in names]]
    print(json.dumps(seen))
""")


def test_numpy_imports_without_its_modules_pvtui_does_not_use():
    """Guard of defer_numpy_unused (process/deferred_import.py), for numpy as installed: its import, numpy.linalg
    and all, leaves its docstrings and typing modules alone (where it reads one, 96 M instructions of a start are
    lost: see what it reads from it); each is imported on its first use."""
    done = subprocess.run([sys.executable, "-c", NUMPY_UNUSED], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[-1]) == [
        5.0, [True, True, True], True, True, [False, True, False]]


@pytest.mark.parametrize("users", [None, "4"])
def test_every_command_starts_numpy_with_one_openblas_thread_unless_the_user_asked(users):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if users is not None:
        env["OPENBLAS_NUM_THREADS"] = users
    program = ("import os; from pvtui.cli import main; main(['options', '--json', '{}']); "
               "print(os.environ.get('OPENBLAS_NUM_THREADS'))")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[-1] == (users or "1")


def test_a_deferred_module_runs_on_first_use(tmp_path, monkeypatch):
    package = tmp_path / "deferred_pkg"
    (package / "inner").mkdir(parents=True)
    (package / "__init__.py").write_text("import builtins\nbuiltins.deferred_runs += 1\nVALUE = 42\n")
    (package / "inner" / "__init__.py").write_text("from deferred_pkg import VALUE\nDOUBLE = 2 * VALUE\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr("builtins.deferred_runs", 0, raising=False)
    monkeypatch.delitem(sys.modules, "deferred_pkg", raising=False)
    monkeypatch.delitem(sys.modules, "deferred_pkg.inner", raising=False)

    defer_import("deferred_pkg")
    import deferred_pkg

    import builtins
    assert is_deferred("deferred_pkg") and builtins.deferred_runs == 0
    assert deferred_pkg.VALUE == 42 and builtins.deferred_runs == 1
    assert not is_deferred("deferred_pkg")
    from deferred_pkg.inner import DOUBLE
    assert DOUBLE == 84 and builtins.deferred_runs == 1
    defer_import("deferred_pkg")  # already imported: nothing changes
    assert sys.modules["deferred_pkg"].VALUE == 42 and builtins.deferred_runs == 1


@pytest.mark.parametrize("screen", ["memory", "trace"])
async def test_the_app_opens_on_the_screen_asked_for(make_app, tiny_dir, cache_root, screen):
    from pvtui.app import PvtuiApp
    from pvtui.sources.discovery import discover

    app = PvtuiApp(discover(tiny_dir), path=tiny_dir, watch=False, cache=cache_root, first_screen=screen)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert app.current_mode == screen and app.screen.SCREEN_NAME.lower() == screen
        await pilot.press("s")
        await pilot.pause()
        assert app.screen.SCREEN_NAME == "Summary"


def test_the_command_line_passes_the_first_screen(monkeypatch, tiny_dir):
    from pvtui import app, cli
    from pvtui.commands import common, demo

    opened = {}
    monkeypatch.setattr(app, "run_app", lambda path, **kwargs: opened.update(path=path, **kwargs) or 0)
    assert cli.main([str(tiny_dir), "--screen", "liveness"]) == 0
    assert opened["screen"] == "liveness" and opened["path"] == tiny_dir
    assert cli.main(["--screen", "trace", str(tiny_dir)]) == 0
    assert opened["screen"] == "trace"
    monkeypatch.setattr(demo, "demo_report_dir", lambda: tiny_dir)
    assert cli.main(["demo", "--screen", "insights"]) == 0
    assert opened["screen"] == "insights" and opened["path"] == tiny_dir
    assert set(common.FIRST_SCREENS) == set(app.SCREENS) - {"compare"}


async def test_a_first_screen_draws_as_it_does_when_switched_to(make_app, tiny_dir, cache_root):
    """Liveness on its own first frame fits its zoom to the chart's width, as when opened with l."""
    from pvtui.app import PvtuiApp
    from pvtui.sources.discovery import discover

    facts = []
    for first in ("liveness", "summary"):
        app = PvtuiApp(discover(tiny_dir), path=tiny_dir, watch=False, cache=cache_root, first_screen=first)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until_loaded(pilot)
            if first == "summary":
                await pilot.press("l")
            await wait_for(pilot, lambda: app.screen.SCREEN_NAME == "Liveness" and not app.screen.opening)
            await pilot.pause()  # drawn again once laid out: the zoom depends on the chart's width
            facts.append(str(app.screen.query_one("#step-facts").render()))
    assert facts[0] == facts[1] and "Column " in facts[0]  # the cursor's column, of several steps


def test_snapshot_opening_frame_80x24(snap_compare, make_app, monkeypatch):
    from pvtui.app import PvtuiApp

    monkeypatch.setattr(PvtuiApp, "_load", lambda *args: None)  # the report never opens

    async def opening(pilot):
        await wait_for(pilot, lambda: getattr(pilot.app.screen, "opening", False))

    assert snap_compare(make_app(), terminal_size=(80, 24), run_before=opening)


@pytest.mark.parametrize(("size", "classes"), [((160, 30), {"wide", "wider"}), ((80, 18), {"narrow", "short"})])
async def test_a_new_screen_is_classed_for_the_terminal_before_it_is_styled(make_app, size, classes):
    """The classes a resize would set are there when the screen is built: its first resize restyles nothing."""
    from pvtui.screens.memory import MemoryScreen

    async with make_app().run_test(size=size) as pilot:
        await wait_until_loaded(pilot)
        screen = MemoryScreen()
        assert {"narrow", "wide", "wider", "short"} & screen.classes == classes
        await pilot.press("m")
        await pilot.pause()
        assert {"narrow", "wide", "wider", "short"} & pilot.app.screen.classes == classes


SCREENS_IMPORTED = textwrap.dedent("""
    import asyncio, json, sys, threading, time
    from pathlib import Path
    from pvtui.app import SCREENS, PvtuiApp, start_lightly
    start_lightly()
    from pvtui.process import deferred_import
    from pvtui.sources.discovery import discover

    path, cache, first = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    modules = [target.split(":")[0] for target in SCREENS.values()]
    numpy_imported_on = []
    real_load = deferred_import.DeferredModule._load

    def load(module):
        if deferred_import.is_deferred(module.__name__):
            numpy_imported_on.append(threading.current_thread() is threading.main_thread())
        return real_load(module)

    deferred_import.DeferredModule._load = load

    async def main():
        app = PvtuiApp(discover(path), path=path, watch=False, cache=cache, first_screen=first)
        painted = app._display  # each frame: the first with the report shown says what was imported then
        shown = []

        def display(screen, update):
            painted(screen, update)
            if update is not None and not getattr(screen, "opening", True) and not shown:
                shown.extend([[module in sys.modules for module in modules], deferred_import.is_deferred("numpy"),
                              "numpy.ma" in sys.modules, "pvtui.model.flame" in sys.modules])

        app._display = display
        async with app.run_test(size=(80, 24)) as pilot:
            while not shown:
                await pilot.pause(0.01)
            deadline = time.monotonic() + 30  # the imports' worker starts once the frame shown is painted
            while not all(module in sys.modules for module in modules) and time.monotonic() < deadline:
                await pilot.pause(0.02)
            while any(not worker.is_finished for worker in app.workers) and time.monotonic() < deadline:
                await pilot.pause(0.02)
            print(json.dumps([shown[0], [module in sys.modules for module in modules], shown[1], shown[2],
                              shown[3], numpy_imported_on]))

    asyncio.run(main())
""")


@pytest.mark.parametrize("first, shown_without_numpy", [("summary", True), ("memory", False), ("liveness", False),
                                                      ("programs", False), ("trace", False)])
def test_the_screens_not_shown_and_numpy_are_imported_once_the_report_is_shown(tiny_dir, cache_root, first,
                                                                                  shown_without_numpy):
    """The other screens' modules are imported after the first screen shows the report, not on their first key;
    numpy too where that screen showed it without numpy (the Summary, from the figures kept at ingest), else
    before its body. Never on the UI thread. Nor numpy.ma (40 ms), which np.unique imports, before the first
    screen is shown; nor the trace's model (model.flame and what it imports) but for the Trace."""
    done = subprocess.run([sys.executable, "-c", SCREENS_IMPORTED, str(tiny_dir), str(cache_root), first],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    shown, settled, without_numpy, masked_arrays, flame, imported_on_ui_thread = json.loads(done.stdout.splitlines()[-1])
    assert not all(shown)  # the first screen's, when the report is shown
    assert all(settled)
    assert without_numpy is shown_without_numpy
    assert not masked_arrays
    assert flame is (first == "trace")
    assert imported_on_ui_thread == [False]


async def test_a_new_screen_paints_its_frame_then_composes_its_body(make_app, cache_root):
    """Over an open report, a screen not shown before paints its title, keys and opening line within a frame
    of its key, and its body after that frame."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        app = pilot.app
        await wait_until_loaded(pilot)
        frames: list[tuple[str, bool]] = []
        real = app._display
        app._display = lambda screen, update: frames.append((screen.SCREEN_NAME, screen.opening)) or real(screen, update)
        await pilot.press("m")
        await wait_for(pilot, lambda: app.screen.SCREEN_NAME == "Memory" and not app.screen.opening)
        await pilot.pause()
        memory = [opening for name, opening in frames if name == "Memory"]
        assert memory[0] is True and memory[-1] is False
        assert app.screen.query_one("#memory-view") and not app.screen.query("#opening")


@pytest.mark.anyio
@pytest.mark.parametrize("key, bar", [("p", "#search"), ("m", "#variable-bar"), ("o", "#filter")])
async def test_a_search_bars_fields_are_mounted_once_the_body_is_painted_and_slash_types_into_them(make_app, key,
                                                                                                    bar):
    """The fields' styling is no part of a screen's first showing; `/` and what follows it go into the field."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        app = pilot.app
        await wait_until_loaded(pilot)
        fields = at_first_body_frame(app, lambda screen: screen.query(bar),
                                     lambda screen: len(screen.query_one(bar).children))
        await pilot.press(key)
        await wait_for(pilot, lambda: fields and app.screen.query_one(bar).children)
        assert fields == [0]
        await pilot.press("slash", "a", "b")
        await pilot.pause()
        assert app.screen.query_one(f"{bar} Input").value == "ab"


async def test_the_memory_screens_detail_tabs_are_built_after_its_first_frame(make_app):
    """The detail pane's tabs (17 widgets, a seventh of the screen's start) are not in the Memory screen's first
    frame with its body; then they are built and filled for the selected tile, the active tab underlined."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        app = pilot.app
        await wait_until_loaded(pilot)
        tabs = at_first_body_frame(app, lambda screen: screen.query("#detail-pane"),
                                   lambda screen: len(screen.query("TabbedContent")))
        await pilot.press("m")
        await panes_built(pilot)
        assert tabs == [0]
        assert "Tile 0 · IPU 0" in app.screen.details.query_one("#detail-facts").text.plain
        await pilot.press("right_square_bracket")  # the Variables tab, built when first shown
        await pilot.pause()
        assert app.screen.nav.tab == "variables"


@pytest.mark.parametrize("after", [0, 0.005, 0.01, 0.02, 0.04, 0.08])
async def test_quitting_just_as_the_memory_screen_shows_the_report_raises_nothing(make_app, after):
    """Its detail tabs and search fields are mounted after that frame: the app quitting AFTER seconds later
    (0: in that frame) tears them down half-mounted. Textual's tabs raised 'No Tab with id' where they named
    their first tab; the variable bar's fields, never mounted, looked for themselves until the stack ran out."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        app = pilot.app
        await wait_until_loaded(pilot)
        quit = (lambda: app.set_timer(after, app.exit)) if after else (lambda: app.call_later(app.exit))
        shown = at_first_body_frame(app, lambda screen: screen.query("#detail-pane"), lambda screen: quit())
        await pilot.press("m")
        await wait_for(pilot, lambda: shown)
