"""Model layers: where the cycles and the memory go, by the outer parts of the names.

Every leaf program (and every program that ran as a step) sits at one node of a tree
of name parts, and every operation at the node its name ends at:
- a program an operation owns (the first operation that lists it): the operation's name
  split at `/` (the model layers, then the operation), then what the program's own name
  adds to it (the PopLibs calls that made it);
- a program that no debug context links (no operation lists it): its own name split at `/`;
- a program whose steps wait on the host (host_waits): under one group of its own, the
  host waits, shown but never ranked as a model layer.
A node's figures sum those of the programs and operations at it and below it: its
IPU-cycles are the step statistics' (each step's cycles on each IPU that ran it, over
every run), its memory the code of its leaf programs plus the variables its operations list.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Iterator

import numpy as np

from pvtui.model.arrays import distinct
from pvtui.model.host_waits import host_wait_programs
from pvtui.model.report import Operations, Report

HOST_WAITS = "host waits"
NO_PROGRAM = "(steps of no known program)"
UNNAMED = "(unnamed operation)"
MAX_DEPTH = 16  # deeper names are joined into their last level


def split_name(name: str) -> list[str]:
    return [part for part in name.split("/") if part]


def common_length(a: list[str], b: list[str]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def capped(path: list[str], depth: int) -> list[str]:
    """PATH in at most DEPTH parts: the deeper ones joined into the last."""
    return path if len(path) <= depth else path[: depth - 1] + ["/".join(path[depth - 1 :])]


class _Nodes:
    """Paths of names interned as nodes: a parent is always made before its children."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.parent: list[int] = []
        self._index: dict[tuple[int, str], int] = {}

    def intern(self, path: list[str]) -> int:
        node = -1
        for part in capped(path, MAX_DEPTH):
            found = self._index.get((node, part))
            if found is None:
                found = self._index[(node, part)] = len(self.names)
                self.names.append(part)
                self.parent.append(node)
            node = found
        return node


@dataclass(frozen=True, eq=False)
class LayerTree:
    """The tree of model layers, operations and PopLibs calls; node ids count from 0, parents first."""

    names: list[str]  # per node, its own name part
    parent: np.ndarray  # int64 per node, -1 at the top
    program_node: np.ndarray  # int64 per program, -1 for a parent program that never ran (its code is its children's)
    operation_node: np.ndarray  # int64 per operation
    by_name: np.ndarray  # bool per program: placed by its own name, no debug context linking it
    host: int  # the host waits' node, -1 where no program waits on the host
    unknown: int  # the node of steps naming no known program, -1 where there are none

    def __len__(self) -> int:
        return len(self.names)

    @cached_property
    def depth(self) -> np.ndarray:
        depth = np.zeros(len(self), np.int64)
        for node, parent in enumerate(self.parent.tolist()):
            if parent >= 0:
                depth[node] = depth[parent] + 1
        return depth

    @cached_property
    def top(self) -> np.ndarray:
        """Per node, its top-level ancestor (itself at the top)."""
        top = np.arange(len(self), dtype=np.int64)
        for node, parent in enumerate(self.parent.tolist()):
            if parent >= 0:
                top[node] = top[parent]
        return top

    @cached_property
    def _children(self) -> tuple[np.ndarray, np.ndarray]:
        order = np.argsort(self.parent, kind="stable")
        counts = np.bincount(self.parent + 1, minlength=len(self) + 1)
        return np.concatenate(([0], np.cumsum(counts))), order

    def children(self, node: int) -> np.ndarray:
        """The nodes under NODE (-1: the top-level nodes), in the order they were made."""
        offsets, order = self._children
        return order[offsets[node + 1] : offsets[node + 2]]

    def path(self, node: int) -> list[str]:
        parts = []
        while node >= 0:
            parts.append(self.names[node])
            node = int(self.parent[node])
        return parts[::-1]

    @cached_property
    def paths(self) -> list[str]:
        """Every node's path joined with `/`."""
        joined: list[str] = []
        for name, parent in zip(self.names, self.parent.tolist()):
            joined.append(name if parent < 0 else f"{joined[parent]}/{name}")
        return joined

    def is_host(self, node: int) -> bool:
        return self.host >= 0 and int(self.top[node]) == self.host

    def subtree_sums(self, values: np.ndarray) -> np.ndarray:
        """VALUES at each node (first axis) summed with those of every node below it."""
        totals = np.array(values, copy=True)
        depth = self.depth
        for level in range(int(depth.max(initial=0)), 0, -1):
            nodes = np.flatnonzero(depth == level)
            np.add.at(totals, self.parent[nodes], totals[nodes])
        return totals

    def at_nodes(self, per_program: np.ndarray, unknown: np.ndarray | int = 0) -> np.ndarray:
        """PER_PROGRAM values (first axis: programs) summed at each program's node, UNKNOWN at the
        unknown programs' node; then summed up the tree."""
        values = np.asarray(per_program)
        out = np.zeros((len(self), *values.shape[1:]), dtype=values.dtype)
        placed = np.flatnonzero(self.program_node >= 0)
        np.add.at(out, self.program_node[placed], values[placed])
        if self.unknown >= 0:
            out[self.unknown] += unknown
        return self.subtree_sums(out)

    @cached_property
    def first_program(self) -> np.ndarray:
        """Per node, the first program at it or below it (where to show it in the tree), else -1."""
        n = len(self.program_node)
        first = np.full(len(self), n, np.int64)
        placed = np.flatnonzero(self.program_node >= 0)
        np.minimum.at(first, self.program_node[placed], placed)
        depth = self.depth
        for level in range(int(depth.max(initial=0)), 0, -1):
            nodes = np.flatnonzero(depth == level)
            np.minimum.at(first, self.parent[nodes], first[nodes])
        return np.where(first < n, first, -1)

    def programs_under(self, node: int) -> np.ndarray:
        """The programs at NODE or below it, ascending."""
        placed = self.program_node >= 0
        inside = np.zeros(len(self), dtype=bool)
        inside[node] = True
        for level in range(int(self.depth[node]) + 1, int(self.depth.max(initial=0)) + 1):
            nodes = np.flatnonzero(self.depth == level)
            inside[nodes] = inside[self.parent[nodes]]
        return np.flatnonzero(placed & inside[np.where(placed, self.program_node, 0)])


