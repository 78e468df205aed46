"""Not-always-live variables: their liveness intervals, their per-tile pieces (the
lowered variables), and the bytes live at each step in total, per IPU and per tile."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pvtui.synth.arrays import csr, expand_ranges
from pvtui.synth.graph import KIND_NAMES, Graph
from pvtui.synth.scales import Scale

MEAN_PEAK_PER_TILE = 90_000  # bytes: the mean over tiles of each tile's peak
RECOMPUTED_SHARE = 0.1  # activations freed after the forward pass and recomputed for the backward


@dataclass
class Liveness:
    var_name: list[str]  # [V]
    var_op: np.ndarray  # int32 [V]
    var_bytes: np.ndarray  # int64 [V]: sum of its pieces
    interval_var: np.ndarray  # int32 [K], grouped by variable
    interval_start: np.ndarray  # int32 [K]
    interval_end: np.ndarray  # int32 [K], exclusive
    var_interval_offsets: np.ndarray  # int64 [V + 1]
    piece_var: np.ndarray  # int32 [L]: the lowered variables, grouped by variable
    piece_tile: np.ndarray  # int32 [L]
    piece_bytes: np.ndarray  # int64 [L]
    step_bytes: np.ndarray  # int64 [N]
    step_bytes_by_ipu: np.ndarray  # int64 [N, I]
    tile_peak: np.ndarray  # int64 [T]: the tile's not-always-live bytes
    tile_row_offsets: np.ndarray  # int64 [T + 1]: rows of (piece, interval) by tile
    row_start: np.ndarray  # int32
    row_end: np.ndarray  # int32
    row_bytes: np.ndarray  # int64

    def live_at(self, step: int) -> np.ndarray:
        """The variables live at STEP."""
        live = (self.interval_start <= step) & (step < self.interval_end)
        return np.unique(self.interval_var[live])

    def tile_bytes(self, step: int, tile: int) -> int:
        lo, hi = self.tile_row_offsets[tile], self.tile_row_offsets[tile + 1]
        live = (self.row_start[lo:hi] <= step) & (step < self.row_end[lo:hi])
        return int(self.row_bytes[lo:hi][live].sum())


def _variables(g: Graph, share: float, rng: np.random.Generator):
    """(op, name, first step, end step, raw bytes per tile, first tile, end tile) of each variable."""
    n_ops = len(g.op_name)
    ops = np.arange(n_ops)
    backward_of = np.full(n_ops, -1)
    has_forward = g.op_forward >= 0
    backward_of[g.op_forward[has_forward]] = ops[has_forward]
    # an output lives until its gradient op is done (forward) or the next op is done
    next_end = np.append(g.op_end_step[1:], g.op_end_step[-1])
    output_end = np.where(backward_of >= 0, g.op_end_step[backward_of], next_end)
    matmul = g.op_kind == KIND_NAMES.index("matmul")
    has_output = g.op_pass < 2
    op = np.concatenate([ops, ops[has_output]])
    start = np.concatenate([g.op_first_step, g.op_first_step[has_output]])
    end = np.concatenate([g.op_end_step, output_end[has_output]])
    scale = np.concatenate([np.where(matmul, 3.0, 1.0), np.where(matmul, 2.0, 1.0)[has_output]])
    raw = scale * rng.lognormal(0.0, 0.5, len(op))
    names = [f"{g.op_name[o]}/tmp" for o in ops] + [f"{g.op_name[o]}/output" for o in ops[has_output]]
    span = np.maximum(1, ((g.op_hi - g.op_lo)[op] * share * rng.uniform(0.3, 1.0, len(op))).astype(np.int64))
    lo = g.op_lo[op] + (rng.random(len(op)) * ((g.op_hi - g.op_lo)[op] - span + 1)).astype(np.int64)
    return op, names, start, end, raw, lo, lo + span


def _intervals(start: np.ndarray, end: np.ndarray, rng: np.random.Generator):
    """One interval per variable, or two for a recomputed one (live, freed, live again)."""
    length = end - start
    split = (rng.random(len(start)) < RECOMPUTED_SHARE) & (length > 8)
    counts = np.where(split, 2, 1)
    var = np.repeat(np.arange(len(start)), counts)
    s = np.repeat(start, counts)
    e = np.repeat(end, counts)
    first = np.concatenate([[True], var[1:] != var[:-1]])
    cut = (length // 4)[var]
    e = np.where(split[var] & first, s + cut, e)
    s = np.where(split[var] & ~first, e - cut, s)
    return var.astype(np.int32), s.astype(np.int32), e.astype(np.int32), csr(counts)


def _peaks(tiles: np.ndarray, starts: np.ndarray, ends: np.ndarray, sizes: np.ndarray, num_tiles: int) -> np.ndarray:
    """Each tile's largest live total: a sweep over (tile, step) events, frees first."""
    tile = np.concatenate([tiles, tiles])
    step = np.concatenate([starts, ends])
    delta = np.concatenate([sizes, -sizes])
    order = np.lexsort((delta > 0, step, tile))
    running = np.cumsum(delta[order])
    tile = tile[order]
    first = np.flatnonzero(np.concatenate([[True], tile[1:] != tile[:-1]]))
    peaks = np.zeros(num_tiles, np.int64)
    if len(tile):
        peaks[tile[first]] = np.maximum.reduceat(running, first)
    return peaks


