"""The names of the execution figures and what each counts: one wording for the screens, `?` help,
the commands and the README (whose "What the figures mean" section a test holds to FIGURE_WORDS)."""

from __future__ import annotations

from typing import Any

from pvtui.units import count_of, format_cycles

# (name, what it counts), in the order a reader meets them
FIGURE_WORDS = (
    ("report total", "the total cycles the report states (Summary, `pvtui summary`, `pvtui trace`)."),
    ("time at the clock", "the report total divided by the clock frequency."),
    ("run span", "the cycles from a run's first step start to its last step end, on whichever IPUs "
                 "(the Trace runs table)."),
    ("IPU-cycles", "cycles summed over IPUs: a step that ran on 4 IPUs for 1,000 cycles each counts "
                   "4,000; what step statistics and IPU-cycles by step type add up, more than the run "
                   "span when IPUs work at once."),
    ("device time", "a run's span without the host waits at its ends: from the start of its first step that "
                    "is not a host wait to the end of its last (Summary, Trace's step statistics, `pvtui trace`)."),
    ("host wait", "a step that waits on the host (a stream copy to or from the host, a sync with the host); "
                  "never ranked as a model layer or an operation."),
    ("steps", "the steps of the program, each counted once whichever IPUs it ran on."),
    ("IPU-steps", "step-IPU pairs that ran: a step that ran on 4 IPUs counts 4."),
)


FIGURES_HEADING = "What the figures mean"


def figures_text() -> str:
    """FIGURE_WORDS as plain lines under their heading, as `pvtui trace --help` ends."""
    return "\n".join([f"{FIGURES_HEADING}:", *(f"  {name}: {meaning}" for name, meaning in FIGURE_WORDS)])


def run_figures_line(run: dict[str, Any]) -> str:
    """A run's figures (queries.run_figures) in words: steps and IPU-steps, run span, device time where
    the run has one, and IPU-cycles."""
    device = ""
    if "device_cycles" in run:
        device = (f", device time {format_cycles(run['device_cycles'])}" if run["device_cycles"] is not None
                  else f", no device time ({run['device_note']})")
    return (f"{count_of(run['steps'], 'step')}, {count_of(run['ipu_steps'], 'IPU-step')}, "
            f"run span {format_cycles(run['run_span_cycles'])}{device}, {format_cycles(run['ipu_cycles'])} IPU-cycles")
