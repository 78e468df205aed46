"""Pipeline splits: a single-IPU report's memory per model layer, and split points
that balance it across N IPUs.

Layers: an operation's layer is the first match of the pattern in the framework names
of its debug context and that context's parents (PopTorch op_name, ONNX opName, XLA
op_name), else in the operation's own name. Operations that match nothing are grouped
by the first component of that name (`embeddings/word/Gather` -> `embeddings`).
Layers keep the order in which their first operation runs (liveness steps).

A variable belongs to the layer its name gives by the same rule (the bundle keeps how
many bytes of variables an operation lists, not which ones, and operations find their
variables by name). Memory of a layer = the code of its operations' leaf programs +
its always-live variables (weights and their optimizer state) + the peak over the
liveness steps of its own live not-always-live variables. A stage holds its layers'
code and always-live bytes, the peak of the sum of their live variables, and an even
share of the rest: the report's memory that no layer owns (vertex code and state,
exchange code, stacks, buffers, gaps, variables of no layer).

Fit is per tile: a stage's worst tile is estimated as its mean bytes per tile times the
report's own imbalance (fullest tile / mean tile), as if each stage were spread as
unevenly as the whole report.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from pvtui.model import schema as s
from pvtui.model.arrays import distinct
from pvtui.model.operations import OperationIndex
from pvtui.model.report import Report
from pvtui.model.unavailable import Unavailable

DEFAULT_LAYER_PATTERN = r"\blayers?[._/]?\d+"
NAME_FIELDS = {"poptorch": "op_name", "onnx": "opName", "xla_op": "op_name"}
COUNTED = (
    "A layer's memory: the code of its operations' leaf programs, its always-live variables and the peak of its"
    " own live not-always-live variables (variables belong to the layer their names give). A stage: its layers'"
    " code and always-live bytes, the peak of their live variables together, and an even share of the memory"
    " no layer owns."
)


def compile_pattern(text: str) -> re.Pattern:
    """The user's layer pattern; ValueError with a one-line reason when it is not a regular expression."""
    try:
        return re.compile(text)
    except re.error as exc:
        raise ValueError(f"--layer-pattern {text!r} is not a regular expression ({exc})") from None


@dataclass
class LayerMemory:
    name: str
    matched: bool  # named by the pattern; False for a group of unmatched operations
    operations: int
    code_bytes: int
    always_live_bytes: int
    peak_not_always_live: int  # peak of its own live variables; 0 without liveness data
    first_step: int  # liveness step of its first operation, -1 when unknown

    @property
    def memory(self) -> int:
        return self.code_bytes + self.always_live_bytes + self.peak_not_always_live

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "matched": self.matched, "operations": self.operations,
            "code_bytes": self.code_bytes, "always_live_bytes": self.always_live_bytes,
            "peak_not_always_live_bytes": self.peak_not_always_live, "memory": self.memory,
        }


@dataclass(frozen=True)
class TileFit:
    """Judges a stage against one tile's memory, assuming the report's own tile imbalance."""

    tiles_per_ipu: int | None
    bytes_per_tile: int | None
    imbalance: Fraction | None  # fullest tile / mean tile of the report; None without per-tile memory

    @classmethod
    def of(cls, report: Report) -> "TileFit":
        imbalance = None
        if report.memory is not None and report.memory.num_tiles:
            tiles = np.asarray(report.memory.including_gaps, dtype=np.int64)
            total = int(tiles.sum())
            if total > 0:
                imbalance = Fraction(int(tiles.max()) * len(tiles), total)
        return cls(report.target.tiles_per_ipu, report.target.bytes_per_tile, imbalance)

    def worst_tile(self, stage_bytes: int) -> int | None:
        if not self.tiles_per_ipu or self.imbalance is None:
            return None
        return math.ceil(Fraction(stage_bytes, self.tiles_per_ipu) * self.imbalance)

    def fits(self, stage_bytes: int) -> bool | None:
        if self.bytes_per_tile is None or not self.tiles_per_ipu:
            return None
        if stage_bytes > self.bytes_per_tile * self.tiles_per_ipu:
            return False  # more than the IPU holds, however evenly spread
        worst = self.worst_tile(stage_bytes)
        return None if worst is None else worst <= self.bytes_per_tile

    def rule(self) -> str:
        """The assumption behind `fits`, in one sentence."""
        if self.bytes_per_tile is None or not self.tiles_per_ipu:
            return "The report does not give the memory per tile, so whether a stage fits is unknown."
        if self.imbalance is None:
            return ("The report has no per-tile memory, so a stage's worst tile is unknown: a stage is said not to"
                    " fit only when it exceeds the whole IPU.")
        return (f"Fit is judged per tile: a stage's worst tile is estimated as its mean bytes per tile"
                f" ({self.tiles_per_ipu:,} tiles) times this report's imbalance (fullest tile / mean tile ="
                f" {float(self.imbalance):.2f}), assuming each stage is spread as unevenly as the whole report.")


