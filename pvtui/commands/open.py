"""`pvtui [open] PATH`: the explorer on a report (the command when none is named)."""

from __future__ import annotations

import argparse
from pathlib import Path

from pvtui.commands.common import add_app_arguments
from pvtui.process.collector import hold as hold_collections


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, nargs="?",
                        help="report directory, file, engine tree or bundle (default: here; where none is here, "
                             "the reports opened before)")
    parser.add_argument("--engine", help="which report, where PATH holds several")
    add_app_arguments(parser)


def run(args: argparse.Namespace) -> int:
    hold_collections()  # until the report is shown (pvtui.process.collector)
    from pvtui.app import run_app

    return run_app(args.path, engine=args.engine, theme=args.theme, screen=args.screen, reader=args.reader,
                   config=args.config, fresh=args.fresh, debug=args.debug)
