"""The bundle schema: which columns each part of a report holds.

T = tiles, C = memory categories, P = programs, S = compute sets, N = liveness
steps, I = IPUs, X = execution steps (all runs), B = steps with per-tile cycles,
D = debug contexts, O = operations, L = lowered variables (a variable's piece on one tile),
LN = their distinct names, EC = their liveness equivalence classes. "str" marks a string table. A part is present when its name is
in `meta["parts"]`; within a part, columns marked optional may be missing.

meta.json keys: format, schema_version, parts[], columns[], target{...},
poplar_version, instrumentation, files{name: {path, size, mtime_ns} | null},
notes[] (what could not be read and why), memory{categories[]},
programs{types[]}, liveness{always_live_bytes}, lowered{steps}, execution{total_cycles},
debug{layers[], categories[], contexts}, archive{members, unusable}.
"""

# part "memory" (profile.pop): per tile
TILE_IPU = "tiles.ipu"  # int16 [T]
TILE_INCLUDING_GAPS = "tiles.including_gaps"  # int64 [T]
TILE_EXCLUDING_GAPS = "tiles.excluding_gaps"  # int64 [T]
TILE_ALWAYS_LIVE = "tiles.always_live"  # int64 [T]
TILE_NOT_ALWAYS_LIVE = "tiles.not_always_live"  # int64 [T]
TILE_CATEGORIES = "tiles.categories"  # int64 [T, C], names in meta memory.categories
TILE_VERTEX_OFFSETS = "tiles.vertex_offsets"  # int64 [T+1] (optional)
TILE_VERTEX_TYPE = "tiles.vertex_type"  # int32 [V] index into vertex_types
TILE_VERTEX_CODE = "tiles.vertex_code_bytes"  # int64 [V]

# part "archive" (archive.a): per member, in member (= tile) order
ARCHIVE_CODE = "archive.code"  # int64 [T]: SHF_ALLOC + SHF_EXECINSTR
ARCHIVE_DATA = "archive.data"  # int64 [T]: SHF_ALLOC, not exec, not NOBITS
ARCHIVE_BSS = "archive.bss"  # int64 [T]: SHF_ALLOC + SHT_NOBITS
ARCHIVE_MEMBER = "archive.member"  # str [T]

# part "programs" (profile.pop)
PROGRAM_TYPE = "programs.type"  # int16 [P], names in meta programs.types
PROGRAM_NAME = "programs.name"  # str [P]
PROGRAM_PARENT = "programs.parent"  # int32 [P], -1 for roots (first parent seen)
PROGRAM_CHILD_OFFSETS = "programs.child_offsets"  # int64 [P+1]
PROGRAM_CHILDREN = "programs.children"  # int32 [E]
PROGRAM_ROOTS = "programs.roots"  # int32 [R]
PROGRAM_COMPUTE_SET = "programs.compute_set"  # int32 [P], -1 when none
PROGRAM_CODE_BYTES = "programs.code_bytes"  # int64 [P], summed over tiles
PROGRAM_DEBUG_CONTEXT = "programs.debug_context"  # int64 [P], -1 (optional)
PROGRAM_ESTIMATED_CYCLES = "programs.estimated_cycles"  # int64 [P] slowest tile's estimate, -1 none (optional)
COMPUTE_SET_NAME = "compute_sets.name"  # str [S]
COMPUTE_SET_VERTEX_OFFSETS = "compute_sets.vertex_offsets"  # int64 [S+1]
COMPUTE_SET_VERTEX_TYPE = "compute_sets.vertex_type"  # int32 [CV]
COMPUTE_SET_VERTEX_COUNT = "compute_sets.vertex_count"  # int64 [CV] instances
TILE_CS_OFFSETS = "tiles.cs_offsets"  # int64 [T+1] the compute sets on each tile (CSR, optional)
TILE_CS_SET = "tiles.cs_set"  # int32 [TS] compute set index
TILE_CS_INSTANCES = "tiles.cs_instances"  # int64 [TS] vertex instances on the tile
TILE_CS_VERTICES = "tiles.cs_vertices"  # int64 [TS] vertex types on the tile
TILE_CS_STATE_BYTES = "tiles.cs_state_bytes"  # int64 [TS] vertex state bytes on the tile
TILE_VT_OFFSETS = "tiles.vt_offsets"  # int64 [T+1] the vertex types on each tile (CSR, optional)
TILE_VT_TYPE = "tiles.vt_type"  # int32 [TT] vertex type index
TILE_VT_INSTANCES = "tiles.vt_instances"  # int64 [TT] its instances on the tile
TILE_VT_STATE_BYTES = "tiles.vt_state_bytes"  # int64 [TT] their state bytes
TILE_EXCHANGE_OFFSETS = "tiles.exchange_offsets"  # int64 [T+1] exchange code on each tile (CSR, optional)
TILE_EXCHANGE_PROGRAM = "tiles.exchange_program"  # int32 [TX] program index
TILE_EXCHANGE_BYTES = "tiles.exchange_bytes"  # int64 [TX] its exchange code bytes on the tile
VERTEX_TYPE_NAME = "vertex_types.name"  # str [VT]
VERTEX_TYPE_STATE_BYTES = "vertex_types.state_bytes"  # int64 [VT]

