"""`pvtui insights PATH`: how full the target is, the fullest tiles, a histogram of the tiles,
the largest vertices, the liveness peaks and what would free memory."""

from __future__ import annotations

import argparse
from typing import Any

from pvtui.commands.common import add_report_arguments, add_units_argument, bytes_format, emit, load


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_report_arguments(parser)
    add_units_argument(parser)


def run(args: argparse.Namespace) -> int:
    from pvtui.model.insights import insights

    report = load(args.path, args.engine, args.reader, exact_text=args.json)
    emit(args, insights(report), lambda data: _print(report, data, bytes_format(args)))
    return 0


def _print(report, data: dict[str, Any], fmt) -> None:
    from pvtui.render.console import TextConsole
    from rich.text import Text

    from pvtui.model.insights import histogram
    from pvtui.model.navigators.memory import tile_memory
    from pvtui.render.insights import SECTIONS, headline, section_renderables
    console = TextConsole()
    console.print(Text(f"Insights · {data['report']}", style="bold"))
    console.print(headline(data, fmt))
    for key, title in SECTIONS:
        section = data[key]
        if key == "histogram":  # as many bins as the terminal has columns
            section = histogram(report, tile_memory(report), max(console.width - 2, 10))
        console.print()
        console.print(Text(title, style="bold underline"))
        for renderable in section_renderables(key, section, fmt):
            console.print(renderable)
