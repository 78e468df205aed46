"""The execution profile: runs of the main program, each step's cycles on each IPU,
tile balance, data moved, and per-tile cycles (BSP) for a window of steps."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pvtui.synth.graph import Graph
from pvtui.synth.scales import CLOCK_HZ, Scale

CYCLE_COUNTER_START = 2_100_000_000  # where the IPUs' cycle counters stand when profiling starts
SYNC_CYCLES = 20  # between the end of a step on the slowest IPU and the next step
RUN_GAP_CYCLES = (2_000_000, 5_000_000)  # host time between runs
STREAM_WAIT_SHARE = 0.02  # StreamCopyBegin steps that wait on the host
EXCHANGE_BYTES_PER_TILE = {"DoExchange": 1_024, "GlobalExchange": 512, "StreamCopyMid": 256}


@dataclass
class Execution:
    seed: int
    run_offsets: np.ndarray  # int64 [R + 1]: steps of each run
    run_start_us: np.ndarray  # int64 [R]
    run_end_us: np.ndarray  # int64 [R]
    program: np.ndarray  # int32 [X]
    cycles_from: np.ndarray  # int64 [X, I]: activeCycles.cyclesFrom.min, -1 where idle
    cycles_from_max: np.ndarray  # int64 [X, I]
    cycles_to_min: np.ndarray  # int64 [X, I]
    cycles_to: np.ndarray  # int64 [X, I]: activeCycles.cyclesTo.max, -1 where idle
    cycles: np.ndarray  # int64 [X, I]: cycles_to - cycles_from, 0 where idle
    tile_balance: np.ndarray  # float32 [X, I]
    active_tile_balance: np.ndarray  # float32 [X, I]
    data_in: np.ndarray  # int64 [X, I]
    data_out: np.ndarray  # int64 [X, I]
    bsp_steps: np.ndarray  # int64 [B], sorted
    total_cycles: int
    program_lo: np.ndarray  # int32 [P]: the tiles each program runs on
    program_hi: np.ndarray
    tiles_per_ipu: int

    @property
    def num_steps(self) -> int:
        return len(self.program)

    def active(self, step: int) -> np.ndarray:
        return self.cycles_from[step] >= 0

    def cycles_by_tile(self, step: int) -> np.ndarray:
        """Per-tile cycles of an instrumented step: each busy tile up to its IPU's cycles."""
        p = self.program[step]
        lo, hi = int(self.program_lo[p]), int(self.program_hi[p])
        ipu_cycles = np.repeat(self.cycles[step], self.tiles_per_ipu)
        rng = np.random.default_rng((self.seed, step))
        out = np.zeros(len(ipu_cycles), np.int64)
        out[lo:hi] = ipu_cycles[lo:hi] * rng.uniform(0.3, 1.0, hi - lo)
        return out


