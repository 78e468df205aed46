"""`pvtui summary PATH`: target, memory, programs and execution facts."""

from __future__ import annotations

import argparse

from pvtui.commands.common import add_report_arguments, emit, load


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_report_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from pvtui.model.queries import summary
    from pvtui.render.tables import render_summary

    emit(args, summary(load(args.path, args.engine, args.reader)), render_summary)
    return 0
