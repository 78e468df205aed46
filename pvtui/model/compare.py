"""Two reports side by side: summary deltas, per-tile memory, liveness curves, what grew or shrank.

Every difference is B - A. Figures only: what each section compares, in words (plainly where the reports
differ in shape: tiles, IPUs, steps), is pvtui.render.compare, and the JSON pvtui.render.compare_json.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable

import numpy as np

from pvtui.model.layer_compare import LayerChange, layer_changes
from pvtui.model.navigators.liveness import StepSeries
from pvtui.model.operations import OperationIndex, layer_label
from pvtui.model.queries import summary, tile_totals
from pvtui.model.report import Report
from pvtui.model.tables import Table
from pvtui.model.navigators.memory import TileMemory, tile_memory
from pvtui.model.unavailable import Unavailable

LIVENESS_POINTS = 100  # samples of each liveness curve in its table and the JSON

# (section, label, unit, how to read it from queries.summary()); unit is bytes, count, cycles or text.
SUMMARY_ROWS: list[tuple[str, str, str, Callable[[dict], Any]]] = [
    ("Target", "Architecture", "text", lambda s: s["target"]["architecture"]),
    ("Target", "Poplar", "text", lambda s: s["poplar_version"]),
    ("Target", "IPUs", "count", lambda s: s["target"]["num_ipus"]),
    ("Target", "Tiles per IPU", "count", lambda s: s["target"]["tiles_per_ipu"]),
    ("Target", "Total tiles", "count", lambda s: s["target"]["num_tiles"]),
    ("Target", "Replicas", "count", lambda s: s["target"]["num_replicas"]),
    ("Target", "Memory per tile", "bytes", lambda s: s["target"]["bytes_per_tile"]),
    ("Target", "Total memory", "bytes", lambda s: s["target"]["total_memory"]),
    ("Memory", "Memory including gaps", "bytes", lambda s: s["memory"]["total_including_gaps"]),
    ("Memory", "Memory excluding gaps", "bytes", lambda s: s["memory"]["total_excluding_gaps"]),
    ("Memory", "Largest tile", "bytes", lambda s: s["memory"]["max_tile_bytes"]),
    ("Memory", "Tiles over limit", "count", lambda s: s["memory"]["tiles_over_limit"]),
    ("Memory", "Always-live", "bytes", lambda s: s["memory"]["always_live_bytes"]),
    ("Memory", "Peak not-always-live", "bytes", lambda s: s["memory"]["peak_not_always_live_bytes"]),
    ("Graph", "Programs", "count", lambda s: s["programs"]["count"]),
    ("Graph", "Compute sets", "count", lambda s: s["programs"]["compute_sets"]),
    ("Graph", "Debug contexts", "count", lambda s: s["debug_contexts"]),
    ("Execution", "Runs", "count", lambda s: (s["execution"] or {}).get("runs")),
    ("Execution", "Steps", "count", lambda s: (s["execution"] or {}).get("steps")),
    ("Execution", "Report total", "cycles", lambda s: (s["execution"] or {}).get("report_total_cycles")),
    ("Execution", "Device time", "cycles", lambda s: (s["execution"] or {}).get("device_cycles")),
]


# Summary -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SummaryDelta:
    section: str
    label: str
    unit: str  # bytes, count, cycles or text
    a: Any
    b: Any

    @property
    def delta(self) -> int | None:
        """B - A, where both are numbers."""
        if self.unit == "text" or self.a is None or self.b is None:
            return None
        return int(self.b) - int(self.a)

    @property
    def change(self) -> float | None:
        """The delta as a fraction of A (0.25 is 25% more), where A is not zero."""
        delta = self.delta
        return None if delta is None or not self.a else delta / int(self.a)

    def as_dict(self) -> dict[str, Any]:
        return {"section": self.section, "label": self.label, "unit": self.unit, "a": self.a, "b": self.b,
                "delta": self.delta, "change": self.change}


def summary_deltas(a: Report, b: Report) -> list[SummaryDelta]:
    """The summary's figures of A and B, each with B - A; a figure a report lacks is None."""
    sa, sb = summary(a), summary(b)
    rows = [SummaryDelta(section, label, unit, read(sa), read(sb)) for section, label, unit, read in SUMMARY_ROWS]
    steps = [None if r.liveness is None else len(r.liveness) for r in (a, b)]
    execution = next(i for i, row in enumerate(rows) if row.section == "Execution")
    rows.insert(execution, SummaryDelta("Graph", "Liveness steps", "count", *steps))
    largest = next(i for i, row in enumerate(rows) if row.label == "Largest tile")
    rows[largest:largest + 1] = largest_tile_rows(rows[largest], b, sa["memory"]["max_tile"], sb["memory"]["max_tile"])
    return rows


