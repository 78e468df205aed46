"""`pvtui summary PATH`: target, memory, programs and execution facts."""

from __future__ import annotations

import argparse

from functools import partial

from pvtui.commands.common import add_report_arguments, add_units_argument, bytes_format, emit, load


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from pvtui.render.figures import figures_text

    add_report_arguments(parser)
    add_units_argument(parser)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = figures_text()


def run(args: argparse.Namespace) -> int:
    from pvtui.model.queries import summary
    from pvtui.render.tables import render_summary

    emit(args, summary(load(args.path, args.engine, args.reader, exact_text=args.json)), partial(render_summary, fmt=bytes_format(args)))
    return 0
