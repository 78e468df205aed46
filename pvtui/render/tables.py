"""Rich tables for the headless commands' human output."""

from __future__ import annotations

from typing import Any

from rich.columns import Columns
from pvtui.render.console import TextConsole
from pvtui.render.fact_lines import FactLines
from rich.table import Table
from rich.text import Text

from pvtui.render.facts import clock_time, device_time, fact_rows, file_entries, report_total
from pvtui.render.figures import run_figures_line
from pvtui.render.step_change import changed_variables, step_change_line
from pvtui.units import Fmt, format_bytes, format_cycles


def _console() -> TextConsole:
    return TextConsole()


def facts_table(title: str, rows: list[tuple[str, Any]]) -> FactLines:
    """Labelled values under a bold title; a missing value shows as a dim dash, a count with separators."""
    cells = []
    for label, value in rows:
        if value is None:
            value = Text("—", style="dim")
        if isinstance(value, int) and not isinstance(value, bool):
            value = f"{value:,}"
        cells.append((label, value if isinstance(value, (Text, Columns)) else Text(str(value))))  # never markup
    return FactLines(title, cells)


def ranked_table(title: str, columns: tuple[str, str], values: dict[str, int], fmt) -> Table:
    """NAME -> value, largest first, values formatted by FMT."""
    table = Table(title=title, title_justify="left")
    table.add_column(columns[0])
    table.add_column(columns[1], justify="right")
    for name, value in sorted(values.items(), key=lambda kv: -kv[1]):
        table.add_row(Text(name), fmt(value))
    return table


FILE_STYLES = {"partly read": "bold", "unreadable": "bold", "absent": "dim"}


def files_row(states: dict[str, str], readers: dict[str, str] | None = None) -> Columns:
    """Each file's mark and name (queries.file_states), and profile.pop's reader (READERS); lines break
    between files, never inside one."""
    return Columns([Text(entry, style=FILE_STYLES.get(state, "")) for entry, state in file_entries(states, readers)],
                   padding=(0, 3))


def render_summary(data: dict[str, Any], fmt: Fmt = format_bytes) -> None:
    console = _console()
    console.print(Text(f"Report {data['name']}", style="bold"))
    for title, rows in fact_rows(data, fmt):
        console.print(facts_table(title, rows))
    console.print(facts_table("Files", [("Present", files_row(data["file_states"], data["readers"]))]))


def render_memory(data: dict[str, Any], fmt: Fmt = format_bytes) -> None:
    console = _console()
    limit = data["bytes_per_tile"]
    table = Table(title=f"Tiles, largest first ({data['source']})", title_justify="left")
    for name in ("tile", "IPU", "bytes", "of limit"):
        table.add_column(name, justify="right")
    for row in data["tiles"]:
        share = f"{100 * row['bytes'] / limit:.0f}%" if limit else "—"
        style = "red" if limit and row["bytes"] > limit else None
        ipu = "unknown" if row["ipu"] is None else str(row["ipu"])
        table.add_row(str(row["tile"]), ipu, fmt(row["bytes"]), share, style=style)
    console.print(table)
    console.print(ranked_table("By category (all tiles)", ("category", "bytes"), data["categories"], fmt))


def render_liveness(data: dict[str, Any], fmt: Fmt = format_bytes) -> None:
    def _maybe_bytes(value: int | None) -> str | None:
        return None if value is None else fmt(value)

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
        table.add_row(var["name"], fmt(var["bytes"]))
    console.print(table)


def render_programs(data: dict[str, Any], fmt: Fmt = format_bytes) -> None:
    console = _console()
    console.print(facts_table("Programs", [
        ("Programs", data["count"]),
        ("Compute sets", data["compute_sets"]),
        ("Top-level programs", len(data["roots"])),
        ("Code (leaf programs)", fmt(data["code_bytes"])),
    ]))
    console.print(ranked_table("By type", ("type", "programs"), data["by_type"], "{:,}".format))


def render_trace(data: dict[str, Any]) -> None:
    console = _console()
    spans = [run["device_cycles"] for run in data["runs"] if run["device_cycles"] is not None]
    console.print(facts_table("Execution", [
        ("Runs", len(data["runs"])),
        ("Steps", f"{data['steps']:,}"),
        ("IPUs", data["ipus"]),
        ("Report total", report_total(data["report_total_cycles"])),
        ("Time at the clock", clock_time(data["report_total_cycles"], data["clock_hz"])),
        ("Device time", device_time(sum(spans) if spans else None, len(data["runs"]))),
        ("Steps with per-tile cycles", data["bsp_steps"]),
    ]))
    runs = Table(title="Runs", title_justify="left")
    for name in ("run", "steps", "IPU-steps", "run span", "device time", "IPU-cycles"):
        runs.add_column(name, justify="right" if name != "run" else "left")
    for run in data["runs"]:
        runs.add_row(run["name"], f"{run['steps']:,}", f"{run['ipu_steps']:,}", format_cycles(run["run_span_cycles"]),
                     format_cycles(run["device_cycles"]), format_cycles(run["ipu_cycles"]))
    console.print(runs)
    console.print(Text(RUNS_NOTE, style="dim"))
    console.print(ranked_table("IPU-cycles by step type", ("type", "IPU-cycles"), data["ipu_cycles_by_type"],
                               format_cycles))


RUNS_NOTE = "run span: first step start to last step end · IPU-: summed over IPUs · see `pvtui trace --help`"


def render_step_stats(data: dict[str, Any]) -> None:
    """Per run, its figures; per run and IPU: each step type's steps, cycles and share; stream copies
    split host / remote buffer."""
    console = _console()
    for run in data["runs"]:
        console.print(Text.assemble((f"Run {run['name']}", "bold"), f": {run_figures_line(run)}"))
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


def render_liveness_diff(data: dict[str, Any], fmt: Fmt = format_bytes) -> None:
    """From step A to step B: the change in not-always-live bytes, the variables that appeared (live at B,
    not at A) and those gone (live at A, not at B)."""
    console = _console()
    appeared = [(var["name"], var["bytes"]) for var in data["appeared"]]
    gone = [(var["name"], var["bytes"]) for var in data["gone"]]
    console.print(Text(step_change_line(data["step"], data["vs"], data["change_bytes"], len(appeared), len(gone), fmt),
                       style="bold"))
    for title, rows in (("Appeared", changed_variables(appeared, [], fmt)), ("Gone", changed_variables([], gone, fmt))):
        if rows:  # the line above says none
            table = Table(title=f"{title}: {len(rows):,}", title_justify="left")
            table.add_column("variable")
            table.add_column("bytes", justify="right")
            for amount, name in rows:
                table.add_row(Text(name), amount)
            console.print(table)
