"""The model layers as the Operations screen and `pvtui operations --group layer` show them: siblings
sorted by IPU-cycles or memory (the host waits last, never ranked), a filter on the path, and the
total of what the filter keeps."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pvtui.model.layers import LayerFigures, LayerTree, build_tree, layer_figures, linked_operations, unlinked_reason
from pvtui.model.operations import cycles_note as operation_cycles_note
from pvtui.model.report import Report
from pvtui.model.tables import Table
from pvtui.model.unavailable import Unavailable
from pvtui.units import count_of

SORTS = ("cycles", "memory")


def figure_of(figures: LayerFigures, sort: str) -> np.ndarray:
    """The figure SORT ranks nodes by; memory where there is no execution profile, cycles where the memory
    is not known."""
    if figures.cycles is not None and (sort == "cycles" or not figures.memory_known):
        return figures.cycles
    return figures.memory


def ranked(figures: LayerFigures, nodes: np.ndarray, sort: str) -> list[int]:
    """NODES largest first by SORT (then by name); the host waits and the steps of no known program last."""
    tree, values = figures.tree, figure_of(figures, sort)
    unranked = {tree.host, tree.unknown}
    return sorted(nodes.tolist(), key=lambda n: (n in unranked, n == tree.host, -int(values[n]), tree.names[n]))


def matching(tree: LayerTree, text: str) -> np.ndarray:
    """Per node, whether its path contains TEXT (any case)."""
    needle = text.lower()
    return np.array([needle in path.lower() for path in tree.paths], dtype=bool)


def kept_nodes(tree: LayerTree, text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The nodes a filter on TEXT keeps (those matching, with no matching node above them); per node,
    whether it lies within one of them; and whether it shows under the filter (it leads to one of them,
    or lies within one)."""
    matched = matching(tree, text)
    within = matched.copy()  # it or a node above it matches
    below = np.zeros(len(tree), dtype=bool)  # a node above it matches
    for node, parent in enumerate(tree.parent.tolist()):  # parents come first
        if parent >= 0 and within[parent]:
            within[node] = below[node] = True
    kept = np.flatnonzero(matched & ~below)
    shows = within.copy()
    for node in kept.tolist():
        node = int(tree.parent[node])
        while node >= 0 and not shows[node]:
            shows[node] = True
            node = int(tree.parent[node])
    return kept, within, shows


def restricted(figures: LayerFigures, kept: np.ndarray, within: np.ndarray) -> LayerFigures:
    """FIGURES of what a filter keeps: a node within a kept one keeps its own, one above them the sum of
    the kept nodes under it."""

    def part(values: np.ndarray) -> np.ndarray:
        at = np.zeros_like(values)
        at[kept] = values[kept]
        inside = within.reshape(-1, *([1] * (values.ndim - 1)))
        return np.where(inside, values, figures.tree.subtree_sums(at))

    by_ipu = None if figures.cycles_by_ipu is None else part(figures.cycles_by_ipu)
    return dataclasses.replace(figures, cycles_by_ipu=by_ipu, steps=part(figures.steps),
                               code_bytes=part(figures.code_bytes), variable_bytes=part(figures.variable_bytes),
                               operations=part(figures.operations))


@dataclass(frozen=True)
class Kept:
    """The total of the nodes a filter keeps."""

    nodes: int
    cycles: int | None
    cycles_by_ipu: list[int] | None
    memory: int | None
    operations: int
    share: float | None

    def as_dict(self) -> dict[str, Any]:
        return {"nodes": self.nodes, "cycles": self.cycles, "cycles_by_ipu": self.cycles_by_ipu,
                "share": self.share, "memory": self.memory, "operations": self.operations}


def kept_total(figures: LayerFigures, nodes: np.ndarray) -> Kept:
    cycles = by_ipu = share = None
    if figures.cycles_by_ipu is not None:
        sums = figures.cycles_by_ipu[nodes].sum(axis=0)
        by_ipu, cycles = sums.tolist(), int(sums.sum())
        share = cycles / figures.total_cycles if figures.total_cycles else None
    memory = int(figures.memory[nodes].sum()) if figures.memory_known else None
    return Kept(len(nodes), cycles, by_ipu, memory, int(figures.operations[nodes].sum()), share)


@dataclass
class LayerOutline:
    """Which nodes of the model layers show, in what order: the Operations screen's state by layer."""

    figures: LayerFigures
    sort: str = "cycles"
    expanded: set[int] = field(default_factory=set)
    text: str = ""
    kept: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # with a filter: the nodes it keeps
    shows: np.ndarray | None = None  # with a filter: per node, whether it shows (kept_nodes)
    within: np.ndarray | None = None  # with a filter: per node, whether it lies within a node kept
    shown: LayerFigures | None = None  # the figures the rows show: with a filter, those of what it keeps

    def __post_init__(self) -> None:
        self.shown = self.shown or self.figures

    @property
    def tree(self) -> LayerTree:
        return self.figures.tree

    def filter(self, text: str) -> None:
        """Keep the nodes whose path contains TEXT, shown under their layers opened down to them."""
        self.text = text
        if not text:
            self.kept, self.shows, self.within, self.shown = np.zeros(0, np.int64), None, None, self.figures
            return
        self.kept, self.within, self.shows = kept_nodes(self.tree, text)
        self.shown = restricted(self.figures, self.kept, self.within)
        for node in self.kept.tolist():
            parent = int(self.tree.parent[node])
            while parent >= 0:
                self.expanded.add(parent)
                parent = int(self.tree.parent[parent])

    def children(self, node: int) -> list[int]:
        """The nodes under NODE (-1: the top) that show, in order."""
        nodes = self.tree.children(node)
        if self.shows is not None:
            nodes = nodes[self.shows[nodes]]
        return ranked(self.shown, nodes, self.sort)

    def rows(self) -> list[int]:
        """The nodes shown, in order: each expanded node followed by its children."""
        shown: list[int] = []
        stack = self.children(-1)[::-1]
        while stack:
            node = stack.pop()
            shown.append(node)
            if node in self.expanded:
                stack.extend(self.children(node)[::-1])
        return shown

    def partial(self, node: int) -> bool:
        """Whether NODE's figures as shown are only those of what the filter keeps under it."""
        return self.within is not None and not self.within[node]

    def has_children(self, node: int) -> bool:
        return len(self.tree.children(node)) > 0

    def total(self) -> Kept | None:
        """With a filter: the total of what it keeps."""
        return kept_total(self.figures, self.kept) if self.text else None


