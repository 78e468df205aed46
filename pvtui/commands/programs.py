"""`pvtui programs PATH`: the program tree: counts by type."""

from __future__ import annotations

import argparse

from pvtui.commands.common import add_report_arguments, run_part


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_report_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from pvtui.model.queries import programs_table
    from pvtui.render.tables import render_programs

    return run_part(args, programs_table, render_programs, "programs")
