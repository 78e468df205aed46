"""Operations of one software layer (PopART, ONNX, PopTorch, XLA...).

libpva's operations each have a debug context; an operation belongs to the nearest
context of the chosen layer among its context and that context's parents, and the
operations under one such context make one row. Figures of a row, as views state them:

- code: the code bytes of its leaf programs (a program's code includes its
  children's, so only leaves are summed; a Poplar function shared by several
  operations counts with the operation that owns its body);
- variables: the bytes of the variables its operations list, found by name in the
  liveness data (None where none of the listed ones was found);
- cycles: the cycles of every execution step whose program is one of its programs,
  summed over the IPUs and over every profiled run.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable

import numpy as np

from pvtui.model.arrays import distinct
from pvtui.model.report import Debug, Report
from pvtui.model.tables import Table
from pvtui.model.unavailable import Unavailable

LAYER_LABELS = {
    "poplibs": "PopLibs", "popart": "PopART", "popartbuilder": "PopART builder", "onnx": "ONNX",
    "poptorch": "PopTorch", "xla_op": "XLA", "hloinstruction": "HLO", "poplar_driver": "Poplar driver",
}
MAX_DEPTH = 256  # debug context chains are short; this only stops a cycle in a damaged file
SAMPLED_CONTEXTS = 10_000  # contexts of a layer checked for lying below the operations
SORT_KEYS = ("memory", "code", "variables", "cycles", "programs", "step", "name")
COLUMNS = ["name", "memory bytes", "code bytes", "variable bytes", "cycles", "programs", "operations", "first step"]


def layer_label(layer: str) -> str:
    return LAYER_LABELS.get(layer, layer)


def ancestry(debug: Debug, context_id: int) -> list[int]:
    """Rows of the context CONTEXT_ID and of its parents, nearest first; empty when unknown."""
    rows: list[int] = []
    row = debug.index_of(context_id) if context_id >= 0 else -1
    while row >= 0 and len(rows) < MAX_DEPTH and row not in rows:
        rows.append(row)
        parent = int(debug.parent[row])
        row = debug.index_of(parent) if parent >= 0 else -1
    return rows


@dataclass
class OperationRow:
    name: str
    context: int  # the layer's debug context id; -1 for the operations under none
    operations: list[int]
    programs: np.ndarray  # program indices, ascending
    code_bytes: int
    variable_bytes: int | None
    unmatched_variables: int  # variables listed but not found by name in the liveness data
    cycles: int | None  # None without an execution profile
    steps: int  # execution steps that ran its programs
    first_step: int  # its first execution step, -1 when none ran
    liveness_steps: tuple[int, int] | None  # first and last liveness step, as libpva gives them
    foreign_calls: int  # its programs with children it does not own (calls of a function another op owns)

    @property
    def memory(self) -> int:
        return self.code_bytes + (self.variable_bytes or 0)

    def values(self) -> list[Any]:
        """The row as COLUMNS: plain values."""
        step = self.first_step if self.first_step >= 0 else None
        return [self.name, self.memory, self.code_bytes, self.variable_bytes, self.cycles, len(self.programs),
                len(self.operations), step]

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "context": self.context, "operations": len(self.operations),
            "programs": self.programs.tolist(), "code_bytes": self.code_bytes,
            "variable_bytes": self.variable_bytes, "memory": self.memory,
            "unmatched_variables": self.unmatched_variables,
            "cycles": self.cycles, "steps": self.steps,
            "first_step": self.first_step if self.first_step >= 0 else None,
            "liveness_steps": list(self.liveness_steps) if self.liveness_steps else None,
            "foreign_calls": self.foreign_calls,
        }


@dataclass
class LayerOperations:
    layer: str
    rows: list[OperationRow]
    reason: Unavailable | None  # why there are no rows, when there are none

    @property
    def label(self) -> str:
        return layer_label(self.layer)


class OperationIndex:
    """What every layer's rows share: each operation's context chain, and cycles per program."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self.ops = report.operations
        self.debug = report.debug

    def unavailable(self) -> Unavailable | None:
        """Why there are no operations to show, or None."""
        for part, held in (("operations", self.ops), ("debug", self.debug), ("programs", self.report.programs)):
            if held is None:
                return Unavailable(self.report.missing(part))
        return None

    @cached_property
    def ancestries(self) -> list[list[int]]:
        return [ancestry(self.debug, int(c)) for c in self.ops.debug_context]

    @cached_property
    def layers(self) -> list[str]:
        """Layers with operations at or above them, then layers whose contexts lie below the operations'."""
        debug = self.debug
        above = {int(debug.layer[row]) for rows in self.ancestries for row in rows}
        present = set(distinct(np.asarray(debug.layer)).tolist())
        names = debug.layer_names
        return [name for code, name in enumerate(names)
                if code in above or (code in present and self._lies_below(code))]

    @cached_property
    def default_layer(self) -> str | None:
        """The layer of most operations' own contexts."""
        own = [int(self.debug.layer[rows[0]]) for rows in self.ancestries if rows]
        if not own:
            return self.layers[0] if self.layers else None
        return self.debug.layer_names[int(np.bincount(own).argmax())]

    def _lies_below(self, code: int) -> bool:
        """True when contexts of layer CODE have an operation's context among their parents."""
        debug = self.debug
        op_ids = distinct(np.asarray(self.ops.debug_context))
        ids, parents = np.asarray(debug.ids), np.asarray(debug.parent)
        rows = np.flatnonzero(np.asarray(debug.layer) == code)[:SAMPLED_CONTEXTS]
        for _ in range(MAX_DEPTH):
            parent_ids = parents[rows]
            parent_ids = parent_ids[parent_ids >= 0]
            if len(parent_ids) == 0:
                return False
            if np.isin(parent_ids, op_ids).any():
                return True
            found = np.clip(np.searchsorted(ids, parent_ids), 0, len(ids) - 1)
            rows = found[ids[found] == parent_ids]
        return False

    @cached_property
    def program_steps(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """(cycles, steps, first step) per program over the whole execution profile, or None."""
        execution, programs = self.report.execution, self.report.programs
        if execution is None:
            return None
        n = len(programs)
        program = np.asarray(execution.program)
        known = (program >= 0) & (program < n)
        cycles = np.asarray(execution.cycles)
        cycles = cycles.sum(axis=1) if cycles.ndim == 2 else cycles
        per_program = np.bincount(program[known], weights=cycles[known], minlength=n)
        counts = np.bincount(program[known], minlength=n)
        first = np.full(n, -1, np.int64)
        seen, at = np.unique(program[known], return_index=True)
        first[seen] = np.flatnonzero(known)[at]
        return np.rint(per_program).astype(np.int64), counts, first

    def execution_steps(self, row: OperationRow) -> np.ndarray:
        """The execution steps that ran the row's programs, in order (all runs); empty without a profile."""
        return program_steps(self.report, row.programs)

    def resolve_layer(self, text: str) -> str:
        """The layer that TEXT names, as stored or as labelled (`xla`, `XLA`, `xla_op`); ValueError if none."""
        wanted = text.strip().lower()
        for layer in self.layers:
            if wanted in (layer.lower(), layer_label(layer).lower(), layer.lower().removesuffix("_op")):
                return layer
        choices = ", ".join(f"{layer_label(layer)} ({layer})" if layer_label(layer).lower() != layer else layer
                            for layer in self.layers)
        raise ValueError(f"no operations layer {text!r} here; choose one of {choices}")

    def row(self, name: str, context: int, operations: list[int]) -> OperationRow:
        ops, programs = self.ops, self.report.programs
        members = distinct(np.concatenate([ops.programs(op) for op in operations])).astype(np.int64)
        code = programs.leaf_code_bytes(members)
        var_bytes = [int(ops.variable_bytes[op]) for op in operations]
        known = [b for b in var_bytes if b >= 0]
        unmatched = sum(int(ops.variables[op]) - int(ops.variables_matched[op]) for op in operations)
        cycles, steps, first = None, 0, -1
        if self.program_steps is not None:
            per_program, counts, firsts = self.program_steps
            cycles = int(per_program[members].sum())
            steps = int(counts[members].sum())
            ran = firsts[members]
            first = int(ran[ran >= 0].min()) if (ran >= 0).any() else -1
        starts = [int(ops.first_step[op]) for op in operations if ops.first_step[op] >= 0]
        ends = [int(ops.last_step[op]) for op in operations if ops.last_step[op] >= 0]
        liveness = (min(starts), max(ends)) if starts and ends else None
        owned = set(members.tolist())
        foreign = sum(1 for p in members.tolist() if any(int(c) not in owned for c in programs.children(p)))
        return OperationRow(name, context, operations, members, code, sum(known) if known else None,
                            unmatched, cycles, steps, first, liveness, foreign)

    def layer(self, layer: str) -> LayerOperations:
        """The rows of LAYER: one per context of that layer that operations sit under."""
        debug = self.debug
        label = layer_label(layer)
        if layer not in debug.layer_names:
            return LayerOperations(layer, [], Unavailable(f"This report has no {label} debug contexts."))
        code = debug.layer_names.index(layer)
        groups: dict[int, list[int]] = {}
        for op, rows in enumerate(self.ancestries):
            row = next((r for r in rows if int(debug.layer[r]) == code), -1)
            groups.setdefault(row, []).append(op)
        if set(groups) == {-1}:
            if self._lies_below(code):
                reason = (f"{label} contexts sit below the operations' own debug contexts: libpva ties programs"
                          f" to operations, not to {label} calls, so their programs, memory and cycles cannot"
                          " be told apart.")
            else:
                reason = f"No operation of this report has a {label} debug context."
            return LayerOperations(layer, [], Unavailable(reason))
        rows = []
        for row, members in groups.items():
            if row < 0:
                rows.append(self.row(f"(no {label} context)", -1, members))
                continue
            own = len(members) == 1 and self.ancestries[members[0]][0] == row
            name = self.ops.names[members[0]] if own else debug.names[row]
            rows.append(self.row(name, int(debug.ids[row]), members))
        return LayerOperations(layer, rows, None)


def program_steps(report: Report, programs: np.ndarray) -> np.ndarray:
    """The execution steps that ran PROGRAMS, in order (all runs); empty without an execution profile."""
    execution = report.execution
    if execution is None:
        return np.zeros(0, np.int64)
    return np.flatnonzero(np.isin(np.asarray(execution.program), programs))


def top_program(report: Report, row: OperationRow) -> int:
    """The row's first program whose parent is not one of its programs (where to show it in the tree), or -1."""
    if len(row.programs) == 0:
        return -1
    parents = np.asarray(report.programs.parent)[row.programs]
    tops = row.programs[~np.isin(parents, row.programs)]
    return int(tops[0]) if len(tops) else int(row.programs[0])


def sort_key(key: str) -> Callable[[OperationRow], Any]:
    """A key for sorted(): largest first for figures (unknown last), by name or program order otherwise."""
    if key == "name":
        return lambda r: r.name.lower()
    if key == "step":
        return lambda r: (r.first_step < 0, r.first_step)
    figure: Callable[[OperationRow], int | None] = {
        "memory": lambda r: r.memory,
        "code": lambda r: r.code_bytes,
        "variables": lambda r: r.variable_bytes,
        "cycles": lambda r: r.cycles,
        "programs": lambda r: len(r.programs),
    }[key]
    return lambda r: (figure(r) is None, -(figure(r) or 0))


def select_rows(rows: list[OperationRow], sort: str = "memory", text: str = "") -> list[OperationRow]:
    """ROWS whose name contains TEXT (any case), sorted by SORT."""
    needle = text.lower()
    kept = [r for r in rows if needle in r.name.lower()] if needle else list(rows)
    return sorted(kept, key=sort_key(sort))


def operations_table(layer: LayerOperations, rows: list[OperationRow]) -> Table:
    # exported names are snake_case, as in every other table; the screen's keys keep their spaces
    return Table(f"operations-{layer.layer}", [c.replace(" ", "_") for c in COLUMNS], [r.values() for r in rows])


def cycles_note(report: Report) -> str:
    """What the cycles column sums, or why it is empty."""
    execution = report.execution
    if execution is None:
        return report.missing("execution")
    runs = execution.num_runs
    return (f"IPU-cycles: every execution step of its programs on every IPU, over {runs} profiled"
            f" run{'s' * (runs != 1)}")


def operations_data(report: Report, layer: str | None = None, sort: str = "memory", text: str = "",
                    top: int | None = None) -> dict[str, Any] | Unavailable:
    """The `pvtui operations` answer: the rows of LAYER (the default layer when None), or why there are none."""
    index = OperationIndex(report)
    reason = index.unavailable()
    if reason is not None:
        return reason
    if top is not None and top < 0:
        raise ValueError(f"--top must be 0 or more, not {top}")
    chosen = index.resolve_layer(layer) if layer else index.default_layer
    if chosen is None:
        return Unavailable("No debug context of this report belongs to an operation.")
    view = index.layer(chosen)
    if view.reason is not None:
        return view.reason
    rows = select_rows(view.rows, sort, text)
    shown = rows[:top] if top is not None else rows
    return {
        "available": True,
        "reason": None,  # as the JSON has always had it
        "layer": view.layer,
        "label": view.label,
        "layers": index.layers,
        "sort": sort,
        "filter": text,
        "total": len(view.rows),
        "matched": len(rows),
        "shown": len(shown),
        "cycles_note": cycles_note(report),
        "operations": [r.as_dict() for r in shown],
    }
