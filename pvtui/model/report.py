"""The report model: one object over a bundle, shared by every screen and command.

Every part is optional: a view asks `report.memory is None` (and reads
`report.missing(part)`) to say plainly what the files at hand do not hold.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple, Sequence

import numpy as np

from pvtui.model import schema as s
from pvtui.model.arrays import distinct
from pvtui.model.bundle import Bundle
from pvtui.model.envelope import Envelope, column_names
from pvtui.model.lowered import Lowered
from pvtui.model.part import CodeNames, Part, report_text
from pvtui.safe_text import visible_json

LIVE_CHECKPOINT = 256  # steps between the stored sets of live intervals (Liveness.live_variables)
LIVE_KEPT = 8  # steps whose live variables are kept, all forgotten once there are more (Liveness.live_variables)


class Target(NamedTuple):
    type: str | None = None
    architecture: str | None = None
    num_ipus: int | None = None
    tiles_per_ipu: int | None = None
    num_tiles: int | None = None
    bytes_per_tile: int | None = None
    clock_hz: float | None = None
    num_replicas: int | None = None
    ipus_per_replica: int | None = None

    @classmethod
    def from_meta(cls, meta: dict[str, Any], exact_text: bool = False) -> "Target":
        fields = {k: report_text(meta.get(k), exact_text) for k in cls._fields}
        return cls(**fields)

    @property
    def bytes_per_ipu(self) -> int | None:
        if self.bytes_per_tile is None or self.tiles_per_ipu is None:
            return None
        return self.bytes_per_tile * self.tiles_per_ipu

    @property
    def total_memory(self) -> int | None:
        if self.bytes_per_tile is None or self.num_tiles is None:
            return None
        return self.bytes_per_tile * self.num_tiles


class Memory(Part):
    """Per-tile memory from the graph profile. Gaps, always-live and not-always-live bytes are None where
    the reader did not give them (profile.pop read without libpva)."""

    @cached_property
    def categories(self) -> CodeNames:
        return self.code_names("memory.categories", "category")

    ipu = cached_property(lambda self: self.col(s.TILE_IPU))
    including_gaps = cached_property(lambda self: self.col(s.TILE_INCLUDING_GAPS))
    excluding_gaps = cached_property(lambda self: self.opt(s.TILE_EXCLUDING_GAPS))
    always_live = cached_property(lambda self: self.opt(s.TILE_ALWAYS_LIVE))
    not_always_live = cached_property(lambda self: self.opt(s.TILE_NOT_ALWAYS_LIVE))
    by_category = cached_property(lambda self: self.col(s.TILE_CATEGORIES))

    @property
    def num_tiles(self) -> int:
        return self.length(s.TILE_INCLUDING_GAPS)

    def vertices_of_tile(self, tile: int) -> list[tuple[int, int]]:
        """(vertex type index, code bytes) on TILE, where the profile gives them."""
        offsets = self.opt(s.TILE_VERTEX_OFFSETS)
        if offsets is None:
            return []
        lo, hi = int(offsets[tile]), int(offsets[tile + 1])
        types = self.col(s.TILE_VERTEX_TYPE)[lo:hi]
        code = self.col(s.TILE_VERTEX_CODE)[lo:hi]
        return list(zip(types.tolist(), code.tolist()))


class Archive(Part):
    """Per-tile allocated ELF bytes from archive.a."""

    code = cached_property(lambda self: self.col(s.ARCHIVE_CODE))
    data = cached_property(lambda self: self.col(s.ARCHIVE_DATA))
    bss = cached_property(lambda self: self.col(s.ARCHIVE_BSS))

    @cached_property
    def total(self) -> np.ndarray:
        return np.asarray(self.code) + np.asarray(self.data) + np.asarray(self.bss)


class Programs(Part):
    """The program tree, compute sets and vertex types. Read without libpva, every program is a root
    (`has_tree` false) and code bytes are None."""

    type = cached_property(lambda self: self.col(s.PROGRAM_TYPE))
    names = cached_property(lambda self: self.strings(s.PROGRAM_NAME))
    parent = cached_property(lambda self: self.col(s.PROGRAM_PARENT))
    child_offsets = cached_property(lambda self: self.col(s.PROGRAM_CHILD_OFFSETS))
    child_ids = cached_property(lambda self: self.col(s.PROGRAM_CHILDREN))
    roots = cached_property(lambda self: self.col(s.PROGRAM_ROOTS))
    compute_set = cached_property(lambda self: self.col(s.PROGRAM_COMPUTE_SET))
    code_bytes = cached_property(lambda self: self.opt(s.PROGRAM_CODE_BYTES))
    compute_set_names = cached_property(lambda self: self._strings(s.COMPUTE_SET_NAME))
    vertex_type_names = cached_property(lambda self: self._strings(s.VERTEX_TYPE_NAME))
    vertex_state_bytes = cached_property(lambda self: self.col(s.VERTEX_TYPE_STATE_BYTES))

    def _strings(self, name: str):
        return self.strings(name) if self.bundle.has(name) else []

    @property
    def has_tree(self) -> bool:
        """Whether the reader gave the program tree (libpva does; profile.pop's known tables do not)."""
        return self.meta.get("programs", {}).get("tree", True)

    @cached_property
    def type_names(self) -> CodeNames:
        return self.code_names("programs.types", "program type")

    def __len__(self) -> int:
        return self.length(s.PROGRAM_TYPE)

    def type_name(self, program: int) -> str:
        return self.type_names[int(self.type[program])]

    def children(self, program: int) -> np.ndarray:
        return self.child_ids[int(self.child_offsets[program]) : int(self.child_offsets[program + 1])]

    def num_children(self, program: int) -> int:
        return int(self.child_offsets[program + 1] - self.child_offsets[program])

    def path_to(self, program: int) -> list[int]:
        """Programs from a root down to PROGRAM, following first parents."""
        path = [program]
        seen = {program}
        while (parent := int(self.parent[path[-1]])) >= 0 and parent not in seen:
            path.append(parent)
            seen.add(parent)
        return path[::-1]

    @cached_property
    def is_leaf(self) -> np.ndarray:
        """Per program, whether it has no children: only a leaf's code bytes are its own."""
        return np.diff(np.asarray(self.child_offsets)) == 0

    def leaf_code_bytes(self, programs: np.ndarray) -> int | None:
        """The code bytes of PROGRAMS, each counted once: a parent's bytes include its children's; None where
        the reader gave no code bytes."""
        if self.code_bytes is None:
            return None
        programs = np.asarray(programs, dtype=np.int64)
        return int(np.asarray(self.code_bytes)[programs[self.is_leaf[programs]]].sum())

    def compute_set_vertices(self, compute_set: int) -> list[tuple[int, int]]:
        """(vertex type index, instances) of a compute set."""
        offsets = self.opt(s.COMPUTE_SET_VERTEX_OFFSETS)
        if offsets is None or compute_set < 0:
            return []
        lo, hi = int(offsets[compute_set]), int(offsets[compute_set + 1])
        types = self.col(s.COMPUTE_SET_VERTEX_TYPE)[lo:hi]
        counts = self.col(s.COMPUTE_SET_VERTEX_COUNT)[lo:hi]
        return list(zip(types.tolist(), counts.tolist()))

    def estimated_cycles(self, program: int) -> int | None:
        """The slowest tile's estimated cycles for PROGRAM's compute set, where the profile gives them."""
        column = self.opt(s.PROGRAM_ESTIMATED_CYCLES)
        value = -1 if column is None else int(column[program])
        return None if value < 0 else value

    def debug_context(self, program: int) -> int:
        column = self.opt(s.PROGRAM_DEBUG_CONTEXT)
        return -1 if column is None else int(column[program])


class Liveness(Part):
    """Memory over program steps: always-live plus not-always-live."""

    program = cached_property(lambda self: self.col(s.LIVENESS_PROGRAM))
    not_always_live = cached_property(lambda self: self.col(s.LIVENESS_NOT_ALWAYS_LIVE))
    by_ipu = cached_property(lambda self: self.opt(s.LIVENESS_BY_IPU))
    by_tile = cached_property(lambda self: self.opt(s.LIVENESS_BY_TILE))
    variable_names = cached_property(lambda self: self.strings(s.VARIABLE_NAME))
    variable_bytes = cached_property(lambda self: self.col(s.VARIABLE_BYTES))
    always_live_names = cached_property(lambda self: self.strings(s.ALWAYS_LIVE_NAME))
    always_live_sizes = cached_property(lambda self: self.col(s.ALWAYS_LIVE_BYTES))

    @property
    def always_live_bytes(self) -> int | None:
        """Always-live bytes of the whole target, or None when the source did not give them."""
        value = self.meta.get("liveness", {}).get("always_live_bytes")
        return None if value is None else int(value)

    def __len__(self) -> int:
        return self.length(s.LIVENESS_PROGRAM)

    @cached_property
    def envelope(self) -> Envelope:
        return self._envelope(s.LIVENESS_NOT_ALWAYS_LIVE, self.not_always_live)

    def _envelope(self, name: str, series: np.ndarray) -> Envelope:
        levels = []
        level = 1
        while True:
            lo_name, hi_name = column_names(name, level)
            if not self.bundle.has(lo_name):
                break
            levels.append((self.col(lo_name), self.col(hi_name)))
            level += 1
        return Envelope(series, levels)

    @cached_property
    def peak_step(self) -> int:
        """The step with the most not-always-live bytes (the first, on ties)."""
        return int(np.argmax(self.not_always_live)) if len(self) else -1

    @cached_property
    def _live_at_checkpoints(self) -> tuple[np.ndarray, np.ndarray]:
        """The intervals live at every LIVE_CHECKPOINT-th step: (offsets per checkpoint, interval indices).

        Built once, at the first lookup. Long intervals would otherwise make every
        lookup scan back over all the intervals that started within the longest one.
        """
        starts = np.asarray(self.col(s.INTERVAL_START), dtype=np.int64)
        ends = np.asarray(self.col(s.INTERVAL_END), dtype=np.int64)
        first = -(-starts // LIVE_CHECKPOINT)  # the checkpoints in [start, end): first, ..., last - 1
        last = -(-ends // LIVE_CHECKPOINT)
        counts = np.maximum(last - first, 0)
        interval = np.repeat(np.arange(len(starts)), counts)
        run_start = np.cumsum(counts) - counts
        checkpoint = first[interval] + np.arange(int(counts.sum())) - run_start[interval]
        order = np.argsort(checkpoint, kind="stable")
        per_checkpoint = np.bincount(checkpoint, minlength=len(self) // LIVE_CHECKPOINT + 1)
        return np.concatenate([[0], np.cumsum(per_checkpoint)]), interval[order]

    _live_kept = cached_property(lambda self: {})  # step -> live_variables: up to LIVE_KEPT steps, then forgotten

    def live_variables(self, step: int) -> list[tuple[int, int]]:
        """(variable index, bytes) live at STEP, largest first: a list kept for the next asking of the same step
        (a zoom, a redraw), so not to be changed."""
        kept = self._live_kept
        found = kept.get(step)
        if found is None:
            if len(kept) >= LIVE_KEPT:
                kept.clear()
            found = kept[step] = self._live_variables(step)
        return found

    def _live_variables(self, step: int) -> list[tuple[int, int]]:
        if step < 0:
            return []
        offsets, live_at = self._live_at_checkpoints
        checkpoint = step // LIVE_CHECKPOINT
        at_checkpoint = live_at[offsets[checkpoint] : offsets[checkpoint + 1]] if checkpoint + 1 < len(offsets) else []
        starts = self.col(s.INTERVAL_START)
        lo = int(np.searchsorted(starts, checkpoint * LIVE_CHECKPOINT, side="right"))
        hi = int(np.searchsorted(starts, step, side="right"))
        candidates = np.concatenate([at_checkpoint, np.arange(lo, hi)]).astype(np.int64)
        ends = self.col(s.INTERVAL_END)[candidates]
        live = distinct(self.col(s.INTERVAL_VARIABLE)[candidates[ends > step]])
        sizes = np.asarray(self.variable_bytes)[live]
        order = np.argsort(-sizes, kind="stable")
        return list(zip(live[order].tolist(), sizes[order].tolist()))


class Execution(Part):
    """Execution steps over cycles, per IPU, for every profiled run."""

    run_names = cached_property(lambda self: self.strings(s.RUN_NAME))
    run_step_offsets = cached_property(lambda self: self.col(s.RUN_STEP_OFFSETS))
    program = cached_property(lambda self: self.col(s.STEP_PROGRAM))
    cycles_from = cached_property(lambda self: self.col(s.STEP_FROM))
    cycles_to = cached_property(lambda self: self.col(s.STEP_TO))
    cycles = cached_property(lambda self: self.col(s.STEP_CYCLES))
    # libpva's; None where profile.pop was read without it
    tile_balance = cached_property(lambda self: self.opt(s.STEP_TILE_BALANCE))
    active_tile_balance = cached_property(lambda self: self.opt(s.STEP_ACTIVE_TILE_BALANCE))
    data_in = cached_property(lambda self: self.opt(s.STEP_DATA_IN))
    data_out = cached_property(lambda self: self.opt(s.STEP_DATA_OUT))
    active_tiles = cached_property(lambda self: self.opt(s.STEP_ACTIVE_TILES))  # profile.pop's steps_by_ipu
    bsp_steps = cached_property(lambda self: self.opt(s.BSP_STEP))
    bsp_cycles = cached_property(lambda self: self.opt(s.BSP_CYCLES))

    @cached_property
    def program_figures(self) -> dict[str, np.ndarray] | None:
        """The Hotspots' figures per program id over every step, where ingest kept them (s.PROGRAM_FIGURES)."""
        if not all(self.bundle.has(s.PROGRAM_FIGURES + key) for key in s.PROGRAM_FIGURE_KEYS):
            return None
        return {key: np.asarray(self.col(s.PROGRAM_FIGURES + key)) for key in s.PROGRAM_FIGURE_KEYS}

    @property
    def runs_known(self) -> bool:
        """Whether the steps are split into the runs profiled (libpva's); profile.pop's known tables give
        one run of every step, whose span holds the host's time between runs."""
        return self.meta.get("execution", {}).get("runs", True)

    @property
    def total_cycles(self) -> int | None:
        return self.meta.get("execution", {}).get("total_cycles")

    @property
    def kept_device_cycles(self) -> list[int | None] | None:
        """Each run's device time as ingest kept it (sources/ingest.py keep_summary_figures), None where the
        bundle has none (written before it was kept) or a damaged one."""
        kept = self.meta.get("execution", {}).get("device_cycles")
        if not kept_figures_hold(self.bundle) or not isinstance(kept, list) or len(kept) != self.num_runs:
            return None
        whole = all(value is None or (isinstance(value, int) and not isinstance(value, bool)) for value in kept)
        return kept if whole else None

    @property
    def num_runs(self) -> int:
        return self.length(s.RUN_STEP_OFFSETS) - 1

    @property
    def num_steps(self) -> int:
        return self.length(s.STEP_PROGRAM)

    @property
    def num_ipus(self) -> int:
        return self.cycles_from.shape[1]  # [X, I]: schema.SHAPES, checked as the bundle opens

    def run_range(self, run: int) -> tuple[int, int]:
        return int(self.run_step_offsets[run]), int(self.run_step_offsets[run + 1])


class Operations(Part):
    """The operations libpva finds from debug.cbor: each one's programs, liveness steps and variables."""

    names = cached_property(lambda self: self.strings(s.OPERATION_NAME))
    debug_context = cached_property(lambda self: self.col(s.OPERATION_DEBUG_CONTEXT))
    program_offsets = cached_property(lambda self: self.col(s.OPERATION_PROGRAM_OFFSETS))
    program_ids = cached_property(lambda self: self.col(s.OPERATION_PROGRAMS))
    first_step = cached_property(lambda self: self.col(s.OPERATION_FIRST_STEP))
    last_step = cached_property(lambda self: self.col(s.OPERATION_LAST_STEP))
    variables = cached_property(lambda self: self.col(s.OPERATION_VARIABLES))
    variables_matched = cached_property(lambda self: self.col(s.OPERATION_VARIABLES_MATCHED))
    variable_bytes = cached_property(lambda self: self.col(s.OPERATION_VARIABLE_BYTES))

    def __len__(self) -> int:
        return self.length(s.OPERATION_DEBUG_CONTEXT)

    def programs(self, op: int) -> np.ndarray:
        return self.program_ids[int(self.program_offsets[op]) : int(self.program_offsets[op + 1])]


class Debug(Part):
    """Debug contexts from debug.cbor."""

    ids = cached_property(lambda self: self.col(s.DEBUG_ID))
    parent = cached_property(lambda self: self.col(s.DEBUG_PARENT))
    layer = cached_property(lambda self: self.col(s.DEBUG_LAYER))
    category = cached_property(lambda self: self.col(s.DEBUG_CATEGORY))
    names = cached_property(lambda self: self.strings(s.DEBUG_NAME))
    fields = cached_property(lambda self: self.strings(s.DEBUG_FIELDS, visible_json))  # JSON text

    @cached_property
    def layer_names(self) -> CodeNames:
        return self.code_names("debug.layers", "layer")

    @cached_property
    def category_names(self) -> CodeNames:
        return self.code_names("debug.categories", "category")

    def __len__(self) -> int:
        return self.length(s.DEBUG_ID)

    def index_of(self, context_id: int) -> int:
        """Row of a context id, or -1. Ids are stored sorted."""
        i = int(np.searchsorted(self.ids, context_id))
        return i if i < len(self.ids) and int(self.ids[i]) == context_id else -1


def kept_figures_hold(bundle: Bundle) -> bool:
    """Whether the figures ingest kept in BUNDLE's meta were computed from its columns as they are now."""
    return bundle.meta.get(s.KEPT_OVER) == bundle.columns_stamp


def column_damage(bundle: Bundle) -> dict[str, str]:
    """The parts that damaged columns take out, each with its first damaged column's problem."""
    damage: dict[str, str] = {}
    for name, problem in bundle.damaged.items():
        damage.setdefault(s.part_of_column(name), str(problem))
    return damage


def note_messages(notes: list[str]) -> list[str]:
    """The messages of notes (`[part] file: problem`), each once: a file may be noted for several parts."""
    return list(dict.fromkeys(note.split("] ", 1)[-1] for note in notes))


class BeingRead(str):
    """Report.missing's sentence for a part not read yet (a report still being read): a view saying it
    may add how far the reading is."""


class Report:
    """A report opened from a bundle. Parts absent from the bundle are None; in a report still being read
    (`being_read`: the parts read so far, IngestContext.show_parts), those not noted may come yet."""

    def __init__(
        self, bundle: Bundle | str | Path, name: str | None = None, notes: Sequence[str] = (), exact_text: bool = False
    ) -> None:
        """NOTES: `[part] problem` lines about how it was opened, beside the bundle's own.

        Every name and string it hands out is made visible (pvtui.safe_text) unless EXACT_TEXT, for
        output that keeps the exact text itself (JSON). `meta` and `bundle` stay as stored.
        """
        self.exact_text = exact_text
        self.bundle = bundle if isinstance(bundle, Bundle) else Bundle(bundle)
        self._name = name  # what the user opened; the bundle may be a cache entry
        damage = column_damage(self.bundle)
        self.damage_notes = [f"[{part}] {problem}" for part, problem in damage.items()]  # the bundle's own
        self._opening_notes = list(notes)
        meta = self.bundle.meta
        self.meta = meta
        self.parts: set[str] = set(meta.get("parts", [])) - set(damage)
        self.being_read = "being_read" in meta  # the parts that may come yet (sources/ingest.py, build_bundle)
        self.target = Target.from_meta(meta.get("target", {}), exact_text)
        bundle, parts = self.bundle, self.parts
        self.memory = Memory(bundle, exact_text) if "memory" in parts else None
        self.archive = Archive(bundle, exact_text) if "archive" in parts else None
        self.programs = Programs(bundle, exact_text) if "programs" in parts else None
        self.liveness = Liveness(bundle, exact_text) if "liveness" in parts else None
        self.execution = Execution(bundle, exact_text) if "execution" in parts else None
        self.debug = Debug(bundle, exact_text) if "debug" in parts else None
        self.operations = Operations(bundle, exact_text) if "operations" in parts else None
        self.lowered = Lowered(bundle, exact_text) if "lowered" in parts else None
        # the tiles' totals shown before their categories are read (sources/native_memory.py): meta's memory
        # has no `categories` yet
        self.categories_being_read = (self.being_read and self.memory is not None
                                      and "categories" not in meta.get("memory", {}))

    @property
    def path(self) -> Path:
        return self.bundle.path

    def text(self, value: Any) -> Any:
        """VALUE in the form this report gives its text (made visible unless exact): also for what the
        user typed to compare with its names."""
        return report_text(value, self.exact_text)

    @property
    def name(self) -> str:
        return self.text(str(self._name or self.meta.get("name") or self.bundle.path.name))

    @property
    def poplar_version(self) -> str | None:
        return self.text(self.meta.get("poplar_version"))

    @property
    def instrumentation(self) -> dict[str, str] | None:
        return self.text(self.meta.get("instrumentation"))

    @property
    def readers(self) -> dict[str, str]:
        """Who read each profile part present (schema.PROFILE_READERS, "stand-in", "profile.pvtui")."""
        recorded = self.meta.get("readers", {})
        return self.text({part: str(recorded[part]) for part in s.PROFILE_PARTS if part in self.parts and part in recorded})

    @property
    def files(self) -> dict[str, Any]:
        """Each report file: {path, size, mtime_ns} when it was present, else None."""
        return dict(self.meta.get("files", {}))

    @property
    def notes(self) -> list[str]:
        """What could not be read, and why: one line each, naming the file."""
        return self.text(list(self.meta.get("notes", [])) + self.damage_notes + self._opening_notes)

    @property
    def problems(self) -> list[str]:
        """What could not be read, each message once: the warnings to show."""
        return note_messages(self.notes)

    @cached_property
    def framework_json(self) -> Any:
        return self.text(self.bundle.json(s.FRAMEWORK_JSON)) if "framework" in self.parts else None

    @cached_property
    def app_json(self) -> Any:
        return self.text(self.bundle.json(s.APP_JSON)) if "app" in self.parts else None

    def missing(self, part: str) -> str:
        """One sentence saying why PART is absent, for the views that need it."""
        for note in self.notes:
            if f"[{part}]" in note:
                return note.replace(f"[{part}] ", "")
        if part == "categories" and self.categories_being_read:
            return BeingRead("The memory categories are not read yet: the report's files are still being read.")
        if part in self.meta.get("being_read", ()):
            return BeingRead(f"The {part} data is not read yet: the report's files are still being read.")
        if part == "memory" and self.archive is not None:  # say what archive.a gives, then what it lacks
            return ("Tile memory here is archive.a's allocated ELF sections; memory categories, gaps and"
                    " always-live bytes need profile.pop.")
        needs = {
            "memory": "profile.pop",
            "programs": "profile.pop",
            "liveness": "profile.pop",
            "liveness_tiles": "profile.pop with per-tile liveness",
            "execution": "profile.pop with an execution profile (engine option autoReport.outputExecutionProfile)",
            "bsp": "an execution profile with per-tile cycles (instrumentation Tile or Vertex)",
            "debug": "debug.cbor",
            "archive": "archive.a",
            "operations": "profile.pop and debug.cbor, read through libpva's OperationAnalysis",
            "lowered": "profile.pop written with the engine option autoReport.outputLoweredVars",
            "tile_split": "profile.pop read by libpva",
            "program_tree": "profile.pop read by libpva",
            "step_details": "profile.pop read by libpva",
            "variable_liveness": "profile.pop read by libpva",
        }.get(part, part)
        return f"This report has no {part} data: it needs {needs}."
