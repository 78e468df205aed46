"""`pvtui synth OUT`: a synthetic report directory (a BERT-like model), deterministic for a seed."""

from __future__ import annotations

import argparse
from pathlib import Path

from pvtui.commands.common import at_least_one, progress_bar
from pvtui.errors import ReportError
from pvtui.synth.scales import SCALES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, help="the directory to write (new, empty, or a synthetic report)")
    parser.add_argument("--scale", choices=tuple(SCALES), default="small")
    parser.add_argument("--ipus", type=at_least_one("IPUs"), default=None)
    parser.add_argument("--seed", type=int, default=0)


def run(args: argparse.Namespace) -> int:
    from pvtui.model.schema import REPORT_FILES
    from pvtui.synth import BUNDLE_NAME, write_report

    out: Path = args.out
    if out.exists() and not out.is_dir():
        raise ReportError(out, "is a file, not a directory")
    if not (out / BUNDLE_NAME).exists() and any((out / name).exists() for name in REPORT_FILES):
        # Report files are never written to: a real report's would be replaced.
        raise ReportError(out, "holds a report pvtui did not synthesize; choose a new directory")
    bar, update = progress_bar()
    try:
        with bar:
            out = write_report(out, scale=args.scale, ipus=args.ipus, seed=args.seed, progress=update)
    except OSError as exc:
        raise ReportError(Path(exc.filename or out), f"cannot be written ({exc.strerror or exc})") from None
    print(f"wrote a {args.scale} synthetic report to {out}")
    return 0
