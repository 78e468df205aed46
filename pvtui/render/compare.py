"""What the Compare screen and `pvtui compare` say in words: the summary's figures of A and B, what grew
or shrank, the model layers, the selected tile's and the liveness column's figures; and the comparison
printed as tables. The screen and the command build their tables' rows here alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from rich.style import StyleType
from rich.text import Text

from pvtui.model.compare import LIVENESS_X
from pvtui.model.operations import layer_label
from pvtui.model.unavailable import Unavailable
from pvtui.render.differences import format_change, format_delta, format_value
from pvtui.render.layers import CHANGE_HEADINGS, CHANGES_STATEMENT, change_cells
from pvtui.render.unavailable import unavailable_text
from pvtui.units import MINUS, count_of, format_bytes

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.table import Table

    from pvtui.model.compare import Changes, LivenessPair, TileDiff
    from pvtui.model.navigators.memory import TileMemory

MIN_WIDTH = 8  # the narrowest a cut column gets: A and B of the summary, the names of a changes table
NAME_ROOM = 44  # columns of a printed changes table besides its names
IDENTICAL = "A and B are identical: no figure compared differs."
CHANGES_MEASURES = {"programs": "code bytes of leaf programs", "operations": "memory (code + variable bytes)"}
PROGRAMS_STATEMENT = ("Leaf programs matched by name by code bytes, those of one name summed (parents are left out: "
                      "their code includes their children's).")


@dataclass(frozen=True)
class Differences:
    """How figures and their differences read: bytes in UNITS (a mode of pvtui.units), negative
    differences with MINUS, growth and shrinkage in their styles (on screen the theme's error and success
    colours; none in print)."""

    units: str = "binary"
    minus: str = MINUS
    growth: StyleType = ""
    shrinkage: StyleType = ""

    @property
    def heading(self) -> str:
        return f"B {self.minus} A"

    def signed(self, text: str, value: int | None) -> Text:
        """TEXT, a difference of VALUE: in the growth style above zero, the shrinkage style below."""
        return Text(text, style=(self.growth if value > 0 else self.shrinkage) if value else "")

    def delta(self, value: int | None, unit: str = "bytes") -> Text:
        return self.signed(format_delta(value, unit, self.units, self.minus), value)

    def value(self, value: Any, unit: str) -> Text:
        return Text(format_value(value, unit, self.units))

    def bytes(self, value: int | None) -> Text:
        """VALUE's bytes, or "absent" (dim) where the report has no such thing."""
        return Text("absent", style="dim") if value is None else Text(format_bytes(value, self.units))


# What each section compares ------------------------------------------------------------------


def tile_measure(diff: "TileDiff") -> str:
    """What the tiles' bytes are, in A and B."""
    # "the graph profile": profile.pop, or the bundle standing in for it
    if diff.gaps:
        return "bytes including gaps (graph profile)"
    if {diff.a.source, diff.b.source} == {"archive"}:
        return "allocated bytes (archive.a)"
    profile = diff.a if diff.a.source == "profile" else diff.b
    which = "excluding gaps" if profile.has_gaps else "including gaps (profile.pop read without libpva)"
    return f"bytes {which} from the graph profile against allocated bytes from archive.a"


def tile_statement(diff: "TileDiff") -> str:
    """Which tiles are compared with which, in one plain sentence."""
    a, b, measure = diff.a, diff.b, tile_measure(diff)
    na, nb = a.num_tiles, b.num_tiles
    known = a.ipu_known and b.ipu_known
    if na == nb and len(a.ipus) == len(b.ipus) and known:
        return f"Tile i of A against tile i of B, all {na:,} tiles ({_ipus(a)} each), {measure}."
    if na == nb and not known:
        return (f"Tile i of A against tile i of B, all {na:,} tiles, {measure}; A's tiles are on"
                f" {_ipus(a)}, B's on {_ipus(b)}.")
    longer = "A" if na > nb else "B"
    extra = f"tiles {diff.compared:,}–{diff.num_tiles - 1:,} are only in {longer}" if na != nb else \
        "the tiles sit on different IPUs"
    return (f"A has {na:,} tiles on {_ipus(a)}, B has {nb:,} on {_ipus(b)}:"
            f" tiles 0–{diff.compared - 1:,} are compared by index (tile i of A against tile i of B),"
            f" {measure}; {extra}.")