def build_execution(g: Graph, scale: Scale, rng: np.random.Generator, seed: int) -> Execution:
    tpi, ipus = scale.tiles_per_ipu, scale.ipus
    body = g.liveness_steps[g.body_start :]
    per_run = len(body) * scale.repeats
    program = np.tile(body, scale.repeats * scale.runs)
    x = len(program)
    types = np.array(g.program_type_names)[g.program_type][program]
    lo, hi = g.program_lo[program].astype(np.int64), g.program_hi[program].astype(np.int64)
    ipu_base = np.arange(ipus) * tpi
    tiles_on_ipu = np.clip(np.minimum(hi[:, None], ipu_base + tpi) - np.maximum(lo[:, None], ipu_base), 0, None)
    active = tiles_on_ipu > 0

    base = np.maximum(g.cycles_per_tile[program] * rng.lognormal(0.0, 0.2, x), 8).astype(np.int64)
    waits = (types == "StreamCopyBegin") & (rng.random(x) < STREAM_WAIT_SHARE)
    base[waits] = rng.integers(100_000, 35_000_000, waits.sum())
    length = np.where(active, base[:, None] * rng.uniform(0.9, 1.0, (x, ipus)), 0).astype(np.int64)
    duration = length.max(axis=1) + SYNC_CYCLES
    run = np.arange(x) // per_run
    gaps = np.concatenate([[0], rng.integers(*RUN_GAP_CYCLES, scale.runs - 1)]).cumsum()
    start = np.concatenate([[0], np.cumsum(duration)[:-1]]) + gaps[run]
    counter = CYCLE_COUNTER_START + rng.integers(0, 50_000, ipus)

    cycles_from, cycles_from_max, cycles_to_min, cycles_to = _active_cycles(
        active, counter + start[:, None], length, rng)
    active_balance = np.where(active, rng.beta(8, 4, (x, ipus)), 0.0).astype(np.float32)
    data_in, data_out = _data_moved(g, program, types, tiles_on_ipu, rng)

    run_start = start[:: per_run]
    run_end = start[per_run - 1 :: per_run] + duration[per_run - 1 :: per_run]
    window = min(scale.bsp_steps, x)
    bsp_start = min(len(body), x - window)
    return Execution(
        seed=seed,
        run_offsets=np.arange(scale.runs + 1, dtype=np.int64) * per_run,
        run_start_us=np.round(run_start / CLOCK_HZ * 1e6).astype(np.int64),
        run_end_us=np.round(run_end / CLOCK_HZ * 1e6).astype(np.int64),
        program=program.astype(np.int32),
        cycles_from=cycles_from,
        cycles_from_max=cycles_from_max,
        cycles_to_min=cycles_to_min,
        cycles_to=cycles_to,
        cycles=np.where(active, cycles_to - cycles_from, 0),
        tile_balance=(active_balance * tiles_on_ipu / tpi).astype(np.float32),
        active_tile_balance=active_balance,
        data_in=data_in,
        data_out=data_out,
        bsp_steps=np.arange(bsp_start, bsp_start + window, dtype=np.int64),
        total_cycles=int(duration.sum()),
        program_lo=g.program_lo,
        program_hi=g.program_hi,
        tiles_per_ipu=tpi,
    )


def _active_cycles(active: np.ndarray, start: np.ndarray, length: np.ndarray,
                   rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each step's active cycles on each IPU that runs it, from START [X, 1] on the IPU's counter for
    LENGTH: when its first and last tiles start (cyclesFrom min, max) and end (cyclesTo min, max); -1 idle."""
    lead_in = rng.integers(0, 40, length.shape)
    cycles_from = np.where(active, start + lead_in, -1)
    cycles_to = np.where(active, start + np.maximum(length, lead_in + 1), -1)
    spread = (cycles_to - cycles_from) * rng.uniform(0.0, 0.3, length.shape)
    cycles_from_max = np.where(active, cycles_from + (spread * 0.2).astype(np.int64), -1)
    cycles_to_min = np.where(active, np.maximum(cycles_from_max, cycles_to - spread.astype(np.int64)), -1)
    return cycles_from, cycles_from_max, cycles_to_min, cycles_to


def _data_moved(g: Graph, program: np.ndarray, types: np.ndarray, tiles_on_ipu: np.ndarray,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Bytes in and out of each step on each IPU: exchanges by the tiles they run on; a stream copy
    moves one way, to the host for the loss, from it otherwise."""
    moved = np.array([EXCHANGE_BYTES_PER_TILE.get(t, 0) for t in g.program_type_names])[g.program_type][program]
    volume = (tiles_on_ipu * moved[:, None] * rng.uniform(0.5, 1.5, tiles_on_ipu.shape)).astype(np.int64)
    to_host = np.char.startswith(np.array(g.program_name)[program], "loss/")
    stream = (types == "StreamCopyMid")[:, None]
    data_in = np.where(to_host[:, None] & stream, 0, volume)
    data_out = np.where(stream & ~to_host[:, None], 0, volume)
    return data_in, data_out
