"""`pvtui options [JSON]`: explain and check a set of Poplar engine options ($POPLAR_ENGINE_OPTIONS)."""

from __future__ import annotations

import argparse
import json
import os

from pvtui.commands.common import EXIT_BAD_INPUT, say

ENV = "POPLAR_ENGINE_OPTIONS"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("options", nargs="?", metavar="JSON",
                        help=f"the options as JSON, e.g. '{{\"autoReport.all\":\"true\"}}' (default: ${ENV})")


def read_options(text: str | None, where: str):
    """The Analysis of TEXT, or None after saying why it is malformed (with a caret under the spot)."""
    from pvtui.options.option_set import MalformedOptions, analyse, parse

    try:
        options, repeated = parse(text or "{}", where)
    except MalformedOptions as exc:
        for line in exc.lines():
            say(line)
        return None
    return analyse(options, repeated)


def run(args: argparse.Namespace) -> int:
    text, where = (args.options, "JSON") if args.options is not None else (os.environ.get(ENV), ENV)
    if text is None or not text.strip():
        say(f"pvtui: {ENV} is not set: Poplar writes no report. "
            f"{ENV}='{{\"autoReport.all\":\"true\"}}' writes all of it")
    analysis = read_options(text, where)
    if analysis is None:
        return EXIT_BAD_INPUT
    if args.json:
        print(json.dumps(analysis.as_json(), indent=2))
    else:
        from pvtui.render.options import render_analysis

        render_analysis(analysis)
    return 0 if analysis.valid else EXIT_BAD_INPUT
