"""Rich tables for the headless commands' human output."""

from __future__ import annotations

from typing import Any

from rich.columns import Columns
from rich.console import Console
from rich.table import Table
from rich.text import Text

from pvtui.model.facts import device_time, fact_rows, file_entries

from pvtui.units import format_bytes, format_cycles


def _console() -> Console:
    return Console()


def facts_table(title: str, rows: list[tuple[str, Any]]) -> Table:
    """Labelled values under a bold title; a missing value shows as a dim dash, a count with separators."""
    table = Table(title=title, title_justify="left", show_header=False, box=None, padding=(0, 1),
                  title_style="bold")
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for label, value in rows:
        if value is None:
            value = Text("—", style="dim")
        if isinstance(value, int) and not isinstance(value, bool):
            value = f"{value:,}"
        table.add_row(label, value if isinstance(value, (str, Text, Columns)) else str(value))
    return table


def ranked_table(title: str, columns: tuple[str, str], values: dict[str, int], fmt) -> Table:
    """NAME -> value, largest first, values formatted by FMT."""
    table = Table(title=title, title_justify="left")
    table.add_column(columns[0])
    table.add_column(columns[1], justify="right")
    for name, value in sorted(values.items(), key=lambda kv: -kv[1]):
        table.add_row(name, fmt(value))
    return table


FILE_STYLES = {"partly read": "bold", "unreadable": "bold", "absent": "dim"}


def files_row(states: dict[str, str], readers: dict[str, str] | None = None) -> Columns:
    """Each file's mark and name (queries.file_states), and profile.pop's reader (READERS); lines break
    between files, never inside one."""
    return Columns([Text(entry, style=FILE_STYLES.get(state, "")) for entry, state in file_entries(states, readers)],
                   padding=(0, 3))


def render_summary(data: dict[str, Any]) -> None:
    console = _console()
    console.print(f"[b]Report {data['name']}[/b]", highlight=False)
    for title, rows in fact_rows(data, format_bytes):
        console.print(facts_table(title, rows))
    console.print(facts_table("Files", [("Present", files_row(data["file_states"], data["readers"]))]))


def _maybe_bytes(value: int | None) -> str | None:
    return None if value is None else format_bytes(value)


def render_memory(data: dict[str, Any]) -> None:
    console = _console()
    limit = data["bytes_per_tile"]
    table = Table(title=f"Tiles, largest first ({data['source']})", title_justify="left")
    for name in ("tile", "IPU", "bytes", "of limit"):
        table.add_column(name, justify="right")
    for row in data["tiles"]:
        share = f"{100 * row['bytes'] / limit:.0f}%" if limit else "—"
        style = "red" if limit and row["bytes"] > limit else None
        ipu = "unknown" if row["ipu"] is None else str(row["ipu"])
        table.add_row(str(row["tile"]), ipu, format_bytes(row["bytes"]), share, style=style)
    console.print(table)
    console.print(ranked_table("By category (all tiles)", ("category", "bytes"), data["categories"], format_bytes))


def render_liveness(data: dict[str, Any]) -> None:
    console = _console()
    console.print(facts_table("Liveness", [
        ("Program steps", data["steps"]),
        ("Always-live", _maybe_bytes(data["always_live_bytes"])),
        ("Peak step", f"{data['peak_step']:,} ({data['peak_step_name']})"),
        ("Peak not-always-live", _maybe_bytes(data["peak_not_always_live_bytes"])),
        ("Peak total", _maybe_bytes(data["peak_total_bytes"])),
        ("Per IPU / per tile", f"{'yes' if data['per_ipu'] else 'no'} / {'yes' if data['per_tile'] else 'no'}"),
    ]))
    table = Table(title="Not-always-live variables at the peak", title_justify="left")
    table.add_column("variable")
    table.add_column("bytes", justify="right")
    for var in data["peak_variables"]:
        table.add_row(var["name"], format_bytes(var["bytes"]))
    console.print(table)


def render_programs(data: dict[str, Any]) -> None:
    console = _console()
    console.print(facts_table("Programs", [
        ("Programs", data["count"]),
        ("Compute sets", data["compute_sets"]),
        ("Top-level programs", len(data["roots"])),
        ("Code (leaf programs)", format_bytes(data["code_bytes"])),
    ]))
    console.print(ranked_table("By type", ("type", "programs"), data["by_type"], "{:,}".format))


def render_trace(data: dict[str, Any]) -> None:
    console = _console()
    seconds = data["total_seconds"]
    spans = [run["device_cycles"] for run in data["runs"] if run["device_cycles"] is not None]
    console.print(facts_table("Execution", [
        ("Runs", len(data["runs"])),
        ("Steps", f"{data['steps']:,}"),
        ("IPUs", data["ipus"]),
        ("Total cycles", format_cycles(data["total_cycles"])),
        ("Time at the clock", None if seconds is None else f"{seconds * 1e3:.3f} ms"),
        ("Device time", device_time(sum(spans) if spans else None, len(data["runs"]))),
        ("Steps with per-tile cycles", data["bsp_steps"]),
    ]))
    runs = Table(title="Runs", title_justify="left")
    for name in ("run", "steps", "cycles", "device time"):
        runs.add_column(name, justify="right" if name != "run" else "left")
    for run in data["runs"]:
        runs.add_row(run["name"], f"{run['steps']:,}", format_cycles(run["cycles"]), format_cycles(run["device_cycles"]))
    console.print(runs)
    console.print(
        ranked_table("Cycles by step type (all IPUs)", ("type", "cycles"), data["cycles_by_type"], format_cycles)
    )


def render_step_stats(data: dict[str, Any]) -> None:
    """Per run and IPU: each step type's steps, cycles and share; stream copies split host / remote buffer."""
    console = _console()
    for run in data["runs"]:
        for ipu in run["ipus"]:
            table = Table(title=f"Run {run['name']}, IPU {ipu['ipu']}", title_justify="left", show_footer=True)
            totals = ("all", f"{ipu['steps']:,}", format_cycles(ipu["cycles"]), "100%")
            for name, total in zip(("step type", "steps", "cycles", "share"), totals):
                table.add_column(name, total, justify="left" if name == "step type" else "right")
            for name, entry in ipu["types"].items():
                table.add_row(name, f"{entry['steps']:,}", format_cycles(entry["cycles"]), f"{entry['share']:.1%}")
                for kind, label in (("host", "  host"), ("remote_buffer", "  remote buffer")):
                    part = entry.get(kind)
                    if part and part["steps"]:
                        table.add_row(label, f"{part['steps']:,}", format_cycles(part["cycles"]), "", style="dim")
            console.print(table)


def render_liveness_diff(data: dict[str, Any]) -> None:
    """The variables live at step B and not at A, those at A and not at B, and the change in bytes."""
    console = _console()
    a, b = data["step"], data["vs"]
    console.print(f"[b]Step {b:,} against step {a:,}[/b]: not-always-live "
                  f"{'+' if data['bytes'] >= 0 else '−'}{format_bytes(abs(data['bytes']))}", highlight=False)
    for key, title in (("added", "Appeared"), ("removed", "Went away")):
        if not data[key]:
            console.print(f"{title}: none", highlight=False)  # not a table of headings alone
            continue
        table = Table(title=f"{title}: {len(data[key]):,}", title_justify="left")
        table.add_column("variable")
        table.add_column("bytes", justify="right")
        for var in data[key]:
            table.add_row(var["name"], format_bytes(var["bytes"]))
        console.print(table)
