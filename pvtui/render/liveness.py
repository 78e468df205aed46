"""What the Liveness screen says in words: the cursor step's facts (as Textual markup, in the theme's
colours) and the variables live at it, or what changed since the marked step."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, NamedTuple

from pvtui.model.navigators.liveness import Window, column_around, steps_per_column
from pvtui.model.queries import live_difference, unknown_program
from pvtui.render.names import CPP_BREAKS, wrap_at_slashes
from pvtui.render.visible_text import markup_escape as escape  # Rich's and Textual's leave `ESC[6n[link=…]` a tag
from pvtui.render.step_change import changed_variables, step_change_line
from pvtui.units import MINUS, count_of, sign

if TYPE_CHECKING:
    from pvtui.model.navigators.liveness import LivenessNavigator, StepSeries
    from pvtui.model.report import Report

MAX_VARIABLES_LISTED = 32  # more than the details panel (at most 16 rows high) shows
VERTEX_TYPES_LISTED = 8  # of the step's compute set, in the step's facts


class Marks(NamedTuple):
    """The glyphs the facts draw: the always-live and not-always-live keys, and the marked step's."""

    always_live: str = "■"
    not_always_live: str = "■"
    marked: str = "◇"


BAND_SAID = {"compressed": "compressed", "hidden": "not drawn"}  # of the always-live band, after its bytes


def column_scale(window: Window, width: int) -> str:
    """How many steps a chart column shows; zoomed in past one step a column, how many columns a step spans."""
    if window.span >= width:
        return f"{count_of(steps_per_column(window, width), 'step')}/column"
    fewest, most = width // window.span, -(-width // window.span)  # the columns split between the steps
    return f"1 step/{fewest} columns" if fewest == most else f"1 step/{fewest}–{most} columns"


def ordinal(number: int) -> str:
    """`1st`, `2nd`, `3rd`, `4th`, `11th`, `22nd`."""
    suffix = "th" if number % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number:,}{suffix}"


def column_line(nav: "LivenessNavigator", width: int) -> str:
    """What the cursor's chart column holds and which of its steps the cursor is on (a column of several
    steps), else the scale; then the steps across the chart where they are not all of them."""
    steps = column_around(nav.cursor, nav.window, width)
    where = (f"Column {steps.start:,}–{steps.stop - 1:,}: cursor {ordinal(nav.cursor - steps.start + 1)} of "
             f"{len(steps):,}" if len(steps) > 1 else column_scale(nav.window, width))
    shown = "" if nav.window.span >= nav.num_steps else f" · steps {nav.window.start:,}–{nav.window.stop - 1:,}"
    return where + shown


def hanging(head: str, name: str, width: int, tail: str = "", style: str = "", after: str = "/") -> list[str]:
    """HEAD, then NAME broken after a character of AFTER onto lines of WIDTH cells, indented under its
    start, then TAIL (muted) after it, or on a line of its own where it does not fit: markup lines, NAME
    and TAIL escaped."""
    room = width - len(head)
    pieces = wrap_at_slashes(name, room, after)
    if tail and len(pieces[-1]) + 1 + len(tail) > room:
        pieces.append("")
    shown = [f"[{style}]{escape(piece)}[/]" if style and piece else escape(piece) for piece in pieces]
    if tail:
        shown[-1] += f"{' ' if pieces[-1] else ''}[$pv-muted]{escape(tail)}[/]"
    return [head + shown[0]] + [" " * len(head) + line for line in shown[1:]]


def step_facts(report: "Report", nav: "LivenessNavigator", series: "StepSeries | None", width: int,
               chart_width: int, fmt: Callable[[int], str], marks: Marks) -> list[str]:
    """The cursor step's facts in lines of WIDTH cells, each line's markup whole: its program, the bytes live in
    SERIES (the view's) against its capacity, the chart's scale (CHART_WIDTH columns), the marked step, the
    step's vertices."""
    live, step = report.liveness, nav.cursor
    program = int(live.program[step])
    at_peak = " · [$pv-peak]peak[/]" if series is not None and step == series.peak_step else ""
    label = series.label if series is not None else {"total": "all IPUs", "ipu": "per IPU", "tile": f"tile {nav.tile}"}[nav.view]
    lines = [f"[b]Step {step:,}[/b] of {len(live):,} · {label}{at_peak}", *program_lines(report, program, width)]
    if series is not None:
        always, not_always = series.always_live, series.at(step)
        total = not_always if always is None else always + not_always
        share = f"{100 * total / series.capacity:.1f}% of {fmt(series.capacity)}" if series.capacity else "—"
        always_text = "unknown" if always is None else fmt(always)
        band = BAND_SAID.get(nav.band, "") if always is not None else ""
        lines += [
            f"[$pv-always-live]{marks.always_live}[/] Always-live      {always_text}"
            + (f" [$pv-muted]{band}[/]" if band else ""),
            f"[$pv-not-always-live]{marks.not_always_live}[/] Not-always-live  {fmt(not_always)}",
            f"  Total            {fmt(total)}" if always is not None
            else "  [$pv-muted]always-live unknown: not-always-live only[/]",
            f"  Of the memory    {share}",
            *(own_change_lines(report, step, width, fmt) if step > 0 and nav.marked is None else []),
            f"[$pv-muted]{column_line(nav, chart_width)}[/]",
        ]
    elif nav.view == "tile" and live.by_tile is not None:
        lines.append(f"[$pv-muted]Reading tile {nav.tile}…[/]")
    if nav.marked is not None:
        lines.append(f"[b]{marks.marked}[/b] Marked step {nav.marked:,} [$pv-muted]· b on it unmarks[/]")
    return lines + vertex_lines(report, program, width)


