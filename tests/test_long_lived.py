"""pvtui/ui/long_lived.py: what lives as long as the app is frozen out of the cyclic collector's full
passes, and a reload lets the old model's cycles be collected."""

from __future__ import annotations

import gc
import weakref

from pvtui.ui.long_lived import collect_then_freeze, freeze_after_frame


class Immediately:
    """An app whose frame is painted: what waits for it runs at once."""

    def call_after_refresh(self, callback) -> None:
        callback()


class Cycle:
    def __init__(self) -> None:
        self.me = self


def test_the_first_showing_freezes_what_is_alive_and_a_reload_collects_it_again():
    try:
        old = Cycle()
        gone = weakref.ref(old)
        freeze_after_frame(Immediately())
        del old
        gc.collect()
        assert gone() is not None  # frozen: a full pass leaves it
        collect_then_freeze(Immediately())
        assert gone() is None  # the reload's pass collected it
        assert gc.get_freeze_count() > 0  # and froze what is alive again
    finally:
        gc.unfreeze()


def test_the_collector_held_while_the_app_starts_runs_again_once_the_report_is_shown(make_app):
    """pvtui.process.collector: the commands that start the app hold it. A report read with progress resumes it
    as the read starts; a report whose bundle is current keeps it held past the first frame (numpy's import and
    the body made 40-50 collections that found next to nothing) until the report is shown."""
    import asyncio
    import threading

    from pvtui.process import collector
    from tests.conftest import wait_for

    class FirstFrame(threading.Event):
        def set(self) -> None:
            held_at_first_frame.append(not gc.isenabled())
            super().set()

    held_at_first_frame: list[bool] = []

    async def start() -> tuple[bool, bool]:
        collector.hold()
        app = make_app()
        app.first_frame = FirstFrame()
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.a.is_open and not app.screen.opening)
            await wait_for(pilot, gc.isenabled)
            return app.screen.opening, gc.isenabled()

    try:
        assert asyncio.run(start()) == (False, True)  # read into its bundle
        assert asyncio.run(start()) == (False, True)  # opened from it
        assert held_at_first_frame[-1] is True
    finally:
        gc.enable()
        gc.unfreeze()


def test_resuming_leaves_a_collector_someone_else_stopped_as_it_is():
    from pvtui.process import collector

    gc.disable()
    try:
        collector.hold()  # stopped already: not ours to start again
        collector.resume()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_app_that_never_starts_resumes_the_collector(tmp_path, capsys):
    """run_app returning before the app runs (no report here) leaves collections running."""
    from pvtui.app import run_app
    from pvtui.process import collector

    collector.hold()
    try:
        assert run_app(tmp_path / "nothing") == 2
        assert gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()
    assert "nothing" in capsys.readouterr().err