def _ipus(memory: "TileMemory") -> str:
    if not memory.ipu_known:
        return "an unknown number of IPUs (the report does not say which IPU each tile is on)"
    count = len(memory.ipus)
    return f"{count} IPU" if count == 1 else f"{count} IPUs"


def liveness_statement(pair: "LivenessPair") -> str:
    what = "always-live plus not-always-live bytes" if pair.with_always_live else \
        "not-always-live bytes only (a report does not give always-live bytes)"
    return (f"x is the {LIVENESS_X} (A has {len(pair.a):,}, B has {len(pair.b):,}); "
            f"y is {what}, the most at any step of each point.")


def changes_measure(changes: "Changes") -> str:
    return CHANGES_MEASURES[changes.what]


def changes_statement(changes: "Changes") -> str:
    """How the programs or operations of A and B are matched, in one sentence."""
    if changes.what == "programs":
        return PROGRAMS_STATEMENT
    return f"{layer_label(changes.layer)} operations matched by name; memory is code plus variable bytes."


# The rows of the tables ----------------------------------------------------------------------

def summary_headings(d: Differences) -> tuple[str, ...]:
    return ("Quantity", "A", "B", d.heading, "change")


def summary_rows(rows: list[dict[str, Any]], d: Differences) -> list[list[Text]]:
    """The summary's figures (SummaryDelta.as_dict), a row each under summary_headings."""
    return [[Text(row["label"]), d.value(row["a"], row["unit"]), d.value(row["b"], row["unit"]),
             d.delta(row["delta"], row["unit"]), Text(format_change(row["change"], d.minus))] for row in rows]


def changes_headings(d: Differences) -> tuple[str, ...]:
    return (d.heading, "A", "B", "Name")


def changes_rows(rows: list[dict[str, Any]], d: Differences) -> list[list[Text]]:
    """Programs or operations that changed (Change.as_dict), a row each under changes_headings."""
    return [[d.delta(row["delta"]), d.bytes(row["a"]), d.bytes(row["b"]), Text(row["name"])] for row in rows]


def changes_counts(changed: int, matched: int, only_a: int, only_b: int, listed: int | None = None) -> str:
    """How many changed (and how many of them are LISTED), and how many are in both, in A only, in B only."""
    shown = "" if listed is None else f" ({listed:,} listed, largest change first)"
    return f"{changed:,} changed{shown}; {matched:,} in both, {only_a:,} only in A, {only_b:,} only in B."


def layer_headings(d: Differences) -> tuple[str, ...]:
    return tuple(heading.replace("−", d.minus) for heading in CHANGE_HEADINGS)


def layer_rows(rows: list[dict[str, Any]], d: Differences) -> list[list[Text]]:
    """Model layers (LayerChange.as_dict), a row each under layer_headings; host waits dim."""
    return [[d.signed(text, delta) if delta is not None else Text(text, "dim" if row["host"] else "")
             for text, delta in change_cells(row, d.units, d.minus)] for row in rows]


def fitted_widths(headings: Sequence[str], rows: list[list[Text]], cut: Sequence[int], room: int,
                  least: int = MIN_WIDTH) -> list[int]:
    """Each column's cells: as wide as its heading and widest cell; but the columns CUT share what the
    others leave of ROOM (the cells of a line), each at least LEAST wide."""
    widths = [max([len(heading)] + [row[i].cell_len for row in rows]) for i, heading in enumerate(headings)]
    share = (room - sum(width for i, width in enumerate(widths) if i not in cut)) // max(1, len(cut))
    for i in cut:
        widths[i] = max(least, min(widths[i], share))
    return widths


