"""Answers computed from the model, shared by the headless commands and the screens.

Every figure the sources cannot give is None, never invented.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pvtui.model.host_waits import device_cycles
from pvtui.model.report import Report, kept_figures_hold
from pvtui.model.schema import PROFILE_PARTS, PROFILE_READERS, REPORT_FILES
from pvtui.model.unavailable import Unavailable

# the parts of the model each report file gives
FILE_PARTS = {
    "profile.pop": PROFILE_PARTS, "debug.cbor": ("debug",), "archive.a": ("archive",),
    "framework.json": ("framework",), "app.json": ("app",),
}


def tile_totals(report: Report) -> tuple[np.ndarray, str] | None:
    """Each tile's bytes and where they come from: the profile (including gaps) or archive.a."""
    if report.memory is not None:
        return np.asarray(report.memory.including_gaps), "profile"
    if report.archive is not None:
        return np.asarray(report.archive.total), "archive"
    return None


def tile_ipus(report: Report, num_tiles: int) -> np.ndarray | None:
    """Each tile's IPU, from the profile or the target's tiles per IPU; None when neither gives it
    (archive.a alone does not say how its tiles are spread over IPUs)."""
    if report.memory is not None:
        return np.asarray(report.memory.ipu, dtype=np.int64)
    per_ipu = report.target.tiles_per_ipu
    if per_ipu:
        return np.arange(num_tiles) // per_ipu
    return None


def category_totals(report: Report) -> dict[str, int]:
    if report.memory is not None:
        sums = np.asarray(report.memory.by_category).sum(axis=0)
        return {name: int(v) for name, v in zip(report.memory.categories, sums)}
    if report.archive is not None:
        a = report.archive
        return {
            "code": int(np.sum(a.code)),
            "data": int(np.sum(a.data)),
            "bss": int(np.sum(a.bss)),
        }
    return {}


MEMORY_SUMMARY_KEYS = (
    "total_including_gaps", "total_excluding_gaps", "max_tile", "max_tile_bytes", "tiles_over_limit",
    "always_live_bytes", "peak_not_always_live_bytes", "peak_step", "peak_step_name",
)
MEMORY_SUMMARY_PARTS = ("memory", "archive", "liveness", "programs")  # the parts memory_summary reads
KEPT_MEMORY_SUMMARY = "memory_summary"  # its key in a bundle's meta


def memory_summary(report: Report) -> dict[str, Any]:
    """The memory figures of the Summary: as ingest kept them (keep_memory_summary) where they still hold (the
    parts they read are there, the columns unchanged), else computed, which reads every tile (and imports numpy)."""
    kept = _kept_memory_summary(report)
    if kept is None:
        return computed_memory_summary(report)
    figures = {key: kept[key] for key in MEMORY_SUMMARY_KEYS}
    figures["peak_step_name"] = report.text(figures["peak_step_name"])
    return figures


def _kept_memory_summary(report: Report) -> dict[str, Any] | None:
    kept = report.meta.get(KEPT_MEMORY_SUMMARY)
    if (kept_figures_hold(report.bundle) and isinstance(kept, dict) and kept.get("parts") == _summary_parts(report)
            and _is_memory_summary(kept.get("figures"))):
        return kept["figures"]
    return None


def summary_reads_columns(report: Report) -> bool:
    """Whether summary() reads a column of REPORT (figures ingest did not keep), not only their headers."""
    execution = report.execution
    return (_kept_memory_summary(report) is None
            or execution is not None and execution.runs_known and execution.kept_device_cycles is None)


def keep_memory_summary(report: Report) -> dict[str, Any]:
    """What a bundle's meta keeps (at KEPT_MEMORY_SUMMARY) for memory_summary of REPORT, a report with exact text."""
    return {"parts": _summary_parts(report), "figures": computed_memory_summary(report)}


def _summary_parts(report: Report) -> list[str]:
    return sorted(report.parts & set(MEMORY_SUMMARY_PARTS))


def _is_memory_summary(figures: Any) -> bool:
    if not isinstance(figures, dict) or figures.keys() != set(MEMORY_SUMMARY_KEYS):
        return False
    kinds = {key: (int, type(None)) for key in MEMORY_SUMMARY_KEYS} | {"peak_step_name": (str, type(None))}
    return all(isinstance(figures[key], kinds[key]) and not isinstance(figures[key], bool) for key in figures)


def computed_memory_summary(report: Report) -> dict[str, Any]:
    """memory_summary's figures from the columns."""
    totals = tile_totals(report)
    out: dict[str, Any] = dict.fromkeys(MEMORY_SUMMARY_KEYS)
    if totals is not None:
        values, source = totals
        if len(values):
            worst = int(np.argmax(values))
            out["max_tile"], out["max_tile_bytes"] = worst, int(values[worst])
        limit = report.target.bytes_per_tile
        out["tiles_over_limit"] = int(np.sum(values > limit)) if limit else None
        if source == "profile":
            memory = report.memory
            out["total_including_gaps"] = int(values.sum())
            out["total_excluding_gaps"] = _total(memory.excluding_gaps)
            out["always_live_bytes"] = _total(memory.always_live)
        else:
            out["total_excluding_gaps"] = int(values.sum())
    live = report.liveness
    if live is not None and len(live):
        peak = live.peak_step
        out["peak_step"] = peak
        out["peak_not_always_live_bytes"] = int(live.not_always_live[peak])
        out["peak_step_name"] = step_program_name(report, int(live.program[peak]))
    return out


