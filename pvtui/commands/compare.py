"""`pvtui compare A B`: two reports side by side, B - A, in the explorer or headless."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pvtui.commands.common import add_units_argument, find_report, load

NAME_ROOM = 44  # columns of a changes table besides its names


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("a", type=Path, help="the first report (A): directory, file or bundle")
    parser.add_argument("b", type=Path, help="the second report (B), compared against A")
    parser.add_argument("--engine-a", help="which report in A, where it holds several")
    parser.add_argument("--engine-b", help="which report in B, where it holds several")
    parser.add_argument("--theme", help="theme name, for the explorer")
    parser.add_argument("--group", choices=("layer",),
                        help="layer: only the model layers, their IPU-cycles and memory in A and B (as text or --json)")
    add_units_argument(parser)


def run(args: argparse.Namespace) -> int:

    if args.group == "layer":
        return run_layers(args)
    if not args.json and sys.stdout.isatty():
        from pvtui.app import run_app

        return run_app(args.a, engine=args.engine_a, theme=args.theme,
                       compare_with=find_report(args.b, args.engine_b))
    from pvtui.model.compare import compare, comparison_json
    from pvtui.units import UNIT_NAMES

    data = comparison_json(compare(load(args.a, args.engine_a), load(args.b, args.engine_b)))
    data["a"]["path"], data["b"]["path"] = str(args.a), str(args.b)
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        render(data, UNIT_NAMES[args.units])
    return 0


def run_layers(args: argparse.Namespace) -> int:
    """`pvtui compare A B --group layer`: the model layers of A and B, B - A."""
    from pvtui.model.layer_compare import layer_changes, layers_json
    from pvtui.render.glyphs import text_minus
    from pvtui.units import UNIT_NAMES

    data = {"a": {"name": None, "path": str(args.a)}, "b": {"name": None, "path": str(args.b)},
            "difference": "B - A", "group": "layer"}
    a, b = load(args.a, args.engine_a), load(args.b, args.engine_b)
    data["a"]["name"], data["b"]["name"] = a.name, b.name
    data["layers"] = layers_json(layer_changes(a, b))
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    from pvtui.render.console import TextConsole

    console = TextConsole()
    console.print(_heading(data, text_minus()))
    for renderable in _layers(data["layers"], UNIT_NAMES[args.units], text_minus()):
        console.print(renderable)
    return 0


def _heading(data: dict[str, Any], minus: str):
    from rich.text import Text

    return Text.assemble(("Compare", "bold"), f" · A {data['a']['name']} ({data['a']['path']}) · "
                         f"B {data['b']['name']} ({data['b']['path']}) · differences are B {minus} A")


def render(data: dict[str, Any], units: str = "binary") -> None:
    """The comparison as text, bytes in UNITS (a mode of pvtui.units): as wide as its longest name needs,
    since a file has no width."""
    from rich.text import Text

    from pvtui.render.console import TextConsole
    from pvtui.render.glyphs import text_minus

    minus = text_minus()

    names = [row["name"] for key in ("programs", "operations") if data[key]["available"]
             for row in data[key]["grown"] + data[key]["shrunk"]]
    console = TextConsole(width=max([80] + [len(name) + NAME_ROOM for name in names]))
    console.print(_heading(data, minus))
    if data["identical"]:  # a table of zeros would only hide that
        from pvtui.model.compare import IDENTICAL

        console.print(IDENTICAL)
        return
    sections = (("Summary", _summary(data["summary"], units, minus)), ("Tiles", _tiles(data["tiles"], units, minus)),
                ("Liveness", _liveness(data["liveness"], units)), ("Programs", _changes(data["programs"], units, minus)),
                ("Operations", _changes(data["operations"], units, minus)), ("Model layers", _layers(data["layers"], units, minus)))
    for title, renderables in sections:
        console.print()
        console.print(Text(title, style="bold underline"))
        for renderable in renderables:
            console.print(renderable)


def _table(*columns: str, named: bool = True):
    """A table of figures, right-aligned, after a left-aligned name column where NAMED."""
    from rich.table import Table

    table = Table(title_justify="left")
    for index, column in enumerate(columns):
        table.add_column(column, justify="left" if named and index == 0 else "right")
    return table


def _summary(rows: list[dict[str, Any]], units: str, minus: str):
    from pvtui.model.compare import format_change, format_delta, format_value

    table = _table("quantity", "A", "B", f"B {minus} A", "change")
    for row in rows:
        unit = row["unit"]
        table.add_row(row["label"], format_value(row["a"], unit, units), format_value(row["b"], unit, units),
                      format_delta(row["delta"], unit, units, minus), format_change(row["change"], minus))
    yield table


def _tiles(tiles: dict[str, Any], units: str, minus: str):
    from pvtui.model.compare import format_delta, format_value

    if not tiles["available"]:
        yield tiles["reason"]
        return
    yield tiles["statement"]
    yield (f"{tiles['grew']:,} grew, {tiles['shrank']:,} shrank, {tiles['unchanged']:,} unchanged; "
           f"in all {format_delta(tiles['total_delta'], 'bytes', units, minus)}.")
    for key, title in (("largest_growth", "Tiles that grew the most"), ("largest_shrink", "Tiles that shrank the most")):
        table = _table("tile", "IPU in A", "IPU in B", "A", "B", f"B {minus} A", named=False)
        table.title = title
        for row in tiles[key]:
            table.add_row(str(row["tile"]), format_value(row["ipu_a"], "count"), format_value(row["ipu_b"], "count"),
                          format_value(row["a"], "bytes", units), format_value(row["b"], "bytes", units),
                          format_delta(row["delta"], "bytes", units, minus))
        if tiles[key]:
            yield table


def _liveness(live: dict[str, Any], units: str):
    from pvtui.model.compare import format_value

    if not live["available"]:
        yield live["reason"]
        return
    yield live["statement"]
    table = _table("report", "steps", "peak step", "at", "peak")
    for name in ("a", "b"):
        peak = live[f"{name}_peak"]
        table.add_row(name.upper(), f"{live[f'{name}_steps']:,}", f"{peak['step']:,}", f"{peak['fraction']:.0%}",
                      format_value(peak["bytes"], "bytes", units))
    yield table


def _changes(changes: dict[str, Any], units: str, minus: str):
    from pvtui.model.compare import format_delta, format_value

    if not changes["available"]:
        yield changes["reason"]
        return
    yield changes["statement"]
    yield (f"{changes['changed']:,} changed; {changes['matched']:,} in both, {changes['only_a']:,} only in A, "
           f"{changes['only_b']:,} only in B.")
    for key, title in (("grown", "Grew the most"), ("shrunk", "Shrank the most")):
        table = _table("name", "A", "B", f"B {minus} A")
        table.title = f"{title}, by {changes['measure']}"
        for row in changes[key]:
            table.add_row(row["name"], "absent" if row["a"] is None else format_value(row["a"], "bytes", units),
                          "absent" if row["b"] is None else format_value(row["b"], "bytes", units),
                          format_delta(row["delta"], "bytes", units, minus))
        if changes[key]:
            yield table


def _layers(layers: dict[str, Any], units: str, minus: str):
    from rich import box

    from pvtui.render.layers import CHANGE_HEADINGS, CHANGES_STATEMENT, change_cells

    if not layers["available"]:
        yield layers["reason"]
        return
    yield CHANGES_STATEMENT
    table = _table(*(heading.replace("−", minus) for heading in CHANGE_HEADINGS))
    table.box, table.show_edge, table.collapse_padding = box.SIMPLE_HEAD, False, True  # fits 80 columns
    table.caption = "cycles: IPU-cycles; host waits (dim): never ranked as a layer"
    table.columns[0].overflow = "fold"
    for column in table.columns[1:]:
        column.no_wrap = True
    for row in layers["layers"]:
        table.add_row(*(text for text, _ in change_cells(row, units, minus)), style="dim" if row["host"] else None)
    yield table
