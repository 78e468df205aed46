"""`pvtui hotspots PATH`: which compute sets, exchanges, programs or single steps take the IPU-cycles,
costliest first; host waits never ranked."""

from __future__ import annotations

import argparse
from typing import Any

from pvtui.commands.common import EXIT_BAD_INPUT, add_report_arguments, emit_available, load, say
from pvtui.commands.operations import row_count
from pvtui.render.names import name_room, wrap_at_slashes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from pvtui.model.hotspots import BY

    add_report_arguments(parser)
    parser.add_argument("--by", choices=BY, default=BY[0],
                        help="compute-set (the default), exchange (internal and global exchanges, inter-IPU and"
                             " remote-buffer copies), program, or step (each step on each IPU, longest first)")
    parser.add_argument("--type", metavar="TYPE", help="count only the steps of this step type (OnTileExecute,"
                                                       " DoExchange...; any case)")
    parser.add_argument("--run", type=run_number, metavar="R", help="count only run R (from 1, as the Trace counts)")
    parser.add_argument("--top", type=row_count, default=None, metavar="N", help="keep the first N rows (20 in tables)")


def run_number(text: str) -> int:
    """argparse type of --run: a run's number, from 1."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a run's number (1 or more)")
    return int(text)


def run(args: argparse.Namespace) -> int:
    from pvtui.model.hotspots import hotspots_data

    report = load(args.path, args.engine, args.reader, exact_text=args.json)
    top = args.top if args.top is not None else (None if args.json else 20)
    try:
        data = hotspots_data(report, args.by, report.text(args.type) if args.type else None, args.run, top)
    except ValueError as exc:
        say(f"pvtui: {args.path}: {exc}")
        return EXIT_BAD_INPUT
    return emit_available(args, data, render)


def render(data: dict[str, Any]) -> None:
    from rich.table import Table

    from pvtui.render.console import TextConsole

    console = TextConsole()
    if not data["rows"]:
        console.print("No steps counted: nothing ran of what the options keep.", highlight=False)
        return
    step = data["by"] == "step"
    headings, cells = (STEP_COLUMNS, [step_cells(row) for row in data["rows"]]) if step else \
        (COLUMNS, [row_cells(row) for row in data["rows"]])
    if data["by"] == "exchange":
        headings, cells = (*headings, "kind"), [[*c, row["kind"]] for c, row in zip(cells, data["rows"])]
    widths = [max([len(name), *(len(c[i]) for c in cells)]) for i, name in enumerate(headings)]
    kept = list(range(len(headings)))
    for dropped in [o for o in OPTIONAL if o in headings]:  # where the names would be cut short, these give way
        if name_room(console.width, [widths[i] for i in kept], 0) >= MIN_NAME_WIDTH:
            break
        kept.remove(headings.index(dropped))
    headings, cells = [headings[i] for i in kept], [[c[i] for i in kept] for c in cells]
    name_width = name_room(console.width, [widths[i] for i in kept], MIN_NAME_WIDTH)
    title = "The longest single steps on one IPU" if step else \
        f"Hotspots by {data['by']}, costliest first (host waits not ranked)"
    table = Table(title=title, title_justify="left")
    table.add_column("program" if step else "name", overflow="fold", max_width=name_width)
    for name in headings:
        table.add_column(name, justify="left" if name in ("type", "model layer", "kind") else "right", no_wrap=True)
    for row, figures in zip(data["rows"], cells):
        table.add_row("\n".join(wrap_at_slashes(row["name"], name_width)), *figures)
    console.print(table)
    console.print("IPU-cycles: summed over every profiled run, step and IPU; IPU-steps: step-IPU pairs; longest: the"
                  " longest single step on one IPU", style="dim", highlight=False)


COLUMNS = ("IPU-cycles", "share", "IPU-steps", "mean", "longest", "model layer")
STEP_COLUMNS = ("cycles", "run", "step", "IPU", "type")
OPTIONAL = ("kind", "model layer", "mean")  # in the order they give way to the names
MIN_NAME_WIDTH = 24


def row_cells(row: dict[str, Any]) -> list[str]:
    from pvtui.units import format_share

    return [f"{row['cycles']:,}", format_share(row["share"]), f"{row['count']:,}", f"{row['mean_cycles']:,.0f}",
            f"{row['max_cycles']:,}", row["layer"] or "—"]


def step_cells(row: dict[str, Any]) -> list[str]:
    return [f"{row['cycles']:,}", str(row["run"]), f"{row['step']:,}", str(row["ipu"]), row["type"] or "—"]
