"""A stand-in for libpva's object graph over a synthetic report's truth.

It has exactly the attributes of reference/libpva-api.md, and is lazy: sequences
build each step, tile or variable object when it is read, so a large report's
hundreds of thousands of records never all exist at once. Ids (`_id`, `id`) start
at 1, not 0, so that a reader which confuses ids with positions fails its tests.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from types import SimpleNamespace as Record
from typing import TYPE_CHECKING, Any, Callable, Iterator

import numpy as np

from pvtui.synth.debug import context_json
from pvtui.synth.graph import VERTEX_TYPE_NAMES
from pvtui.synth.memory import CATEGORIES
from pvtui.synth.scales import BYTES_PER_TILE, POPLAR_VERSION

if TYPE_CHECKING:
    from pvtui.synth.model import SyntheticReport

ID_BASE = 1
PROFILE_FORMAT = (1, 2, 0)


class Enum:
    """An enum member as pybind11 exposes it: `.name`, printed as `Type.Name`."""

    def __init__(self, kind: str, name: str) -> None:
        self.kind, self.name = kind, name

    def __repr__(self) -> str:
        return f"{self.kind}.{self.name}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Enum) and (other.kind, other.name) == (self.kind, self.name)

    def __hash__(self) -> int:
        return hash((self.kind, self.name))


class Lazy(Sequence):
    """A sequence of LENGTH items, each made by MAKE(index) when read."""

    def __init__(self, length: int, make: Callable[[int], Any]) -> None:
        self._length, self._make = length, make

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self._make(i) for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        return self._make(index)

    def __iter__(self) -> Iterator[Any]:
        return (self._make(i) for i in range(self._length))


def _on_tiles(num_tiles: int, lo: int, hi: int, value: int) -> np.ndarray:
    out = np.zeros(num_tiles, np.int64)
    out[lo:hi] = value
    return out


class Program:
    def __init__(self, truth: SyntheticReport, index: int) -> None:
        self._truth, self._index = truth, index
        g = truth.graph
        self._id = index + ID_BASE
        self.name = g.program_name[index]
        self.type = Enum("Program.Type", g.program_type_names[int(g.program_type[index])])

    def __repr__(self) -> str:
        return f"<Program {self._id} {self.type.name} {self.name!r}>"

    @property
    def children(self) -> list[Program]:
        return [Program(self._truth, int(c)) for c in self._truth.graph.program_children(self._index)]

    @property
    def vars(self) -> list[Record]:
        op = int(self._truth.graph.program_op[self._index])
        return [] if op < 0 else _variable_refs(self._truth, op)

    @property
    def controlCodeByTile(self) -> np.ndarray:
        """Its own control code and its children's."""
        g, p = self._truth.graph, self._index
        out = _on_tiles(self._truth.num_tiles, g.program_lo[p], g.program_hi[p], g.control_per_tile[p])
        for child in self.children:
            out += child.controlCodeByTile
        return out

    @property
    def codeBytesByTile(self) -> np.ndarray:
        g, p = self._truth.graph, self._index
        if g.exchange_per_tile[p] == 0:
            return np.zeros(0, np.int64)
        return _on_tiles(self._truth.num_tiles, g.program_lo[p], g.program_hi[p], g.exchange_per_tile[p])

    @property
    def estimatedCyclesByTile(self) -> np.ndarray:
        g, p = self._truth.graph, self._index
        return _on_tiles(self._truth.num_tiles, g.program_lo[p], g.program_hi[p], g.cycles_per_tile[p])

    @property
    def computeset(self) -> ComputeSet:
        cs = int(self._truth.graph.program_compute_set[self._index])
        if cs < 0:
            raise AttributeError("computeset")
        return ComputeSet(self._truth, cs)

    def accept(self, visitor: Any) -> None:
        visit = getattr(visitor, f"visit{self.type.name}", None)
        if visit is not None:
            visit(self)


