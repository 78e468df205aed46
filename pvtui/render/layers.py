"""The model layers as text: `pvtui operations --group layer`."""

from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np
from rich.text import Text

from pvtui.model.layer_outline import Kept, LayerOutline, cycles_note, source_note
from pvtui.model.layers import LayerFigures, LayerTree, linked_operations
from pvtui.model.report import Report
from pvtui.render.columns import TOTAL, TableRows, total_label
from pvtui.render.differences import format_delta, format_value
from pvtui.units import MINUS, count_of, format_bytes, format_cycles, format_share

INDENT = 2  # cells per level of nesting
SORT_WORDS = {"cycles": "IPU-cycles", "memory": "memory"}
HOST_NOTE = "host waits: stream copies and syncs with the host, never ranked as a model layer"
MEMORY_NOTE = ("memory: each row's code and variables; a variable that several operations use counts in each,"
               " so the rows add up to more than the report's total memory")


def flattened(groups: list[dict[str, Any]], level: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each group and the groups nested in it, in order, with its level."""
    for group in groups:
        yield level, group
        yield from flattened(group.get("groups", []), level + 1)


def figure_cells(group: dict[str, Any], ipus: int | None, fmt: Callable[[int], str] = format_bytes) -> list[str]:
    """A group's figures as shown: cycles, share, then each IPU's cycles, memory and operations."""
    by_ipu = group["cycles_by_ipu"] or [None] * (ipus or 0)
    return [format_cycles(group["cycles"]), format_share(group["share"]), *map(format_cycles, by_ipu),
            fmt(group["memory"]), f"{group['operations']:,}"]


def headings(ipus: int | None) -> list[str]:
    return ["IPU-cycles", "share", *(f"IPU {i}" for i in range(ipus or 0)), "memory", "ops"]


def render_layers(data: dict[str, Any], fmt: Callable[[int], str] = format_bytes) -> None:
    from pvtui.render.console import TextConsole
    from rich.table import Table

    console = TextConsole()
    rows = list(flattened(data["groups"]))
    title = f"Model layers by {SORT_WORDS[data['sort']]}" + (f", path contains {data['filter']!r}" if data["filter"] else "")
    if not rows:
        console.print(f"No model layer's path contains {data['filter']!r}.", highlight=False)
        return
    ipus = data["ipus"]
    names = [" " * (INDENT * level) + group["name" if level else "path"] for level, group in rows]
    cells = [figure_cells(group, ipus, fmt) for _, group in rows]
    columns = headings(ipus)
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(columns)]
    per_ipu = range(2, 2 + (ipus or 0))
    name_room = console.width - sum(widths) - 3 * (len(columns) + 1) - 1
    if name_room < max(len(n) for n in names) and ipus:  # each IPU's cycles only where they fit
        columns = [c for i, c in enumerate(columns) if i not in per_ipu]
        cells = [[c for i, c in enumerate(row) if i not in per_ipu] for row in cells]
    table = Table(title=title, title_justify="left", show_footer=bool(data["filter"]))
    kept = data.get("kept")
    footer = [f"total of the {kept['nodes']:,} kept", *_kept_cells(kept, ipus, len(columns), fmt)] if kept else []
    table.add_column("model layer", footer[0] if footer else "", overflow="fold")
    for i, column in enumerate(columns):
        table.add_column(column, footer[i + 1] if footer else "", justify="right", no_wrap=True)
    for name, (_, group), row in zip(names, rows, cells):
        table.add_row(Text(name), *row, style="dim" if group["host"] else None)
    console.print(table)
    notes = [data["source"], data["cycles_note"], MEMORY_NOTE]
    if any(group["host"] for _, group in rows):
        notes.append(HOST_NOTE)
    for note in notes:
        console.print(note, style="dim", highlight=False)


def _kept_cells(kept: dict[str, Any], ipus: int | None, columns: int, fmt: Callable[[int], str]) -> list[str]:
    """The footer's figures: the total of what the filter keeps, in the columns shown."""
    cells = figure_cells(kept, ipus, fmt)
    return cells if len(cells) == columns else [*cells[:2], *cells[-2:]]


# The Operations screen, by model layer ----------------------------------------------------------

LISTED = 6  # programs named in the details


def name_cell(tree: LayerTree, node: int, opened: bool, expandable: bool, open_mark: str, closed_mark: str) -> str:
    """A node's name as its row shows it: indented by its depth, after its open or closed mark."""
    mark = (open_mark if opened else closed_mark) if expandable else " "
    return f"{' ' * (INDENT * int(tree.depth[node]))}{mark} {tree.names[node]}"


def node_cells(figures: LayerFigures, node: int, fmt: Callable[[int], str]) -> dict[str, str]:
    """A node's figures by column: cycles, share, each IPU's cycles (`ipu N`), memory, ops; FMT formats bytes."""
    cells = {"cycles": format_cycles(None if figures.cycles is None else int(figures.cycles[node])),
             "share": format_share(figures.share(node))}
    if figures.cycles_by_ipu is not None:
        cells.update({f"ipu {i}": format_cycles(int(c)) for i, c in enumerate(figures.cycles_by_ipu[node])})
    memory = figures.memory_of(node)
    cells.update({"memory": "—" if memory is None else fmt(memory), "ops": f"{int(figures.operations[node]):,}"})
    return cells


def kept_cells(kept: Kept, fmt: Callable[[int], str]) -> dict[str, str]:
    """The total of what a filter keeps, by column as node_cells gives them."""
    cells = {"cycles": format_cycles(kept.cycles), "share": format_share(kept.share)}
    cells.update({f"ipu {i}": format_cycles(c) for i, c in enumerate(kept.cycles_by_ipu or [])})
    cells.update({"memory": "—" if kept.memory is None else fmt(kept.memory), "ops": f"{kept.operations:,}"})
    return cells


def column_heading(key: str) -> str:
    return {"cycles": "IPU-cycles", "ops": "ops"}.get(key, key.replace("ipu", "IPU"))


def layer_header(report: Report, outline: LayerOutline) -> Text:
    """The line above the model layers: how many, their order, the filter; where they come from when no
    debug context links the programs."""
    tree = outline.tree
    layers = sum(1 for n in tree.children(-1).tolist() if n not in (tree.host, tree.unknown))
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("By model layer", "bold")
    text.append(f" · {count_of(layers, 'model layer')} · by {SORT_WORDS[outline.sort]}")
    if outline.text:
        text.append(f" · path contains {outline.text!r}")
    if linked_operations(report) is None:
        return Text.assemble(text, "\n", (source_note(report, tree), "dim"))
    return text


def layer_rows(outline: LayerOutline, fmt: Callable[[int], str], open_mark: str, closed_mark: str) -> TableRows:
    """The nodes OUTLINE shows as the Operations screen shows them, a filter's total as a last row."""
    figures, tree = outline.shown, outline.tree
    nodes = outline.rows()
    cells = [node_cells(figures, n, fmt) for n in nodes]
    ipus = 0 if figures.cycles_by_ipu is None else figures.cycles_by_ipu.shape[1]
    keys = ["cycles", "share", *(f"ipu {i}" for i in range(ipus)), "memory", "ops"]
    total = outline.total()
    other = "memory" if outline.sort == "cycles" else "cycles"
    return TableRows(
        {"name": "name", **{key: column_heading(key) for key in keys}}, [str(n) for n in nodes],
        [name_cell(tree, n, n in outline.expanded, outline.has_children(n), open_mark, closed_mark) for n in nodes],
        cells, ["dim" if tree.is_host(n) else "" for n in nodes],
        [outline.sort, other, "share", "ops", tuple(k for k in keys if k.startswith("ipu"))], outline.sort,
        total=None if total is None else (TOTAL, total_label(total.nodes), kept_cells(total, fmt)))


def node_kind(report: Report, figures: LayerFigures, node: int) -> str:
    tree = figures.tree
    if tree.is_host(node):
        return HOST_NOTE[0].upper() + HOST_NOTE[1:]
    if node == tree.unknown:
        return "Steps that name no program of the program table"
    here = int(np.count_nonzero(tree.operation_node == node))  # operations whose name ends here
    if here:
        return "Operation" if here == 1 else f"{here:,} operations of this name"
    programs = tree.programs_under(node)
    if len(programs) and tree.by_name[programs].all():
        return "No debug context links these programs: a model layer by their own names"
    return "Model layer" if tree.parent[node] < 0 else "Part of a model layer"


def node_details(report: Report, figures: LayerFigures, node: int, fmt: Callable[[int], str],
                 partial: bool = False) -> Text:
    """What the details pane says of NODE: its whole path, figures (PARTIAL: only those of what a filter
    keeps under it), and the programs under it."""
    tree, muted = figures.tree, "dim"
    text = Text()
    text.append(tree.paths[node] + "\n", "bold")
    text.append(node_kind(report, figures, node) + "\n", muted)
    if partial:
        text.append("Its figures here: those of what the filter keeps under it\n", muted)
    if figures.cycles is not None:
        share = figures.share(node)
        text.append(f"IPU-cycles  {int(figures.cycles[node]):,}")
        text.append(f" ({format_share(share)} of every step's)" if share is not None else "")
        text.append(f" in {count_of(int(figures.steps[node]), 'step')}\n")
        by_ipu = "  ".join(f"IPU {i} {int(c):,}" for i, c in enumerate(figures.cycles_by_ipu[node]))
        text.append(f"            {by_ipu}\n", muted)
    else:
        text.append(cycles_note(report) + "\n", muted)
    if figures.memory_known:
        text.append(f"Memory      {fmt(int(figures.memory[node]))}  (code {fmt(int(figures.code_bytes[node]))}"
                    f" + variables {fmt(int(figures.variable_bytes[node]))})\n")
    else:
        text.append(f"Memory      {report.missing('program_tree')}\n", muted)
    text.append(f"Operations  {int(figures.operations[node]):,}\n")
    programs = tree.programs_under(node)
    text.append(f"Programs ({len(programs):,})  P shows the first in the tree, T its first step in the trace\n",
                "bold")
    names = report.programs.names.take(programs[:LISTED].tolist())
    for program, name in zip(programs[:LISTED].tolist(), names):
        text.append(f"  {program:>6} {report.programs.type_name(program):<14} {name}\n")
    if len(programs) > LISTED:
        text.append(f"  … and {len(programs) - LISTED:,} more\n", muted)
    return text


# Compare, by model layer -------------------------------------------------------------------------

CHANGE_HEADINGS = ("model layer", "cycles A", "cycles B", "B − A", "memory A", "memory B", "B − A")
CHANGES_STATEMENT = ("Top-level model layers matched by name: IPU-cycles over every profiled run, and memory"
                     " (code and variables); host waits last, never ranked.")


def change_cells(row: dict[str, Any], units: str = "binary", minus: str = MINUS) -> list[tuple[str, int | None]]:
    """A model layer's row of a comparison (LayerChange.as_dict) as CHANGE_HEADINGS: each cell's text, and
    for the differences their value (to colour growth and shrinkage), else None."""
    cells: list[tuple[str, int | None]] = [(row["name"], None)]
    for figure, unit in (("cycles", "cycles"), ("memory", "bytes")):
        for side in (row["a"], row["b"]):
            cells.append(("absent" if side is None else format_value(side[figure], unit, units), None))
        delta = row[f"{figure}_delta"]
        cells.append((format_delta(delta, unit, units, minus), delta))
    return cells
