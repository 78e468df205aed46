"""What the Trace screen says in words: the status line, a step's or a block's details (of the flame
view or of the merged view), the step statistics."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np
from rich.style import Style
from rich.text import Text

from pvtui.model.queries import unknown_program
from pvtui.model.step_types import phase_of
from pvtui.model.unavailable import Unavailable
from pvtui.render.figures import run_figures_line
from pvtui.render.item_lines import item_lines
from pvtui.render.unavailable import unavailable_text
from pvtui.units import count_of, format_cycles

if TYPE_CHECKING:
    from pvtui.model.flame import FlameRow, MergedFlame, Nesting
    from pvtui.model.report import Report
    from pvtui.model.lanes import Lane
    from pvtui.model.navigators.trace import TraceNavigator

STATS_TYPE_WIDTH = 18  # the step type column of the statistics
STATS_IPU_WIDTH = 27  # each IPU's steps, cycles and share
HOST_WAIT_NOTE = "its steps wait on the host: never ranked as a model layer; c skips it unless h"


def format_seconds(seconds: float) -> str:
    for scale, unit in ((1, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


def percent(value: float) -> str:
    return f"{value * 100:.1f}%"


def _labelled(out: Text, muted: Style) -> Callable[[str, str | Text], None]:
    """A function appending a line to OUT: its label in a column of 10, muted, then its value."""
    def line(label: str, value: str | Text) -> None:
        out.append(f"{label:<10}", style=muted)
        out.append(value)
        out.append("\n")
    return line


def _type_text(type_name: str, styles: dict[str, Style], muted: Style) -> Text:
    """A program type in its phase's colour, then the phase."""
    phase = phase_of(type_name)
    return Text.assemble((type_name, styles.get(phase, Style())), (f"  {phase}", muted))


def window_share(window: tuple[int, int], bounds: tuple[int, int]) -> str:
    """How much of the run the window shows, in words: `the whole run`, `4.1% of the run`."""
    share = (window[1] - window[0]) / max(bounds[1] - bounds[0], 1)
    if share >= 0.9995:
        return "the whole run"
    figure = f"{share:.0%}" if share >= 0.1 else f"{share:.1%}" if share >= 0.01 else f"{share * 100:.2g}%"
    return f"{figure} of the run"


def status_text(report: "Report", nav: "TraceNavigator", width: int, waiting: str | None) -> Text:
    """The status line: the run, the window (cycles, or the merged view's IPU-cycles) and how much of
    the run it shows, the cursor's IPU and step, in the flame views what `c` ranks; WAITING says what
    the view shown waits for. Broken between items, never inside one (a wrap at a space once glued
    the range to the run's name)."""
    execution = report.execution
    lo, hi = nav.window
    step = nav.selected_step
    run = f"Run {nav.run + 1}/{execution.num_runs} {execution.run_names[nav.run]}" if execution.num_runs \
        else "no runs"
    items = [Text(run, style="bold")]
    if nav.merged is not None:
        items.append(Text("merged: every step summed by model layer"))
    start = nav.bounds[0]  # the axis and the window count from the run's start (the merged view's is 0)
    items += [Text(f"{'IPU-cycles' if nav.merged is not None else 'cycles'} "
                   f"{format_cycles(lo - start)}–{format_cycles(hi - start)}"),
              Text(window_share(nav.window, nav.bounds))]
    if nav.merged is None:
        items.append(Text(f"IPU {nav.cursor_ipu} step {step:,}" if step >= 0 else f"IPU {nav.cursor_ipu} no steps"))
        items.append(Text(f"the run starts at cycle {format_cycles(start)}"))
    if nav.flame is not None:
        items.append(Text(f"c {'counts' if nav.include_host else 'skips'} host waits (h)"))
    if waiting:
        items.append(Text(waiting))
    return Text("\n").join(item_lines(items, max(width, 20), gap=" · ", max_lines=len(items)))


def cursor_details(
    report: "Report", nav: "TraceNavigator", nesting: "Nesting | None", run_cycles: int,
    fmt: Callable[[int], str], styles: dict[str, Style],
) -> Text:
    """The details panel under the cursor: its flame block, else its step, else why there is none.
    RUN_CYCLES are the cursor's IPU's cycles in the run (a block's share of them)."""
    block = nav.flame_block
    if block is not None and nesting is not None:
        return block_details(report, nesting, *block, nav.cursor_ipu, nav.current_lane, run_cycles, styles)
    if nav.flame is not None and nav.flame_cursor.depth >= 0:
        return Text(f"IPU {nav.cursor_ipu} has no steps nested {nav.flame_cursor.depth + 1} deep.")
    step = nav.selected_step
    if step < 0:
        return Text(f"IPU {nav.cursor_ipu} ran no steps in this run.")
    return step_details(report, step, nav.cursor_ipu, fmt, styles)


