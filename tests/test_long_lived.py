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
