"""`pvtui trace PATH [--stats]`: execution runs, steps and cycles, or the statistics of each step type."""

from __future__ import annotations

import argparse

from pvtui.commands.common import add_report_arguments, emit_available, load, run_part


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from pvtui.render.figures import figures_text

    add_report_arguments(parser)
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = figures_text()
    parser.add_argument("--stats", action="store_true",
                        help="steps, cycles and share of each step type, per run and IPU")


def run(args: argparse.Namespace) -> int:
    if args.stats:
        from pvtui.model.step_stats import step_stats
        from pvtui.render.tables import render_step_stats

        report = load(args.path, args.engine, args.reader, exact_text=args.json)
        return emit_available(args, step_stats(report), render_step_stats)
    from pvtui.model.queries import trace_table
    from pvtui.render.tables import render_trace

    return run_part(args, trace_table, render_trace)