def linked_operations(report: Report) -> Operations | None:
    """The operations that link programs to debug contexts: libpva's, where debug.cbor is read too."""
    return report.operations if report.debug is not None else None


def unlinked_reason(report: Report) -> str:
    """Why no debug context links a program, where linked_operations() is None."""
    return report.missing("operations" if report.operations is None else "debug")


def program_owners(report: Report) -> np.ndarray:
    """Per program, the first operation that lists it, else -1."""
    count = len(report.programs)
    owner = np.full(count, -1, np.int64)
    ops = linked_operations(report)
    if ops is None:
        return owner
    ids = np.asarray(ops.program_ids, dtype=np.int64)
    offsets = np.asarray(ops.program_offsets, dtype=np.int64)
    op_of = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    valid = (ids >= 0) & (ids < count)
    programs, first = np.unique(ids[valid], return_index=True)
    owner[programs] = op_of[valid][first]
    return owner


def placed_programs(report: Report) -> np.ndarray:
    """The programs the tree places: every leaf, and every program that ran as a step."""
    programs = report.programs
    placed = np.asarray(programs.is_leaf).copy()
    kept = report.execution.program_figures if report.execution is not None else None
    if kept is not None:  # as ingest counted them: a row per program id (row 0: ids below 0)
        ran = kept["steps"][1 : len(programs) + 1] > 0
        placed[: len(ran)] |= ran
    elif report.execution is not None:
        steps = np.asarray(report.execution.program, dtype=np.int64)
        placed |= np.bincount(steps[(steps >= 0) & (steps < len(programs))], minlength=len(programs)) > 0
    return np.flatnonzero(placed)


def unknown_steps(report: Report) -> bool:
    execution = report.execution
    if execution is None:
        return False
    steps = np.asarray(execution.program)
    return bool(((steps < 0) | (steps >= len(report.programs))).any())


def placed_paths(report: Report, whole: bool = True) -> Iterator[tuple[int, list[str], bool]]:
    """Each program the tree places, its path of names (unless WHOLE, only as far as its model layer), and
    whether its own name placed it (no debug context links it)."""
    programs, ops = report.programs, linked_operations(report)
    op_parts = [split_name(name) or [UNNAMED] for name in ops.names] if ops is not None else []
    owner, waits = program_owners(report), host_wait_programs(report)
    placed = placed_programs(report)
    for program, name in zip(placed.tolist(), programs.names.take(placed.tolist())):
        parts = split_name(name) or [programs.type_name(program)]
        parts = parts if whole else parts[:1]
        op = int(owner[program])
        if waits[program]:
            yield program, [HOST_WAITS, *parts], False
        elif op >= 0:
            yield program, op_parts[op] + parts[common_length(parts, op_parts[op]) :], False
        else:
            yield program, parts, True


def build_tree(report: Report) -> LayerTree:
    """The model layers of REPORT (which needs a program table)."""
    programs, ops = report.programs, linked_operations(report)
    nodes = _Nodes()
    op_names = list(ops.names) if ops is not None else []
    operation_node = np.array([nodes.intern(split_name(name) or [UNNAMED]) for name in op_names], np.int64)
    program_node = np.full(len(programs), -1, np.int64)
    by_name = np.zeros(len(programs), dtype=bool)
    for program, path, own_name in placed_paths(report):
        program_node[program], by_name[program] = nodes.intern(path), own_name
    host = nodes.intern([HOST_WAITS]) if bool(host_wait_programs(report)[placed_programs(report)].any()) else -1
    unknown = nodes.intern([NO_PROGRAM]) if unknown_steps(report) else -1
    return LayerTree(nodes.names, np.array(nodes.parent, np.int64), program_node, operation_node, by_name,
                     host, unknown)