def _total(values: np.ndarray | None) -> int | None:
    return None if values is None else int(np.sum(values))


def unknown_program(report: Report, program: int) -> str | None:
    """Why PROGRAM (a step's program index) has no entry in the program table; None when it has one."""
    programs = report.programs
    if programs is None:
        return report.missing("programs")
    if program < 0:
        return "this step names no program"
    if program >= len(programs):
        return f"program {program:,} is not in the program table"
    return None


def step_program_name(report: Report, program: int) -> str | None:
    if report.programs is None or program < 0 or program >= len(report.programs):
        return None
    return report.programs.names[program]


def summary(report: Report) -> dict[str, Any]:
    """The `pvtui summary --json` object."""
    t = report.target
    programs = report.programs
    execution = report.execution
    return {
        "name": report.name,
        "poplar_version": report.poplar_version,
        "instrumentation": report.instrumentation,
        "target": {
            "type": t.type,
            "architecture": t.architecture,
            "num_ipus": t.num_ipus,
            "tiles_per_ipu": t.tiles_per_ipu,
            "num_tiles": t.num_tiles,
            "bytes_per_tile": t.bytes_per_tile,
            "bytes_per_ipu": t.bytes_per_ipu,
            "total_memory": t.total_memory,
            "clock_hz": t.clock_hz,
            "num_replicas": t.num_replicas,
        },
        "memory": memory_summary(report),
        "programs": {
            "count": len(programs) if programs is not None else None,
            "compute_sets": report.meta.get("compute_sets") if programs is not None else None,
        },
        "execution": None
        if execution is None
        else {
            "runs": execution.num_runs,
            "steps": execution.num_steps,
            "report_total_cycles": execution.total_cycles,
            "device_cycles": total_device_cycles(report),
        },
        "debug_contexts": len(report.debug) if report.debug is not None else None,
        "files": {name: report.files.get(name) is not None for name in REPORT_FILES},
        "file_states": file_states(report),
        "readers": report.readers,
        "notes": report.notes,
    }


def total_device_cycles(report: Report) -> int | None:
    """The device time of every run, summed; None where no run has a step that is not a host wait."""
    spans = [cycles for cycles in device_cycles(report) if cycles is not None]
    return sum(spans) if spans else None


def file_states(report: Report) -> dict[str, str]:
    """Each report file: "read"; "partly read" (a problem was noted); "unreadable" (present, nothing
    read); "absent"; or, for profile.pop, "stood in" when a bundle (profile.pvtui) gave its parts."""
    noted = {note.split("]", 1)[0].strip("[") for note in report.notes}
    readers = set(report.readers.values())
    states = {}
    for name, parts in FILE_PARTS.items():
        read = bool(report.parts & set(parts))
        stood_in = name == "profile.pop" and bool(readers) and not readers & set(PROFILE_READERS)
        if report.files.get(name) is None or read and stood_in:
            states[name] = "stood in" if read else "absent"
        elif not read:
            states[name] = "unreadable"
        # a profile's notes say what it lacks (no execution profile…), not that it is damaged
        elif name != "profile.pop" and noted & set(parts):
            states[name] = "partly read"
        else:
            states[name] = "read"
    return states


def memory_table(report: Report, top: int | None = None) -> dict[str, Any]:
    """The `pvtui memory --json` object: tiles largest first, and category totals."""
    totals = tile_totals(report)
    tiles: list[dict[str, int]] = []
    source = None
    if totals is not None:
        values, source = totals
        ipus = tile_ipus(report, len(values))
        order = np.argsort(-values, kind="stable")
        if top is not None:
            order = order[:top]
        tiles = [{"tile": int(i), "ipu": None if ipus is None else int(ipus[i]), "bytes": int(values[i])}
                 for i in order]
    return {
        "source": source,
        "bytes_per_tile": report.target.bytes_per_tile,
        "tiles": tiles,
        "categories": category_totals(report),
    }


def liveness_table(report: Report, top_variables: int = 10) -> dict[str, Any] | Unavailable:
    live = report.liveness
    if live is None or len(live) == 0:
        return Unavailable(report.missing("liveness"))
    peak = live.peak_step
    peak_bytes = int(live.not_always_live[peak])
    always = live.always_live_bytes
    return {
        "steps": len(live),
        "always_live_bytes": always,
        "peak_step": peak,
        "peak_step_name": step_program_name(report, int(live.program[peak])),
        "peak_not_always_live_bytes": peak_bytes,
        "peak_total_bytes": None if always is None else always + peak_bytes,
        "peak_variables": [
            {"name": live.variable_names[v], "bytes": int(b)}
            for v, b in live.live_variables(peak)[:top_variables]
        ],
        "per_ipu": live.by_ipu is not None,
        "per_tile": live.by_tile is not None,
    }


