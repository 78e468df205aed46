"""Two reports by model layer: each top-level model layer's IPU-cycles and memory in A and in B, B - A.

Layers are matched by name; the host waits are one row of their own, last, never ranked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pvtui.model.layer_outline import ranked
from pvtui.model.layers import LayerFigures, build_tree, layer_figures
from pvtui.model.report import Report
from pvtui.model.tables import Table
from pvtui.model.unavailable import Unavailable


@dataclass(frozen=True)
class LayerFigure:
    cycles: int | None  # None without an execution profile
    memory: int | None  # None where the programs have no code bytes (profile.pop read without libpva)


@dataclass(frozen=True)
class LayerChange:
    name: str
    a: LayerFigure | None  # None: not in A
    b: LayerFigure | None  # None: not in B
    host: bool

    def delta(self, figure: str) -> int | None:
        """B - A of FIGURE ("cycles" or "memory"), a layer absent from one counting as 0 there; None where
        a report has no such figure."""
        values = [0 if side is None else getattr(side, figure) for side in (self.a, self.b)]
        return None if None in values else values[1] - values[0]

    def as_dict(self) -> dict[str, Any]:
        def side(figures: LayerFigure | None) -> dict[str, Any] | None:
            return None if figures is None else {"cycles": figures.cycles, "memory": figures.memory}

        return {"name": self.name, "host": self.host, "a": side(self.a), "b": side(self.b),
                "cycles_delta": self.delta("cycles"), "memory_delta": self.delta("memory")}


def top_layers(figures: LayerFigures) -> dict[str, LayerFigure]:
    """Each top-level node's figures by name, costliest first (the host waits last)."""
    tree = figures.tree
    cycles = figures.cycles
    return {tree.names[n]: LayerFigure(None if cycles is None else int(cycles[n]), figures.memory_of(n))
            for n in ranked(figures, tree.children(-1), "cycles")}


def report_layers(report: Report) -> tuple[dict[str, LayerFigure], str | None]:
    """REPORT's top-level model layers (top_layers), and the name of the host waits' node among them, if any;
    the report needs a program table."""
    tree = build_tree(report)
    return top_layers(layer_figures(report, tree)), tree.names[tree.host] if tree.host >= 0 else None


def layer_changes(a: Report, b: Report) -> list[LayerChange] | Unavailable:
    """A's model layers in A's order of cost, then those only in B, each with B - A; host waits last."""
    layers = []
    for name, report in (("A", a), ("B", b)):
        if report.programs is None:
            return Unavailable(f"Report {name} has no model layers: {report.missing('programs')}")
        layers.append(report_layers(report))
    (in_a, host_a), (in_b, host_b) = layers
    host = {host_a, host_b} - {None}
    names = list(in_a) + [name for name in in_b if name not in in_a]
    names.sort(key=lambda name: name in host)  # stable: the host waits move last
    return [LayerChange(name, in_a.get(name), in_b.get(name), name in host) for name in names]


# the columns a comparison's model layers sort by, in CHANGE_HEADINGS' order: the name, then each
# figure (cycles A, B, B - A, memory A, B, B - A)
LAYER_SORTS = ("name", "cycles_a", "cycles_b", "cycles_delta", "memory_a", "memory_b", "memory_delta")
DEFAULT_LAYER_SORT = LAYER_SORTS.index("cycles_delta")  # growth first: what a regression is


def sorted_changes(changes: list[LayerChange], column: int) -> list[LayerChange]:
    """CHANGES by LAYER_SORTS[COLUMN]: names in order, figures largest first (a figure a side lacks
    last); the host waits last whatever the column."""
    sort = LAYER_SORTS[column]

    def figure(change: LayerChange) -> int | None:
        name, side = sort.rsplit("_", 1)
        if side == "delta":
            return change.delta(name)
        figures = change.a if side == "a" else change.b
        return None if figures is None else getattr(figures, name)

    if sort == "name":
        return sorted(changes, key=lambda c: (c.host, c.name.lower()))
    return sorted(changes, key=lambda c: (c.host, figure(c) is None, -(figure(c) or 0)))


def layer_table(changes: list[LayerChange]) -> Table:
    columns = ["model_layer", "host", "cycles_a", "cycles_b", "cycles_delta", "memory_a", "memory_b", "memory_delta"]
    rows = []
    for c in changes:
        rows.append([c.name, c.host, *(None if s is None else s.cycles for s in (c.a, c.b)), c.delta("cycles"),
                     *(None if s is None else s.memory for s in (c.a, c.b)), c.delta("memory")])
    return Table("compare-layers", columns, rows)


def layers_json(changes: list[LayerChange] | Unavailable) -> dict[str, Any] | Unavailable:
    if isinstance(changes, Unavailable):
        return changes
    return {"available": True, "layers": [c.as_dict() for c in changes]}
