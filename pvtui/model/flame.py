"""The flame view's nesting: each step's path of names, and the blocks each depth forms on a lane.

A program's path comes from debug.cbor where the program links a context: the
outermost context's name split at `/` (the model's layers), then each inner
context whose name differs (the operation, the PopLibs calls), then what the
program's own name adds. Without a linked context it is the `/`-separated parts
of the program's name. Paths are interned as prefix nodes, so a block at depth d
is a run of consecutive steps sharing the same node at d.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from pvtui.model import schema as s
from pvtui.model.arrays import distinct
from pvtui.model.contexts import context_chain
from pvtui.model.layers import LayerTree, capped, common_length, program_cycles, split_name
from pvtui.model.report import Report
from pvtui.model.lanes import Lane, step_phases

MAX_DEPTH = 8  # deeper names are joined into the last level
NONE = -1


class Nesting(NamedTuple):
    """Every program's path as prefix nodes: node_of[program, depth] (NONE past its path's end)."""

    node_of: np.ndarray  # int32 [programs, depth]
    names: list[str]  # per node, its own name (the last part of its prefix)
    linked: np.ndarray  # bool [programs]: the path came from a debug context

    @property
    def depth(self) -> int:
        return self.node_of.shape[1]

    def path(self, program: int) -> list[str]:
        if not 0 <= program < len(self.node_of):
            return []
        return [self.names[n] for n in self.node_of[program].tolist() if n != NONE]


def context_names(report: Report, chain: list[int]) -> tuple[list[str], list[str]]:
    """The outermost context's name split at `/` (the model's layers), and the operation's names:
    the innermost context that is not a PopLibs call, then the PopLibs calls inside it."""
    debug = report.debug
    names, layers = debug.names, debug.layer_names
    poplibs = [layers[int(debug.layer[row])] == "poplibs" for row in chain]
    start = max((i for i, is_call in enumerate(poplibs) if not is_call), default=0)
    ops: list[str] = []
    for row in chain[start:]:
        name = names[row]
        if name and "/" not in name and name not in ops:
            ops.append(name)
    return split_name(names[chain[0]]), ops


def program_path(
    report: Report, name: str, context: int, memo: dict[int, tuple[list[str], list[str]]]
) -> tuple[list[str], bool]:
    """The path of names of a program called NAME linked to debug CONTEXT (-1: none), and whether
    it came from debug.cbor.

    With a context: the layers its name shares with the outermost context's name
    (else all but its last two parts), the operation and its PopLibs calls, then
    the rest of the program's name.
    """
    parts = split_name(name) or [name]
    if context not in memo:
        chain = context_chain(report, context)
        memo[context] = context_names(report, chain) if chain else ([], [])
    outer, ops = memo[context]
    if not outer and not ops:
        return parts, False
    shared = common_length(parts[:-1], outer) or max(len(parts) - 2, 0)
    return parts[:shared] + ops + ["/".join(parts[shared:])], True


def build_nesting(report: Report, step_programs: np.ndarray) -> Nesting:
    """The paths of the programs STEP_PROGRAMS names (one loop over distinct programs, not steps)."""
    programs = report.programs
    count = 0 if programs is None else len(programs)
    wanted = distinct(np.asarray(step_programs, dtype=np.int64))
    wanted = wanted[(wanted >= 0) & (wanted < count)].tolist()
    memo: dict[int, tuple[list[str], list[str]]] = {}
    paths, linked = {}, np.zeros(count, dtype=bool)
    names = programs.names.take(wanted) if programs is not None else []
    contexts = programs.opt(s.PROGRAM_DEBUG_CONTEXT) if programs is not None else None
    contexts = np.full(count, -1, np.int64) if contexts is None else np.asarray(contexts)
    for program, name in zip(wanted, names):
        name = name or programs.type_name(program)
        path, from_debug = program_path(report, name, int(contexts[program]), memo)
        paths[program] = capped(path, MAX_DEPTH)
        linked[program] = from_debug
    depth = max((len(p) for p in paths.values()), default=1)
    node_of = np.full((count, depth), NONE, dtype=np.int32)
    nodes: dict[tuple[int, str], int] = {}
    names: list[str] = []
    for program, path in paths.items():
        parent = NONE
        for d, part in enumerate(path):
            node = nodes.get((parent, part))
            if node is None:
                node = nodes[(parent, part)] = len(names)
                names.append(part)
            node_of[program, d] = parent = node
    return Nesting(node_of, names, linked)


@dataclass(frozen=True, eq=False)
class FlameRow:
    """The blocks of one depth on one lane: a Lane whose `steps` are block indices, for column_cells."""

    lane: Lane  # steps = block index, starts/ends/reach in cycles, phases of the leaves (else NONE)
    node: np.ndarray  # int32 per block
    first: np.ndarray  # int64 lane position of each block's first step
    stop: np.ndarray  # int64 lane position after its last
    cycles: np.ndarray  # int64 sum of its steps' cycles on the lane's IPU
    leaf: np.ndarray  # bool: its steps' paths end at this depth
    host: np.ndarray  # bool: every step of it waits on the host (host_waits)

    def __len__(self) -> int:
        return len(self.node)

    def block_at(self, position: int) -> int:
        """The block holding lane POSITION, or -1."""
        i = int(np.searchsorted(self.first, position, side="right")) - 1
        return i if i >= 0 and position < int(self.stop[i]) else -1


def flame_rows(lane: Lane, step_programs: np.ndarray, step_cycles: np.ndarray, nesting: Nesting,
               step_host: np.ndarray | None = None) -> list[FlameRow]:
    """One FlameRow per depth for LANE; STEP_PROGRAMS, STEP_CYCLES and STEP_HOST (whether the step waits
    on the host; None: none does) are per lane position."""
    programs = np.asarray(step_programs, dtype=np.int64)
    known = (programs >= 0) & (programs < len(nesting.node_of))
    nodes = np.full((len(lane), nesting.depth), NONE, dtype=np.int32)
    nodes[known] = nesting.node_of[programs[known]]
    cycles = np.asarray(step_cycles, dtype=np.int64)
    host = np.zeros(len(lane), bool) if step_host is None else np.asarray(step_host, dtype=bool)
    rows = []
    for d in range(nesting.depth):
        ids = nodes[:, d]
        deeper = nodes[:, d + 1] if d + 1 < nesting.depth else np.full(len(ids), NONE, dtype=np.int32)
        rows.append(_blocks(lane, ids, deeper, cycles, host))
    return rows


def _blocks(lane: Lane, ids: np.ndarray, deeper: np.ndarray, cycles: np.ndarray, host: np.ndarray) -> FlameRow:
    n = len(ids)
    if n:
        change = np.flatnonzero(ids[1:] != ids[:-1]) + 1
        first = np.concatenate(([0], change)).astype(np.int64)
        stop = np.concatenate((change, [n])).astype(np.int64)
        ends = np.maximum.reduceat(lane.ends, first)
        sums = np.add.reduceat(cycles, first)
        waits = np.logical_and.reduceat(host, first)
        keep = ids[first] != NONE
        first, stop, ends, sums, waits = first[keep], stop[keep], ends[keep], sums[keep], waits[keep]
    else:
        first = stop = ends = sums = np.zeros(0, dtype=np.int64)
        waits = np.zeros(0, dtype=bool)
    starts = lane.starts[first]
    leaf = deeper[first] == NONE
    phases = np.where(leaf, lane.phases[first] if n else 0, NONE).astype(np.int8)
    reach = np.maximum.accumulate(ends) if len(ends) else ends
    blocks = Lane(np.arange(len(first), dtype=np.int64), starts, ends, phases, reach)
    return FlameRow(blocks, ids[first] if n else np.zeros(0, np.int32), first, stop, sums, leaf, waits)


def lane_flame(report: Report, lane: Lane, ipu: int, nesting: Nesting,
               waits: np.ndarray | None = None) -> list[FlameRow]:
    """The flame rows of one IPU's lane, reading only that lane's steps; WAITS is host_wait_programs()."""
    execution = report.execution
    steps = lane.steps
    programs = np.asarray(execution.program)[steps]
    host = None
    if waits is not None and len(waits):
        known = (programs >= 0) & (programs < len(waits))
        host = np.zeros(len(programs), bool)
        host[known] = waits[programs[known]]
    return flame_rows(lane, programs, np.asarray(execution.cycles[:, ipu])[steps], nesting, host)


class MergedFlame(NamedTuple):
    """A run's steps merged by model-layer path over every IPU (speedscope's "left heavy"): one block
    per node of the layer tree, as wide as its IPU-cycles in the run, the costliest first under its
    parent, the host waits and the steps of no known program last at the top.

    Its x axis counts IPU-cycles from 0, not time. `lane` is the row above the first depth: each
    node's own part (its cycles less its children's, right of them), left to right; its `steps` are
    node ids. A block's `first` and `stop` are the range of `lane` positions it covers, so a block's
    first child is the one holding its first position.
    """

    run: int
    tree: LayerTree
    rows: list[FlameRow]  # per depth
    lane: Lane
    cycles_by_ipu: np.ndarray  # int64 [nodes, IPUs]: IPU-cycles in the run, the nodes below included
    steps: np.ndarray  # int64 per node: the run's steps of its programs, each counted once
    total: int  # the run's IPU-cycles

    def node_at(self, position: int) -> int:
        """The node whose own part is at lane POSITION."""
        return int(self.lane.steps[position])


def merged_flame(report: Report, tree: LayerTree, run: int) -> MergedFlame:
    """RUN's steps merged by TREE's paths, summed over every IPU (which needs a program table)."""
    execution, programs = report.execution, report.programs
    lo, hi = execution.run_range(run)
    per_program, unknown = program_cycles(report, lo, hi)
    by_ipu = tree.at_nodes(per_program, unknown)
    step_programs = np.asarray(execution.program[lo:hi], dtype=np.int64)
    known = (step_programs >= 0) & (step_programs < len(programs))
    steps = tree.at_nodes(np.bincount(step_programs[known], minlength=len(programs)), int((~known).sum()))
    phases = step_phases(tree.first_program, programs.type, programs.type_names)
    cycles = by_ipu.sum(axis=1)
    rows, lane = merged_rows(tree, cycles, phases)
    return MergedFlame(run, tree, rows, lane, by_ipu, steps, int(cycles[tree.parent < 0].sum()))


def left_heavy_starts(tree: LayerTree, cycles: np.ndarray) -> np.ndarray:
    """Each node's start, in cycles from 0: its parent's start plus the widths of the siblings before
    it, costliest first (at the top, the host waits and the steps of no known program last)."""
    shown, depth, start = cycles > 0, tree.depth, np.zeros(len(tree), np.int64)
    unranked = np.isin(np.arange(len(tree)), [tree.unknown, tree.host])
    for d in range(int(depth[shown].max(initial=-1)) + 1):
        nodes = np.flatnonzero(shown & (depth == d))
        parents = tree.parent[nodes]
        nodes = nodes[np.lexsort((nodes, -cycles[nodes], nodes == tree.host, unranked[nodes], parents))]
        parents, widths = tree.parent[nodes], cycles[nodes]
        before = np.cumsum(widths) - widths
        first = np.r_[True, parents[1:] != parents[:-1]] if len(nodes) else np.zeros(0, bool)
        start[nodes] = np.where(parents >= 0, start[np.maximum(parents, 0)], 0) + before - before[first][
            np.cumsum(first) - 1]
    return start


def merged_rows(tree: LayerTree, cycles: np.ndarray, phases: np.ndarray) -> tuple[list[FlameRow], Lane]:
    """The depth rows of the nodes with CYCLES (per node, its subtree's), each node within its parent,
    and the lane of the nodes' own parts."""
    shown = cycles > 0
    start = left_heavy_starts(tree, cycles)
    below = np.flatnonzero(shown & (tree.parent >= 0))
    children = np.zeros(len(tree), np.int64)
    np.add.at(children, tree.parent[below], cycles[below])
    own = np.where(shown, cycles - children, 0)
    parts = np.flatnonzero(own > 0)
    part_starts = start[parts] + children[parts]
    order = np.argsort(part_starts, kind="stable")
    parts, part_starts = parts[order], part_starts[order]
    part_ends = part_starts + own[parts]
    lane = Lane(parts.astype(np.int64), part_starts, part_ends, phases[parts].astype(np.int8),
                np.maximum.accumulate(part_ends) if len(parts) else part_ends)
    has_children = np.bincount(tree.parent[below], minlength=len(tree)) > 0
    rows = []
    for d in range(int(tree.depth[shown].max(initial=-1)) + 1):
        nodes = np.flatnonzero(shown & (tree.depth == d))
        nodes = nodes[np.argsort(start[nodes], kind="stable")]
        starts, ends = start[nodes], start[nodes] + cycles[nodes]
        leaf = ~has_children[nodes]
        blocks = Lane(np.arange(len(nodes), dtype=np.int64), starts, ends,
                      np.where(leaf, phases[nodes], NONE).astype(np.int8),
                      np.maximum.accumulate(ends) if len(ends) else ends)
        first = np.searchsorted(part_starts, starts).astype(np.int64)
        stop = np.searchsorted(part_starts, ends).astype(np.int64)
        rows.append(FlameRow(blocks, nodes.astype(np.int32), first, stop, cycles[nodes].astype(np.int64), leaf,
                             tree.top[nodes] == tree.host if tree.host >= 0 else np.zeros(len(nodes), bool)))
    return rows, lane


def shows_blocks(row: FlameRow, lo: int, hi: int) -> bool:
    """Whether ROW has a block over any cycle of [LO, HI)."""
    before = int(np.searchsorted(row.lane.starts, hi, side="left"))  # the blocks starting before HI
    return before > 0 and int(row.lane.reach[before - 1]) > lo


def fitted_depths(
    flame: tuple[list[FlameRow], ...], window: tuple[int, int], room: int, keep: tuple[int, int] | None = None
) -> tuple[tuple[tuple[int, ...], ...], int]:
    """The depth rows to draw under each IPU's lane in ROOM rows (lanes included), and how many are left out.

    Only rows with a block in WINDOW count. The shallowest rows of every IPU come
    first, so the deepest are dropped first; each IPU keeps at least its first row
    (past ROOM, the view scrolls), and KEEP (ipu, depth), the cursor's row, is always drawn.
    """
    lo, hi = window
    wanted = [[d for d, row in enumerate(rows) if shows_blocks(row, lo, hi)] for rows in flame]
    if keep is not None and keep[1] >= 0 and keep[0] < len(wanted) and keep[1] not in wanted[keep[0]]:
        wanted[keep[0]] = sorted(wanted[keep[0]] + [keep[1]])
    budget = room - len(flame)
    chosen: list[set[int]] = [set(depths[:1]) for depths in wanted]
    if keep is not None and keep[1] >= 0 and keep[0] < len(chosen):
        chosen[keep[0]].add(keep[1])
    budget -= sum(len(c) for c in chosen)
    for level in range(1, max((len(depths) for depths in wanted), default=0)):
        for ipu, depths in enumerate(wanted):
            if level < len(depths) and depths[level] not in chosen[ipu] and budget > 0:
                chosen[ipu].add(depths[level])
                budget -= 1
    shown = tuple(tuple(sorted(c)) for c in chosen)
    return shown, sum(len(w) for w in wanted) - sum(len(s) for s in shown)
