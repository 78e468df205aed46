"""`pvtui synth OUT`: a synthetic report directory (a BERT-like model), deterministic for a seed."""

from __future__ import annotations

import argparse
from pathlib import Path

from pvtui.commands.common import at_least_one, progress_bar
from pvtui.synth.scales import SCALES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, help="the directory to write")
    parser.add_argument("--scale", choices=tuple(SCALES), default="small")
    parser.add_argument("--ipus", type=at_least_one("IPUs"), default=None)
    parser.add_argument("--seed", type=int, default=0)


def run(args: argparse.Namespace) -> int:
    from pvtui.synth import write_report

    bar, update = progress_bar()
    with bar:
        out = write_report(args.out, scale=args.scale, ipus=args.ipus, seed=args.seed, progress=update)
    print(f"wrote a {args.scale} synthetic report to {out}")
    return 0
