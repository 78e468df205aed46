"""`pvtui summary PATH`: target, memory, programs and execution facts."""

from __future__ import annotations

import argparse

from pvtui.commands.common import add_report_arguments, emit, load


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from pvtui.render.figures import figures_text

    add_report_arguments(parser)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = figures_text()


def run(args: argparse.Namespace) -> int:
    from pvtui.model.queries import summary
    from pvtui.render.tables import render_summary

    emit(args, summary(load(args.path, args.engine)), render_summary)
    return 0