def step_details(
    report: "Report", step: int, ipu: int, fmt: Callable[[int], str], styles: dict[str, Style]
) -> Text:
    """What the details panel says about STEP, on IPU first and then on every IPU; STYLES colour text."""
    execution = report.execution
    assert execution is not None
    muted = styles.get("muted", Style(dim=True))
    clock = report.target.clock_hz
    out = Text()
    row = _labelled(out, muted)
    program = int(execution.program[step])
    programs = report.programs
    unknown = unknown_program(report, program)
    if unknown is None:
        row("Step", f"{step:,}  program {program:,}  {programs.names[program] or '—'}")
        row("Type", _type_text(programs.type_name(program), styles, muted))
    else:
        row("Step", f"{step:,}  program {program:,}")
        row("Type", Text(unknown, style=muted))
    cycles = int(execution.cycles[step, ipu])
    start, end = int(execution.cycles_from[step, ipu]), int(execution.cycles_to[step, ipu])
    time = f"  {format_seconds(cycles / clock)} at {clock / 1e9:.3g} GHz" if clock else ""
    row(f"IPU {ipu}", f"{format_cycles(start)} → {format_cycles(end)}  {format_cycles(cycles)} cycles{time}")
    if execution.tile_balance is not None:
        row("Balance", f"tiles {percent(float(execution.tile_balance[step, ipu]))}  "
                       f"active tiles {percent(float(execution.active_tile_balance[step, ipu]))}")
        row("Data", f"in {fmt(int(execution.data_in[step, ipu]))}  out {fmt(int(execution.data_out[step, ipu]))}")
    elif execution.active_tiles is not None:
        row("Active", f"{int(execution.active_tiles[step, ipu]):,} tiles  (balance, data: profile.pop read by libpva)")
    _every_ipu(out, execution, step, ipu, fmt, muted)
    out.rstrip()
    return out


def _ipu_extras(execution, step: int, ipu: int, fmt: Callable[[int], str]) -> tuple[str, ...]:
    """The step's balance and data on IPU (libpva's), else its active tiles (profile.pop's tables), else nothing."""
    if execution.tile_balance is not None:
        return (percent(float(execution.tile_balance[step, ipu])),
                percent(float(execution.active_tile_balance[step, ipu])),
                fmt(int(execution.data_in[step, ipu])), fmt(int(execution.data_out[step, ipu])))
    if execution.active_tiles is not None:
        return (f"{int(execution.active_tiles[step, ipu]):,}",)
    return ()


def _every_ipu(out: Text, execution, step: int, ipu: int, fmt: Callable[[int], str], muted: Style) -> None:
    """A table of STEP on every IPU, IPU's row in bold."""
    balanced = execution.tile_balance is not None
    header = ("IPU", "from", "to", "cycles", *(("balance", "active", "in", "out") if balanced else ("active tiles",)))
    rows = []
    for other in range(execution.num_ipus):
        begin = int(execution.cycles_from[step, other])
        rows.append((other, None) if begin < 0 else (other, (
            str(other), f"{begin:,}", f"{int(execution.cycles_to[step, other]):,}",
            f"{int(execution.cycles[step, other]):,}", *_ipu_extras(execution, step, other, fmt),
        )))
    widths = [max([len(h)] + [len(r[i]) for _, r in rows if r]) for i, h in enumerate(header)]
    out.append(" ".join(h.rjust(w) for h, w in zip(header, widths)) + "\n", style=muted)
    for other, cells in rows:
        if cells is None:
            out.append(f"{other:>{widths[0]}} did not run\n", style=muted)
        else:
            line = " ".join(c.rjust(w) for c, w in zip(cells, widths)) + "\n"
            out.append(line, style=Style(bold=True) if other == ipu else Style())


def block_details(
    report: "Report", nesting: "Nesting", row: "FlameRow", block: int, ipu: int, lane: "Lane", run_cycles: int,
    styles: dict[str, Style],
) -> Text:
    """What the details panel says about a flame block of IPU's LANE: its path, cycles, steps and share
    of the run."""
    muted = styles.get("muted", Style(dim=True))
    execution = report.execution
    first, stop = int(row.first[block]), int(row.stop[block])
    program = int(execution.program[int(lane.steps[first])])
    path = nesting.path(program)[: int(np.flatnonzero(nesting.node_of[program] == row.node[block])[0]) + 1]
    cycles = int(row.cycles[block])
    out = Text()
    line = _labelled(out, muted)
    line("Block", Text(" › ".join(path), style="bold"))
    share = f"  {percent(cycles / run_cycles)} of the run on IPU {ipu}" if run_cycles else ""
    line("Cycles", f"{format_cycles(cycles)}{share}")
    line("Steps", f"{stop - first:,}  (lane steps {first:,}–{stop - 1:,})")
    start, end = int(row.lane.starts[block]), int(row.lane.ends[block])
    line("Span", f"{format_cycles(start)} → {format_cycles(end)}  {format_cycles(end - start)} cycles")
    if row.leaf[block] and unknown_program(report, program) is None:
        line("Type", _type_text(report.programs.type_name(program), styles, muted))
    same = np.asarray(row.node) == row.node[block]
    total = int(np.asarray(row.cycles)[same].sum())
    share = f" ({percent(total / run_cycles)})" if run_cycles else ""
    line("All", f"{format_cycles(total)} cycles{share} in {count_of(int(same.sum()), 'block')} named so at this depth")
    if row.host[block]:
        line("Host wait", Text(HOST_WAIT_NOTE, style=muted))
    source = "debug.cbor: layer › operation › PopLibs call" if nesting.linked[program] else "the program's name"
    line("Nesting", Text(f"depth {len(path)}, from {source}", style=muted))
    out.rstrip()
    return out