# part "liveness" (profile.pop); bytes per replica
LIVENESS_PROGRAM = "liveness.program"  # int32 [N]
LIVENESS_NOT_ALWAYS_LIVE = "liveness.not_always_live"  # int64 [N], enveloped
LIVENESS_BY_IPU = "liveness.by_ipu"  # int64 [N, I] (optional)
LIVENESS_BY_TILE = "liveness.by_tile"  # int32 [N, T] (optional, part "liveness_tiles")
ALWAYS_LIVE_NAME = "always_live.name"  # str [AV]
ALWAYS_LIVE_BYTES = "always_live.bytes"  # int64 [AV]
VARIABLE_NAME = "variables.name"  # str [NV] not-always-live variables
VARIABLE_BYTES = "variables.bytes"  # int64 [NV]
INTERVAL_VARIABLE = "intervals.variable"  # int32 [K], sorted by start
INTERVAL_START = "intervals.start"  # int32 [K] first live step
INTERVAL_END = "intervals.end"  # int32 [K] exclusive
INTERVAL_MAX_LENGTH = "intervals.max_length"  # int64 [1]: longest interval, bounds lookups

# part "lowered" (profile.pop written with autoReport.outputLoweredVars): pieces grouped by
# tile (through libpva, largest first within a tile); meta lowered{steps} = the liveness steps the
# intervals index; the class columns only where the reader gave liveness (libpva)
LOWERED_TILE_OFFSETS = "lowered.tile_offsets"  # int64 [T+1]: the pieces of each tile (CSR)
LOWERED_TILE = "lowered.tile"  # int32 [L]
LOWERED_NAME = "lowered.name"  # int32 [L] index into lowered.names
LOWERED_BYTES = "lowered.bytes"  # int64 [L] (int32 where the native reader finds them to fit)
LOWERED_CLASS = "lowered.class"  # int32 [L] equivalence class: the steps the piece is live (optional)
LOWERED_NAMES = "lowered.names"  # str [LN]: the (unlowered) variable's name
LOWERED_NAME_OFFSETS = "lowered.name_offsets"  # int64 [LN+1]: the pieces of each name (CSR over name_pieces)
LOWERED_NAME_PIECES = "lowered.name_pieces"  # int64 [L] piece indices grouped by name, in tile order (or int32)
LOWERED_NAME_CONTEXT = "lowered.name_context"  # int64 [LN] debug context id via an operation, -1 (optional)
LOWERED_CLASS_OFFSETS = "lowered.class_offsets"  # int64 [EC+1]: the intervals of each class (CSR)
LOWERED_CLASS_START = "lowered.class_start"  # int32 [EK] first live step
LOWERED_CLASS_END = "lowered.class_end"  # int32 [EK] exclusive
LOWERED_CLASS_STEPS = "lowered.class_steps"  # int32 [EC] steps live; all steps = always live

# part "execution" (profile.pop)
RUN_NAME = "runs.name"  # str [R]
RUN_STEP_OFFSETS = "runs.step_offsets"  # int64 [R+1]
RUN_START_US = "runs.start_us"  # int64 [R]
RUN_END_US = "runs.end_us"  # int64 [R]
STEP_PROGRAM = "steps.program"  # int32 [X]
STEP_FROM = "steps.from"  # int64 [X, I], -1 where the step did not run on the IPU
STEP_TO = "steps.to"  # int64 [X, I]
STEP_CYCLES = "steps.cycles"  # int64 [X, I]
STEP_TILE_BALANCE = "steps.tile_balance"  # float32 [X, I] (optional: libpva)
STEP_ACTIVE_TILE_BALANCE = "steps.active_tile_balance"  # float32 [X, I] (optional: libpva)
STEP_DATA_IN = "steps.data_in"  # int64 [X, I] (optional: libpva)
STEP_DATA_OUT = "steps.data_out"  # int64 [X, I] (optional: libpva)
STEP_ACTIVE_TILES = "steps.active_tiles"  # int32 [X, I] (optional: profile.pop's steps_by_ipu)
# the Hotspots' figures per program id over every step, as ingest keeps them (model/hotspots.py figures_by_id):
# row 0 for the ids of no program, row i + 1 for program i; optional (a bundle without them has them computed)
PROGRAM_FIGURES = "steps.by_program."
PROGRAM_FIGURE_KEYS = ("steps", "cycles_by_ipu", "count", "longest", "longest_step", "longest_ipu", "several_ipus")
BSP_STEP = "bsp.step"  # int64 [B] indices into steps (part "bsp")
BSP_CYCLES = "bsp.cycles"  # int32 [B, T]

