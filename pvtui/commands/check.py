"""`pvtui check PATH`: file by file, whether a report is usable and why not; needs no libpva, only reads."""

from __future__ import annotations

import argparse
from pathlib import Path

from pvtui.commands.common import EXIT_BAD_INPUT, emit


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", type=Path, help="report directory, file, engine tree or bundle")


def run(args: argparse.Namespace) -> int:
    from pvtui.render.check import render_check
    from pvtui.sources.check import check_path

    result = check_path(args.path)
    emit(args, result.to_json(), render_check)
    return 0 if result.usable else EXIT_BAD_INPUT
