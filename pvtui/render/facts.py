"""The summary's facts as labelled rows, shared by the Summary screen and `pvtui summary`."""

from __future__ import annotations

from typing import Any, Callable

from pvtui.model.tables import Table
from pvtui.units import count_of

FactRows = list[tuple[str, list[tuple[str, Any]]]]


def fact_rows(data: dict[str, Any], fmt: Callable[[int], str]) -> FactRows:
    """The summary (queries.summary) as sections of (label, value); FMT formats bytes."""
    t, m, p, e = data["target"], data["memory"], data["programs"], data["execution"]
    instrumentation = data["instrumentation"] or {}
    clock = f"{t['clock_hz'] / 1e9:.3g} GHz" if t["clock_hz"] else None

    def b(v):
        return None if v is None else fmt(v)

    used = None
    if m["total_including_gaps"] is not None and t["total_memory"]:
        used = f"{100 * m['total_including_gaps'] / t['total_memory']:.1f}% of {fmt(t['total_memory'])}"
    peak = None
    if m["peak_step"] is not None:
        peak = f"{fmt(m['peak_not_always_live_bytes'])} at step {m['peak_step']:,} ({m['peak_step_name']})"
    largest = None
    if m["max_tile"] is not None:
        largest = f"tile {m['max_tile']}: {fmt(m['max_tile_bytes'])}"
    return [
        ("Target", [
            ("Type", t["type"]),
            ("Architecture", t["architecture"]),
            ("IPUs", _str(t["num_ipus"])),
            ("Tiles per IPU", _str(t["tiles_per_ipu"])),
            ("Total tiles", _str(t["num_tiles"])),
            ("Replicas", _str(t["num_replicas"])),
            ("Memory per tile", b(t["bytes_per_tile"])),
            ("Memory per IPU", b(t["bytes_per_ipu"])),
            ("Total memory", b(t["total_memory"])),
            ("Clock", clock),
            ("Poplar", data["poplar_version"]),
            ("Instrumentation", instrumentation.get("compute")),
            ("External exchange", instrumentation.get("external_exchange")),
        ]),
        ("Memory", [
            ("Including gaps", b(m["total_including_gaps"])),
            ("Excluding gaps", b(m["total_excluding_gaps"])),
            ("Used", used),
            ("Largest tile", largest),
            ("Tiles over limit", _str(m["tiles_over_limit"])),
            ("Always-live", b(m["always_live_bytes"])),
            ("Peak not-always-live", peak),
        ]),
        ("Graph and execution", [
            ("Programs", _str(p["count"])),
            ("Compute sets", _str(p["compute_sets"])),
            ("Debug contexts", _str(data["debug_contexts"])),
            ("Runs", _str(e["runs"]) if e else "no execution profile"),
            ("Steps", _str(e["steps"]) if e else None),
            ("Report total", report_total(e["report_total_cycles"]) if e else None),
            ("Time at the clock", clock_time(e["report_total_cycles"] if e else None, t["clock_hz"])),
            ("Device time", device_time(e["device_cycles"], e["runs"]) if e else None),
        ]),
    ]


def over_limit_warning(data: dict[str, Any], fmt: Callable[[int], str]) -> str | None:
    """What the Summary screen says first where tiles are over the limit (queries.summary DATA): how many
    and where to see them; FMT formats bytes."""
    over = data["memory"]["tiles_over_limit"]
    if not over:
        return None
    limit = fmt(data["target"]["bytes_per_tile"])
    return f"Out of memory: {count_of(over, 'tile')} over the {limit} limit (press m, then w for the worst)"


def summary_facts_table(data: dict[str, Any]) -> Table:
    """The summary's facts (queries.summary DATA) as `pvtui summary --json` gives them, for export: numbers
    in bytes, cycles and hertz, each file's state; a fact the report does not give is empty."""
    rows = [["report", "name", data["name"]], ["report", "poplar_version", data["poplar_version"]]]
    for section in ("target", "memory", "programs", "execution", "instrumentation"):
        rows += [[section, fact, value] for fact, value in (data[section] or {}).items()]
    rows.append(["debug", "contexts", data["debug_contexts"]])
    rows += [["files", name, state] for name, state in data["file_states"].items()]
    rows += [["readers", part, reader] for part, reader in data["readers"].items()]
    return Table("summary", ["section", "fact", "value"], rows)


BUNDLE_NAME = "profile.pvtui"  # the bundle beside a report that stands in for its profile.pop
FILE_MARKS = {"read": "✓", "stood in": "✓", "partly read": "!", "unreadable": "!", "absent": "✗"}


READER_NAMES = {"native": "native reader", "libpva": "libpva"}


def file_entries(states: dict[str, str], readers: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """The Files row (queries.file_states) as (entry, state): a mark, the name, and what stands in, failed,
    or read profile.pop (READERS: queries.summary's, each profile part's reader)."""
    entries = []
    read_by = [READER_NAMES[r] for r in dict.fromkeys((readers or {}).values()) if r in READER_NAMES]
    for name, state in states.items():
        label = name
        if state == "stood in":
            label = f"{BUNDLE_NAME} (for {name})"
        elif state in ("partly read", "unreadable"):
            label = f"{name} ({state})"
        elif name == "profile.pop" and state == "read" and read_by:
            label = f"{name} ({', '.join(read_by)})"
        entries.append((f"{FILE_MARKS[state]} {label}", state))
    return entries


def _str(value: Any) -> str | None:
    return None if value is None else f"{value:,}" if isinstance(value, int) else str(value)


def report_total(cycles: int | None) -> str | None:
    """The report total (the total cycles the report states) as shown: `80,118,787 cycles`."""
    return None if cycles is None else f"{cycles:,} cycles"


def device_time(cycles: int | None, runs: int) -> str | None:
    """Device time (the run spans without the host waits at their ends) as shown, saying what it leaves out."""
    if cycles is None:
        return None
    ends = "the run's ends" if runs == 1 else "runs' ends"
    return f"{cycles:,} cycles, less host waits at {ends}"


def clock_time(cycles: int | None, clock_hz: float | None) -> str | None:
    """The report total's time at the clock, saying what it divides: `60.240 ms (report total at 1.33 GHz)`."""
    if not cycles or not clock_hz:
        return None
    return f"{cycles / clock_hz * 1e3:.3f} ms (report total at {clock_hz / 1e9:.3g} GHz)"
