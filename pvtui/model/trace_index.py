"""What the Trace screen reads from one report, each part once: every run's lanes and where it
opens, the flame view's nesting and depth rows, each run merged by model-layer path, the step
statistics; and the run's steps as a table to export.

Building a part takes longer than a frame on a large report: the screen does it in a worker,
and a reload gives the screen a new index (nothing of the old report's is kept by mistake).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from pvtui.model import flame as fl
from pvtui.model.host_waits import host_wait_programs
from pvtui.model.lanes import Lane, build_lanes, step_phases
from pvtui.model.layers import LayerTree, build_tree, split_name
from pvtui.model.queries import unknown_program
from pvtui.model.step_types import phase_of
from pvtui.model.tables import Table
from pvtui.model.unavailable import Unavailable

if TYPE_CHECKING:
    from pvtui.model.report import Report

EXPORT_CHUNK = 4096  # steps read at a time when exporting
OPENING_CHUNK = 1024  # steps read at a time looking for the end of a run's first model layer


def has_bsp(report: "Report") -> bool:
    """The report has per-tile cycles of some steps (the BSP view)."""
    execution = report.execution
    return execution is not None and execution.bsp_steps is not None and execution.bsp_cycles is not None


class TraceIndex:
    """A report's trace as the screen draws it, built part by part (`index_run`, `nest_run`)."""

    def __init__(self, report: "Report") -> None:
        self.report = report
        self.lanes: dict[int, tuple[Lane, ...]] = {}  # per run
        self.openings: dict[int, tuple[int, int, int] | None] = {}  # per run, where it opens (first_layer)
        self.merged: dict[int, fl.MergedFlame] = {}  # per run
        self.tree: LayerTree | None = None  # the model layers, shared by every run
        self._waits: np.ndarray | None = None
        self.flames: dict[int, tuple[list[fl.FlameRow], ...]] = {}  # per run, per IPU a row per depth
        self.run_cycles: dict[int, tuple[int, ...]] = {}  # per run, each IPU's cycles: a block's share of them
        self.nesting: fl.Nesting | None = None  # shared by every run
        self.stats: dict[str, Any] | Unavailable | None = None  # None until counted
        self.counted = False  # the step statistics are in `stats`

    @property
    def waits(self) -> np.ndarray:
        """Per program, whether its steps wait on the host (read once)."""
        if self._waits is None:
            self._waits = host_wait_programs(self.report)
        return self._waits

    @property
    def names(self) -> list[str]:
        """The names of the nesting's nodes (none before the flame view is first built)."""
        return self.nesting.names if self.nesting is not None else []

    def index_run(self, run: int) -> tuple[Lane, ...]:
        """RUN's lanes, each IPU's steps sorted by start (none where there are no runs): reads the
        run's columns."""
        execution, programs = self.report.execution, self.report.programs
        lanes: tuple[Lane, ...] = ()
        if execution.num_runs:
            lo, hi = execution.run_range(run)
            phases = step_phases(
                execution.program[lo:hi],
                None if programs is None else programs.type,
                [] if programs is None else programs.type_names,
            )
            lanes = tuple(build_lanes(execution.cycles_from[lo:hi], execution.cycles_to[lo:hi], phases, lo))
        self.openings[run] = first_layer(self.report, lanes, self.waits) if lanes else None
        self.lanes[run] = lanes
        return lanes

    def nest_run(self, run: int) -> None:
        """RUN's flame rows and each IPU's cycles, and the nesting they read, once for every run."""
        report, lanes = self.report, self.lanes[run]
        if self.nesting is None:
            self.nesting = fl.build_nesting(report, report.execution.program)
        cycles = tuple(int(np.asarray(report.execution.cycles[:, ipu])[lane.steps].sum())
                       for ipu, lane in enumerate(lanes))
        self.flames[run] = tuple(fl.lane_flame(report, lane, ipu, self.nesting, self.waits)
                                 for ipu, lane in enumerate(lanes))
        self.run_cycles[run] = cycles

    def merge_run(self, run: int) -> fl.MergedFlame | None:
        """RUN merged by model-layer path (and the layer tree it reads, once); None without a program table."""
        if self.report.programs is None or not self.report.execution.num_runs:
            return None
        if self.tree is None:
            self.tree = build_tree(self.report)
        if run not in self.merged:
            self.merged[run] = fl.merged_flame(self.report, self.tree, run)
        return self.merged[run]


