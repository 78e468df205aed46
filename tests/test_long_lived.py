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


def test_the_collector_held_while_the_app_starts_runs_again_at_its_first_frame(make_app):
    """pvtui.process.collector: the commands that start the app hold it; the app's first frame resumes it,
    with what is alive frozen."""
    import asyncio

    from pvtui.process import collector

    async def started() -> tuple[bool, bool]:
        collector.hold()
        held = gc.isenabled()
        async with make_app().run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            return held, gc.isenabled()

    try:
        assert asyncio.run(started()) == (False, True)
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
