"""The lowered variables: every variable's piece on each tile it is spread over, the
not-always-live ones (from the liveness) and the always-live ones (weights, their
optimiser state and the runtime's variables, live at every step)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pvtui.synth.arrays import expand_ranges
from pvtui.synth.liveness import Liveness
from pvtui.synth.memory import Memory


@dataclass
class Lowered:
    """Pieces are grouped by class; a class is one variable (its name, its live steps)."""

    class_name: list[str]  # [EC]: the not-always-live variables, then the always-live ones
    class_interval_offsets: np.ndarray  # int64 [EC + 1]
    interval_start: np.ndarray  # int32
    interval_end: np.ndarray  # int32, exclusive
    piece_class: np.ndarray  # int32 [L]
    piece_tile: np.ndarray  # int32 [L]
    piece_bytes: np.ndarray  # int64 [L]
    num_not_always_live: int  # classes below this are not always live

    def bytes_by_tile(self, name: str, num_tiles: int) -> np.ndarray:
        on = self.piece_class == self.class_name.index(name)
        return np.bincount(self.piece_tile[on], weights=self.piece_bytes[on], minlength=num_tiles).astype(np.int64)


def build_lowered(lv: Liveness, m: Memory, num_steps: int) -> Lowered:
    n_var = len(lv.var_name)
    always, tiles = expand_ranges(m.always_live_lo, m.always_live_hi)
    n_always = len(m.always_live_name)
    return Lowered(
        class_name=list(lv.var_name) + list(m.always_live_name),
        class_interval_offsets=np.concatenate([lv.var_interval_offsets, lv.var_interval_offsets[-1] + 1 + np.arange(n_always)]),
        interval_start=np.concatenate([lv.interval_start, np.zeros(n_always, np.int32)]),
        interval_end=np.concatenate([lv.interval_end, np.full(n_always, num_steps, np.int32)]),
        piece_class=np.concatenate([lv.piece_var, n_var + always]).astype(np.int32),
        piece_tile=np.concatenate([lv.piece_tile, tiles]).astype(np.int32),
        piece_bytes=np.concatenate([lv.piece_bytes, m.always_live_per_tile[always]]).astype(np.int64),
        num_not_always_live=n_var,
    )