# part "operations" (profile.pop with debug.cbor, from pva.OperationAnalysis)
OPERATION_NAME = "operations.name"  # str [O]
OPERATION_DEBUG_CONTEXT = "operations.debug_context"  # int64 [O], -1 when none
OPERATION_PROGRAM_OFFSETS = "operations.program_offsets"  # int64 [O+1]
OPERATION_PROGRAMS = "operations.programs"  # int32 [OP] program indices (CSR)
OPERATION_FIRST_STEP = "operations.first_step"  # int32 [O] liveness step, -1 when not given
OPERATION_LAST_STEP = "operations.last_step"  # int32 [O] inclusive, -1 when not given
OPERATION_VARIABLES = "operations.variables"  # int32 [O] variables the operation lists
OPERATION_VARIABLES_MATCHED = "operations.variables_matched"  # int32 [O] of them found by name in liveness
OPERATION_VARIABLE_BYTES = "operations.variable_bytes"  # int64 [O] their bytes; -1 when none was found

# part "debug" (debug.cbor)
DEBUG_ID = "debug.id"  # int64 [D]
DEBUG_PARENT = "debug.parent"  # int64 [D], -1 when none (a context id, not an index)
DEBUG_LAYER = "debug.layer"  # int16 [D], names in meta debug.layers
DEBUG_CATEGORY = "debug.category"  # int16 [D], names in meta debug.categories, -1 none
DEBUG_NAME = "debug.name"  # str [D]
DEBUG_FIELDS = "debug.fields"  # str [D]: JSON object text of all the context's fields

# parts "framework" and "app": the JSON documents, kept as files in the bundle
FRAMEWORK_JSON = "framework.json"
APP_JSON = "app.json"

# meta readers{part: reader}: who read each profile part: one of PROFILE_READERS from profile.pop itself,
# "stand-in" (the synthetic generator's libpva stand-in, through the libpva adapter) or "profile.pvtui"
PROFILE_READERS = ("libpva", "native")
PROFILE_PARTS = ("memory", "programs", "liveness", "liveness_tiles", "lowered", "execution", "bsp", "operations")
REPORT_FILES = ("profile.pop", "debug.cbor", "archive.a", "framework.json", "app.json")

