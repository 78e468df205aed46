"""A run's lanes: the steps each IPU ran, in the order they started, with their cycles and phases.

The trace's arithmetic (model/navigators/trace.py) and its flame rows (model/flame.py) both build on them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pvtui.model.step_types import PHASES, phase_index

OTHER = PHASES.index("other")


@dataclass(frozen=True, eq=False)
class Lane:
    """The steps of one run that ran on one IPU, in the order they started."""

    steps: np.ndarray  # int64 absolute step indices
    starts: np.ndarray  # int64 first cycle
    ends: np.ndarray  # int64 cycle after the last
    phases: np.ndarray  # int8 index into PHASES
    reach: np.ndarray  # int64 running maximum of ends: sorted, so it can be searched

    def __len__(self) -> int:
        return len(self.steps)


def step_phases(step_programs: np.ndarray, program_types: np.ndarray | None, type_names: list[str]) -> np.ndarray:
    """The phase index of each step's program type ("other" where it is unknown)."""
    programs = np.asarray(step_programs, dtype=np.int64)
    phases = np.full(len(programs), OTHER, dtype=np.int8)
    if program_types is None or not type_names:
        return phases
    phase_of_type = np.array([phase_index(name) for name in type_names], dtype=np.int8)
    types = np.asarray(program_types, dtype=np.int64)
    known = (programs >= 0) & (programs < len(types))
    step_types = types[programs[known]]
    valid = (step_types >= 0) & (step_types < len(phase_of_type))
    phases[np.flatnonzero(known)[valid]] = phase_of_type[step_types[valid]]
    return phases


def build_lanes(cycles_from: np.ndarray, cycles_to: np.ndarray, phases: np.ndarray, first_step: int) -> list[Lane]:
    """One lane per IPU from a run's [steps, IPUs] cycles (-1 where a step did not run)."""
    starts_all = np.asarray(cycles_from, dtype=np.int64)
    ends_all = np.asarray(cycles_to, dtype=np.int64)
    if starts_all.ndim == 1:  # a single IPU's column
        starts_all, ends_all = starts_all[:, None], ends_all[:, None]
    lanes = []
    for ipu in range(starts_all.shape[1]):
        ran = np.flatnonzero(starts_all[:, ipu] >= 0)
        starts = starts_all[ran, ipu]
        if len(starts) > 1 and np.any(starts[1:] < starts[:-1]):
            order = np.argsort(starts, kind="stable")
            ran, starts = ran[order], starts[order]
        ends = np.maximum(ends_all[ran, ipu], starts)
        reach = np.maximum.accumulate(ends) if len(ends) else ends
        lanes.append(Lane(ran + first_step, starts, ends, np.asarray(phases)[ran], reach))
    return lanes