def merged_details(merged: "MergedFlame", node: int, own: bool, muted: Style) -> Text:
    """What the details panel says about NODE's block of the merged view (with OWN, about its own part,
    on the row above the first depth): its path, IPU-cycles and share of the run's, each IPU's, its
    steps, and what the merged view sums."""
    out = Text()
    line = _labelled(out, muted)
    tree, run = merged.tree, merged.run + 1
    if node < 0:
        return Text("Nothing ran in this run.")
    line("Block", Text(" › ".join(tree.path(node)), style="bold"))
    cycles = int(merged.cycles_by_ipu[node].sum())
    if own:
        below = sum(int(merged.cycles_by_ipu[child].sum()) for child in tree.children(node).tolist())
        line("Own", f"{format_cycles(cycles - below)} IPU-cycles of its own steps, not of a path below it")
    share = f": {percent(cycles / merged.total)} of run {run}'s {format_cycles(merged.total)}" if merged.total else ""
    line("Cycles", f"{format_cycles(cycles)} IPU-cycles{share}")
    by_ipu = merged.cycles_by_ipu[node].tolist()
    line("Per IPU", " · ".join(f"IPU {ipu} {format_cycles(c)}" for ipu, c in enumerate(by_ipu)))
    line("Steps", f"{int(merged.steps[node]):,}")
    if tree.is_host(node):
        line("Host wait", Text(HOST_WAIT_NOTE, style=muted))
    line("Merged", Text(f"run {run}'s steps on every IPU summed by model-layer path, widest first", style=muted))
    out.rstrip()
    return out


def stats_text(stats: dict | Unavailable, run: int, styles: dict[str, Style], first_ipu: int = 0, width: int = 80,
               report_total: int | None = None) -> Text:
    """The step statistics of RUN: a row per step type, and for each IPU from FIRST_IPU that fits in
    WIDTH its steps, cycles and share; stream copies split into host and remote-buffer rows. The
    run's figures come first, and the REPORT_TOTAL where the report states one."""
    if isinstance(stats, Unavailable):
        return unavailable_text(stats)
    if run >= len(stats["runs"]):
        return Text(f"No step statistics of run {run + 1}.")
    muted = styles.get("muted", Style(dim=True))
    data = stats["runs"][run]
    ipus = data["ipus"]
    fits = max((width - STATS_TYPE_WIDTH) // STATS_IPU_WIDTH, 1)
    first = min(max(first_ipu, 0), max(len(ipus) - fits, 0))
    shown = ipus[first : first + fits]
    out = Text()
    out.append(f"Step statistics, run {run + 1} {data['name']}", style="bold")
    more = f" · IPUs {first}–{first + len(shown) - 1} of {len(ipus)}, up/down for others" if len(shown) < len(ipus) else ""
    out.append(f"{more}\n", style=muted)
    total = f"; report total {format_cycles(report_total)} (every run)" if report_total is not None else ""
    out.append(f"{run_figures_line(data)}{total}\n", style=muted)
    out.append(" " * STATS_TYPE_WIDTH)
    for ipu in shown:
        out.append(f"{'IPU ' + str(ipu['ipu']):>{STATS_IPU_WIDTH}}", style="bold")
    out.append("\n" + f"{'step type':<{STATS_TYPE_WIDTH}}" + f"{'steps':>8}{'cycles':>13}{'share':>6}" * len(shown) + "\n",
               style=muted)
    names = list(dict.fromkeys(name for ipu in ipus for name in ipu["types"]))
    for name in names:
        out.append(_clip(name, STATS_TYPE_WIDTH - 1).ljust(STATS_TYPE_WIDTH), style=styles.get(phase_of(name), Style()))
        out.append("".join(_stats_cells(ipu["types"].get(name)) for ipu in shown) + "\n")
        for kind, label in (("host", "  host"), ("remote_buffer", "  remote buffer")):
            parts = [ipu["types"].get(name, {}).get(kind) for ipu in shown]
            if any(part and part["steps"] for part in parts):
                out.append(label.ljust(STATS_TYPE_WIDTH) + "".join(_stats_cells(part, share=False) for part in parts)
                           + "\n", style=muted)
    out.append(f"{'all':<{STATS_TYPE_WIDTH}}", style="bold")
    out.append("".join(f"{ipu['steps']:>8,}{format_cycles(ipu['cycles']):>13}{'100%':>6}" for ipu in shown))
    return out


def _stats_cells(entry: dict | None, share: bool = True) -> str:
    """One IPU's steps, cycles and (with SHARE) share of a step type, in STATS_IPU_WIDTH cells."""
    if not entry or not entry["steps"]:
        return " " * STATS_IPU_WIDTH
    tail = f"{percent(entry['share']):>6}" if share else " " * 6
    return f"{entry['steps']:>8,}{format_cycles(entry['cycles']):>13}{tail}"


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"
