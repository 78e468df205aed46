"""`pvtui demo`: the explorer on a synthetic report, written once into the cache and reused."""

from __future__ import annotations

import argparse
from pathlib import Path

from pvtui.commands.common import add_app_arguments, progress_bar


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_app_arguments(parser)


def demo_report_dir() -> Path:
    """The demo report, written once into the cache and reused."""
    from pvtui.sources.ingest import cache_dir
    from pvtui.synth import write_report

    out = cache_dir() / "demo-small-seed0"
    if not (out / "profile.pvtui" / "meta.json").is_file():
        bar, update = progress_bar()
        with bar:
            write_report(out, scale="small", ipus=None, seed=0, progress=update)
    return out


def run(args: argparse.Namespace) -> int:
    from pvtui.app import run_app

    return run_app(demo_report_dir(), engine=None, theme=args.theme, screen=args.screen)
