"""`pvtui split PATH --ipus N`: per-layer memory of a single-IPU report and pipeline split points."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

HELP = "suggest pipeline split points that balance a single-IPU report's memory across N IPUs"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, help="report directory, file or bundle")
    parser.add_argument("--engine", help="which report, where PATH holds several")
    parser.add_argument("--ipus", type=int, required=True, help="how many IPUs to split the model across")
    parser.add_argument("--layer-pattern", default=None,
                        help="regular expression naming a layer in operation names (default: names like layer0, layers.3)")


def run(args: argparse.Namespace) -> int:
    from pvtui.cli import EXIT_BAD_INPUT, emit_available, load, say
    from pvtui.model.splits import DEFAULT_LAYER_PATTERN, compile_pattern, split_data

    pattern = args.layer_pattern if args.layer_pattern is not None else DEFAULT_LAYER_PATTERN
    try:
        compile_pattern(pattern)
        if args.ipus < 1:
            raise ValueError(f"--ipus must be at least 1, not {args.ipus}")
    except ValueError as exc:
        say(f"pvtui: {exc}")
        return EXIT_BAD_INPUT
    report = load(args.path, args.engine)
    data = split_data(report, args.ipus, pattern)
    return emit_available(args, data, render)


def render(data: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    from pvtui.units import format_bytes

    console = Console()
    layers = Table(title=f"Memory per layer (pattern {data['pattern']})", title_justify="left")
    layers.add_column("layer")
    for name in ("ops", "code", "always-live", "peak temporaries", "memory"):
        layers.add_column(name, justify="right")
    for layer in data["layers"]:
        name = layer["name"] if layer["matched"] else f"{layer['name']} *"
        layers.add_row(name, str(layer["operations"]), format_bytes(layer["code_bytes"]),
                       format_bytes(layer["always_live_bytes"]), format_bytes(layer["peak_not_always_live_bytes"]),
                       format_bytes(layer["memory"]))
    console.print(layers)
    if not all(layer["matched"] for layer in data["layers"]):
        console.print("* not named by the pattern: operations grouped by the first part of their names",
                      style="dim", highlight=False)
    console.print(data["counted"], style="dim", highlight=False)
    tile = data["bytes_per_tile"]
    ipus = f"{data['ipus']} IPU{'s' * (data['ipus'] != 1)}"
    stages = Table(title=f"Stages on {ipus} (tile memory {format_bytes(tile)})", title_justify="left")
    for name, justify in (("IPU", "right"), ("layers", "left"), ("memory", "right"), ("worst tile", "right"),
                          ("of tile", "right"), ("fits", "left")):
        stages.add_column(name, justify=justify)
    for stage in data["stages"]:
        worst = stage["estimated_worst_tile_bytes"]
        share = f"{100 * worst / tile:.0f}%" if tile and worst is not None else "—"
        fits = {True: "yes", False: "no", None: "unknown"}[stage["fits"]]
        stages.add_row(str(stage["ipu"]), ", ".join(stage["layers"]), format_bytes(stage["memory"]),
                       "—" if worst is None else format_bytes(worst), share, fits,
                       style="red" if stage["fits"] is False else None)
    console.print(stages)
    console.print(data["fit_rule"], style="dim", highlight=False)
    if data["split_after"]:
        console.print(f"Split after: {', '.join(data['split_after'])}", highlight=False)
    console.print(f"Each stage includes {format_bytes(data['stages'][0]['shared_bytes'] if data['stages'] else 0)}:"
                  " its share of the memory no layer owns.", style="dim", highlight=False)
    for note in data["notes"]:
        console.print(note, style="yellow", highlight=False)
