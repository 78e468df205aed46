"""Host waits: the steps that wait on the host, and device time, a run's span without them at its ends.

A host wait is a stream copy to or from the host (not a copy of a remote buffer, which
stays on the IPU side) or a sync with the host (Poplar names those syncs "External").
Their cycles are real, and a stream copy can wait tens of millions of cycles for its
data, but they measure the host, not the model: they are never ranked as a model layer.
"""

from __future__ import annotations

import numpy as np

from pvtui.model.report import Report
from pvtui.model.step_types import phase_of

HOST_SYNC = "external"  # the last part of a host sync's name, in any case


def programs_of_phase(report: Report, phase: str) -> np.ndarray:
    """The programs whose type is of PHASE ("stream", "sync"...)."""
    programs = report.programs
    wanted = [i for i, name in enumerate(programs.type_names) if phase_of(name) == phase]
    return np.flatnonzero(np.isin(np.asarray(programs.type), wanted)) if wanted else np.zeros(0, np.int64)


def remote_buffer_programs(report: Report) -> np.ndarray:
    """Per program, whether it is a stream copy whose name says it copies a remote buffer."""
    programs = report.programs
    remote = np.zeros(len(programs), dtype=bool)
    streams = programs_of_phase(report, "stream")
    names = programs.names.take(streams.tolist())
    remote[streams] = ["remote" in name.lower() for name in names]
    return remote


def host_wait_programs(report: Report) -> np.ndarray:
    """Per program, whether its steps wait on the host; empty without a program table."""
    programs = report.programs
    if programs is None:
        return np.zeros(0, dtype=bool)
    waits = np.zeros(len(programs), dtype=bool)
    waits[programs_of_phase(report, "stream")] = True
    waits &= ~remote_buffer_programs(report)
    syncs = programs_of_phase(report, "sync")
    names = programs.names.take(syncs.tolist())
    waits[syncs] = [name.rsplit("/", 1)[-1].lower() == HOST_SYNC for name in names]
    return waits


def host_wait_steps(report: Report, waits: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Per execution step in [LO, HI), whether it waits on the host; WAITS is host_wait_programs()."""
    programs = np.asarray(report.execution.program[lo:hi], dtype=np.int64)
    known = (programs >= 0) & (programs < len(waits))
    steps = np.zeros(len(programs), dtype=bool)
    steps[known] = waits[programs[known]]
    return steps


def device_cycles(report: Report) -> list[int | None]:
    """Per run, its device time: from the start of its first step that is not a host wait to the end of
    its last, on any IPU (cycles); None for a run whose every step waits on the host."""
    execution = report.execution
    if not execution.runs_known:  # one "run" of every step: the host's time between runs is inside it
        return [None] * execution.num_runs
    kept = execution.kept_device_cycles  # a pass over every step, made once at ingest
    if kept is not None:
        return kept
    waits = host_wait_programs(report)
    spans: list[int | None] = []
    for run in range(execution.num_runs):
        lo, hi = execution.run_range(run)
        starts = np.asarray(execution.cycles_from[lo:hi])
        ran = starts >= 0
        device = np.flatnonzero(~host_wait_steps(report, waits, lo, hi) & ran.any(axis=1))
        if not len(device):
            spans.append(None)
            continue
        first, last = int(device[0]), int(device[-1]) + 1
        ends = np.asarray(execution.cycles_to[lo + first : lo + last])
        inside = ran[first:last]
        spans.append(int(ends[inside].max() - starts[first:last][inside].min()))
    return spans
