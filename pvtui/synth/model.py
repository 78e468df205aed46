"""The ground truth of a synthetic report: every figure, as numpy arrays, deterministic
for (scale, IPUs, seed). Views over it (the pva stand-in in standin.py, the files in
files.py) derive from it; it knows none of them."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from pvtui.synth.arrays import csr
from pvtui.synth.debug import DebugContexts, build_debug
from pvtui.synth.execution import Execution, build_execution
from pvtui.synth.graph import Graph, build_graph
from pvtui.synth.hostile import hostile
from pvtui.synth.liveness import Liveness, build_liveness
from pvtui.synth.lowered import Lowered, build_lowered
from pvtui.synth.memory import CATEGORIES, Memory, build_memory
from pvtui.synth.scales import BYTES_PER_TILE, CLOCK_HZ, POPLAR_VERSION, SCALES, Scale

HIDDEN_SIZE = {"tiny": 128, "small": 768, "large": 1024, "pod16": 1024}


@dataclass
class SyntheticReport:
    scale: Scale
    seed: int
    graph: Graph
    liveness: Liveness
    memory: Memory
    execution: Execution
    debug: DebugContexts
    names: str = "plain"  # or "hostile": every name tries to drive the terminal (synth/hostile.py)

    def named(self, name: str) -> str:
        """NAME as this report writes a name its views make (a run's, a vertex type's)."""
        return hostile(name) if self.names == "hostile" else name

    @property
    def num_tiles(self) -> int:
        return self.scale.ipus * self.scale.tiles_per_ipu

    @property
    def bytes_per_tile(self) -> int:
        return BYTES_PER_TILE

    @property
    def clock_hz(self) -> float:
        return CLOCK_HZ

    @property
    def poplar_version(self) -> str:
        major, minor, point, package = POPLAR_VERSION
        return self.named(f"{major}.{minor}.{point} ({package})")

    @cached_property
    def op_var_offsets(self) -> tuple[np.ndarray, np.ndarray]:
        """(offsets [O + 1], variables) of each op's not-always-live variables."""
        order = np.argsort(self.liveness.var_op, kind="stable")
        counts = np.bincount(self.liveness.var_op, minlength=len(self.graph.op_name))
        return csr(counts), order

    def op_variables(self, op: int) -> np.ndarray:
        offsets, order = self.op_var_offsets
        return order[offsets[op] : offsets[op + 1]]

    @cached_property
    def lowered(self) -> Lowered:
        """Every variable's pieces on tiles, as libpva's lowered variables give them."""
        return build_lowered(self.liveness, self.memory, len(self.graph.liveness_steps))

    def expected_summary(self) -> dict[str, Any]:
        """The figures a reader should find, computed from the truth alone."""
        m, lv, g, e = self.memory, self.liveness, self.graph, self.execution
        peak = int(np.argmax(lv.step_bytes))
        max_tile = int(np.argmax(m.including_gaps))
        return {
            "num_tiles": self.num_tiles,
            "num_ipus": self.scale.ipus,
            "tiles_per_ipu": self.scale.tiles_per_ipu,
            "bytes_per_tile": BYTES_PER_TILE,
            "clock_hz": CLOCK_HZ,
            "poplar_version": self.poplar_version,
            "total_including_gaps": int(m.including_gaps.sum()),
            "total_excluding_gaps": int(m.excluding_gaps.sum()),
            "max_tile": max_tile,
            "max_tile_bytes": int(m.including_gaps[max_tile]),
            "tiles_over_limit": int((m.including_gaps > BYTES_PER_TILE).sum()),
            "always_live_bytes": int(m.always_live.sum()),
            "peak_not_always_live_bytes": int(lv.step_bytes[peak]),
            "peak_step": peak,
            "peak_step_name": g.program_name[int(g.liveness_steps[peak])],
            "liveness_steps": len(g.liveness_steps),
            "programs": g.num_programs,
            "compute_sets": len(g.compute_set_name),
            "runs": len(e.run_offsets) - 1,
            "steps": e.num_steps,
            "bsp_steps": len(e.bsp_steps),
            "total_cycles": e.total_cycles,
            "debug_contexts": self.debug.count,
            "lowered_variables": len(self.lowered.piece_tile),
            "tile_including_gaps": m.including_gaps.copy(),
            "category_totals": {name: int(v) for name, v in zip(CATEGORIES, m.categories.sum(axis=0))},
        }


NAMES = ("plain", "hostile")


def generate(scale: str = "tiny", ipus: int | None = None, seed: int = 0, names: str = "plain",
             runs: int | None = None) -> SyntheticReport:
    """The truth of a synthetic report of SCALE (a key of SCALES), on IPUS and over RUNS (default: the
    scale's); NAMES "hostile" gives every name escape sequences and markup (synth/hostile.py), the
    figures unchanged."""
    if names not in NAMES:
        raise ValueError(f"unknown names {names!r}: choose one of {', '.join(NAMES)}")
    try:
        chosen = SCALES[scale]
    except KeyError:
        raise ValueError(f"unknown scale {scale!r}: choose one of {', '.join(SCALES)}") from None
    for field, value in (("ipus", ipus), ("runs", runs)):
        if value is not None:
            if value < 1:
                raise ValueError(f"{field} must be at least 1, not {value}")
            chosen = dataclasses.replace(chosen, **{field: value})
    rng = np.random.default_rng(seed)
    graph = build_graph(chosen, rng)
    liveness = build_liveness(graph, chosen, rng)
    memory = build_memory(graph, liveness, chosen, rng)
    execution = build_execution(graph, chosen, rng, seed)
    debug = build_debug(graph, chosen, HIDDEN_SIZE[chosen.name])
    truth = SyntheticReport(chosen, seed, graph, liveness, memory, execution, debug)
    if names == "hostile":
        _make_hostile(truth)
    return truth


def _make_hostile(truth: SyntheticReport) -> None:
    """Give every name of TRUTH, and those its views make (runs, vertex types, debug layers), the hostile
    sequences (synth/hostile.py); its figures stay those of the plain report."""
    graph = truth.graph
    graph.program_name = [hostile(name) for name in graph.program_name]
    graph.compute_set_name = [hostile(name) for name in graph.compute_set_name]
    graph.op_name = [hostile(name) for name in graph.op_name]
    truth.liveness.var_name = [hostile(name) for name in truth.liveness.var_name]
    truth.memory.always_live_name = [hostile(name) for name in truth.memory.always_live_name]
    truth.debug.hostile = True
    truth.names = "hostile"