def layers_table(figures: LayerFigures, nodes: list[int]) -> Table:
    """NODES as the Operations screen shows them by model layer, for export."""
    tree = figures.tree
    ipus = 0 if figures.cycles_by_ipu is None else figures.cycles_by_ipu.shape[1]
    columns = ["path", "ipu_cycles", "share", *(f"ipu_{i}_cycles" for i in range(ipus)), "memory", "code_bytes",
               "variable_bytes", "operations", "steps", "host"]
    rows = []
    for node in nodes:
        cycles = [None] * (1 + ipus) if figures.cycles is None else [
            int(figures.cycles[node]), *figures.cycles_by_ipu[node].tolist()]
        rows.append([tree.paths[node], cycles[0], figures.share(node), *cycles[1:], figures.memory_of(node),
                     figures.memory_of(node, "code_bytes"), figures.memory_of(node, "variable_bytes"),
                     int(figures.operations[node]), int(figures.steps[node]), tree.is_host(node)])
    return Table("operations-model-layers", columns, rows)


def source_note(report: Report, tree: LayerTree) -> str:
    """Where the model layers come from: the operations' names, else the programs' own."""
    by_name = int(tree.by_name.sum())
    if linked_operations(report) is None:
        return ("No debug context links a program here (" + unlinked_reason(report).rstrip(".")
                + "): model layers come from the programs' names.")
    if not by_name:
        return "Model layers from the operations' names."
    own = "its own name" if by_name == 1 else "their own names"
    return (f"Model layers from the operations' names; {count_of(by_name, 'program')} that no debug context links,"
            f" from {own}.")


def cycles_note(report: Report) -> str:
    """What a layer's cycles and share count, or why there are none."""
    note = operation_cycles_note(report)
    return note if report.execution is None else f"{note}; share: of every step's IPU-cycles, host waits included"


def node_dict(figures: LayerFigures, node: int, sort: str, depth: int) -> dict[str, Any]:
    tree = figures.tree
    cycles = None if figures.cycles is None else int(figures.cycles[node])
    entry: dict[str, Any] = {
        "name": tree.names[node], "path": tree.paths[node], "cycles": cycles,
        "cycles_by_ipu": None if figures.cycles_by_ipu is None else figures.cycles_by_ipu[node].tolist(),
        "share": figures.share(node), "memory": figures.memory_of(node),
        "code_bytes": figures.memory_of(node, "code_bytes"), "variable_bytes": figures.memory_of(node, "variable_bytes"),
        "operations": int(figures.operations[node]),
        "steps": int(figures.steps[node]), "host": tree.is_host(node),
    }
    children = tree.children(node)
    if depth > 1 and len(children):
        entry["groups"] = [node_dict(figures, child, sort, depth - 1) for child in ranked(figures, children, sort)]
    return entry


def layers_data(report: Report, sort: str = "cycles", text: str = "", depth: int = 1,
                top: int | None = None) -> dict[str, Any] | Unavailable:
    """The `pvtui operations --group layer` answer: the model layers costliest first, the host waits last."""
    if report.programs is None:
        return Unavailable(report.missing("programs"))
    if sort not in SORTS:
        raise ValueError(f"--sort {sort!r} by model layer: choose one of {', '.join(SORTS)}")
    if depth < 1 or (top is not None and top < 0):
        raise ValueError("--depth must be 1 or more and --top 0 or more")
    tree = build_tree(report)
    figures = layer_figures(report, tree)
    if sort == "memory" and not figures.memory_known:
        raise ValueError(f"--sort memory by model layer needs the programs' code bytes: {report.missing('program_tree')}")
    nodes = kept_nodes(tree, text)[0] if text else tree.children(-1)
    order = ranked(figures, nodes, sort)
    if top is not None:
        order = [n for n in order if n in (tree.host, tree.unknown)] if top == 0 else (
            [n for n in order if n not in (tree.host, tree.unknown)][:top]
            + [n for n in order if n in (tree.unknown, tree.host)])
    data: dict[str, Any] = {
        "available": True, "group": "layer", "source": source_note(report, tree), "sort": sort, "filter": text,
        "ipus": None if figures.cycles_by_ipu is None else figures.cycles_by_ipu.shape[1],
        "total_cycles": figures.total_cycles, "cycles_note": cycles_note(report),
        "groups": [node_dict(figures, node, sort, depth) for node in order],
    }
    if text:
        data["kept"] = kept_total(figures, nodes).as_dict()
    return data