# Each column's dimensions, by the letters of the comments above ("P+1": one more than P; a number: exactly
# that many; None: any), each letter one count for every column it names (T: the tiles, in every part that
# has a column of them). A string table's are those of its offsets. The first column named with a letter
# that a bundle has gives its count: model/references.py
SHAPES: dict[str, tuple[str | None, ...]] = {
    **dict.fromkeys([TILE_IPU, TILE_INCLUDING_GAPS, TILE_EXCLUDING_GAPS, TILE_ALWAYS_LIVE, TILE_NOT_ALWAYS_LIVE], ("T",)),
    TILE_CATEGORIES: ("T", None),
    **dict.fromkeys([TILE_VERTEX_OFFSETS, TILE_CS_OFFSETS, TILE_VT_OFFSETS, TILE_EXCHANGE_OFFSETS], ("T+1",)),
    **dict.fromkeys([TILE_VERTEX_TYPE, TILE_VERTEX_CODE], ("V",)),
    **dict.fromkeys([ARCHIVE_CODE, ARCHIVE_DATA, ARCHIVE_BSS], ("M",)), f"{ARCHIVE_MEMBER}.offsets": ("M+1",),
    **dict.fromkeys([PROGRAM_TYPE, PROGRAM_PARENT, PROGRAM_COMPUTE_SET, PROGRAM_CODE_BYTES, PROGRAM_DEBUG_CONTEXT,
                     PROGRAM_ESTIMATED_CYCLES], ("P",)),
    **dict.fromkeys([f"{PROGRAM_NAME}.offsets", PROGRAM_CHILD_OFFSETS], ("P+1",)),
    **dict.fromkeys([f"{COMPUTE_SET_NAME}.offsets", COMPUTE_SET_VERTEX_OFFSETS], ("S+1",)),
    **dict.fromkeys([COMPUTE_SET_VERTEX_TYPE, COMPUTE_SET_VERTEX_COUNT], ("CV",)),
    **dict.fromkeys([TILE_CS_SET, TILE_CS_INSTANCES, TILE_CS_VERTICES, TILE_CS_STATE_BYTES], ("TS",)),
    **dict.fromkeys([TILE_VT_TYPE, TILE_VT_INSTANCES, TILE_VT_STATE_BYTES], ("TT",)),
    **dict.fromkeys([TILE_EXCHANGE_PROGRAM, TILE_EXCHANGE_BYTES], ("TX",)),
    VERTEX_TYPE_STATE_BYTES: ("VT",), f"{VERTEX_TYPE_NAME}.offsets": ("VT+1",),
    **dict.fromkeys([LIVENESS_PROGRAM, LIVENESS_NOT_ALWAYS_LIVE], ("N",)),
    LIVENESS_BY_IPU: ("N", None), LIVENESS_BY_TILE: ("N", "T"),
    ALWAYS_LIVE_BYTES: ("AV",), f"{ALWAYS_LIVE_NAME}.offsets": ("AV+1",),
    VARIABLE_BYTES: ("NV",), f"{VARIABLE_NAME}.offsets": ("NV+1",),
    **dict.fromkeys([INTERVAL_VARIABLE, INTERVAL_START, INTERVAL_END], ("K",)), INTERVAL_MAX_LENGTH: ("1",),
    LOWERED_TILE_OFFSETS: ("T+1",),
    **dict.fromkeys([LOWERED_TILE, LOWERED_NAME, LOWERED_BYTES, LOWERED_CLASS, LOWERED_NAME_PIECES], ("L",)),
    **dict.fromkeys([f"{LOWERED_NAMES}.offsets", LOWERED_NAME_OFFSETS], ("LN+1",)), LOWERED_NAME_CONTEXT: ("LN",),
    LOWERED_CLASS_OFFSETS: ("EC+1",), LOWERED_CLASS_STEPS: ("EC",),
    **dict.fromkeys([LOWERED_CLASS_START, LOWERED_CLASS_END], ("EK",)),
    **dict.fromkeys([f"{RUN_NAME}.offsets", RUN_STEP_OFFSETS], ("RN+1",)),
    **dict.fromkeys([RUN_START_US, RUN_END_US], ("RN",)),
    STEP_PROGRAM: ("X",),
    **dict.fromkeys([STEP_FROM, STEP_TO, STEP_CYCLES, STEP_TILE_BALANCE, STEP_ACTIVE_TILE_BALANCE, STEP_DATA_IN,
                     STEP_DATA_OUT, STEP_ACTIVE_TILES], ("X", "I")),
    **{PROGRAM_FIGURES + key: ("P+1",) for key in PROGRAM_FIGURE_KEYS}, PROGRAM_FIGURES + "cycles_by_ipu": ("P+1", "I"),
    BSP_STEP: ("B",), BSP_CYCLES: ("B", "T"),
    **dict.fromkeys([OPERATION_DEBUG_CONTEXT, OPERATION_FIRST_STEP, OPERATION_LAST_STEP, OPERATION_VARIABLES,
                     OPERATION_VARIABLES_MATCHED, OPERATION_VARIABLE_BYTES], ("O",)),
    **dict.fromkeys([f"{OPERATION_NAME}.offsets", OPERATION_PROGRAM_OFFSETS], ("O+1",)),
    OPERATION_PROGRAMS: ("OP",),
    **dict.fromkeys([DEBUG_ID, DEBUG_PARENT, DEBUG_LAYER, DEBUG_CATEGORY], ("D",)),
    **dict.fromkeys([f"{DEBUG_NAME}.offsets", f"{DEBUG_FIELDS}.offsets"], ("D+1",)),
}

# The part each column belongs to, by name prefix (the longest that matches): a damaged column
# takes out its part, and only that.
COLUMN_PARTS = {
    "tiles.": "memory", "archive.": "archive", "programs.": "programs", "compute_sets.": "programs",
    "vertex_types.": "programs", "liveness.by_tile": "liveness_tiles", "liveness.": "liveness",
    "always_live.": "liveness", "variables.": "liveness", "intervals.": "liveness", "env.": "liveness",
    "lowered.": "lowered", "runs.": "execution", "steps.": "execution", "bsp.": "bsp",
    "operations.": "operations", "debug.": "debug",
}


def part_of_column(name: str) -> str:
    """The part column NAME belongs to ("bundle" for a column of no known part)."""
    prefixes = [prefix for prefix in COLUMN_PARTS if name.startswith(prefix)]
    return COLUMN_PARTS[max(prefixes, key=len)] if prefixes else "bundle"


# meta.json's stamp of the columns the figures kept at ingest were computed from (Bundle.columns_stamp): they
# hold while it is the bundle's own (sources/ingest.py keep_summary_figures)
KEPT_OVER = "kept_over"
