"""Statistics per step type: for each run and IPU, how many steps of each type ran and their cycles.

Stream copies are split into host and remote-buffer copies by what the program's
name says (Poplar names remote-buffer copies after the buffer). One bincount per
run and IPU over the step columns: the whole report in well under a second.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pvtui.model.host_waits import device_cycles, remote_buffer_programs
from pvtui.model.queries import run_figures
from pvtui.model.report import Report
from pvtui.model.step_types import phase_of
from pvtui.model.unavailable import Unavailable

UNKNOWN = "unknown program"
HOST, REMOTE = "host", "remote_buffer"


def device_figures(report: Report) -> list[dict[str, Any]]:
    """Per run, its device time (`device_cycles`), and where it has none, why (`device_note`)."""
    figures: list[dict[str, Any]] = []
    for cycles in device_cycles(report):
        figures.append({"device_cycles": cycles})
        if cycles is None:
            figures[-1]["device_note"] = ("every step waits on the host" if report.execution.runs_known
                                          else "the steps are not split into runs")
    return figures


def step_stats(report: Report) -> dict[str, Any] | Unavailable:
    """The `pvtui trace --stats --json` object; Unavailable without an execution profile. Each run has its
    figures (queries.run_figures, and its device time) and, per IPU, the steps and cycles of that IPU."""
    execution, programs = report.execution, report.programs
    if execution is None:
        return Unavailable(report.missing("execution"))
    type_names = list(programs.type_names) if programs is not None else []
    count = len(programs) if programs is not None else 0
    types = np.asarray(programs.type, dtype=np.int64) if programs is not None else np.zeros(0, np.int64)
    remote = remote_buffer_programs(report) if programs is not None else np.zeros(0, bool)
    stream = {i for i, name in enumerate(type_names) if phase_of(name) == "stream"}
    labels = type_names + [UNKNOWN]
    device = device_figures(report)
    runs = []
    for run in range(execution.num_runs):
        lo, hi = execution.run_range(run)
        step_programs = np.asarray(execution.program[lo:hi], dtype=np.int64)
        known = (step_programs >= 0) & (step_programs < count)
        code = np.full(len(step_programs), len(type_names), dtype=np.int64)
        code[known] = types[step_programs[known]]
        is_remote = np.zeros(len(step_programs), dtype=bool)
        is_remote[known] = remote[step_programs[known]]
        starts = np.asarray(execution.cycles_from[lo:hi])
        cycles = np.asarray(execution.cycles[lo:hi])
        ipus = []
        for ipu in range(starts.shape[1]):
            ran = starts[:, ipu] >= 0
            key = code[ran] * 2 + is_remote[ran]
            steps = np.bincount(key, minlength=2 * len(labels))
            sums = np.bincount(key, weights=cycles[ran, ipu], minlength=2 * len(labels))
            total = float(sums.sum())
            table: dict[str, Any] = {}
            for i, label in enumerate(labels):
                n = int(steps[2 * i] + steps[2 * i + 1])
                if not n:
                    continue
                c = int(sums[2 * i] + sums[2 * i + 1])
                entry: dict[str, Any] = {"steps": n, "cycles": c, "share": c / total if total else 0.0}
                if i in stream:
                    entry[HOST] = {"steps": int(steps[2 * i]), "cycles": int(sums[2 * i])}
                    entry[REMOTE] = {"steps": int(steps[2 * i + 1]), "cycles": int(sums[2 * i + 1])}
                table[label] = entry
            ipus.append({"ipu": ipu, "steps": int(ran.sum()), "cycles": int(total),
                         "types": dict(sorted(table.items(), key=lambda kv: -kv[1]["cycles"]))})
        runs.append({"name": execution.run_names[run], **run_figures(execution, run), **device[run], "ipus": ipus})
    return {"runs": runs}