# The screen's lines --------------------------------------------------------------------------

def names_line(a: str, b: str | None, identical: bool | None, minus: str) -> Text:
    """A's and B's names, then whether they differ (None: the comparison is being computed)."""
    said = "comparing…" if identical is None else Text("identical", "bold") if identical else \
        f"differences are B {minus} A"
    return Text.assemble("A ", (a, "bold"), " · B ", (b if b is not None else "—", "bold"), " · ", said)


def tile_detail(diff: "TileDiff", tile: int, d: Differences) -> Text:
    """TILE's IPU and bytes in A and B, and B - A; or which report alone has it."""
    a, b = diff.bytes_of(tile)
    ipu_a, ipu_b = ("—" if value is None else "IPU unknown" if ipu is None else f"IPU {ipu}"
                    for value, ipu in zip((a, b), diff.ipus_of(tile)))
    where = ipu_a if ipu_a == ipu_b else f"{ipu_a} in A, {ipu_b} in B"
    detail = Text.assemble((f"Tile {tile}", "bold"), f" · {where}\n")
    if a is None or b is None:
        only, value = ("A", a) if b is None else ("B", b)
        detail.append(f"only in {only}: {format_bytes(value, d.units)};"
                      f" the other report has {count_of(diff.compared, 'tile')}")
    else:
        change = format_change((b - a) / a if a else None, d.minus)
        detail.append(f"A {format_bytes(a, d.units)}   B {format_bytes(b, d.units)}   {d.heading} ")
        detail.append_text(d.delta(b - a))
        detail.append(f" ({change})")
    return detail


def column_detail(pair: "LivenessPair", column: int, width: int, a: int, b: int, fraction: float,
                  d: Differences) -> Text:
    """Column COLUMN of WIDTH of the liveness chart, at FRACTION of the steps: the most live in it in A
    and B (A and B bytes), B - A, and the steps of each report it stands for."""

    def steps(series) -> str:
        first, last = pair.point_steps(series, column, width)
        span = f"{first:,}" if first == last else f"{first:,}–{last:,}"
        return f"step{'s' if first != last else ''} {span} of {len(series):,}"

    return Text.assemble(
        (f"At {fraction:.0%}", "bold"), f" · {d.heading} ", d.delta(b - a), " (most live in the column)\n"
        f"A {format_bytes(a, d.units)} ({steps(pair.a)})   B {format_bytes(b, d.units)} ({steps(pair.b)})",
    )


# `pvtui compare A B`, printed ------------------------------------------------------------------

def heading(data: dict[str, Any], minus: str) -> Text:
    return Text.assemble(("Compare", "bold"), f" · A {data['a']['name']} ({data['a']['path']}) · "
                         f"B {data['b']['name']} ({data['b']['path']}) · differences are B {minus} A")


def render_comparison(data: dict[str, Any], d: Differences) -> None:
    """The comparison (`comparison_json`) as text: as wide as its longest name needs, since a file has
    no width."""
    from pvtui.render.console import TextConsole

    names = [row["name"] for key in ("programs", "operations") if not isinstance(data[key], Unavailable)
             for row in data[key]["grown"] + data[key]["shrunk"]]
    console = TextConsole(width=max([80] + [len(name) + NAME_ROOM for name in names]))
    console.print(heading(data, d.minus))
    if data["identical"]:  # a table of zeros would only hide that
        console.print(IDENTICAL)
        return
    sections = (("Summary", _summary(data["summary"], d)), ("Tiles", _tiles(data["tiles"], d)),
                ("Liveness", _liveness(data["liveness"], d)), ("Programs", _changes(data["programs"], d)),
                ("Operations", _changes(data["operations"], d)), ("Model layers", _layers(data["layers"], d)))
    for title, renderables in sections:
        console.print()
        console.print(Text(title, style="bold underline"))
        for renderable in renderables:
            console.print(renderable)


