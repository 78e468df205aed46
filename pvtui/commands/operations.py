"""`pvtui operations PATH`: the operations of one debug layer, with programs, memory and cycles; or,
with `--group layer`, the model layers they make up, with their IPU-cycles and memory."""

from __future__ import annotations

import argparse
from functools import partial
from typing import Any

from pvtui.commands.common import (
    EXIT_BAD_INPUT, add_report_arguments, add_units_argument, at_least_one, bytes_format, emit_available, load, say,
)

FIGURES = ("memory", "code", "variables", "cycles")
MIN_NAME_WIDTH = 8  # below this, names fold within their parts


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_report_arguments(parser)
    parser.add_argument("--group", choices=("operation", "layer"), default="operation",
                        help="operation: the operations of one debug layer (default); layer: the model layers"
                             " (the outer parts of the operations' names), costliest first, host waits last")
    parser.add_argument("--depth", type=at_least_one("levels"), default=1,
                        help="with --group layer: the levels of names to nest (default 1: the top model layers)")
    parser.add_argument("--layer", help="debug layer, by name or label, any case: popart, onnx, poptorch, xla..."
                                        " (default: the operations' own)")
    parser.add_argument("--sort", help="order of the rows: memory (the default by operation), code, variables,"
                                       " cycles (the default by model layer), programs, step or name")
    parser.add_argument("--filter", default="", help="keep rows whose name contains this text")
    parser.add_argument("--top", type=row_count, default=None, metavar="N", help="keep the first N rows (20 in tables)")
    add_units_argument(parser)


def row_count(text: str) -> int:
    """argparse type of --top: a whole number, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of rows (0 or more)")
    return value


def run(args: argparse.Namespace) -> int:
    from pvtui.model.layer_outline import SORTS, layers_data
    from pvtui.model.operations import SORT_KEYS, operations_data
    from pvtui.render.layers import render_layers

    by_layer = args.group == "layer"
    sorts = SORTS if by_layer else SORT_KEYS
    sort = args.sort or sorts[0]
    if sort not in sorts:
        say(f"pvtui: --sort {sort!r}{' by model layer' if by_layer else ''}: choose one of {', '.join(sorts)}")
        return EXIT_BAD_INPUT
    if by_layer and args.layer:
        say("pvtui: --layer names a debug layer, which only --group operation shows")
        return EXIT_BAD_INPUT
    report = load(args.path, args.engine, args.reader, exact_text=args.json)
    text = report.text(args.filter)  # compared with names in the form the report gives them
    top = args.top if args.top is not None else (None if args.json else 20)
    try:
        if by_layer:
            data = layers_data(report, sort, text, args.depth, top)
        else:
            data = operations_data(report, report.text(args.layer), sort, text, top)
    except ValueError as exc:
        say(f"pvtui: {args.path}: {exc}")
        return EXIT_BAD_INPUT
    return emit_available(args, data, partial(render_layers if by_layer else render, fmt=bytes_format(args)))


def render(data: dict[str, Any], fmt) -> None:
    from pvtui.render.console import TextConsole
    from rich.table import Table

    from pvtui.render.names import name_room, wrap_at_slashes
    from pvtui.units import count_of, format_cycles

    console = TextConsole()
    shown = f"{data['shown']:,} of {data['total']:,}"
    title = f"{data['label']} operations by {data['sort']} ({shown}"
    title += f", name contains {data['filter']!r})" if data["filter"] else ")"
    if not data["operations"]:
        if data["matched"]:
            console.print(f"No rows shown: --top 0 of {data['matched']:,}.", highlight=False)
        else:
            console.print(f"No {data['label']} operation name contains {data['filter']!r}"
                          f" (of {count_of(data['total'], 'operation')}).", highlight=False)
        return
    rows = []
    for row in data["operations"]:
        variables = "not found" if row["variable_bytes"] is None else fmt(row["variable_bytes"])
        rows.append([fmt(row["memory"]), fmt(row["code_bytes"]), variables,
                     format_cycles(row["cycles"])])
    figure_widths = [max([len(name), *(len(cells[i]) for cells in rows)]) for i, name in enumerate(FIGURES)]
    name_width = name_room(console.width, figure_widths, MIN_NAME_WIDTH)
    table = Table(title=title, title_justify="left")
    table.add_column("name", overflow="fold", max_width=name_width)
    for name in FIGURES:
        table.add_column(name, justify="right", no_wrap=True)
    for row, cells in zip(data["operations"], rows):
        table.add_row("\n".join(wrap_at_slashes(row["name"], name_width)), *cells)
    console.print(table)
    console.print(f"layers: {', '.join(data['layers'])}  ·  {data['cycles_note']}", style="dim", highlight=False)
    console.print("code: leaf programs only; variables: those the operations list, found by name in liveness",
                  style="dim", highlight=False)
