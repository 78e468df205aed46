"""`pvtui memory PATH`: memory per tile, largest first; `--tile N` and `--variable NAME` (memory_detail)."""

from __future__ import annotations

import argparse

from pvtui.commands import memory_detail
from functools import partial

from pvtui.commands.common import (
    EXIT_BAD_INPUT, add_report_arguments, add_units_argument, at_least_one, bytes_format, emit, load, say,
)

DEFAULT_TOP = 20  # tiles in a table; --json gives every tile unless --top says otherwise


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_report_arguments(parser)
    parser.add_argument("--top", type=at_least_one("tiles"), default=None, metavar="N", help="keep the N largest tiles")
    memory_detail.add_arguments(parser)
    add_units_argument(parser)


def run(args: argparse.Namespace) -> int:
    from pvtui.model.queries import memory_table
    from pvtui.render.tables import render_memory

    if memory_detail.wanted(args) and args.top is not None:
        say("pvtui: memory --top N keeps the largest tiles; it does not go with --tile or --variable")
        return EXIT_BAD_INPUT
    report = load(args.path, args.engine, args.reader, exact_text=args.json)
    if memory_detail.wanted(args):
        return memory_detail.run(args, report)
    top = args.top if args.top is not None else (None if args.json else DEFAULT_TOP)
    emit(args, memory_table(report, top), partial(render_memory, fmt=bytes_format(args)))
    return 0
