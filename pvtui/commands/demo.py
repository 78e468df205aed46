"""`pvtui demo`: the explorer on a synthetic report, written once into the cache and reused."""

from __future__ import annotations

import argparse
from pathlib import Path

from pvtui.commands.common import add_app_arguments, progress_bar, say
from pvtui.process.collector import hold as hold_collections


DEMO_SIZE = "520 MB"  # the small scale's report on disk (pvtui synth --help says each scale's)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_app_arguments(parser)


def demo_report_dir() -> Path:
    """The demo report, written once into the cache and reused (privately if the cache is unusable)."""
    from pvtui.sources.cache import ENTRY_FORMAT, cached_or_private
    from pvtui.synth import is_current, write_report

    written = []

    def write(out: Path) -> None:
        written.append(out)
        bar, update = progress_bar()
        with bar:
            write_report(out, scale="small", ipus=None, seed=0, progress=update)

    def whole(out: Path) -> Path | None:
        return out if is_current(out) else None  # absent, or written by a pvtui of another bundle schema

    out, unused = cached_or_private(None, f"demo-small-seed0-v{ENTRY_FORMAT}", write, whole)
    if unused:
        say(f"warning: {unused}")
    elif written:  # the first time: where the cache keeps it, and how to give the room back
        say(f"The demo report, about {DEMO_SIZE}, was written once to {out}; `pvtui cache clear` removes it")
    return out


def run(args: argparse.Namespace) -> int:
    hold_collections()  # until the report is shown (pvtui.process.collector)
    from pvtui.app import run_app

    return run_app(demo_report_dir(), engine=None, theme=args.theme, screen=args.screen, reader=args.reader,
                   config=args.config, fresh=args.fresh, debug=args.debug)
