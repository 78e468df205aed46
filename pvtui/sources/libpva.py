"""The libpva adapter: reads a `pva` report object graph into the bundle.

Uses only the API in reference/libpva-api.md. Every optional attribute is guarded:
a part the report does not hold becomes a note, never an exception. Program types
are kept by name, so types this code has never seen still display.

Only what libpva raises while pvtui reads from it makes a part "could not be read":
every look-up on a libpva object goes through `attr` (optional: a default where libpva
cannot give it), `need` (required), `call` or `each`, which turn libpva's errors into
`Unreadable`; any other exception is a bug in pvtui and propagates.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

import numpy as np

from pvtui.model import schema as s
from pvtui.model.envelope import build_pyramid, column_names
from pvtui.sources.base import IngestContext

PROFILE = "profile.pop"
# What libpva (a pybind11 module) raises where it cannot give what is asked: an attribute this
# SDK's libpva lacks (AttributeError), a method whose signature differs (TypeError), and its C++
# exceptions as pybind11 translates them: std::exception (RuntimeError), out_of_range (IndexError),
# invalid_argument, domain and length errors (ValueError), overflow_error (OverflowError), key_error.
LIBPVA_ERRORS = (AttributeError, TypeError, ValueError, IndexError, KeyError, RuntimeError, OverflowError)
# Per-tile liveness queried one call per (step, tile) only up to this many calls.
MAX_PER_TILE_QUERIES = 2_000_000


class Unreadable(Exception):
    """libpva could not give what a part of the report needs: the part is noted, the rest read."""

    def __init__(self, what: str, error: BaseException) -> None:
        super().__init__(f"{what}: {type(error).__name__}: {error}")


def attr(obj: Any, path: str, default: Any = None) -> Any:
    """Follow a dotted attribute path, returning DEFAULT where any step is missing."""
    for part in path.split("."):
        try:
            obj = getattr(obj, part)
        except LIBPVA_ERRORS:
            return default
        if obj is None:
            return default
    return obj


def need(obj: Any, *names: str) -> Any:
    """OBJ's attributes NAMES, which the part cannot do without: one value for one name, else a tuple.
    Raises Unreadable where libpva cannot give one."""
    try:
        if len(names) == 1:
            return getattr(obj, names[0])
        return tuple(getattr(obj, name) for name in names)
    except LIBPVA_ERRORS as exc:
        raise Unreadable(".".join(names), exc) from exc


def call(obj: Any, method: str, *args: Any, default: Any = None) -> Any:
    """OBJ.METHOD(*ARGS), or DEFAULT where libpva cannot give it (a method of another SDK's libpva)."""
    try:
        return getattr(obj, method)(*args)
    except LIBPVA_ERRORS:
        return default


def each(items: Iterable[Any], what: str) -> Iterator[Any]:
    """The items of a libpva sequence (read lazily); Unreadable where libpva fails to give one."""
    try:
        iterator = iter(items)
    except LIBPVA_ERRORS as exc:
        raise Unreadable(what, exc) from exc
    while True:
        try:
            item = next(iterator)
        except StopIteration:
            return
        except LIBPVA_ERRORS as exc:
            raise Unreadable(what, exc) from exc
        yield item


def enum_name(value: Any) -> str | None:
    if value is None:
        return None
    name = getattr(value, "name", None)
    return str(name) if name is not None else str(value).rsplit(".", 1)[-1]


class Throttle:
    """Calls progress at most every 0.1 s and checks for cancellation."""

    def __init__(self, ctx: IngestContext, stage: str, total: float) -> None:
        self.ctx, self.stage, self.total = ctx, stage, total
        self.last = 0.0

    def __call__(self, done: float) -> None:
        now = time.monotonic()
        if now - self.last >= 0.1:
            self.last = now
            self.ctx.cancel.check()
            self.ctx.progress(self.stage, done, self.total)


def open_report(pva: Any, profile: Any, debug: Any = None) -> tuple[Any, str | None]:
    """libpva's report of PROFILE (with DEBUG, debug.cbor, where there is one), or None and what libpva
    said: it raises its own C++ errors (as pybind11 translates them) for a damaged or foreign file."""
    try:
        return pva.openReport(*(str(path) for path in (profile, debug) if path is not None)), None
    except LIBPVA_ERRORS as exc:
        return None, str(exc)


def report_operations(pva: Any, report: Any) -> list[Any] | None:
    """The operations libpva's OperationAnalysis finds in REPORT, or None where it cannot (it needs
    debug.cbor: absent or unreadable means no links)."""
    analysis = call(pva, "OperationAnalysis", report)
    operations = attr(analysis, "operations")
    try:
        return None if operations is None else list(each(operations, "operations"))
    except Unreadable:
        return None


def read_pva_report(report: Any, ctx: IngestContext, operations: Iterable[Any] | None = None) -> None:
    """Fill the profile parts of the bundle from a pva report."""
    PvaReader(report, ctx, operations).read()


def _sum_by_tile(values: Any) -> int:
    if values is None:
        return 0
    arr = np.asarray(values, dtype=np.int64)
    return int(arr.sum()) if arr.size else 0


def program_key(program: Any) -> int:
    key = attr(program, "_id")
    return int(key) if key is not None else id(program)


def collect_programs(report: Any) -> list[Any]:
    """Every program node: the report's own list, then any child it does not list."""
    ordered = list(each(attr(report, "compilation.programs") or [], "programs"))
    seen = {program_key(p) for p in ordered}
    stack = list(ordered)
    while stack:
        for child in each(attr(stack.pop(), "children") or [], "program children"):
            key = program_key(child)
            if key not in seen:
                seen.add(key)
                ordered.append(child)
                stack.append(child)
    return ordered


class PvaReader:
    """Reads one pva report into the bundle, part by part, with what the parts share: the program
    index (steps and operations name programs by id), vertex types, live variables, lowered variables."""

    def __init__(self, report: Any, ctx: IngestContext, operations: Iterable[Any] | None) -> None:
        self.report = report
        self.ctx = ctx
        # read thrice: program contexts, the operations part, variables' contexts
        self.operations: list[Any] | None = None if operations is None else list(operations)
        self.programs: list[Any] = []
        self.index: dict[int, int] = {}  # program id -> row of the program table
        self.vertex_types = VertexTypes()
        self.variables = VariableIntervals()
        self.lowered = LoweredReader(report, ctx)

    def read(self) -> None:
        self.read_header()
        parts = (
            ("programs", self.read_programs),
            ("memory", self.read_memory),
            ("liveness", self.read_liveness),
            ("lowered", lambda: self.lowered.write(self.operations)),
            ("execution", self.read_execution),
            ("operations", self.read_operations),
        )
        for part, read in parts:
            try:
                read()
            except Unreadable as exc:
                self.ctx.note(part, f"{PROFILE}: the {part} data could not be read ({exc})")
        self.vertex_types.write(self.ctx)

    def program_of(self, item: Any) -> int:
        """The program table's row of ITEM's program (a liveness or execution step), or -1."""
        key = attr(item, "program._id")
        return self.index.get(int(key), -1) if key is not None else -1

    def read_header(self) -> None:
        ctx, report = self.ctx, self.report
        ctx.meta["poplar_version"] = attr(report, "poplarVersion.string")
        settings = attr(report, "instrumentationSettings")
        if settings is not None:
            ctx.meta["instrumentation"] = {
                "compute": enum_name(attr(settings, "compute")),
                "external_exchange": enum_name(attr(settings, "externalExchange")),
            }
        target = attr(report, "compilation.target")
        if target is None:
            ctx.note("memory", f"{PROFILE}: the report has no target description")
            return
        clock = attr(target, "clockFrequency")
        ctx.meta["target"] = {
            "type": enum_name(attr(target, "type")),
            "architecture": enum_name(attr(target, "architecture")),
            "num_ipus": attr(target, "numIPUs"),
            "tiles_per_ipu": attr(target, "tilesPerIpu"),
            "num_tiles": attr(target, "numTiles"),
            "bytes_per_tile": attr(target, "bytesPerTile"),
            "clock_hz": float(clock) if clock is not None else None,
            "num_replicas": attr(target, "numReplicas"),
            "ipus_per_replica": attr(target, "ipusPerReplica"),
        }

    @property
    def compilation(self) -> Any:
        """The report's compilation, which the memory and liveness parts cannot do without."""
        return need(self.report, "compilation")

    @property
    def num_tiles(self) -> int:
        return int(self.ctx.meta.get("target", {}).get("num_tiles") or 0)

    # Programs -------------------------------------------------------------------------

    def read_programs(self) -> None:
        ctx = self.ctx
        self.programs = programs = collect_programs(self.report)
        self.index = index = {program_key(p): i for i, p in enumerate(programs)}
        n = len(programs)
        if n == 0:
            ctx.note("programs", f"{PROFILE}: the report lists no programs")
            return
        cs_index = self.read_compute_sets(attr(self.report, "compilation"))
        types: dict[str, int] = {}
        type_col = np.zeros(n, np.int16)
        parent = np.full(n, -1, np.int32)
        compute_set = np.full(n, -1, np.int32)
        code = np.zeros(n, np.int64)
        estimated = np.full(n, -1, np.int64)
        names, offsets, children = [], [0], []
        exchanges = PerTile(ctx)
        tick = Throttle(ctx, "profile.pop: programs", n)
        for i, program in enumerate(programs):
            tick(i)
            names.append(str(attr(program, "name", "")))
            type_name = enum_name(attr(program, "type")) or "Unknown"
            type_col[i] = types.setdefault(type_name, len(types))
            kids = [index[program_key(c)] for c in each(attr(program, "children") or [], "program children")]
            for kid in kids:
                if parent[kid] < 0 and kid != i:
                    parent[kid] = i
            children.extend(kids)
            offsets.append(len(children))
            cs_name = attr(program, "computeset.name")
            if cs_name is not None:
                compute_set[i] = cs_index.get(str(cs_name), -1)
                cycles = attr(program, "estimatedCyclesByTile")  # read for compute sets only: one array per tile
                if cycles is not None and np.asarray(cycles).size:
                    estimated[i] = int(np.asarray(cycles, dtype=np.int64).max())
            exchange = attr(program, "codeBytesByTile")
            code[i] = _sum_by_tile(attr(program, "controlCodeByTile")) + _sum_by_tile(exchange)
            exchanges.add(exchange, i)
        is_child = np.zeros(n, bool)
        is_child[np.asarray(children, dtype=np.int64)] = True
        w = ctx.writer
        w.array(s.PROGRAM_TYPE, type_col)
        w.strings(s.PROGRAM_NAME, names)
        w.array(s.PROGRAM_PARENT, parent)
        w.array(s.PROGRAM_CHILD_OFFSETS, offsets, np.int64)
        w.array(s.PROGRAM_CHILDREN, children, np.int32)
        w.array(s.PROGRAM_ROOTS, np.nonzero(~is_child)[0], np.int32)
        w.array(s.PROGRAM_COMPUTE_SET, compute_set)
        w.array(s.PROGRAM_CODE_BYTES, code)
        if (estimated >= 0).any():
            w.array(s.PROGRAM_ESTIMATED_CYCLES, estimated)
        exchanges.write(s.TILE_EXCHANGE_OFFSETS, s.TILE_EXCHANGE_PROGRAM, (s.TILE_EXCHANGE_BYTES,))
        if self.operations is not None:
            w.array(s.PROGRAM_DEBUG_CONTEXT, self.program_contexts())
        ctx.meta["programs"] = {"types": list(types), "count": n}
        ctx.add_part("programs")

    def read_compute_sets(self, compilation: Any) -> dict[str, int]:
        """The compute sets' table, and each one's row by name."""
        ctx, vertex_types = self.ctx, self.vertex_types
        sets = list(each(attr(compilation, "computeSets") or [], "compute sets"))
        names, offsets, types, counts = [], [0], [], []
        index: dict[str, int] = {}
        on_tiles = PerTile(ctx)  # per (tile, compute set): instances, vertex types, state bytes
        by_type = PerTile(ctx)  # per (tile, vertex type): instances, state bytes
        for i, cs in enumerate(sets):
            name = str(attr(cs, "name", ""))
            names.append(name)
            index.setdefault(name, i)
            for vertex in each(attr(cs, "vertices") or [], "compute set vertices"):
                vertex_type = vertex_types(vertex)
                types.append(vertex_type)
                by_tile = attr(vertex, "countByTile")
                counts.append(_sum_by_tile(by_tile) if by_tile is not None else 1)
                if by_tile is not None:
                    instances = np.asarray(by_tile, np.int64)
                    state = instances * vertex_types.state_bytes[vertex_type]
                    on_tiles.add(instances, i, np.ones_like(instances), state)
                    by_type.add(instances, vertex_type, state)
            offsets.append(len(types))
        on_tiles.write(s.TILE_CS_OFFSETS, s.TILE_CS_SET,
                       (s.TILE_CS_INSTANCES, s.TILE_CS_VERTICES, s.TILE_CS_STATE_BYTES))
        by_type.write(s.TILE_VT_OFFSETS, s.TILE_VT_TYPE, (s.TILE_VT_INSTANCES, s.TILE_VT_STATE_BYTES))
        w = ctx.writer
        w.strings(s.COMPUTE_SET_NAME, names)
        w.array(s.COMPUTE_SET_VERTEX_OFFSETS, offsets, np.int64)
        w.array(s.COMPUTE_SET_VERTEX_TYPE, types, np.int32)
        w.array(s.COMPUTE_SET_VERTEX_COUNT, counts, np.int64)
        declared = attr(compilation, "graph.numComputeSets")
        ctx.meta["compute_sets"] = int(declared) if declared is not None else len(sets)
        return index

    def program_contexts(self) -> np.ndarray:
        """The debug context of each program, from the operations that own programs."""
        assert self.operations is not None
        context = np.full(len(self.programs), -1, np.int64)
        for op in self.operations:
            context_id = attr(op, "debugContext.id")
            if context_id is None:
                continue
            for program in each(call(op, "programs", default=()), "operation programs"):
                i = self.index.get(program_key(program))
                if i is not None and context[i] < 0:
                    context[i] = int(context_id)
        return context

    # Operations -----------------------------------------------------------------------

    def read_operations(self) -> None:
        """Each operation's programs, liveness steps and variables (matched by name to the liveness data)."""
        ctx, operations = self.ctx, self.operations
        if operations is None:
            ctx.note("operations", f"{PROFILE}: libpva gave no operations (they need debug.cbor)")
            return
        sizes = {name: size for name, size in self.variables.ids}
        for var in each(attr(self.report, "compilation.alwaysLiveVariables") or [], "always-live variables"):
            sizes.setdefault(str(attr(var, "name", "")), int(attr(var, "size", 0) or 0))
        names, contexts, offsets, members, first, last = [], [], [0], [], [], []
        listed, matched, var_bytes = [], [], []
        tick = Throttle(ctx, "profile.pop: operations", len(operations))
        for i, op in enumerate(operations):
            tick(i)
            names.append(str(attr(op, "name", "")))
            context_id = attr(op, "debugContext.id")
            contexts.append(-1 if context_id is None else int(context_id))
            programs = each(call(op, "programs", default=()), "operation programs")
            members.extend(j for p in programs if (j := self.index.get(program_key(p))) is not None)
            offsets.append(len(members))
            first.append(_int_or(attr(op, "firstStepIndex"), -1))
            last.append(_int_or(attr(op, "lastStepIndex"), -1))
            op_vars = list(each(attr(op, "vars") or [], "operation variables"))
            found = [sizes[name] for v in op_vars if (name := str(attr(v, "name", ""))) and name in sizes]
            listed.append(len(op_vars))
            matched.append(len(found))
            var_bytes.append(sum(found) if found or not listed[-1] else -1)
        w = ctx.writer
        w.strings(s.OPERATION_NAME, names)
        w.array(s.OPERATION_DEBUG_CONTEXT, contexts, np.int64)
        w.array(s.OPERATION_PROGRAM_OFFSETS, offsets, np.int64)
        w.array(s.OPERATION_PROGRAMS, members, np.int32)
        w.array(s.OPERATION_FIRST_STEP, first, np.int32)
        w.array(s.OPERATION_LAST_STEP, last, np.int32)
        w.array(s.OPERATION_VARIABLES, listed, np.int32)
        w.array(s.OPERATION_VARIABLES_MATCHED, matched, np.int32)
        w.array(s.OPERATION_VARIABLE_BYTES, var_bytes, np.int64)
        ctx.add_part("operations")

    # Memory ---------------------------------------------------------------------------

    def read_memory(self) -> None:
        ctx = self.ctx
        tiles = list(each(need(self.compilation, "tiles"), "tiles"))
        n = len(tiles)
        if n == 0:
            ctx.note("memory", f"{PROFILE}: the report has no tiles")
            return
        tiles_per_ipu = ctx.meta.get("target", {}).get("tiles_per_ipu") or n
        categories = _category_names(attr(tiles[0], "memory.category"))
        cols = {name: np.zeros(n, np.int64) for name in ("inc", "exc", "al", "nal")}
        by_category = np.zeros((n, len(categories)), np.int64)
        vertex_offsets, vertex_type_col, vertex_code = [0], [], []
        tick = Throttle(ctx, "profile.pop: memory", n)
        for t, tile in enumerate(tiles):
            tick(t)
            memory = need(tile, "memory")
            cols["inc"][t] = attr(memory, "total.includingGaps", 0)
            cols["exc"][t] = attr(memory, "total.excludingGaps", 0)
            cols["al"][t] = attr(memory, "alwaysLiveBytes", 0)
            cols["nal"][t] = attr(memory, "notAlwaysLiveBytes", 0)
            category = attr(memory, "category")
            for c, name in enumerate(categories):
                by_category[t, c] = attr(category, f"{name}.total", 0)
            for vertex in each(attr(memory, "vertices") or [], "tile vertices"):
                vertex_type_col.append(self.vertex_types(vertex))
                vertex_code.append(int(attr(vertex, "codeBytes", 0) or 0))
            vertex_offsets.append(len(vertex_type_col))
        w = ctx.writer
        w.array(s.TILE_IPU, np.arange(n) // max(int(tiles_per_ipu), 1), np.int16)
        w.array(s.TILE_INCLUDING_GAPS, cols["inc"])
        w.array(s.TILE_EXCLUDING_GAPS, cols["exc"])
        w.array(s.TILE_ALWAYS_LIVE, cols["al"])
        w.array(s.TILE_NOT_ALWAYS_LIVE, cols["nal"])
        w.array(s.TILE_CATEGORIES, by_category)
        if vertex_type_col:
            w.array(s.TILE_VERTEX_OFFSETS, vertex_offsets, np.int64)
            w.array(s.TILE_VERTEX_TYPE, vertex_type_col, np.int32)
            w.array(s.TILE_VERTEX_CODE, vertex_code, np.int64)
        ctx.meta["memory"] = {"categories": categories}
        ctx.add_part("memory")

    # Liveness -------------------------------------------------------------------------

    def read_liveness(self) -> None:
        ctx = self.ctx
        compilation = self.compilation
        steps = attr(compilation, "livenessProgramSteps")
        if steps is None or len(steps) == 0:
            ctx.note("liveness", f"{PROFILE}: the report has no liveness steps")
            return
        n = len(steps)
        num_ipus = int(ctx.meta.get("target", {}).get("num_ipus") or 0)
        program = np.full(n, -1, np.int32)
        total = np.zeros(n, np.int64)
        by_ipu = np.zeros((n, num_ipus), np.int64) if num_ipus else None
        tick = Throttle(ctx, "profile.pop: liveness", n)
        for i, step in enumerate(each(steps, "liveness steps")):
            tick(i)
            program[i] = self.program_of(step)
            memory = attr(step, "notAlwaysLiveMemory")
            total[i] = attr(memory, "bytes", 0)
            self.variables.add_step(i, each(attr(memory, "variables") or [], "live variables"))
            if by_ipu is not None:
                for k in range(num_ipus):
                    by_ipu[i, k] = _call_bytes(step, "notAlwaysLiveMemoryForIpu", k)
        w = ctx.writer
        w.array(s.LIVENESS_PROGRAM, program)
        w.array(s.LIVENESS_NOT_ALWAYS_LIVE, total)
        for level, (lo, hi) in enumerate(build_pyramid(total), start=1):
            lo_name, hi_name = column_names(s.LIVENESS_NOT_ALWAYS_LIVE, level)
            w.array(lo_name, lo)
            w.array(hi_name, hi)
        if by_ipu is not None:
            w.array(s.LIVENESS_BY_IPU, by_ipu)
        self.variables.write(ctx, n)
        self.read_always_live(compilation)
        ctx.add_part("liveness")
        self.lowered.num_steps = n
        self.read_liveness_by_tile(steps)

    def read_always_live(self, compilation: Any) -> None:
        ctx = self.ctx
        variables = list(each(attr(compilation, "alwaysLiveVariables") or [], "always-live variables"))
        names = [str(attr(v, "name", "")) for v in variables]
        sizes = np.array([int(attr(v, "size", 0) or 0) for v in variables], np.int64)
        ctx.writer.strings(s.ALWAYS_LIVE_NAME, names)
        ctx.writer.array(s.ALWAYS_LIVE_BYTES, sizes)
        tiles = attr(compilation, "tiles")
        if tiles is not None and len(tiles):
            total = sum(int(attr(t, "memory.alwaysLiveBytes", 0) or 0) for t in each(tiles, "tiles"))
        else:
            total = int(sizes.sum())
        ctx.meta["liveness"] = {"always_live_bytes": total}

    def read_liveness_by_tile(self, steps: Any) -> None:
        ctx, num_tiles = self.ctx, self.num_tiles
        n = len(steps)
        if num_tiles == 0:
            return
        brief = self.lowered.brief()
        if brief is not None:
            _liveness_from_lowered_vars(brief, n, num_tiles, ctx)
        elif n * num_tiles <= MAX_PER_TILE_QUERIES:
            out = ctx.writer.open_array(s.LIVENESS_BY_TILE, (n, num_tiles), np.int32)
            tick = Throttle(ctx, "profile.pop: liveness per tile", n)
            for i, step in enumerate(each(steps, "liveness steps")):
                tick(i)
                out[i] = [_call_bytes(step, "notAlwaysLiveMemoryForTile", t) for t in range(num_tiles)]
            out.flush()
        else:
            ctx.note(
                "liveness_tiles",
                f"{PROFILE}: per-tile liveness needs the lowered variables"
                " (autoReport.outputLoweredVars) for a report of this size",
            )
            return
        ctx.add_part("liveness_tiles")

    # Execution ------------------------------------------------------------------------

    def read_execution(self) -> None:
        ctx = self.ctx
        execution = attr(self.report, "execution")
        steps = attr(execution, "steps")
        if steps is None or len(steps) == 0:
            ctx.note("execution", f"{PROFILE}: the report has no execution profile (Poplar writes one with the engine"
                                  " option autoReport.outputExecutionProfile)")
            return
        runs = list(each(attr(execution, "runs") or [], "runs"))
        run_offsets = [0]
        for run in runs:
            run_offsets.append(run_offsets[-1] + len(attr(run, "steps") or []))
        if not runs or run_offsets[-1] != len(steps):
            run_offsets = [0, len(steps)]
            runs = runs[:1] or [None]
        w = ctx.writer
        w.strings(s.RUN_NAME, [str(attr(r, "name", f"run {i}")) for i, r in enumerate(runs)])
        w.array(s.RUN_STEP_OFFSETS, run_offsets, np.int64)
        w.array(s.RUN_START_US, [int(attr(r, "microseconds.start", 0) or 0) for r in runs], np.int64)
        w.array(s.RUN_END_US, [int(attr(r, "microseconds.end", 0) or 0) for r in runs], np.int64)
        StepReader(self, steps).read()
        total = attr(execution, "totalCycles.total")
        ctx.meta["execution"] = {"total_cycles": int(total) if total is not None else None}
        ctx.add_part("execution")


class VertexTypes:
    """One table of vertex types (name, state bytes) shared by compute sets and tiles."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.state_bytes: list[int] = []

    def __call__(self, vertex: Any) -> int:
        name = str(attr(vertex, "type.name", "?"))
        index = self.index.get(name)
        if index is None:
            index = self.index[name] = len(self.index)
            self.state_bytes.append(int(attr(vertex, "type.size", 0) or 0))
        return index

    def write(self, ctx: IngestContext) -> None:
        ctx.writer.strings(s.VERTEX_TYPE_NAME, list(self.index))
        ctx.writer.array(s.VERTEX_TYPE_STATE_BYTES, self.state_bytes, np.int64)


class PerTile:
    """Rows of (tile, item, values...) gathered from per-tile arrays, written as CSR by tile.

    Rows of the same (tile, item) add up; within a tile, items ascend.
    """

    def __init__(self, ctx: IngestContext) -> None:
        self.ctx = ctx
        self.chunks: list[tuple[np.ndarray, int, tuple[np.ndarray, ...]]] = []

    def add(self, by_tile: Any, item: int, *extra: np.ndarray) -> None:
        """BY_TILE: the first value on each tile; EXTRA: more values on the same tiles."""
        if by_tile is None:
            return
        first = np.asarray(by_tile, np.int64)
        tiles = np.flatnonzero(first)
        if len(tiles):
            self.chunks.append((tiles, item, tuple(np.asarray(v, np.int64)[tiles] for v in (first, *extra))))

    def write(self, offsets_name: str, item_name: str, value_names: tuple[str, ...]) -> None:
        num_tiles = int(self.ctx.meta.get("target", {}).get("num_tiles") or 0)
        if not self.chunks or num_tiles == 0:
            return
        tiles = np.concatenate([c[0] for c in self.chunks])
        items = np.concatenate([np.full(len(c[0]), c[1], np.int64) for c in self.chunks])
        keep = tiles < num_tiles
        key = tiles[keep] * (int(items.max()) + 1) + items[keep]
        unique, inverse = np.unique(key, return_inverse=True)
        width = int(items.max()) + 1
        w = self.ctx.writer
        w.array(offsets_name, np.searchsorted(unique // width, np.arange(num_tiles + 1)), np.int64)
        w.array(item_name, unique % width, np.int32)
        for v, name in enumerate(value_names):
            values = np.concatenate([c[2][v] for c in self.chunks])[keep]
            w.array(name, np.bincount(inverse, weights=values, minlength=len(unique)).astype(np.int64))


def _int_or(value: Any, default: int) -> int:
    return default if value is None else int(value)


def _category_names(category: Any) -> list[str]:
    if category is None:
        return []
    names = []
    for name in dir(category):
        if name.startswith("_"):
            continue
        if attr(category, f"{name}.total") is not None:
            names.append(name)
    return names


def _call_bytes(obj: Any, method: str, arg: int) -> int:
    """The bytes of OBJ.METHOD(ARG) (a liveness step's memory on one tile or IPU); 0 where libpva has none."""
    memory = call(obj, method, arg)
    return 0 if memory is None else int(attr(memory, "bytes", 0))


class VariableIntervals:
    """Turns per-step lists of live variables into (variable, start, end) intervals."""

    def __init__(self) -> None:
        self.ids: dict[tuple[str, int], int] = {}
        self.open: dict[int, int] = {}  # variable -> first step of its open interval
        self.intervals: list[tuple[int, int, int]] = []

    def add_step(self, step: int, live: Iterable[Any]) -> None:
        now = set()
        for var in live:
            key = (str(attr(var, "name", "")), int(attr(var, "size", 0) or 0))
            vid = self.ids.setdefault(key, len(self.ids))
            now.add(vid)
            self.open.setdefault(vid, step)
        for vid in [v for v in self.open if v not in now]:
            self.intervals.append((vid, self.open.pop(vid), step))

    def write(self, ctx: IngestContext, num_steps: int) -> None:
        for vid, start in self.open.items():
            self.intervals.append((vid, start, num_steps))
        self.open = {}
        arr = np.array(self.intervals, dtype=np.int64).reshape(-1, 3)
        arr = arr[np.argsort(arr[:, 1], kind="stable")]
        w = ctx.writer
        w.strings(s.VARIABLE_NAME, [name for name, _ in self.ids])
        w.array(s.VARIABLE_BYTES, [size for _, size in self.ids], np.int64)
        w.array(s.INTERVAL_VARIABLE, arr[:, 0], np.int32)
        w.array(s.INTERVAL_START, arr[:, 1], np.int32)
        w.array(s.INTERVAL_END, arr[:, 2], np.int32)
        longest = int((arr[:, 2] - arr[:, 1]).max()) if len(arr) else 0
        w.array(s.INTERVAL_MAX_LENGTH, [longest], np.int64)


def _liveness_from_lowered_vars(brief: "BriefVars", n: int, num_tiles: int, ctx: IngestContext) -> None:
    """Per tile, per step bytes of the not-always-live pieces: a difference array over their intervals."""
    steps = brief.class_steps(n)
    keep = (brief.tile >= 0) & (brief.tile < num_tiles) & (steps[brief.cls] < n)
    piece = np.flatnonzero(keep)
    counts = np.diff(brief.class_offsets)[brief.cls[piece]]
    row_piece = np.repeat(piece, counts)
    first = np.repeat(brief.class_offsets[brief.cls[piece]] - np.cumsum(counts) + counts, counts)
    interval = first + np.arange(len(row_piece))
    order = np.argsort(brief.tile[row_piece], kind="stable")
    row_piece, interval = row_piece[order], interval[order]
    tile_arr = brief.tile[row_piece]
    start_arr = np.clip(brief.start[interval], 0, n)
    end_arr = np.clip(brief.end[interval], 0, n)
    size_arr = brief.bytes[row_piece]
    out = ctx.writer.open_array(s.LIVENESS_BY_TILE, (n, num_tiles), np.int32)
    chunk = max(1, min(num_tiles, 8_000_000 // max(n, 1)))
    for t0 in range(0, num_tiles, chunk):
        ctx.cancel.check()
        t1 = min(num_tiles, t0 + chunk)
        lo, hi = np.searchsorted(tile_arr, [t0, t1])
        diff = np.zeros((n + 1, t1 - t0), np.int64)
        cols = tile_arr[lo:hi] - t0
        np.add.at(diff, (start_arr[lo:hi], cols), size_arr[lo:hi])
        np.add.at(diff, (end_arr[lo:hi], cols), -size_arr[lo:hi])
        out[:, t0:t1] = np.cumsum(diff, axis=0)[:n]
    out.flush()


@dataclass
class BriefVars:
    """libpva's `allBriefVars` as arrays: each piece's id, tile, bytes and equivalence class."""

    ids: np.ndarray  # int64 [L]
    tile: np.ndarray  # int64 [L]
    bytes: np.ndarray  # int64 [L]
    cls: np.ndarray  # int64 [L]: dense class index
    class_offsets: np.ndarray  # int64 [EC + 1]: each class's intervals
    start: np.ndarray  # int64 [EK]
    end: np.ndarray  # int64 [EK], exclusive

    def class_steps(self, num_steps: int) -> np.ndarray:
        """The steps each class is live, within [0, NUM_STEPS): all of them means always live."""
        lengths = np.clip(self.end, 0, num_steps) - np.clip(self.start, 0, num_steps)
        totals = np.concatenate([[0], np.cumsum(np.maximum(lengths, 0))])
        return totals[self.class_offsets[1:]] - totals[self.class_offsets[:-1]]


class LoweredReader:
    """The lowered variables (autoReport.outputLoweredVars), read once for per-tile liveness and
    for the `lowered` part: their pieces by tile and by name."""

    def __init__(self, report: Any, ctx: IngestContext) -> None:
        self.report, self.ctx = report, ctx
        self.num_steps: int | None = None
        self._brief: BriefVars | None = None
        self._read = False

    def brief(self) -> BriefVars | None:
        if not self._read:
            self._read = True
            brief = attr(self.report, "compilation.loweredVariables.allBriefVars")
            if brief is not None and len(brief):
                self._brief = self._arrays(brief)
        return self._brief

    def _arrays(self, brief: Any) -> BriefVars:
        ids, tiles, sizes, classes = [], [], [], []
        class_index: dict[int, int] = {}
        offsets, starts, ends = [0], [], []
        tick = Throttle(self.ctx, "profile.pop: lowered variables", len(brief))
        for i, var in enumerate(each(brief, "lowered variables")):
            tick(i)
            var_id, tile, size = need(var, "id", "tileId", "bytes")
            ids.append(int(var_id))
            tiles.append(int(tile))
            sizes.append(int(size))
            key = int(attr(var, "equivalenceClass.id", -1 - i))
            cls = class_index.get(key)
            if cls is None:
                cls = class_index[key] = len(class_index)
                for interval in each(attr(var, "equivalenceClass.steps") or [], "liveness intervals"):
                    start, end = need(interval, "start", "end")
                    starts.append(int(start))
                    ends.append(int(end))
                offsets.append(len(starts))
            classes.append(cls)
        return BriefVars(
            np.asarray(ids, np.int64), np.asarray(tiles, np.int64), np.asarray(sizes, np.int64),
            np.asarray(classes, np.int64), np.asarray(offsets, np.int64), np.asarray(starts, np.int64),
            np.asarray(ends, np.int64),
        )

    def write(self, operations: list[Any] | None) -> None:
        ctx = self.ctx
        brief = self.brief()
        num_tiles = int(ctx.meta.get("target", {}).get("num_tiles") or 0)
        if brief is None or num_tiles == 0 or self.num_steps is None:
            ctx.note("lowered", f"{PROFILE}: the report has no lowered variables"
                                " (they need the engine option autoReport.outputLoweredVars)")
            return
        keep = np.flatnonzero((brief.tile >= 0) & (brief.tile < num_tiles))
        order = keep[np.lexsort((-brief.bytes[keep], brief.tile[keep]))]
        tile = brief.tile[order]
        named, name_of_id = self._names(num_tiles)
        name_index: dict[str, int] = {}
        name = np.fromiter(
            (name_index.setdefault(name_of_id.get(i) or f"lowered variable {i}", len(name_index))
             for i in brief.ids[order].tolist()),
            np.int64, len(order),
        )
        w = ctx.writer
        w.array(s.LOWERED_TILE_OFFSETS, np.searchsorted(tile, np.arange(num_tiles + 1)), np.int64)
        w.array(s.LOWERED_TILE, tile, np.int32)
        w.array(s.LOWERED_NAME, name, np.int32)
        w.array(s.LOWERED_BYTES, brief.bytes[order], np.int64)
        w.array(s.LOWERED_CLASS, brief.cls[order], np.int32)
        w.strings(s.LOWERED_NAMES, list(name_index))
        w.array(s.LOWERED_NAME_OFFSETS, np.concatenate([[0], np.cumsum(np.bincount(name, minlength=len(name_index)))]),
                np.int64)
        w.array(s.LOWERED_NAME_PIECES, np.argsort(name, kind="stable"), np.int64)
        w.array(s.LOWERED_CLASS_OFFSETS, brief.class_offsets, np.int64)
        w.array(s.LOWERED_CLASS_START, brief.start, np.int32)
        w.array(s.LOWERED_CLASS_END, brief.end, np.int32)
        w.array(s.LOWERED_CLASS_STEPS, brief.class_steps(self.num_steps), np.int32)
        if operations is not None:
            w.array(s.LOWERED_NAME_CONTEXT, _variable_contexts(operations, name_index), np.int64)
        ctx.meta["lowered"] = {"steps": self.num_steps, "named": named}
        ctx.add_part("lowered")

    def _names(self, num_tiles: int) -> tuple[bool, dict[int, str]]:
        """Each piece's variable name by id, from `forTile`: the unlowered variable's where it has one."""
        lowered = attr(self.report, "compilation.loweredVariables")
        names: dict[int, str] = {}
        if attr(lowered, "forTile") is None:
            return False, names
        tick = Throttle(self.ctx, "profile.pop: lowered variable names", num_tiles)
        for t in range(num_tiles):
            tick(t)
            pieces = call(lowered, "forTile", t)
            if pieces is None:
                return False, names
            for piece in each(pieces, "lowered variables of a tile"):
                unlowered = attr(piece, "unloweredVar.name") if attr(piece, "hasUnloweredVar") else None
                names[int(need(piece, "_id"))] = str(unlowered if unlowered is not None else attr(piece, "name", ""))
        return True, names


def _variable_contexts(operations: Iterable[Any], names: dict[str, int]) -> np.ndarray:
    """Per variable name, the debug context of the first operation that lists it, else -1."""
    context = np.full(len(names), -1, np.int64)
    for op in operations:
        context_id = attr(op, "debugContext.id")
        if context_id is None:
            continue
        for var in each(attr(op, "vars") or [], "operation variables"):
            i = names.get(str(attr(var, "name", "")))
            if i is not None and context[i] < 0:
                context[i] = int(context_id)
    return context


class StepReader:
    """Execution steps: per IPU cycles and balance, and per-tile cycles where present."""

    def __init__(self, reader: PvaReader, steps: Any) -> None:
        self.reader = reader
        self.ctx = ctx = reader.ctx
        self.steps = steps
        self.num_ipus = int(ctx.meta.get("target", {}).get("num_ipus") or 1)
        self.num_tiles = reader.num_tiles

    def read(self) -> None:
        n, k = len(self.steps), self.num_ipus
        w = self.ctx.writer
        program = np.full(n, -1, np.int32)
        cols = {
            s.STEP_FROM: w.open_array(s.STEP_FROM, (n, k), np.int64),
            s.STEP_TO: w.open_array(s.STEP_TO, (n, k), np.int64),
            s.STEP_CYCLES: w.open_array(s.STEP_CYCLES, (n, k), np.int64),
            s.STEP_TILE_BALANCE: w.open_array(s.STEP_TILE_BALANCE, (n, k), np.float32),
            s.STEP_ACTIVE_TILE_BALANCE: w.open_array(s.STEP_ACTIVE_TILE_BALANCE, (n, k), np.float32),
            s.STEP_DATA_IN: w.open_array(s.STEP_DATA_IN, (n, k), np.int64),
            s.STEP_DATA_OUT: w.open_array(s.STEP_DATA_OUT, (n, k), np.int64),
        }
        cols[s.STEP_FROM][:] = -1
        cols[s.STEP_TO][:] = -1
        bsp = BspRows(self.num_tiles)
        tick = Throttle(self.ctx, "profile.pop: execution", n)
        for i, step in enumerate(each(self.steps, "execution steps")):
            tick(i)
            program[i] = self.reader.program_of(step)
            for ipu_index, ipu in enumerate(each(attr(step, "ipus") or [], "a step's IPUs")):
                if ipu_index >= k:
                    break
                self._read_ipu(cols, i, ipu_index, ipu)
            by_tile = attr(step, "cyclesByTile")
            if by_tile is not None and len(by_tile):
                bsp.add(i, by_tile)
        w.array(s.STEP_PROGRAM, program)
        for arr in cols.values():
            arr.flush()
        bsp.write(self.ctx)

    @staticmethod
    def _read_ipu(cols: dict, i: int, k: int, ipu: Any) -> None:
        cycles_from = attr(ipu, "activeCycles.cyclesFrom.min")
        cycles_to = attr(ipu, "activeCycles.cyclesTo.max")
        if cycles_from is not None and cycles_to is not None:
            cols[s.STEP_FROM][i, k] = cycles_from
            cols[s.STEP_TO][i, k] = cycles_to
        cols[s.STEP_CYCLES][i, k] = attr(ipu, "cycles", 0)
        cols[s.STEP_TILE_BALANCE][i, k] = attr(ipu, "tileBalance", 0.0)
        cols[s.STEP_ACTIVE_TILE_BALANCE][i, k] = attr(ipu, "activeTileBalance", 0.0)
        cols[s.STEP_DATA_IN][i, k] = attr(ipu, "dataIn", 0)
        cols[s.STEP_DATA_OUT][i, k] = attr(ipu, "dataOut", 0)


class BspRows:
    """Per-tile cycles of the instrumented steps, spooled to a scratch file as they come."""

    def __init__(self, num_tiles: int) -> None:
        self.num_tiles = num_tiles
        self.steps: list[int] = []
        self.scratch = tempfile.TemporaryFile()

    def add(self, step: int, by_tile: Any) -> None:
        row = np.zeros(self.num_tiles, np.int32)
        values = np.asarray(by_tile, dtype=np.int64)[: self.num_tiles]
        row[: len(values)] = np.clip(values, 0, np.iinfo(np.int32).max)
        self.scratch.write(row.tobytes())
        self.steps.append(step)

    def write(self, ctx: IngestContext) -> None:
        with self.scratch:
            if not self.steps or self.num_tiles == 0:
                return
            ctx.writer.array(s.BSP_STEP, self.steps, np.int64)
            out = ctx.writer.open_array(s.BSP_CYCLES, (len(self.steps), self.num_tiles), np.int32)
            self.scratch.seek(0)
            rows_per_read = max(1, 4_000_000 // self.num_tiles)
            for r0 in range(0, len(self.steps), rows_per_read):
                r1 = min(len(self.steps), r0 + rows_per_read)
                raw = self.scratch.read((r1 - r0) * self.num_tiles * 4)
                out[r0:r1] = np.frombuffer(raw, np.int32).reshape(r1 - r0, self.num_tiles)
            out.flush()
        ctx.add_part("bsp")