def programs_table(report: Report) -> dict[str, Any] | Unavailable:
    programs = report.programs
    if programs is None:
        return Unavailable(report.missing("programs"))
    counts = np.bincount(np.asarray(programs.type), minlength=len(programs.type_names))
    return {
        "count": len(programs),
        "compute_sets": report.meta.get("compute_sets"),
        "roots": [int(r) for r in programs.roots],
        "by_type": {name: int(c) for name, c in zip(programs.type_names, counts)},
        # each leaf once: a parent's control code includes its children's (summing all would count it twice)
        "code_bytes": programs.leaf_code_bytes(np.arange(len(programs))),  # None without libpva
        "tree": programs.has_tree,
    }


def run_figures(execution, run: int) -> dict[str, int]:
    """RUN's steps and IPU-steps (step-IPU pairs that ran), its run span (first step's start to last
    step's end, over all IPUs) and its IPU-cycles (each IPU's cycles, summed)."""
    lo, hi = execution.run_range(run)
    starts = np.asarray(execution.cycles_from[lo:hi])
    ran = starts >= 0
    span = int(np.asarray(execution.cycles_to[lo:hi])[ran].max() - starts[ran].min()) if ran.any() else 0
    cycles = np.asarray(execution.cycles[lo:hi], dtype=np.int64)
    return {"steps": hi - lo, "ipu_steps": int(ran.sum()), "run_span_cycles": span,
            "ipu_cycles": int(cycles[ran].sum())}


def trace_table(report: Report) -> dict[str, Any] | Unavailable:
    """The `pvtui trace --json` object: the report total, each run's figures, IPU-cycles by step type."""
    execution = report.execution
    if execution is None:
        return Unavailable(report.missing("execution"))
    runs = [{"name": execution.run_names[r], **run_figures(execution, r), "device_cycles": device}
            for r, device in enumerate(device_cycles(report))]
    by_type: dict[str, int] = {}
    programs = report.programs
    if programs is not None:
        step_program = np.asarray(execution.program)
        known = (step_program >= 0) & (step_program < len(programs))  # a program not in the table has no type
        step_types = np.asarray(programs.type)[step_program[known]]
        cycles = np.asarray(execution.cycles)[known].sum(axis=1)
        sums = np.bincount(step_types, weights=cycles, minlength=len(programs.type_names))
        by_type = {name: int(v) for name, v in zip(programs.type_names, sums) if v}
    seconds = None
    if execution.total_cycles and report.target.clock_hz:
        seconds = execution.total_cycles / report.target.clock_hz
    return {
        "runs": runs,
        "steps": execution.num_steps,
        "ipus": execution.num_ipus,
        "report_total_cycles": execution.total_cycles,
        "report_total_seconds": seconds,
        "clock_hz": report.target.clock_hz,
        "ipu_cycles_by_type": by_type,
        "bsp_steps": int(len(execution.bsp_steps)) if execution.bsp_steps is not None else 0,
    }


def live_difference(report: Report, a: int, b: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]], int]:
    """(variable, bytes) live at B and not at A, those live at A and not at B, and B's not-always-live
    bytes minus A's; each list largest first."""
    live = report.liveness
    live_a, live_b = live.live_variables(a), live.live_variables(b)
    at_a, at_b = dict(live_a), dict(live_b)
    added = [(v, size) for v, size in live_b if v not in at_a]
    removed = [(v, size) for v, size in live_a if v not in at_b]
    return added, removed, int(live.not_always_live[b]) - int(live.not_always_live[a])


def liveness_step_diff(report: Report, a: int, b: int) -> dict[str, Any] | Unavailable:
    """The `pvtui liveness --step A --vs B --json` object: the variables that appeared (live at B, not at A),
    those gone (live at A, not at B), and B's not-always-live bytes minus A's (change_bytes); raises
    ReportError for steps the report lacks."""
    from pvtui.errors import ReportError

    live = report.liveness
    if live is None or not len(live):
        return Unavailable(report.missing("liveness"))
    for step in (a, b):
        if not 0 <= step < len(live):
            raise ReportError(report.name, f"no liveness step {step:,}: the report has steps 0 to {len(live) - 1:,}")
    added, removed, change = live_difference(report, a, b)
    names = live.variable_names

    def listed(pairs: list[tuple[int, int]]) -> list[dict[str, Any]]:
        return [{"name": names[v], "bytes": int(size)} for v, size in pairs]

    return {
        "step": a, "vs": b,
        "step_name": step_program_name(report, int(live.program[a])),
        "vs_name": step_program_name(report, int(live.program[b])),
        "appeared": listed(added), "gone": listed(removed), "change_bytes": change,
    }
