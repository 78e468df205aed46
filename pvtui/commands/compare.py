"""`pvtui compare A B`: two reports side by side, B - A, in the explorer or headless."""

from __future__ import annotations

import argparse
from pathlib import Path

from pvtui.commands.common import (
    EXIT_BAD_INPUT,
    add_debug_argument,
    add_reader_argument,
    add_units_argument,
    emit,
    find_report,
    load,
    say,
)
from pvtui.commands.compare_gate import add_gate_arguments, run_gate, run_metrics
from pvtui.process.streams import on_a_terminal
from pvtui.process.collector import hold as hold_collections


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", type=Path, help="the first report (A): directory, file or bundle")
    parser.add_argument("b", type=Path, help="the second report (B), compared against A")
    parser.add_argument("--engine-a", help="which report in A, where it holds several")
    parser.add_argument("--engine-b", help="which report in B, where it holds several")
    parser.add_argument("--theme", help="theme name, for the explorer")
    parser.add_argument("--group", choices=("layer",),
                        help="layer: only the model layers, their IPU-cycles and memory in A and B (as text or --json)")
    add_units_argument(parser)
    add_debug_argument(parser)
    add_reader_argument(parser)
    add_gate_arguments(parser)


def run(args: argparse.Namespace) -> int:
    if args.metrics:
        return run_metrics(args)
    if args.fail_if:
        return run_gate(args)
    if args.format:
        say("pvtui compare: --format goes with --fail-if (a comparison takes --json)")
        return EXIT_BAD_INPUT
    if args.group == "layer":
        return run_layers(args)
    if not args.json and on_a_terminal():
        hold_collections()  # until the report is shown (pvtui.process.collector)
        from pvtui.app import run_app

        return run_app(args.a, engine=args.engine_a, theme=args.theme, reader=args.reader,
                       compare_with=find_report(args.b, args.engine_b), debug=args.debug)
    from pvtui.model.compare import compare
    from pvtui.render.compare import render_comparison
    from pvtui.render.compare_json import comparison_json

    a, b = (load(path, engine, args.reader, exact_text=args.json) for path, engine in _reports(args))
    data = comparison_json(compare(a, b))
    data["a"]["path"], data["b"]["path"] = str(args.a), str(args.b)
    emit(args, data, lambda shown: render_comparison(shown, _differences(args)))
    return 0


def run_layers(args: argparse.Namespace) -> int:
    """`pvtui compare A B --group layer`: the model layers of A and B, B - A."""
    from pvtui.model.layer_compare import layer_changes, layers_json

    data = {"a": {"name": None, "path": str(args.a)}, "b": {"name": None, "path": str(args.b)},
            "difference": "B - A", "group": "layer"}
    from pvtui.render.compare import render_layer_comparison

    a, b = (load(path, engine, args.reader, exact_text=args.json) for path, engine in _reports(args))
    data["a"]["name"], data["b"]["name"] = a.name, b.name
    data["layers"] = layers_json(layer_changes(a, b))
    emit(args, data, lambda shown: render_layer_comparison(shown, _differences(args)))
    return 0


def _reports(args: argparse.Namespace) -> tuple[tuple[Path, str | None], tuple[Path, str | None]]:
    """A's and B's paths and engines, in that order."""
    return (args.a, args.engine_a), (args.b, args.engine_b)


def _differences(args: argparse.Namespace):
    """Bytes in the units asked for, the minus sign the console can show."""
    from pvtui.render.compare import Differences
    from pvtui.render.glyphs import text_minus
    from pvtui.units import UNIT_NAMES

    return Differences(UNIT_NAMES[args.units], text_minus())