def program_layers(report: Report) -> list[str | None]:
    """Per program, its model layer: the top of its path in build_tree's tree (None where it places none).
    Only the top is asked for, so names are split only as far as it (placed_paths splits them whole)."""
    programs, ops = report.programs, linked_operations(report)
    owner, waits = program_owners(report), np.asarray(host_wait_programs(report), dtype=bool)
    layers: list[str | None] = [None] * len(programs)
    placed = placed_programs(report)
    for program in placed[waits[placed]].tolist():
        layers[program] = HOST_WAITS
    rest = placed[~waits[placed]]
    by_op, by_name = rest[owner[rest] >= 0], rest[owner[rest] < 0]  # placed by an operation's name, by their own
    op_ids = distinct(owner[by_op]).tolist()
    op_layers = dict(zip(op_ids, (first_part(name) or UNNAMED for name in ops.names.take(op_ids)))) if op_ids else {}
    for program, op in zip(by_op.tolist(), owner[by_op].tolist()):
        layers[program] = op_layers[op]
    named = by_name.tolist()
    for program, name in zip(named, programs.names.take(named)):
        layers[program] = first_part(name) or programs.type_name(program)
    return layers


def first_part(name: str) -> str | None:
    """The first part of a path of names (split_name's first), None where it has none."""
    return next((part for part in name.split("/") if part), None)


def program_cycles(report: Report, lo: int = 0, hi: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each program's cycles on each IPU over the steps [LO, HI) (int64 [programs, IPUs]), and what the
    steps that name no known program add (int64 [IPUs]). A step counts on the IPUs that ran it."""
    execution, count = report.execution, len(report.programs)
    hi = execution.num_steps if hi is None else hi
    program = np.asarray(execution.program[lo:hi], dtype=np.int64)
    index = np.where((program >= 0) & (program < count), program, count)
    starts = np.asarray(execution.cycles_from[lo:hi])
    cycles = np.asarray(execution.cycles[lo:hi])
    out = np.zeros((count + 1, starts.shape[1]), np.int64)
    for ipu in range(starts.shape[1]):
        ran = starts[:, ipu] >= 0
        sums = np.bincount(index[ran], weights=cycles[ran, ipu], minlength=count + 1)
        out[:, ipu] = np.rint(sums).astype(np.int64)
    return out[:count], out[count]


@dataclass(frozen=True, eq=False)
class LayerFigures:
    """Each node's figures, summed over the nodes below it."""

    tree: LayerTree
    cycles_by_ipu: np.ndarray | None  # int64 [nodes, IPUs]; None without an execution profile
    steps: np.ndarray  # execution steps of its programs (all runs)
    code_bytes: np.ndarray  # of its leaf programs
    variable_bytes: np.ndarray  # of the variables its operations list, those found in the liveness data
    operations: np.ndarray  # operations at or below it
    total_cycles: int | None  # IPU-cycles of every step of every run: what a share divides
    memory_known: bool = True  # False: the programs have no code bytes (profile.pop read without libpva)

    @cached_property
    def cycles(self) -> np.ndarray | None:
        return None if self.cycles_by_ipu is None else self.cycles_by_ipu.sum(axis=1)

    @cached_property
    def memory(self) -> np.ndarray:
        return self.code_bytes + self.variable_bytes

    def memory_of(self, node: int, figure: str = "memory") -> int | None:
        """A node's memory, or its code or variable bytes; None where the report does not give them."""
        return int(getattr(self, figure)[node]) if self.memory_known else None

    def share(self, node: int) -> float | None:
        if self.cycles is None or not self.total_cycles:
            return None
        return int(self.cycles[node]) / self.total_cycles


def layer_figures(report: Report, tree: LayerTree) -> LayerFigures:
    programs, ops = report.programs, linked_operations(report)
    has_code = programs.code_bytes is not None
    code_bytes = np.asarray(programs.code_bytes, dtype=np.int64) if has_code else np.zeros(len(programs), np.int64)
    leaf_code = np.where(programs.is_leaf, code_bytes, 0)
    code = tree.at_nodes(leaf_code)
    op_count = np.zeros(len(tree), np.int64)
    variables = np.zeros(len(tree), np.int64)
    if ops is not None:
        np.add.at(op_count, tree.operation_node, 1)
        np.add.at(variables, tree.operation_node, np.maximum(np.asarray(ops.variable_bytes, dtype=np.int64), 0))
    cycles = steps = total = None
    if report.execution is not None:
        per_program, unknown = program_cycles(report)
        cycles = tree.at_nodes(per_program, unknown)
        step_programs = np.asarray(report.execution.program, dtype=np.int64)
        known = (step_programs >= 0) & (step_programs < len(programs))
        steps = tree.at_nodes(np.bincount(step_programs[known], minlength=len(programs)), int((~known).sum()))
        total = int(per_program.sum() + unknown.sum())
    return LayerFigures(tree, cycles, steps if steps is not None else np.zeros(len(tree), np.int64), code,
                        tree.subtree_sums(variables), tree.subtree_sums(op_count), total, has_code)
