"""`pvtui export PATH OUT`: the report's model as a bundle, to browse anywhere."""

from __future__ import annotations

import argparse
from pathlib import Path

from pvtui.commands.common import add_report_arguments, load, print_line
from pvtui.errors import ReportError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_report_arguments(parser)
    parser.add_argument("out", type=Path, help="a new (or empty) directory for the bundle")


def refuse_taken(out: Path) -> None:
    """OUT must be new, or an empty directory (not a link to one): nothing there is ever replaced."""
    try:
        if out.is_symlink():
            raise ReportError(out, "is a symbolic link; nothing was written; choose a new directory")
        if out.exists() and not out.is_dir():
            raise ReportError(out, "is a file, not a directory; nothing was written; choose a new directory")
        if out.exists() and any(out.iterdir()):
            raise ReportError(out, "already exists and is not empty; choose a new directory")
    except OSError as exc:
        raise ReportError(out, f"cannot be used ({exc.strerror or exc})") from None


def run(args: argparse.Namespace) -> int:
    from pvtui.model.bundle import BundleWriter

    out: Path = args.out
    refuse_taken(out)  # before reading the report, which may take minutes
    report = load(args.path, args.engine, args.reader)
    with BundleWriter(out) as writer:
        writer.link_from(report.bundle, report.bundle.columns)  # a damaged column stays behind, its part noted
        for name in ("framework.json", "app.json"):
            value = report.bundle.json(name)
            if value is not None:
                writer.write_json(name, value)
        writer.meta.update({k: v for k, v in report.meta.items() if k not in ("columns",)})
        writer.meta["parts"] = sorted(report.parts)
        writer.meta["notes"] = report.meta.get("notes", []) + report.damage_notes
        writer.commit()
    size = sum(p.stat().st_size for p in out.iterdir())
    print_line(f"exported {report.name} to {out} ({size:,} bytes); open it with `pvtui {out}`")
    return 0