@dataclass
class Stage:
    ipu: int
    layers: list[LayerMemory]
    temporaries: int  # peak of its layers' live not-always-live variables together
    shared_bytes: int  # its share of the memory no layer owns
    fit: TileFit

    @property
    def memory(self) -> int:
        fixed = sum(layer.code_bytes + layer.always_live_bytes for layer in self.layers)
        return fixed + self.temporaries + self.shared_bytes

    def as_dict(self) -> dict[str, Any]:
        return {
            "ipu": self.ipu, "layers": [layer.name for layer in self.layers], "memory": self.memory,
            "temporaries_bytes": self.temporaries, "shared_bytes": self.shared_bytes,
            "estimated_worst_tile_bytes": self.fit.worst_tile(self.memory), "fits": self.fit.fits(self.memory),
        }


@dataclass
class LayerSplit:
    """The layers of a report, with what stages need: the layers' live bytes over the liveness steps."""

    layers: list[LayerMemory]
    cumulative: np.ndarray  # [layers + 1, steps]: live bytes of the first i layers at each step
    total_bytes: int | None  # the report's memory, None without per-tile memory

    def temporaries(self, lo: int, hi: int) -> int:
        """Peak over the steps of the live bytes of layers LO..HI-1 together."""
        if self.cumulative.shape[1] == 0:
            return 0
        return int((self.cumulative[hi] - self.cumulative[lo]).max())

    @property
    def unowned(self) -> int:
        """The report's memory minus what the layers own: their code, always-live and peak live bytes."""
        if self.total_bytes is None:
            return 0
        owned = sum(layer.code_bytes + layer.always_live_bytes for layer in self.layers)
        return max(self.total_bytes - owned - self.temporaries(0, len(self.layers)), 0)


def _framework_names(index: OperationIndex, op: int) -> list[str]:
    debug = index.debug
    names = []
    for row in index.ancestries[op]:
        field = NAME_FIELDS.get(debug.layer_names[int(debug.layer[row])])
        if field is None:
            continue
        try:
            value = json.loads(debug.fields[row]).get(field)
        except (ValueError, AttributeError):
            continue
        if isinstance(value, str) and value:
            names.append(value)
    return names


def layer_name(pattern: re.Pattern, names: list[str]) -> tuple[str, bool]:
    """(layer, matched): the first match of PATTERN in NAMES, else the first name's first component."""
    for name in names:
        found = pattern.search(name)
        if found:
            return found.group(found.lastindex or 0), True
    first = next((n for n in names if n), "")
    return (first.split("/", 1)[0] or "(unnamed)"), False


def layer_memory(report: Report, pattern: re.Pattern) -> LayerSplit:
    """The layers in running order, with their live bytes over the steps."""
    index = OperationIndex(report)
    ops, programs = index.ops, report.programs
    groups: dict[str, dict[str, Any]] = {}
    for op in range(len(ops)):
        name, matched = layer_name(pattern, _framework_names(index, op) + [ops.names[op]])
        group = groups.setdefault(name, {"matched": matched, "ops": [], "steps": []})
        group["ops"].append(op)
        first, last = int(ops.first_step[op]), int(ops.last_step[op])
        if first >= 0 and last >= first:
            group["steps"].append(first)
    owner = np.full(len(programs), -1, np.int64)  # each program counts once, in the first layer listing it
    order = sorted(groups, key=lambda g: min(groups[g]["steps"], default=np.iinfo(np.int64).max))
    always_live = _always_live_by_layer(report, pattern)
    live = _live_bytes_by_layer(report, pattern, order)
    layers = []
    for i, name in enumerate(order):
        group = groups[name]
        members = distinct(np.concatenate([ops.programs(op) for op in group["ops"]])).astype(np.int64)
        members = members[owner[members] < 0]
        owner[members] = i
        code = programs.leaf_code_bytes(members)
        peak = int(live[i].max()) if live.shape[1] else 0
        first = min(group["steps"], default=-1)
        layers.append(LayerMemory(name, group["matched"], len(group["ops"]), code, always_live.get(name, 0), peak,
                                  first))
    cumulative = np.concatenate([np.zeros((1, live.shape[1]), np.int64), np.cumsum(live, axis=0)])
    total = int(np.asarray(report.memory.including_gaps).sum()) if report.memory is not None else None
    return LayerSplit(layers, cumulative, total)


def _always_live_by_layer(report: Report, pattern: re.Pattern) -> dict[str, int]:
    liveness = report.liveness
    if liveness is None:
        return {}
    out: dict[str, int] = {}
    for name, size in zip(liveness.always_live_names, np.asarray(liveness.always_live_sizes).tolist()):
        layer, _ = layer_name(pattern, [name])
        out[layer] = out.get(layer, 0) + int(size)
    return out


