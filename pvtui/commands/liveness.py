"""`pvtui liveness PATH`: always-live and not-always-live memory over program steps."""

from __future__ import annotations

import argparse

from pvtui.commands.common import add_report_arguments, run_part


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_report_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from pvtui.model.queries import liveness_table
    from pvtui.render.tables import render_liveness

    return run_part(args, liveness_table, render_liveness, "liveness")