def own_change_lines(report: "Report", step: int, width: int, fmt: Callable[[int], str]) -> list[str]:
    """What STEP changed against the step before (what `b` on both and `pvtui liveness --vs` say in full):
    `Since step N: +4.6 MiB, 3 appeared, 1 gone`, on two lines where one is narrower than that."""
    appeared, gone, change = live_difference(report, step - 1, step)
    bytes_part = f"Since step {step - 1:,}: {sign(change)}{fmt(abs(change))}"
    counts = f"{len(appeared):,} appeared, {len(gone):,} gone"
    line = f"{bytes_part}, {counts}"
    return [escape(line)] if len(line) <= width else [escape(bytes_part), f"  {counts}"]


def program_lines(report: "Report", program: int, width: int) -> list[str]:
    """The step's program, its name whole on as many lines as it needs, then its type."""
    unknown = unknown_program(report, program)
    if unknown is not None:
        return hanging("Program  ", f"{program:,} ({unknown})", width)
    programs = report.programs
    return hanging("Program  ", programs.names[program], width, f"({programs.type_name(program)})")


def vertex_lines(report: "Report", program: int, width: int) -> list[str]:
    """The vertex types of the step's compute set, most instances first, each name whole."""
    if unknown_program(report, program) is not None:
        return []
    programs = report.programs
    compute_set = int(programs.compute_set[program])
    if compute_set < 0:
        return ["[$pv-muted]No compute set: no vertices[/]"]
    vertices = sorted(programs.compute_set_vertices(compute_set), key=lambda v: -v[1])
    estimate = programs.estimated_cycles(program)
    cycles = "no cycle estimates in the profile" if estimate is None else f"estimated {estimate:,} cycles"
    types = count_of(len(vertices), "type")
    if len(f"Vertices  {types} · {cycles}") <= width:
        lines = [f"Vertices  [$pv-muted]{types} · {cycles}[/]"]
    else:
        lines = [f"Vertices  [$pv-muted]{types}[/]", f"          [$pv-muted]{cycles}[/]"]
    lines += hanging(" " * 10, f"in {programs.compute_set_names[compute_set]}", width, style="$pv-muted")
    for vertex, count in vertices[:VERTEX_TYPES_LISTED]:
        lines += hanging(f"  {count:>9,} ", programs.vertex_type_names[vertex], width, after=CPP_BREAKS)
    return lines


def live_list(report: "Report", nav: "LivenessNavigator", fmt: Callable[[int], str],
              minus: str = MINUS) -> tuple[str, list[tuple[str, str]], int]:
    """The variables panel: its heading, (size, name) of the largest variables, and how many there are:
    those live at the cursor's step, or, in the words of `pvtui liveness --step A --vs B`, what changed
    from the marked step to the cursor's."""
    live, step = report.liveness, nav.cursor
    names = live.variable_names
    if nav.marked is not None and nav.marked != step:
        appeared, gone, change = live_difference(report, nav.marked, step)
        return (
            step_change_line(nav.marked, step, change, len(appeared), len(gone), fmt, minus),
            changed_variables([(names[v], size) for v, size in appeared[:MAX_VARIABLES_LISTED]],
                              [(names[v], size) for v, size in gone[:MAX_VARIABLES_LISTED]], fmt, minus),
            len(appeared) + len(gone),
        )
    live_here = live.live_variables(step)
    return (
        f"Live at step {step:,}: {count_of(len(live_here), 'variable')}"
        + ("" if nav.view == "total" else ", all IPUs"),
        [(fmt(size), names[v]) for v, size in live_here[:MAX_VARIABLES_LISTED]],
        len(live_here),
    )
