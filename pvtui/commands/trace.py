"""`pvtui trace PATH`: execution runs, steps and cycles."""

from __future__ import annotations

import argparse

from pvtui.commands.common import add_report_arguments, run_part


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_report_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from pvtui.model.queries import trace_table
    from pvtui.render.tables import render_trace

    return run_part(args, trace_table, render_trace, "execution")
