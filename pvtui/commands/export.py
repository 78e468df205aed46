"""`pvtui export PATH OUT`: the report's model as a bundle, to browse anywhere."""

from __future__ import annotations

import argparse
from pathlib import Path

from pvtui.commands.common import add_report_arguments, load
from pvtui.errors import ReportError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_report_arguments(parser)
    parser.add_argument("out", type=Path, help="a new (or empty) directory for the bundle")


def run(args: argparse.Namespace) -> int:
    from pvtui.model.bundle import BundleWriter

    report = load(args.path, args.engine, args.reader)
    out: Path = args.out
    if out.exists() and any(out.iterdir()):
        raise ReportError(out, "already exists and is not empty; choose a new directory")
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
    print(f"exported {report.name} to {out} ({size:,} bytes); open it with `pvtui {out}`")
    return 0