def largest_tile_rows(row: SummaryDelta, b: Report, tile_a: int | None, tile_b: int | None) -> list[SummaryDelta]:
    """The largest tile's row naming its tile (TILE_A in A, TILE_B in B); where it moved, a second row with
    A's largest tile in B: the two largest are different tiles, and their difference is no tile's."""
    if tile_a is None or tile_b is None:
        return [row]
    if tile_a == tile_b:
        return [dataclasses.replace(row, label=f"Largest tile ({tile_a})")]
    totals = tile_totals(b)
    in_b = int(totals[0][tile_a]) if totals is not None and tile_a < len(totals[0]) else None
    return [dataclasses.replace(row, label=f"Largest tile (A {tile_a}, B {tile_b})"),
            SummaryDelta(row.section, f"Tile {tile_a}, A's largest", "bytes", row.a, in_b)]


def summary_table(rows: list[SummaryDelta]) -> Table:
    return Table("compare-summary", ["section", "quantity", "A", "B", "B - A", "change"],
                 [[r.section, r.label, r.a, r.b, r.delta, r.change] for r in rows])


# Tiles ---------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TileDiff:
    """Each tile's bytes in A and B, matched by tile index."""

    a: TileMemory
    b: TileMemory
    gaps: bool  # both from profile.pop: including gaps; else each side's own (archive.a has no gaps)

    @property
    def compared(self) -> int:
        """Tiles 0 .. compared - 1 are in both reports."""
        return min(self.a.num_tiles, self.b.num_tiles)

    @property
    def num_tiles(self) -> int:
        """Tiles in either report: those beyond `compared` are in one only."""
        return max(self.a.num_tiles, self.b.num_tiles)

    @cached_property
    def a_bytes(self) -> np.ndarray:
        return self.a.totals(self.gaps)

    @cached_property
    def b_bytes(self) -> np.ndarray:
        return self.b.totals(self.gaps)

    @cached_property
    def delta(self) -> np.ndarray:
        """B - A of the compared tiles."""
        n = self.compared
        return self.b_bytes[:n] - self.a_bytes[:n]

    def ipus_of(self, tile: int) -> tuple[int | None, int | None]:
        """TILE's IPU in A and in B (None where that report has no such tile or does not say its IPU)."""
        a = self.a.ipu_of(tile) if tile < self.a.num_tiles else None
        b = self.b.ipu_of(tile) if tile < self.b.num_tiles else None
        return a, b

    @cached_property
    def largest_change(self) -> int:
        return int(np.abs(self.delta).max()) if self.compared else 0

    def bytes_of(self, tile: int) -> tuple[int | None, int | None]:
        """TILE's bytes in A and in B (None where that report has no such tile)."""
        a = int(self.a_bytes[tile]) if tile < self.a.num_tiles else None
        b = int(self.b_bytes[tile]) if tile < self.b.num_tiles else None
        return a, b

    def ranked(self, grown: bool, top: int) -> list[int]:
        """The compared tiles that grew (or shrank) the most, most first."""
        order = np.argsort(-self.delta if grown else self.delta, kind="stable")[:top]
        return [int(t) for t in order if (self.delta[t] > 0 if grown else self.delta[t] < 0)]

    def tile_dict(self, tile: int) -> dict[str, Any]:
        a, b = self.bytes_of(tile)
        ipu_a, ipu_b = self.ipus_of(tile)
        return {"tile": tile, "ipu_a": ipu_a, "ipu_b": ipu_b, "a": a, "b": b,
                "delta": None if a is None or b is None else b - a}


def tiles_table(diff: TileDiff) -> Table:
    """Every tile of either report: IPU and bytes in A and B, and B - A where both have it."""

    def rows():
        for tile in range(diff.num_tiles):
            row = diff.tile_dict(tile)
            yield [tile, row["ipu_a"], row["ipu_b"], row["a"], row["b"], row["delta"]]

    return Table("compare-tiles", ["tile", "IPU in A", "IPU in B", "A", "B", "B - A"], rows())