class ComputeSet:
    def __init__(self, truth: SyntheticReport, index: int) -> None:
        self._truth, self._index = truth, index
        self.name = truth.graph.compute_set_name[index]

    @property
    def vertices(self) -> list[Record]:
        g, cs = self._truth.graph, self._index
        lo, hi = g.compute_set_vertex_offsets[cs], g.compute_set_vertex_offsets[cs + 1]
        return [
            Record(
                type=_vertex_type(self._truth, int(g.compute_set_vertex_type[v])),
                countByTile=_on_tiles(self._truth.num_tiles, g.compute_set_lo[cs], g.compute_set_hi[cs],
                                      g.compute_set_vertex_per_tile[v]),
            )
            for v in range(lo, hi)
        ]


def _vertex_type(truth: SyntheticReport, index: int) -> Record:
    return Record(name=truth.named(VERTEX_TYPE_NAMES[index]), size=int(truth.memory.vertex_state_bytes[index]))


def _variable_refs(truth: SyntheticReport, op: int) -> list[Record]:
    names = truth.liveness.var_name
    return [Record(_id=int(v) + ID_BASE, name=names[v]) for v in truth.op_variables(op)]


def _tile(truth: SyntheticReport, t: int) -> Record:
    m = truth.memory
    including, excluding = int(m.including_gaps[t]), int(m.excluding_gaps[t])
    category = Record(**{name: Record(total=int(m.categories[t, c])) for c, name in enumerate(CATEGORIES)})
    lo, hi = m.vertex_offsets[t], m.vertex_offsets[t + 1]
    vertices = [
        Record(type=_vertex_type(truth, int(m.vertex_type[v])), codeBytes=int(m.vertex_code[v])) for v in range(lo, hi)
    ]
    memory = Record(
        total=Record(includingGaps=including, excludingGaps=excluding),
        alwaysLiveBytes=int(m.always_live[t]),
        notAlwaysLiveBytes=int(m.not_always_live[t]),
        category=category,
        vertices=vertices,
        overflowed=Record(
            includingGaps=max(0, including - BYTES_PER_TILE), excludingGaps=max(0, excluding - BYTES_PER_TILE)
        ),
    )
    return Record(memory=memory)


class NotAlwaysLiveMemory:
    def __init__(self, truth: SyntheticReport, step: int) -> None:
        self._truth, self._step = truth, step
        self.bytes = int(truth.liveness.step_bytes[step])

    @property
    def variables(self) -> list[Record]:
        lv = self._truth.liveness
        return [Record(name=lv.var_name[v], size=int(lv.var_bytes[v])) for v in lv.live_at(self._step)]


class LivenessStep:
    def __init__(self, truth: SyntheticReport, step: int) -> None:
        self._truth, self._step = truth, step
        self.program = Program(truth, int(truth.graph.liveness_steps[step]))
        self.notAlwaysLiveMemory = NotAlwaysLiveMemory(truth, step)

    def notAlwaysLiveMemoryForTile(self, tile: int) -> Record:
        return Record(bytes=self._truth.liveness.tile_bytes(self._step, tile))

    def notAlwaysLiveMemoryForIpu(self, ipu: int) -> Record:
        return Record(bytes=int(self._truth.liveness.step_bytes_by_ipu[self._step, ipu]))