def build_liveness(g: Graph, scale: Scale, rng: np.random.Generator) -> Liveness:
    n = len(g.liveness_steps)
    num_tiles, tiles_per_ipu = scale.ipus * scale.tiles_per_ipu, scale.tiles_per_ipu
    op, names, start, end, raw, lo, hi = _variables(g, scale.variable_share, rng)
    interval_var, interval_start, interval_end, interval_offsets = _intervals(start, end, rng)
    piece_var, piece_tile = expand_ranges(lo, hi)
    jitter = rng.uniform(0.8, 1.2, len(piece_var))
    # rows: one per (piece, interval of its variable)
    piece_offsets = csr(np.bincount(piece_var, minlength=len(op)))
    interval_of_row, piece_of_row = expand_ranges(piece_offsets[interval_var], piece_offsets[interval_var + 1])
    row_tile = piece_tile[piece_of_row]
    row_start, row_end = interval_start[interval_of_row], interval_end[interval_of_row]

    raw_pieces = raw[piece_var] * jitter
    raw_peak = _peaks(row_tile, row_start, row_end, raw_pieces[piece_of_row], num_tiles)
    factor = MEAN_PEAK_PER_TILE / max(raw_peak.mean(), 1e-9)
    piece_bytes = np.maximum(np.round(raw_pieces * factor / 4) * 4, 4).astype(np.int64)
    row_bytes = piece_bytes[piece_of_row]
    var_bytes = np.bincount(piece_var, weights=piece_bytes, minlength=len(op)).astype(np.int64)

    ipu = (lo // tiles_per_ipu)[interval_var]
    diff = np.zeros((n + 1, scale.ipus), np.int64)
    np.add.at(diff, (interval_start, ipu), var_bytes[interval_var])
    np.add.at(diff, (interval_end, ipu), -var_bytes[interval_var])
    by_ipu = np.cumsum(diff, axis=0)[:n]

    order = np.argsort(row_tile, kind="stable")
    return Liveness(
        var_name=names,
        var_op=op.astype(np.int32),
        var_bytes=var_bytes,
        interval_var=interval_var,
        interval_start=interval_start,
        interval_end=interval_end,
        var_interval_offsets=interval_offsets,
        piece_var=piece_var.astype(np.int32),
        piece_tile=piece_tile.astype(np.int32),
        piece_bytes=piece_bytes,
        step_bytes=by_ipu.sum(axis=1),
        step_bytes_by_ipu=by_ipu,
        tile_peak=_peaks(row_tile, row_start, row_end, row_bytes, num_tiles),
        tile_row_offsets=csr(np.bincount(row_tile, minlength=num_tiles)),
        row_start=row_start[order],
        row_end=row_end[order],
        row_bytes=row_bytes[order],
    )