def render_layer_comparison(data: dict[str, Any], d: Differences) -> None:
    """`pvtui compare A B --group layer` as text."""
    from pvtui.render.console import TextConsole

    console = TextConsole()
    console.print(heading(data, d.minus))
    for renderable in _layers(data["layers"], d):
        console.print(renderable)


def _table(columns: Sequence[str], rows: list[list[Text]], left: int | None = 0) -> "Table":
    """ROWS under COLUMNS, the figures right-aligned; the column LEFT (a name), if any, left-aligned."""
    from rich.table import Table

    table = Table(title_justify="left")
    for index, column in enumerate(columns):
        table.add_column(column, justify="left" if index == left else "right")
    for row in rows:
        table.add_row(*row)
    return table


def _summary(rows: list[dict[str, Any]], d: Differences) -> Iterator["RenderableType"]:
    yield _table(summary_headings(d), summary_rows(rows, d))


def _tiles(tiles: dict[str, Any] | Unavailable, d: Differences) -> Iterator["RenderableType"]:
    if isinstance(tiles, Unavailable):
        yield unavailable_text(tiles)
        return
    yield tiles["statement"]
    yield (f"{tiles['grew']:,} grew, {tiles['shrank']:,} shrank, {tiles['unchanged']:,} unchanged; "
           f"in all {format_delta(tiles['total_delta'], 'bytes', d.units, d.minus)}.")
    for key, title in (("largest_growth", "Tiles that grew the most"), ("largest_shrink", "Tiles that shrank the most")):
        rows = [[Text(str(row["tile"])), d.value(row["ipu_a"], "count"), d.value(row["ipu_b"], "count"),
                 d.value(row["a"], "bytes"), d.value(row["b"], "bytes"), d.delta(row["delta"])] for row in tiles[key]]
        table = _table(("tile", "IPU in A", "IPU in B", "A", "B", d.heading), rows, left=None)
        table.title = title
        if rows:
            yield table


def _liveness(live: dict[str, Any] | Unavailable, d: Differences) -> Iterator["RenderableType"]:
    if isinstance(live, Unavailable):
        yield unavailable_text(live)
        return
    yield live["statement"]
    rows = []
    for name in ("a", "b"):
        peak = live[f"{name}_peak"]
        rows.append([Text(name.upper()), Text(f"{live[f'{name}_steps']:,}"), Text(f"{peak['step']:,}"),
                     Text(f"{peak['fraction']:.0%}"), d.value(peak["bytes"], "bytes")])
    yield _table(("report", "steps", "peak step", "at", "peak"), rows)


def _changes(changes: dict[str, Any] | Unavailable, d: Differences) -> Iterator["RenderableType"]:
    if isinstance(changes, Unavailable):
        yield unavailable_text(changes)
        return
    yield changes["statement"]
    yield changes_counts(changes["changed"], changes["matched"], changes["only_a"], changes["only_b"])
    for key, title in (("grown", "Grew the most"), ("shrunk", "Shrank the most")):
        table = _table(changes_headings(d), changes_rows(changes[key], d), left=3)
        table.title = f"{title}, by {changes['measure']}"
        if changes[key]:
            yield table


def _layers(layers: dict[str, Any] | Unavailable, d: Differences) -> Iterator["RenderableType"]:
    from rich import box

    if isinstance(layers, Unavailable):
        yield unavailable_text(layers)
        return
    yield CHANGES_STATEMENT
    table = _table(layer_headings(d), [])
    table.box, table.show_edge, table.collapse_padding = box.SIMPLE_HEAD, False, True  # fits 80 columns
    table.caption = "cycles: IPU-cycles; host waits (dim): never ranked as a layer"
    table.columns[0].overflow = "fold"
    for column in table.columns[1:]:
        column.no_wrap = True
    for row, cells in zip(layers["layers"], layer_rows(layers["layers"], d)):
        table.add_row(*cells, style="dim" if row["host"] else None)
    yield table