class LoweredVariables:
    """Not-always-live and always-live pieces alike; an always-live class is live at every step."""

    def __init__(self, truth: SyntheticReport) -> None:
        self._lowered = truth.lowered
        self.allBriefVars = Lazy(len(self._lowered.piece_tile), self._brief)
        self._by_tile: tuple[np.ndarray, np.ndarray] | None = None  # pieces in tile order, and their tiles

    def _brief(self, piece: int) -> Record:
        low = self._lowered
        cls = int(low.piece_class[piece])
        lo, hi = low.class_interval_offsets[cls], low.class_interval_offsets[cls + 1]
        steps = [Record(start=int(low.interval_start[k]), end=int(low.interval_end[k])) for k in range(lo, hi)]
        return Record(
            id=piece + ID_BASE, bytes=int(low.piece_bytes[piece]), tileId=int(low.piece_tile[piece]),
            equivalenceClass=Record(id=cls + ID_BASE, steps=steps),
        )

    def forTile(self, tile: int) -> list[Record]:
        low = self._lowered
        if self._by_tile is None:  # once: gathering every piece's tile for each tile was quadratic
            order = np.argsort(low.piece_tile, kind="stable")
            self._by_tile = (order, low.piece_tile[order])
        order, tiles = self._by_tile
        lo, hi = np.searchsorted(tiles, np.array([tile, tile + 1], tiles.dtype))  # a list would copy TILES as int64
        out = []
        for piece in order[lo:hi]:
            cls = int(low.piece_class[piece])
            name = low.class_name[cls]
            unlowered = Record(_id=cls + ID_BASE, name=name)
            out.append(Record(_id=int(piece) + ID_BASE, name=f"{name}@{tile}", bytes=int(low.piece_bytes[piece]),
                              hasUnloweredVar=True, unloweredVar=unlowered))
        return out


class Compilation:
    def __init__(self, truth: SyntheticReport) -> None:
        self._truth = truth
        scale, g, m = truth.scale, truth.graph, truth.memory
        n_tiles = truth.num_tiles
        self.target = Record(
            numTiles=n_tiles, tilesPerIpu=scale.tiles_per_ipu, numIPUs=scale.ipus, bytesPerTile=BYTES_PER_TILE,
            bytesPerIPU=BYTES_PER_TILE * scale.tiles_per_ipu, totalMemory=BYTES_PER_TILE * n_tiles,
            numReplicas=1, ipusPerReplica=scale.ipus, tilesPerReplica=n_tiles,
            memoryPerReplica=BYTES_PER_TILE * n_tiles, clockFrequency=truth.clock_hz,
            type=Enum("Target.Type", "Ipu"), architecture=Enum("IPU.Architecture", "Ipu2"),
        )
        self.graph = Record(numComputeSets=len(g.compute_set_name))
        self.computeSets = Lazy(len(g.compute_set_name), lambda i: ComputeSet(truth, i))
        self.programs = Lazy(g.num_programs, lambda i: Program(truth, i))
        self.tiles = Lazy(n_tiles, lambda t: _tile(truth, t))
        tpi = scale.tiles_per_ipu
        self.ipus = [Record(tiles=Lazy(tpi, lambda t, k=k: _tile(truth, k * tpi + t))) for k in range(scale.ipus)]
        self.livenessProgramSteps = Lazy(len(g.liveness_steps), lambda i: LivenessStep(truth, i))
        self.alwaysLiveVariables = [
            Record(name=name, size=int(size)) for name, size in zip(m.always_live_name, m.always_live_size)
        ]
        self.loweredVariables = LoweredVariables(truth)

    def alwaysLiveVariablesForTile(self, tile: int) -> list[Record]:
        m = self._truth.memory
        on_tile = np.flatnonzero((m.always_live_lo <= tile) & (tile < m.always_live_hi))
        return [Record(name=m.always_live_name[v], size=int(m.always_live_per_tile[v])) for v in on_tile]


class ExecutionStep:
    def __init__(self, truth: SyntheticReport, step: int) -> None:
        self._truth, self._step = truth, step
        self.program = Program(truth, int(truth.execution.program[step]))

    @property
    def cyclesByTile(self) -> np.ndarray | list:
        e = self._truth.execution
        i = int(np.searchsorted(e.bsp_steps, self._step))
        instrumented = i < len(e.bsp_steps) and e.bsp_steps[i] == self._step
        return e.cycles_by_tile(self._step) if instrumented else []

    @property
    def ipus(self) -> list[Record]:
        e, x = self._truth.execution, self._step
        return [
            Record(
                cycles=int(e.cycles[x, k]),
                activeCycles=Record(
                    cyclesFrom=Record(min=int(e.cycles_from[x, k]), max=int(e.cycles_from_max[x, k])),
                    cyclesTo=Record(min=int(e.cycles_to_min[x, k]), max=int(e.cycles_to[x, k])),
                ) if e.cycles_from[x, k] >= 0 else None,
                tileBalance=float(e.tile_balance[x, k]),
                activeTileBalance=float(e.active_tile_balance[x, k]),
                dataIn=int(e.data_in[x, k]),
                dataOut=int(e.data_out[x, k]),
            )
            for k in range(e.cycles.shape[1])
        ]

    @property
    def computeSets(self) -> list[Record]:
        try:
            cs = self.program.computeset
        except AttributeError:
            return []
        return [Record(name=cs.name, cyclesByTile=self.cyclesByTile,
                       estimatedCyclesByTile=self.program.estimatedCyclesByTile)]


