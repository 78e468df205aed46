"""Keeping Python's cyclic garbage collector off what lives as long as the app: the report's model, the
screens built and the tables they read. A full collection walks every object alive (35 ms, measured
on the Hotspots screen of the large report, in the middle of a key's frame); objects frozen
(`gc.freeze`) are not walked again. A reload lets go of the old model's: they are unfrozen and collected
once, before the new model's are frozen."""

from __future__ import annotations

import gc

from textual.app import App


def freeze_after_frame(app: App) -> None:
    """Once the frame at hand is painted, freeze every object alive now."""
    app.call_after_refresh(gc.freeze)


def collect_then_freeze(app: App) -> None:
    """Once the frame at hand is painted, collect what a reload left (frozen before, so never collected),
    then freeze what is alive."""

    def collect() -> None:
        gc.unfreeze()
        gc.collect()
        gc.freeze()

    app.call_after_refresh(collect)
