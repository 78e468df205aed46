"""What the Trace screen reads from one report, each part once: every run's lanes, the flame
view's nesting and depth rows, the step statistics; and the run's steps as a table to export.

Building a part takes longer than a frame on a large report: the screen does it in a worker,
and a reload gives the screen a new index (nothing of the old report's is kept by mistake).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from pvtui.model import flame as fl
from pvtui.model.lanes import Lane, build_lanes, step_phases
from pvtui.model.queries import unknown_program
from pvtui.model.step_types import phase_of
from pvtui.model.tables import Table

if TYPE_CHECKING:
    from pvtui.model.report import Report

EXPORT_CHUNK = 4096  # steps read at a time when exporting


def has_bsp(report: "Report") -> bool:
    """The report has per-tile cycles of some steps (the BSP view)."""
    execution = report.execution
    return execution is not None and execution.bsp_steps is not None and execution.bsp_cycles is not None


class TraceIndex:
    """A report's trace as the screen draws it, built part by part (`index_run`, `nest_run`)."""

    def __init__(self, report: "Report") -> None:
        self.report = report
        self.lanes: dict[int, tuple[Lane, ...]] = {}  # per run
        self.flames: dict[int, tuple[list[fl.FlameRow], ...]] = {}  # per run, per IPU a row per depth
        self.run_cycles: dict[int, tuple[int, ...]] = {}  # per run, each IPU's cycles: a block's share of them
        self.nesting: fl.Nesting | None = None  # shared by every run
        self.stats: dict[str, Any] | None = None
        self.counted = False  # the step statistics are in `stats`

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
        self.lanes[run] = lanes
        return lanes

    def nest_run(self, run: int) -> None:
        """RUN's flame rows and each IPU's cycles, and the nesting they read, once for every run."""
        report, lanes = self.report, self.lanes[run]
        if self.nesting is None:
            self.nesting = fl.build_nesting(report, report.execution.program)
        cycles = tuple(int(np.asarray(report.execution.cycles[:, ipu])[lane.steps].sum())
                       for ipu, lane in enumerate(lanes))
        self.flames[run] = tuple(fl.lane_flame(report, lane, ipu, self.nesting) for ipu, lane in enumerate(lanes))
        self.run_cycles[run] = cycles


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
