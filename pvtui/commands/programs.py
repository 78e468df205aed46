"""`pvtui programs PATH`: the program tree: counts by type."""

from __future__ import annotations

import argparse

from functools import partial

from pvtui.commands.common import add_report_arguments, add_units_argument, bytes_format, run_part


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_report_arguments(parser)
    add_units_argument(parser)


def run(args: argparse.Namespace) -> int:
    from pvtui.model.queries import programs_table
    from pvtui.render.tables import render_programs

    return run_part(args, programs_table, partial(render_programs, fmt=bytes_format(args)))