def first_layer(report: "Report", lanes: tuple[Lane, ...], waits: np.ndarray) -> tuple[int, int, int] | None:
    """Where a run opens, a stretch whose flame blocks can be named: (IPU, first lane position, stop)
    of its first model layer's first steps. On the IPU whose first step that is not a host wait
    starts first, from that step to the last after it whose program's name starts with the same part
    (a host wait ends it too). None where every step waits on the host or names no known program."""
    execution, programs = report.execution, report.programs
    count = 0 if programs is None else len(programs)
    firsts = []
    for ipu, lane in enumerate(lanes):
        step_programs = np.asarray(execution.program)[lane.steps]
        known = (step_programs >= 0) & (step_programs < count)
        device = np.flatnonzero(known & ~waits[np.where(known, step_programs, 0)]) if count else []
        if len(device):
            firsts.append((int(lane.starts[device[0]]), ipu, int(device[0])))
    if not firsts:
        return None
    _, ipu, first = min(firsts)
    return ipu, first, _layer_stop(report, lanes[ipu], waits, first)


def _layer_stop(report: "Report", lane: Lane, waits: np.ndarray, first: int) -> int:
    """The lane position after the last step, from FIRST on, of FIRST's model layer (by program name)."""
    programs = report.programs
    layer_of: dict[int, str | None] = {}  # program -> the first part of its name; None for a host wait

    def layer(program: int) -> str | None:
        if program not in layer_of:
            known = 0 <= program < len(programs)
            parts = split_name(programs.names[program]) if known and not waits[program] else []
            layer_of[program] = parts[0] if parts else None
        return layer_of[program]

    wanted = layer(int(report.execution.program[int(lane.steps[first])]))
    for start in range(first, len(lane), OPENING_CHUNK):
        chunk = np.asarray(report.execution.program)[lane.steps[start : start + OPENING_CHUNK]]
        distinct, inverse = np.unique(chunk, return_inverse=True)
        other = np.flatnonzero(np.array([layer(p) != wanted for p in distinct.tolist()])[inverse])
        if len(other):
            return max(start + int(other[0]), first + 1)
    return len(lane)


def steps_table(report: "Report", run: int) -> Table | None:
    """The steps of RUN, in step order: program, type, phase, and each IPU's cycles."""
    execution, programs = report.execution, report.programs
    if execution is None or not execution.num_runs:
        return None
    lo, hi = execution.run_range(run)
    ipus = execution.num_ipus
    columns = ["step", "program", "program_name", "type", "phase"]
    for ipu in range(ipus):
        columns += [f"ipu{ipu}_from", f"ipu{ipu}_to", f"ipu{ipu}_cycles"]

    described: dict[int, list] = {}  # program -> [name, type, phase]: loops run the same programs again

    def describe(program: int) -> list:
        if unknown_program(report, program) is not None:
            return [None, None, None]
        type_name = programs.type_name(program)
        return [programs.names[program], type_name, phase_of(type_name)]

    def rows():
        for start in range(lo, hi, EXPORT_CHUNK):
            stop = min(start + EXPORT_CHUNK, hi)
            starts = np.asarray(execution.cycles_from[start:stop]).tolist()
            ends = np.asarray(execution.cycles_to[start:stop]).tolist()
            cycles = np.asarray(execution.cycles[start:stop]).tolist()
            step_programs = np.asarray(execution.program[start:stop]).tolist()
            for i, program in enumerate(step_programs):
                if program not in described:
                    described[program] = describe(program)
                row = [start + i, program, *described[program]]
                for ipu in range(ipus):
                    ran = starts[i][ipu] >= 0
                    row += [starts[i][ipu], ends[i][ipu], cycles[i][ipu]] if ran else [None, None, None]
                yield row

    name = execution.run_names[run] or f"run{run + 1}"
    return Table(f"trace-{name}", columns, rows())