class Execution:
    def __init__(self, truth: SyntheticReport) -> None:
        e = truth.execution
        self.steps = Lazy(e.num_steps, lambda x: ExecutionStep(truth, x))
        self.runs = [
            Record(
                name=truth.named(f"main#{r}"),
                steps=Lazy(int(e.run_offsets[r + 1] - e.run_offsets[r]),
                           lambda x, base=int(e.run_offsets[r]): ExecutionStep(truth, base + x)),
                microseconds=Record(start=int(e.run_start_us[r]), end=int(e.run_end_us[r])),
            )
            for r in range(len(e.run_offsets) - 1)
        ]
        self.totalCycles = Record(total=e.total_cycles)


class PvaReport:
    """What `pva.openReport(profile, debug)` returns, for a synthetic report."""

    def __init__(self, truth: SyntheticReport) -> None:
        major, minor, point, package = POPLAR_VERSION
        self.poplarVersion = Record(
            string=truth.poplar_version, major=major, minor=minor, point=point, packageHash=package
        )
        self.version = Record(major=PROFILE_FORMAT[0], minor=PROFILE_FORMAT[1], point=PROFILE_FORMAT[2],
                              isUnstableFormat=False)
        self.instrumentationSettings = Record(
            compute=Enum("Instrumentation.Compute", "Tile"),
            externalExchange=Enum("Instrumentation.ExternalExchange", "Off"),
        )
        self.compilation = Compilation(truth)
        self.execution = Execution(truth)


class DebugContext:
    def __init__(self, truth: SyntheticReport, context: dict) -> None:
        self._truth = truth
        self._parent = context.get("parentId", -1)
        self.id = context["id"]
        self.json = context_json(context)
        self.layer = json.dumps({"layer": context["layer"]})
        location = context.get("location", {})
        self.location = Record(fileName=location.get("fileName", ""), lineNumber=location.get("lineNumber", 0))

    @property
    def parents(self) -> list[DebugContext]:
        return [] if self._parent < 0 else [_debug_context(self._truth, self._parent)]


def _debug_context(truth: SyntheticReport, context_id: int) -> DebugContext:
    """A context at the head of an op's block (poptorch, onnx or popart op)."""
    d = truth.debug
    op = int(np.searchsorted(d.op_block, context_id, side="right")) - 1
    context = next(c for c in d.head(op) if c["id"] == context_id)
    return DebugContext(truth, context)


class Operation:
    def __init__(self, truth: SyntheticReport, op: int) -> None:
        self._truth, self._op = truth, op
        g = truth.graph
        self.name = g.op_name[op]
        self.firstStepIndex = int(g.op_first_step[op])
        self.lastStepIndex = int(g.op_end_step[op]) - 1
        self.replacedDebugContext: list[DebugContext] = []

    def programs(self) -> list[Program]:
        g = self._truth.graph
        lo, hi = g.op_program_offsets[self._op], g.op_program_offsets[self._op + 1]
        return [Program(self._truth, int(p)) for p in g.op_programs[lo:hi]]

    @property
    def vars(self) -> list[Record]:
        return _variable_refs(self._truth, self._op)

    @property
    def debugContext(self) -> DebugContext:
        return _debug_context(self._truth, self._truth.debug.op_context_id(self._op))


def operations(truth: SyntheticReport) -> Lazy:
    return Lazy(len(truth.graph.op_name), lambda op: Operation(truth, op))
