"""`pvtui split PATH --ipus N`: per-layer memory of a single-IPU report and pipeline split points."""

from __future__ import annotations

import argparse
from typing import Any

from functools import partial

from pvtui.commands.common import (
    EXIT_BAD_INPUT, add_report_arguments, add_units_argument, bytes_format, emit_available, load, say,
)



def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_report_arguments(parser)
    parser.add_argument("--ipus", type=int, required=True, help="how many IPUs to split the model across")
    parser.add_argument("--layer-pattern", default=None,
                        help="regular expression naming a layer in operation names (default: names like layer0, layers.3)")
    add_units_argument(parser)


def run(args: argparse.Namespace) -> int:
    from pvtui.model.splits import DEFAULT_LAYER_PATTERN, compile_pattern, split_data

    pattern = args.layer_pattern if args.layer_pattern is not None else DEFAULT_LAYER_PATTERN
    try:
        compile_pattern(pattern)
        if args.ipus < 1:
            raise ValueError(f"--ipus must be at least 1, not {args.ipus}")
    except ValueError as exc:
        say(f"pvtui: {exc}")
        return EXIT_BAD_INPUT
    report = load(args.path, args.engine, args.reader, exact_text=args.json)
    data = split_data(report, args.ipus, pattern)
    return emit_available(args, data, partial(render, fmt=bytes_format(args)))


def render(data: dict[str, Any], fmt) -> None:
    from pvtui.render.console import TextConsole
    from pvtui.render.split import split_renderables

    console = TextConsole()
    for renderable in split_renderables(data, fmt):
        console.print(renderable)