def tile_diff(a: Report, b: Report) -> TileDiff | Unavailable:
    """The per-tile difference, or why there is none."""
    ma, mb = tile_memory(a), tile_memory(b)
    for name, memory, report in (("A", ma, a), ("B", mb, b)):
        if memory is None or memory.num_tiles == 0:
            return Unavailable(f"Report {name} has no per-tile memory: {report.missing('memory')}")
    assert ma is not None and mb is not None
    return TileDiff(ma, mb, gaps=ma.source == mb.source == "profile")  # either reader gives the total with gaps


# Liveness ------------------------------------------------------------------------------

LIVENESS_X = "fraction of each report's program steps"


def liveness_series(report: Report) -> StepSeries | Unavailable:
    """The report's liveness over all IPUs, or why there is none."""
    live = report.liveness
    if live is None:
        return Unavailable(report.missing("liveness"))
    if not len(live):
        return Unavailable("The liveness profile has no steps.")
    return StepSeries(report.name, live.not_always_live, live.always_live_bytes, report.target.total_memory,
                      live.envelope)


@dataclass(frozen=True, eq=False)
class LivenessPair:
    """Both reports' liveness on a common x: the fraction of each one's program steps.

    Each report's steps are resampled to the same number of points, each point the
    most live over its share of the steps, so both peaks survive.
    """

    a: StepSeries
    b: StepSeries

    @property
    def with_always_live(self) -> bool:
        """Curves are always-live + not-always-live where both reports give always-live."""
        return self.a.always_live is not None and self.b.always_live is not None

    def points(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        """A's and B's curves at COUNT points, each the most live over its steps."""
        return self._points(self.a, count), self._points(self.b, count)

    def _points(self, series: StepSeries, count: int) -> np.ndarray:
        _, highest = series.columns(0, len(series), count)
        base = series.always_live if self.with_always_live else 0
        return np.asarray(highest, dtype=np.int64) + (base or 0)

    def peak(self, series: StepSeries) -> dict[str, Any]:
        step = series.peak_step
        base = series.always_live if self.with_always_live else 0
        return {"step": step, "fraction": step / len(series), "bytes": series.at(step) + (base or 0)}

    @staticmethod
    def point_steps(series: StepSeries, point: int, count: int) -> tuple[int, int]:
        """The first and last step of SERIES that point POINT of COUNT stands for."""
        n = len(series)
        first = point * n // count
        return first, max(first, (point + 1) * n // count - 1)


def liveness_pair(a: Report, b: Report) -> LivenessPair | Unavailable:
    sa, sb = liveness_series(a), liveness_series(b)
    if isinstance(sa, Unavailable):
        return Unavailable(f"Report A: {sa.reason}")
    if isinstance(sb, Unavailable):
        return Unavailable(f"Report B: {sb.reason}")
    return LivenessPair(sa, sb)


def liveness_table(pair: LivenessPair, count: int = LIVENESS_POINTS) -> Table:
    a, b = pair.points(count)
    return Table("compare-liveness", [LIVENESS_X, "A", "B", "B - A"],
                 [[i / count, int(x), int(y), int(y - x)] for i, (x, y) in enumerate(zip(a, b))])


# What grew or shrank -----------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    name: str
    a: int | None  # None: not in A
    b: int | None  # None: not in B

    @property
    def delta(self) -> int:
        return (self.b or 0) - (self.a or 0)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "a": self.a, "b": self.b, "delta": self.delta}


@dataclass(frozen=True, eq=False)
class Changes:
    """Named things of A and B matched by name, with what changed, largest change first."""

    what: str  # "programs", "operations"
    rows: list[Change]  # only those that differ
    matched: int
    only_a: int
    only_b: int
    layer: str | None = None  # the debug layer of operations

    def grown(self, top: int) -> list[Change]:
        return sorted((c for c in self.rows if c.delta > 0), key=lambda c: -c.delta)[:top]

    def shrunk(self, top: int) -> list[Change]:
        return sorted((c for c in self.rows if c.delta < 0), key=lambda c: c.delta)[:top]

    def table(self) -> Table:
        return Table(f"compare-{self.what}", ["name", "A", "B", "B - A"],
                     [[c.name, c.a, c.b, c.delta] for c in self.rows])


def match_by_name(what: str, a: dict[str, int], b: dict[str, int], layer: str | None = None) -> Changes:
    """A and B's NAME -> value, matched by name; a name in one only counts from or to nothing."""
    rows = [Change(name, a.get(name), b.get(name)) for name in a.keys() | b.keys()]
    rows = [c for c in rows if c.a != c.b]
    rows.sort(key=lambda c: (-abs(c.delta), c.name))
    return Changes(what, rows, matched=len(a.keys() & b.keys()), only_a=len(a.keys() - b.keys()),
                   only_b=len(b.keys() - a.keys()), layer=layer)


def _sum_by_name(names, values) -> dict[str, int]:
    sums: dict[str, int] = defaultdict(int)
    for name, value in zip(names, np.asarray(values).tolist()):
        sums[name] += int(value)
    return dict(sums)


def program_code(report: Report) -> dict[str, int]:
    """Code bytes per leaf program name (leaves of the same name summed).

    A program's code bytes include its children's, so a parent would only repeat its
    leaves' changes: the roots (top, main) would always change the most.
    """
    programs = report.programs
    assert programs is not None
    leaf = np.flatnonzero(programs.is_leaf)
    return _sum_by_name([programs.names[p] for p in leaf.tolist()], np.asarray(programs.code_bytes)[leaf])


def program_changes(a: Report, b: Report) -> Changes | Unavailable:
    for name, report in (("A", a), ("B", b)):
        if report.programs is None:
            return Unavailable(f"Report {name} has no programs: {report.missing('programs')}")
        if report.programs.code_bytes is None:
            return Unavailable(f"Report {name} has no code bytes of its programs: {report.missing('program_tree')}")
    return match_by_name("programs", program_code(a), program_code(b))


def operation_memory(report: Report, layer: str) -> dict[str, int]:
    """Memory (code + variable bytes) per operation name of LAYER, operations of the same name summed."""
    rows = OperationIndex(report).layer(layer).rows
    return _sum_by_name([row.name for row in rows], [row.memory for row in rows])


def operation_changes(a: Report, b: Report) -> Changes | Unavailable:
    """Operations of A's default debug layer, matched by name with B's of the same layer."""
    index_a, index_b = OperationIndex(a), OperationIndex(b)
    for name, index in (("A", index_a), ("B", index_b)):
        reason = index.unavailable()
        if reason is not None:
            return Unavailable(f"Report {name} has no operations: {reason.reason}")
    layer = index_a.default_layer
    if layer is None:
        return Unavailable("No debug context of report A belongs to an operation.")
    if layer not in index_b.layers:
        return Unavailable(f"Report B has no operations of {layer_label(layer)}, the layer of most of A's operations.")
    for name, index in (("A", index_a), ("B", index_b)):
        reason = index.layer(layer).reason
        if reason is not None:
            return Unavailable(f"Report {name}: {reason.reason}")
    return match_by_name("operations", operation_memory(a, layer), operation_memory(b, layer), layer)


# Everything ------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Comparison:
    a: Report
    b: Report
    summary: list[SummaryDelta]
    tiles: TileDiff | Unavailable
    liveness: LivenessPair | Unavailable
    programs: Changes | Unavailable
    operations: Changes | Unavailable
    layers: list[LayerChange] | Unavailable

    @cached_property
    def identical(self) -> bool:
        """Whether no figure compared differs: the same report twice, or two of the same content."""
        if any(row.a != row.b for row in self.summary):
            return False
        tiles, live = self.tiles, self.liveness
        if isinstance(tiles, TileDiff) and (tiles.a.num_tiles != tiles.b.num_tiles or tiles.delta.any()):
            return False
        if isinstance(live, LivenessPair) and (live.a.always_live != live.b.always_live
                                               or not np.array_equal(live.a.not_always_live, live.b.not_always_live)):
            return False
        if not isinstance(self.layers, Unavailable) and any(c.a != c.b for c in self.layers):
            return False
        return all(isinstance(changes, Unavailable) or not changes.rows
                   for changes in (self.programs, self.operations))


def compare(a: Report, b: Report) -> Comparison:
    return Comparison(a, b, summary_deltas(a, b), tile_diff(a, b), liveness_pair(a, b),
                      program_changes(a, b), operation_changes(a, b), layer_changes(a, b))


