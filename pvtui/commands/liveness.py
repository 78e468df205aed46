"""`pvtui liveness PATH [--step A --vs B]`: always-live and not-always-live memory over program steps,
or what changed between two steps."""

from __future__ import annotations

import argparse

from functools import partial

from pvtui.commands.common import (
    EXIT_BAD_INPUT, add_report_arguments, add_units_argument, bytes_format, emit_available, load, run_part, say,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_report_arguments(parser)
    parser.add_argument("--step", type=int, metavar="A", help="with --vs: the liveness step to compare from")
    parser.add_argument("--vs", type=int, metavar="B", help="with --step: the step to compare with A")
    add_units_argument(parser)


def run(args: argparse.Namespace) -> int:
    if args.step is None and args.vs is None:
        from pvtui.model.queries import liveness_table
        from pvtui.render.tables import render_liveness

        return run_part(args, liveness_table, partial(render_liveness, fmt=bytes_format(args)))
    if args.step is None or args.vs is None:
        say("pvtui: liveness --step A --vs B needs both steps")
        return EXIT_BAD_INPUT
    from pvtui.model.queries import liveness_step_diff
    from pvtui.render.tables import render_liveness_diff

    report = load(args.path, args.engine, args.reader, exact_text=args.json)
    return emit_available(args, liveness_step_diff(report, args.step, args.vs),
                          partial(render_liveness_diff, fmt=bytes_format(args)))