def _live_bytes_by_layer(report: Report, pattern: re.Pattern, order: list[str]) -> np.ndarray:
    """[layers, steps]: bytes of each layer's not-always-live variables live at each liveness step."""
    liveness = report.liveness
    steps = len(liveness) if liveness is not None else 0
    if steps == 0:
        return np.zeros((len(order), 0), np.int64)
    position = {name: i for i, name in enumerate(order)}
    var_layer = np.array([position.get(layer_name(pattern, [n])[0], -1) for n in liveness.variable_names], np.int64)
    variable = np.asarray(liveness.col(s.INTERVAL_VARIABLE), dtype=np.int64)
    layer = var_layer[variable]
    kept = layer >= 0
    layer, size = layer[kept], np.asarray(liveness.variable_bytes, dtype=np.int64)[variable[kept]]
    starts = np.asarray(liveness.col(s.INTERVAL_START), dtype=np.int64)[kept]
    ends = np.asarray(liveness.col(s.INTERVAL_END), dtype=np.int64)[kept]
    width = steps + 1
    change = np.bincount(layer * width + starts, weights=size, minlength=len(order) * width)
    change -= np.bincount(layer * width + ends, weights=size, minlength=len(order) * width)
    return np.rint(np.cumsum(change.reshape(len(order), width), axis=1)[:, :steps]).astype(np.int64)


def split_layers(split: LayerSplit, ipus: int, fit: TileFit) -> list[Stage]:
    """Contiguous stages on at most IPUS IPUs that make the largest stage as small as can be.

    With one imbalance for every stage, the smallest largest stage also gives the smallest worst tile.
    """
    layers = split.layers
    count = min(ipus, len(layers))
    if count == 0:
        return []
    share = split.unowned // count
    memo: dict[tuple[int, int], Stage] = {}

    def stage(lo: int, hi: int) -> Stage:
        if (lo, hi) not in memo:
            memo[lo, hi] = Stage(0, layers[lo:hi], split.temporaries(lo, hi), share, fit)
        return memo[lo, hi]

    def cuts_within(limit: int) -> list[int] | None:
        """Greedy: each stage takes layers while it stays within LIMIT (optimal, as a stage only grows)."""
        cuts, lo = [], 0
        for hi in range(1, len(layers) + 1):
            if stage(lo, hi).memory > limit:
                cuts.append(hi - 1)
                lo = hi - 1
        return cuts if len(cuts) < count else None

    low = max(stage(i, i + 1).memory for i in range(len(layers)))
    high = stage(0, len(layers)).memory
    while low < high:
        middle = (low + high) // 2
        if cuts_within(middle) is None:
            low = middle + 1
        else:
            high = middle
    cuts = cuts_within(low) or []
    bounds = [0, *cuts, len(layers)]
    while len(bounds) - 1 < count:  # fewer stages than IPUs: split the largest where it helps most
        spans = [(stage(a, b).memory, a, b) for a, b in zip(bounds, bounds[1:]) if b - a > 1]
        _, a, b = max(spans)
        best = min(range(a + 1, b), key=lambda c: max(stage(a, c).memory, stage(c, b).memory))
        bounds = sorted([*bounds, best])
    return [Stage(ipu, layers[a:b], split.temporaries(a, b), share, fit)
            for ipu, (a, b) in enumerate(zip(bounds, bounds[1:]))]


def split_data(report: Report, ipus: int, pattern_text: str = DEFAULT_LAYER_PATTERN) -> dict[str, Any] | Unavailable:
    """The `pvtui split` answer. Raises ValueError for a bad pattern or IPU count."""
    pattern = compile_pattern(pattern_text)
    if ipus < 1:
        raise ValueError(f"--ipus must be at least 1, not {ipus}")
    reason = OperationIndex(report).unavailable()
    if reason is not None:
        return reason
    split = layer_memory(report, pattern)
    layers, fit = split.layers, TileFit.of(report)
    stages = split_layers(split, ipus, fit)
    notes = []
    num_ipus = report.target.num_ipus
    if num_ipus and num_ipus > 1:
        notes.append(f"This report already spans {num_ipus} IPUs: splits are meant for single-IPU reports;"
                     " this answer sums its memory over all of them.")
    if len(stages) < ipus:
        notes.append(f"Only {len(layers)} layer(s) were found, so at most {len(stages)} stage(s).")
    if not any(layer.matched for layer in layers):
        notes.append(f"No operation name matches {pattern_text!r}: layers are the first components of the names.")
    if report.liveness is None:
        notes.append(report.missing("liveness") + " Weights and temporaries are not counted.")
    if report.memory is None:
        notes.append(report.missing("memory") + " Memory that no layer owns is not counted.")
    fits = [stage.fit.fits(stage.memory) for stage in stages]
    return {
        "available": True,
        "ipus": ipus,
        "pattern": pattern_text,
        "counted": COUNTED,
        "bytes_per_ipu": report.target.bytes_per_ipu,
        "bytes_per_tile": fit.bytes_per_tile,
        "tile_imbalance": None if fit.imbalance is None else round(float(fit.imbalance), 4),
        "fit_rule": fit.rule(),
        "unowned_bytes": split.unowned,
        "layers": [layer.as_dict() for layer in layers],
        "stages": [stage.as_dict() for stage in stages],
        "split_after": [stage.layers[-1].name for stage in stages[:-1]],
        "all_fit": False if False in fits else (None if None in fits else True),
        "notes": notes,
    }
