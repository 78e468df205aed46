"""`pvtui memory PATH --tile N` and `--variable NAME`: what is on one tile, where one variable lives."""

from __future__ import annotations

import argparse
from typing import Any

from pvtui.units import Fmt, count_of

LISTED = 20  # rows of each table in the text output; --json gives them all


def add_arguments(parser: argparse.ArgumentParser) -> None:
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--tile", type=int, default=None, metavar="N",
                       help="what is on tile N: categories, variables, compute sets, vertices, exchanges")
    which.add_argument("--variable", default=None, metavar="NAME", help="the bytes of variable NAME on each tile")


def wanted(args: argparse.Namespace) -> bool:
    return args.tile is not None or args.variable is not None


def run(args: argparse.Namespace, report: Any) -> int:
    """Print the tile's or the variable's object; a tile or variable that does not exist raises ReportError."""
    from pvtui.commands.common import bytes_format, emit
    from pvtui.errors import ReportError
    from pvtui.model.tile_detail import tile_report, variable_report

    try:
        if args.tile is not None:
            data, render = tile_report(report, args.tile), _render_tile
        else:
            data, render = variable_report(report, args.variable), _render_variable
    except LookupError as exc:
        raise ReportError(args.path, str(exc.args[0])) from None
    emit(args, data, lambda d: print("\n".join(render(d, bytes_format(args)))))
    return 0


def _cell(column: str, value, fmt: Fmt) -> str:
    """A byte column's value in the units asked for, a count with separators, else the text."""
    if column.endswith("bytes"):
        return fmt(value)
    return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)


def _table(title: str, rows: list[dict] | None, columns: tuple[str, ...], missing: str | None, fmt: Fmt) -> list[str]:
    if rows is None:
        return [f"{title}: {missing}"]
    lines = [f"{title} ({len(rows):,})"]
    for row in rows[:LISTED]:
        cells = [_cell(c, row[c], fmt) for c in columns]
        lines.append("  " + "  ".join(f"{cell:>12}" for cell in cells[:-1]) + f"  {cells[-1]}")
    if len(rows) > LISTED:
        lines.append(f"  … and {len(rows) - LISTED:,} more (--json lists them all)")
    return lines


def _render_tile(data: dict, fmt: Fmt) -> list[str]:
    ipu = "unknown" if data["ipu"] is None else data["ipu"]
    lines = [f"tile {data['tile']} · IPU {ipu}",
             f"  including gaps {fmt(data['including_gaps'])} · excluding gaps {fmt(data['excluding_gaps'])}"
             f" · limit {fmt(data['limit'])}", "categories"]
    lines += [f"  {fmt(value):>12}  {name}" for name, value in data["categories"].items()]
    missing = data["missing"]
    variables = data["variables"]
    if variables is not None:
        variables = [dict(v, live=_live(v)) for v in variables]
    lines += _table("variables", variables, ("bytes", "live", "name"), missing.get("variables"), fmt)
    lines += _table("compute sets", data["compute_sets"], ("state_bytes", "instances", "vertices", "name"),
                    missing.get("compute_sets"), fmt)
    lines += _table("vertices", data["vertices"], ("code_bytes", "state_bytes", "instances", "name"),
                    missing.get("vertices"), fmt)
    lines += _table("exchanges", data["exchanges"], ("code_bytes", "type", "program"), missing.get("exchanges"), fmt)
    return lines


def _live(variable: dict) -> str:
    if "always_live" not in variable:  # profile.pop read without libpva: no live steps
        return "—"
    return "always live" if variable["always_live"] else count_of(variable["steps_live"], "step")


def _render_variable(data: dict, fmt: Fmt) -> list[str]:
    by_tile = data["by_tile"]
    on = sorted((b, t) for t, b in enumerate(by_tile) if b)[::-1]
    lines = [f"{data['variable']}: {fmt(data['total'])} on {count_of(data['tiles'], 'tile')}"]
    lines += [f"  tile {t:>6}  {fmt(b):>12}" for b, t in on[:LISTED]]
    if len(on) > LISTED:
        lines.append(f"  … and {len(on) - LISTED:,} more tiles (--json gives every tile)")
    return lines
