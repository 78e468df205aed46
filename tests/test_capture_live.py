"""`pvtui capture --live`: the explorer waits for the program's report, then shows it."""

from __future__ import annotations

import math
import shutil
import threading

import pytest
from conftest import said, wait_for, wait_until_loaded

from pvtui.app import PvtuiApp
from pvtui.process.child import ending
from pvtui.screens.capture_wait import LATER_POLL_SECONDS, CaptureWait
from pvtui.sources.watch import POLL_SECONDS, SETTLE_SECONDS

pytestmark = pytest.mark.anyio


def live_app(directory, cache_root, status=None, engine=None, stop=None):
    log = directory / "capture.log"
    waiting = CaptureWait("fake_poplar", directory, log, status or (lambda: None), ending,
                          stop or threading.Event(), engine)
    return PvtuiApp([], path=directory, watch=False, cache=cache_root, waiting=waiting)


LOOKS_TO_HAND_OVER = 1 + math.ceil(SETTLE_SECONDS / POLL_SECONDS)  # one to see the files, then still long enough


def counted(monkeypatch, method: str) -> list[CaptureWait]:
    """Each call of CaptureWait.METHOD from now on (a look its timer runs), by the screen."""
    calls: list[CaptureWait] = []
    real = getattr(CaptureWait, method)

    def count(screen: CaptureWait) -> None:
        calls.append(screen)
        real(screen)

    monkeypatch.setattr(CaptureWait, method, count)
    return calls


def title(app) -> str:
    return str(app.screen.query_one("#capture-title").render())


async def test_it_waits_with_the_programs_output_then_shows_the_report(tmp_path, tiny_dir, cache_root, monkeypatch):
    looks = counted(monkeypatch, "look")
    out = tmp_path / "out"
    out.mkdir()
    (out / "capture.log").write_text("compiling\nstep 1 of 2\n")
    app = live_app(out, cache_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, CaptureWait)
        assert "Waiting for fake_poplar to write a report under" in title(app)
        assert "step 1 of 2" in str(app.screen.query_one("#capture-tail").render())
        (out / "training").mkdir()
        bundle = out / "training" / "profile.pvtui"
        shutil.copytree(tiny_dir / "profile.pvtui", bundle, ignore=shutil.ignore_patterns("meta.json"))
        done = len(looks)  # a bundle without its meta.json is still being written: not shown however long it waits
        await wait_for(pilot, lambda: len(looks) > done + LOOKS_TO_HAND_OVER)
        assert isinstance(app.screen, CaptureWait)
        shutil.copy(tiny_dir / "profile.pvtui" / "meta.json", bundle / "meta.json")
        await wait_for(pilot, lambda: app.report is not None)
        await wait_until_loaded(pilot)
        assert app.a.files.name == "training"
        assert app.screen.SCREEN_NAME == "Summary"


async def test_several_engines_are_offered_or_the_one_named(tmp_path, tiny_dir, cache_root):
    out = tmp_path / "out"
    for engine in ("training", "inference"):
        shutil.copytree(tiny_dir, out / engine)
    app = live_app(out, cache_root, engine="inference")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.report is not None)
        assert app.a.files.name == "inference"


async def test_an_engine_that_writes_its_report_later_is_offered_and_picked_with_e(tmp_path, tiny_dir, cache_root,
                                                                                   monkeypatch):
    looks = counted(monkeypatch, "look_for_later_reports")
    out = tmp_path / "out"
    shutil.copytree(tiny_dir, out / "training")
    app = live_app(out, cache_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.report is not None)
        await wait_until_loaded(pilot)
        shown = app.screen
        assert not app.check_action("pick_report", ())  # one report: nothing to pick
        shutil.copytree(tiny_dir, out / "inference")
        await wait_for(pilot, lambda: len(app.reports) == 2)
        assert [r.name for r in app.reports] == ["training", "inference"]
        offered = lambda: "wrote inference too: E picks the report shown" in said(app)  # noqa: E731
        await wait_for(pilot, offered)  # the notification is a message of its own: it may land a frame later
        assert offered()
        assert app.screen is shown and app.a.files.name == "training"  # the report viewed stays
        await pilot.press("E")
        await pilot.pause()
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.a.files.name == "inference" and not app.load_running)
        await wait_until_loaded(pilot)
        assert app.report.name != "" and app.screen.SCREEN_NAME == "Summary"
        done = len(looks)  # as many looks as would offer a report anew find nothing new to offer
        await wait_for(pilot, lambda: len(looks) > done + 1 + math.ceil(SETTLE_SECONDS / LATER_POLL_SECONDS))
        assert len(app.reports) == 2


async def test_a_program_that_ends_without_a_report_is_said(tmp_path, cache_root):
    app = live_app(tmp_path / "never", cache_root, status=lambda: 3)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "fake_poplar ended with exit status 3 without writing a report" in title(app)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code in (0, None)


async def test_the_app_quits_once_pvtui_is_asked_to_end(tmp_path, cache_root):
    stop = threading.Event()
    app = live_app(tmp_path, cache_root, stop=stop)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        stop.set()
        await wait_for(pilot, lambda: not app.is_running)
        assert not app.is_running
