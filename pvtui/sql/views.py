"""Each view's columns from one report's model: the same figures the screens and commands show.

A view the report cannot fill is an `Unavailable` naming what would give it.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Sequence

import numpy as np

from pvtui.model.host_waits import device_cycles
from pvtui.model.layers import LayerFigures, build_tree, layer_figures
from pvtui.model.queries import run_figures, tile_ipus, tile_totals
from pvtui.model.report import Report
from pvtui.model.unavailable import Unavailable

Columns = dict[str, Sequence[Any]]  # column name -> values, all of one length


def with_nulls(values: np.ndarray, null: np.ndarray) -> list:
    """VALUES as Python values, None where NULL is true."""
    out = np.asarray(values).astype(object)
    out[null] = None
    return out.tolist()


def named(names: Sequence[str], codes: np.ndarray, known: np.ndarray) -> list:
    """The name of each code, None where not KNOWN or no name's (a damaged column)."""
    table = np.array(list(names) + [None], dtype=object)
    codes = np.asarray(codes)
    return table[np.where(known & (codes >= 0) & (codes < len(names)), codes, len(names))].tolist()


def optional(values: np.ndarray | None, count: int) -> Sequence[Any]:
    return [None] * count if values is None else np.asarray(values)


class ReportViews:
    """The views of one report, each built when a query first names it."""

    def __init__(self, report: Report) -> None:
        self.report = report

    def columns(self, view: str) -> Columns | Unavailable:
        return getattr(self, f"_{view}")()

    @cached_property
    def figures(self) -> LayerFigures:
        return layer_figures(self.report, build_tree(self.report))

    @cached_property
    def program_layers(self) -> list:
        """Per program, its top model layer's name, None for a program the tree does not place."""
        tree = self.figures.tree
        node = tree.program_node
        placed = node >= 0
        return named(tree.names, np.asarray(tree.top)[np.where(placed, node, 0)], placed)

    def _steps(self) -> Columns | Unavailable:
        report, ex = self.report, self.report.execution
        if ex is None:
            return Unavailable(report.missing("execution"))
        starts = np.asarray(ex.cycles_from)
        step, ipu = np.nonzero(starts >= 0)  # by step, then IPU
        program = np.asarray(ex.program, dtype=np.int64)[step]
        count = len(report.programs) if report.programs is not None else 0
        known = (program >= 0) & (program < count)
        types = report.programs.type_names if count else []
        codes = np.asarray(report.programs.type, dtype=np.int64)[np.where(known, program, 0)] if count else program
        return {
            "run": np.searchsorted(np.asarray(ex.run_step_offsets), step, side="right") - 1,
            "step": step, "ipu": ipu, "program": with_nulls(program, ~known), "type": named(types, codes, known),
            "start": starts[step, ipu],
            "end": np.asarray(ex.cycles_to)[step, ipu],
            "cycles": np.asarray(ex.cycles)[step, ipu],
        }

    def _runs(self) -> Columns | Unavailable:
        ex = self.report.execution
        if ex is None:
            return Unavailable(self.report.missing("execution"))
        figures = [run_figures(ex, run) for run in range(ex.num_runs)]
        columns: Columns = {"run": list(range(ex.num_runs)), "name": list(ex.run_names)}
        for key in ("steps", "ipu_steps", "run_span_cycles", "ipu_cycles"):
            columns[key] = [f[key] for f in figures]
        columns["device_cycles"] = device_cycles(self.report)
        return columns

    def _tiles(self) -> Columns | Unavailable:
        report = self.report
        totals = tile_totals(report)
        if totals is None:
            return Unavailable(report.missing("memory"))
        values, _ = totals
        count, memory = len(values), report.memory
        ipus = tile_ipus(report, count)
        limit = report.target.bytes_per_tile
        return {
            "ipu": optional(ipus, count), "tile": np.arange(count), "bytes": values,
            "bytes_excluding_gaps": optional(memory and memory.excluding_gaps, count),
            "always_live": optional(memory and memory.always_live, count),
            "not_always_live": optional(memory and memory.not_always_live, count),
            "over_limit": (np.asarray(values) > limit).astype(np.int64) if limit else [None] * count,
        }

    def _tile_categories(self) -> Columns | Unavailable:
        memory = self.report.memory
        if memory is None:
            return Unavailable(self.report.missing("memory"))
        table = np.asarray(memory.by_category)
        tile, category = np.nonzero(np.ones_like(table, dtype=bool))
        return {"ipu": np.asarray(memory.ipu)[tile], "tile": tile,
                "category": named(memory.categories, category, np.ones(len(tile), bool)),
                "bytes": table[tile, category]}

    def _variables(self) -> Columns | Unavailable:
        lowered = self.report.lowered
        if lowered is None:
            return Unavailable(self.report.missing("lowered"))
        name = np.asarray(lowered.name, dtype=np.int64)
        names = np.array(lowered.names.take(range(len(lowered.names))), dtype=object)
        columns: Columns = {"tile": np.asarray(lowered.tile), "name": names[name].tolist(),
                            "bytes": np.asarray(lowered.bytes)}
        if lowered.has_liveness and lowered.num_steps:
            steps = np.asarray(lowered.class_steps, dtype=np.int64)[np.asarray(lowered.cls, dtype=np.int64)]
            always = steps >= lowered.num_steps
            columns["category"] = np.where(always, "always-live", "not-always-live").tolist()
            columns["steps_live"] = steps
        else:
            columns["category"] = columns["steps_live"] = [None] * len(name)
        return columns

    def _programs(self) -> Columns | Unavailable:
        programs = self.report.programs
        if programs is None:
            return Unavailable(self.report.missing("programs"))
        count = len(programs)
        parent = np.asarray(programs.parent, dtype=np.int64)
        compute_set = np.asarray(programs.compute_set, dtype=np.int64)
        codes = np.asarray(programs.type, dtype=np.int64)
        return {
            "id": np.arange(count), "name": list(programs.names.take(range(count))),
            "type": named(programs.type_names, codes, np.ones(count, bool)),
            "parent": with_nulls(parent, parent < 0), "compute_set": with_nulls(compute_set, compute_set < 0),
            "code_bytes": optional(programs.code_bytes, count), "layer": self.program_layers,
        }

    def _compute_sets(self) -> Columns | Unavailable:
        programs = self.report.programs
        if programs is None:
            return Unavailable(self.report.missing("programs"))
        count = len(programs.compute_set_names)
        layer: list = [None] * count
        for program, compute_set in enumerate(np.asarray(programs.compute_set).tolist()):
            if 0 <= compute_set < count and layer[compute_set] is None:
                layer[compute_set] = self.program_layers[program]
        return {"id": np.arange(count), "name": list(programs.compute_set_names.take(range(count))), "layer": layer}

    def _layers(self) -> Columns | Unavailable:
        if self.report.programs is None:
            return Unavailable(self.report.missing("programs"))
        figures = self.figures
        tree = figures.tree
        nodes = tree.children(-1)
        cycles = figures.cycles
        return {
            "name": [tree.names[n] for n in nodes],
            "cycles": [None] * len(nodes) if cycles is None else cycles[nodes],
            **{figure: [figures.memory_of(int(n), figure) for n in nodes]
               for figure in ("memory", "code_bytes", "variable_bytes")},
            "steps": figures.steps[nodes], "operations": figures.operations[nodes],
            "host": [int(tree.is_host(int(n))) for n in nodes],
        }

    def _liveness(self) -> Columns | Unavailable:
        live = self.report.liveness
        if live is None:
            return Unavailable(self.report.missing("liveness"))
        count = len(live)
        return {"step": np.arange(count), "program": np.asarray(live.program),
                "always_live": [live.always_live_bytes] * count, "not_always_live": np.asarray(live.not_always_live)}
