"""What changes for every screen travels one way: the app's reactives (units, the report shown, the report
generation, Textual's theme), watched by each report screen; widgets post Messages up rather than take
callbacks. A scan of the source holds the rule; pilots show each change reaching every screen mounted: the
report at once, units and theme the screen in front at once and each other at its next showing."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from conftest import wait_for, wait_until_loaded
from test_compare import compare_app  # noqa: F401 - a fixture

pytestmark = pytest.mark.anyio

PACKAGE = Path(__file__).resolve().parent.parent / "pvtui"
HOOKS = ("units_changed", "theme_changed", "report_changed", "shown_changed")


def callbacks_taken(source: str, name: str) -> list[str]:
    """The constructor parameters of SOURCE's classes (a module called NAME) that take a callable: named
    on_*, or annotated Callable."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        if not (isinstance(node, ast.FunctionDef) and node.name == "__init__"):
            continue
        arguments = node.args
        for argument in arguments.posonlyargs + arguments.args + arguments.kwonlyargs:
            annotation = ast.unparse(argument.annotation) if argument.annotation is not None else ""
            if argument.arg.startswith("on_") or "Callable" in annotation:
                found.append(f"{name}:{node.lineno} {argument.arg}")
    return found


def test_no_widget_takes_a_callback_and_no_screen_is_told_by_hand():
    widgets = sorted((PACKAGE / "widgets").glob("*.py"))
    assert widgets
    found = [line for path in widgets for line in callbacks_taken(path.read_text(), path.name)]
    assert not found, "post a Message instead:\n" + "\n".join(found)
    sources = {path: path.read_text() for path in PACKAGE.rglob("*.py")}
    assert not [path for path, text in sources.items() if "theme_changed_signal" in text or "WeakSet" in text]


def test_the_scan_finds_a_callback():
    source = "class W:\n    def __init__(self, *, on_select=None, fmt: Callable[[int], str], id=None): ...\n"
    assert callbacks_taken(source, "w.py") == ["w.py:2 on_select", "w.py:2 fmt"]
    assert callbacks_taken("class W:\n    def __init__(self, units: str): ...\n", "w.py") == []


@pytest.fixture
def heard(monkeypatch) -> list[tuple[str, str]]:
    """(screen name, hook) for each of HOOKS called on a report screen, in order (the hooks still run)."""
    from pvtui.app import SCREENS

    calls: list[tuple[str, str]] = []
    for target in SCREENS.values():
        module, name = target.split(":")
        screen_type = getattr(importlib.import_module(module), name)
        for hook in HOOKS:
            def spy(self, _original=getattr(screen_type, hook), _hook=hook):
                calls.append((self.SCREEN_NAME, _hook))
                return _original(self)

            monkeypatch.setattr(screen_type, hook, spy)
    return calls


async def _mount_each(pilot, keys: str) -> list:
    """Show the screen of each of KEYS in turn, its body over the report: the screens, as mounted."""
    screens = []
    for key in keys:
        await pilot.press(key)
        await wait_for(pilot, lambda: not getattr(pilot.app.screen, "opening", True))
        screens.append(pilot.app.screen)
    return screens


def _reached(heard: list[tuple[str, str]], hook: str) -> set[str]:
    reached = {name for name, called in heard if called == hook}
    heard.clear()
    return reached


async def test_units_theme_and_reload_reach_every_screen_mounted(make_app, heard):
    from pvtui.screens.base import report_screens

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until_loaded(pilot)
        screens = await _mount_each(pilot, "mlptioHs")
        names = {screen.SCREEN_NAME for screen in screens}
        assert len(names) == 8 and set(report_screens(app)) == set(screens)
        heard.clear()
        await pilot.press("u")
        await pilot.pause()
        assert app.units == "si" and _reached(heard, "units_changed") == {"Summary"}  # the screen in front
        app.theme = "textual-light"
        await wait_for(pilot, lambda: ("Summary", "theme_changed") in heard)
        app.theme = "nord"  # two changes behind the front: one call when shown
        await wait_for(pilot, lambda: heard.count(("Summary", "theme_changed")) == 2)
        heard.clear()
        await _mount_each(pilot, "mlptioH")  # each other screen, at its next showing, once
        behind = names - {"Summary"}
        assert sorted(heard) == sorted((name, hook) for name in behind for hook in ("units_changed", "theme_changed"))
        heard.clear()
        await _mount_each(pilot, "ms")  # and not again
        assert heard == []
        before = app.report
        app.open_report(app.a.files_now(app.path))
        await wait_for(pilot, lambda: app.report is not before and not app.load_running)
        await pilot.pause()
        assert _reached(heard, "report_changed") == names
        assert all(screen.report is app.report for screen in screens)


async def test_switching_A_and_B_reaches_every_single_report_screen(compare_app, heard):
    from pvtui.screens.base import TitleBar

    app = compare_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until_loaded(pilot)
        await wait_for(pilot, lambda: getattr(app.screen, "comparison", None) is not None)
        screens = await _mount_each(pilot, "lsm")
        heard.clear()
        await pilot.press("B")
        await pilot.pause()
        assert _reached(heard, "shown_changed") == {"Compare", "Liveness", "Summary", "Memory"}
        for screen in screens:  # the two behind Memory too
            assert screen.report is app.b.report
            assert str(screen.query_one(TitleBar).line_text()).startswith("B: other")


async def test_a_newer_model_waits_for_the_screens_own_workers_then_is_drawn_once(make_app, heard):
    """A model that arrives while the screen's worker still uses the one before (a report shown while it is
    read sends several) is drawn when that worker ends, not in its middle, and once."""
    import threading

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until_loaded(pilot)
        screen = app.screen
        release = threading.Event()
        worker = screen.run_worker(lambda: release.wait(20), thread=True, group="test-hold")
        await wait_for(pilot, lambda: worker.is_running)
        heard.clear()
        app.report_generation += 1
        app.report_generation += 1
        await pilot.pause(0.3)
        assert _reached(heard, "report_changed") == set()
        release.set()
        await wait_for(pilot, lambda: worker.is_finished)
        await pilot.pause()
        assert [hook for _, hook in heard].count("report_changed") == 1


async def test_a_theme_reaches_the_screen_under_a_dialog_at_once(make_app, heard):
    """The palette previews themes over the screen shown: its hooks run at once, not when the dialog closes."""
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until_loaded(pilot)
        await _mount_each(pilot, "m")
        await pilot.press("question_mark")
        await pilot.pause()
        assert app.screen is not app.screen_stack[0]  # the help, over Memory
        heard.clear()
        app.theme = "nord"
        await wait_for(pilot, lambda: ("Memory", "theme_changed") in heard)
