"""`pvtui synth OUT`: a synthetic report directory (a BERT-like model), deterministic for a seed."""

from __future__ import annotations

import argparse
from pathlib import Path

from pvtui.commands.common import at_least_one, print_line, progress_bar
from pvtui.errors import ReportError
from pvtui.synth.scales import SCALES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, help="the directory to write (new, empty, or a synthetic report)")
    parser.add_argument("--scale", choices=tuple(SCALES), default="small",
                        help="how big a model: tiny (2 IPUs of 64 tiles, 3 layers; ~15 MB on disk), small (2 Mk2"
                             " IPUs, 6 layers; ~520 MB, the demo's), large (4 IPUs, 24 layers; ~2.3 GB), pod16"
                             " (16 IPUs, 210 layers; ~4.7 GB). Default: small")
    parser.add_argument("--ipus", type=at_least_one("IPUs"), default=None,
                        help="IPUs to spread the model over, instead of the scale's own")
    parser.add_argument("--seed", type=int, default=0,
                        help="the random seed: the same seed and scale write the same report (default 0); another"
                             " seed gives a second report to compare against the first")
    parser.add_argument("--hostile-names", action="store_true",
                        help="names full of escape sequences and markup, in a directory under OUT named so too:"
                             " to check that nothing from a report drives the terminal")


def run(args: argparse.Namespace) -> int:
    from pvtui.model.schema import REPORT_FILES
    from pvtui.synth import BUNDLE_NAME, write_report
    from pvtui.synth.hostile import DIRECTORY

    out: Path = args.out
    if out.exists() and not out.is_dir():
        raise ReportError(out, "is a file, not a directory")
    target = out / DIRECTORY if args.hostile_names else out
    if not (target / BUNDLE_NAME).exists() and any((target / name).exists() for name in REPORT_FILES):
        # Report files are never written to: a real report's would be replaced.
        raise ReportError(out, "holds a report pvtui did not synthesize; choose a new directory")
    bar, update = progress_bar()
    try:
        with bar:
            out = write_report(out, scale=args.scale, ipus=args.ipus, seed=args.seed, progress=update,
                               names="hostile" if args.hostile_names else "plain")
    except OSError as exc:
        raise ReportError(Path(exc.filename or out), f"cannot be written ({exc.strerror or exc})") from None
    kind = " with hostile names" if args.hostile_names else ""
    print_line(f"wrote a {args.scale} synthetic report{kind} to {out}")
    return 0
