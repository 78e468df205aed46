"""What the Memory screen says in words: the header's facts, the selected tile's, its categories and
vertices, and the variable search's state."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np
from rich.style import Style
from rich.text import Text

from pvtui.units import count_of

if TYPE_CHECKING:
    from pvtui.model.navigators.memory import MemoryNavigator, TileMemory, TileVertex

LISTED = 12  # vertices listed in the detail pane


def variable_label(name: str, values: np.ndarray, fmt: Callable[[int], str]) -> str:
    """A variable by NAME, its bytes (VALUES per tile) and the tiles it is on."""
    return f"{name}: {fmt(int(values.sum()))} on {count_of(int(np.count_nonzero(values)), 'tile')}"


def header_items(nav: "MemoryNavigator", colour: str, swatch: str | None, fmt: Callable[[int], str]) -> list[Text]:
    """The header's facts: the tiles shown, their scope and rows (the bars) or what colours them (COLOUR,
    the map), the variable colouring the swatches (SWATCH), the gaps setting and the limit."""
    memory = nav.memory
    assert memory is not None
    tiles = nav.tiles
    scope = "IPUs unknown" if not memory.ipu_known else "all IPUs" if nav.ipu_filter is None \
        else f"IPU {nav.ipu_filter}"
    parts = [count_of(len(tiles), "tile"), scope]
    if nav.map_shown:  # first: a chosen variable's total and tiles are what the user looks for
        parts.insert(0, f"colour: {colour}")  # it says the gaps setting where it applies
    else:
        parts.append("1 tile/row" if nav.zoom == 1 else f"{nav.zoom} tiles/row, the fullest shown")
        if nav.bars_by_liveness:
            parts.append("bars by liveness")
        if swatch is not None:
            parts.append(f"right column: {swatch}")  # the square at each bar's end
    if nav.marked_tiles:  # on the bars and the map alike
        parts.append(f"marked {', '.join(map(str, nav.marked_tiles[:4]))}{' …' if len(nav.marked_tiles) > 4 else ''}")
    if memory.source == "archive":
        parts.append("from archive.a")
    elif not memory.has_gaps:
        parts.append("incl. gaps")
    elif not nav.map_shown:
        parts.append("incl. gaps" if nav.gaps else "excl. gaps")
    if memory.limit:
        over = int((memory.totals(nav.gaps)[tiles] > memory.limit).sum())
        parts.append(f"limit {fmt(memory.limit)}, {over:,} over")
    return [Text(part) for part in parts]


def tile_facts(memory: "TileMemory", tile: int, fmt: Callable[[int], str], label: Style, over: Style,
               missing: str) -> Text:
    """TILE's IPU, totals, share of the limit (in OVER's style past it, else LABEL's) and liveness, or
    why the liveness is MISSING."""
    total = int(memory.including_gaps[tile])
    facts = Text()
    facts.append(f"Tile {tile}", "bold")
    ipu = memory.ipu_of(tile)
    facts.append(f" · IPU {'unknown' if ipu is None else ipu}\n")
    if memory.has_gaps or memory.source == "profile":  # read without libpva: its total, including gaps
        facts.append(f"Including gaps   {fmt(total)}\n")
    if memory.has_gaps:
        facts.append(f"Excluding gaps   {fmt(int(memory.excluding_gaps[tile]))}\n")
    elif memory.source != "profile":
        facts.append(f"Allocated        {fmt(total)}\n")
    if memory.limit:
        share = total / memory.limit
        facts.append("Of limit         ")
        facts.append(f"{share:.1%}", over if share > 1 else label)
        facts.append(f" of {fmt(memory.limit)}\n")
    if memory.always_live is not None and memory.not_always_live is not None:
        facts.append(f"Always live      {fmt(int(memory.always_live[tile]))}\n")
        facts.append(f"Not always live  {fmt(int(memory.not_always_live[tile]))}\n")
    else:
        facts.append(missing + "\n", "dim")
    return facts


def categories_text(memory: "TileMemory", tile: int, fmt: Callable[[int], str],
                    swatch: Callable[[int], tuple[str, Style]]) -> Text:
    """TILE's bytes by category, largest first, each after its SWATCH (cells and their style, by the
    category's index)."""
    text = Text("Categories\n", "bold")
    index = {name: i for i, name in enumerate(memory.categories)}
    rows = [(name, fmt(value)) for name, value in memory.tile_categories(tile)]
    width = max((len(shown) for _, shown in rows), default=0)  # the names get the rest
    for name, shown in rows:
        text.append(*swatch(index[name]))
        text.append(f" {shown:>{width}}  {name}\n")
    return text


def vertices_text(vertices: "list[TileVertex] | None", fmt: Callable[[int], str]) -> Text:
    """The tile's vertices, most code first, LISTED of them; or why there are none."""
    text = Text()
    if vertices is None:
        text.append("Vertices and compute sets: this report does not list them per tile.", "dim")
        return text
    if not vertices:
        text.append("No vertices on this tile.", "dim")
        return text
    text.append(f"Vertices ({len(vertices)})\n", "bold")
    for vertex in vertices[:LISTED]:
        text.append(f" {fmt(vertex.code_bytes):>10}  {vertex.name}\n")
    if len(vertices) > LISTED:
        text.append(f"  … and {len(vertices) - LISTED} more\n", "dim")
    text.append("Compute sets, vertex types and exchange code on this tile: the tabs (] and [).", "dim")
    return text


def search_status(nav: "MemoryNavigator", text: str, variables: int | None, missing: str) -> Text:
    """The search bar's status for TEXT typed: the VARIABLES there are to search (None: MISSING says why
    not), none found, or which match is chosen and the keys (its bytes and tiles are in the header)."""
    search = nav.search
    if variables is None:
        return Text(missing)
    if not text:
        return Text(count_of(variables, "variable"))
    if search.variable is None:
        return Text(f"no variable name contains {text!r}")
    return Text(f"{search.index + 1:,}/{len(search.matches):,} · ↑↓ another, Enter keeps it")


def tile_columns(tiles: list[int], figures: tuple[list[str], list[list[int | None]]],
                 contents: tuple[list[str], list[list[int | None]]],
                 fmt: Callable[[int], str]) -> tuple[list[str], list[list[str]]]:
    """Tiles side by side: the headings (`tile N` each), a row per figure of FIGURES (navigators.memory.
    compare_tiles: bytes, in FMT) then per table of CONTENTS (model.tile_detail.tile_contents: counts of what
    is on each); — where not known."""
    headings = ["", *(f"tile {tile:,}" for tile in tiles)]
    rows = [[name, *("—" if value is None else fmt(value) for value in row)] for name, row in zip(*figures)]
    rows += [[name, *("—" if value is None else f"{value:,}" for value in row)] for name, row in zip(*contents)]
    return headings, rows
