"""Hotspots: which compute sets, exchanges, programs and single steps take the IPU-cycles.

Every figure counts the execution steps of every profiled run on every IPU that ran them, as
step statistics and the model layers do (layers.program_cycles; tests hold them equal to the cycle):
- cycles: IPU-cycles; share: of the IPU-cycles of every step of the runs counted, host waits
  included (the model layers' total); count: IPU-steps (step-IPU pairs); mean: cycles / count;
  longest: the longest single step on one IPU; cycles by IPU;
- a compute set's steps are those of the programs that run it (programs.compute_set: the
  OnTileExecute's through libpva, `steps.compute_set` through the native reader);
- an exchange is an exchange program: an internal exchange (DoExchange), a global exchange
  (GlobalExchange), an inter-IPU copy (a global exchange with a step that ran on more than one
  IPU) or a remote-buffer copy (a stream copy to or from a remote buffer, not the host);
- a program's model layer is the top of its path among the model layers (layers.program_layers); a
  row's is its program's: the one that ran its longest step.
Host waits (host_waits.py) are never a row: their IPU-cycles and IPU-steps are said apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable

import numpy as np

from pvtui.model.host_waits import host_wait_programs, remote_buffer_programs
from pvtui.model.layers import program_layers
from pvtui.model.report import Report
from pvtui.model.step_types import phase_of
from pvtui.model.unavailable import Unavailable

BY = ("compute-set", "exchange", "program", "step")
LABELS = {"compute-set": "compute sets", "exchange": "exchanges", "program": "programs", "step": "steps"}
INTERNAL, GLOBAL, INTER_IPU, REMOTE = "internal exchange", "global exchange", "inter-IPU copy", "remote-buffer copy"
NO_PROGRAM = "(steps of no known program)"
STEP_ROWS = 1_000  # single steps shown: the longest of those kept
SORTS = ("cycles", "longest", "count", "mean", "name")  # what a table sorts by (share orders as cycles do)


@dataclass(frozen=True, eq=False)
class ProgramFigures:
    """Per program, and a last row for the steps of no known program, over the steps counted."""

    cycles_by_ipu: np.ndarray  # int64 [P+1, I]: IPU-cycles
    count: np.ndarray  # int64 [P+1]: IPU-steps
    longest: np.ndarray  # int64 [P+1]: its longest step on one IPU, -1 where none ran
    longest_step: np.ndarray  # int64 [P+1]: that step (absolute index), -1
    longest_ipu: np.ndarray  # int64 [P+1]: the IPU it ran that long on
    several_ipus: np.ndarray  # bool [P+1]: a step of it ran on more than one IPU
    total: int  # IPU-cycles of every step counted: what a share divides


def step_cycles(report: Report, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Over steps [LO, HI): each step's program (P where unknown), its cycles on each IPU (0 where it did
    not run) and where it ran."""
    execution, count = report.execution, len(report.programs)
    program = np.asarray(execution.program[lo:hi], dtype=np.int64)
    index = np.where((program >= 0) & (program < count), program, count)
    ran = np.asarray(execution.cycles_from[lo:hi]) >= 0
    cycles = np.asarray(execution.cycles[lo:hi])
    cycles = np.where(ran, cycles, 0).astype(np.int64, copy=False)
    return index, cycles, ran


def by_step(cycles: np.ndarray, ran: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per step, the IPUs that ran it and its longest cycles on one of them. Column by column: numpy
    reduces a short last axis slowly (45 ms over the large report's steps, against 10 ms)."""
    ipus = ran[:, 0].astype(np.int64)
    longest = cycles[:, 0].copy()
    for ipu in range(1, ran.shape[1]):
        ipus += ran[:, ipu]
        np.maximum(longest, cycles[:, ipu], out=longest)
    return ipus, longest


def figures_by_id(program: np.ndarray, cycles: np.ndarray, cycles_from: np.ndarray, programs: int,
                  lo: int = 0) -> dict[str, np.ndarray]:
    """Per program id the steps name (row 0: every id of none of the PROGRAMS; row i + 1: program i), over the
    steps given, the first of them step LO: a ProgramFigures' columns (s.PROGRAM_FIGURE_KEYS). Ingest keeps
    them over every step (sources/ingest.py), so the first table reads them instead of every step."""
    program = np.asarray(program, dtype=np.int64)
    index = np.where((program >= 0) & (program < programs), program + 1, 0)
    rows = programs + 1
    ran = np.asarray(cycles_from) >= 0
    cycles = np.where(ran, np.asarray(cycles), 0).astype(np.int64, copy=False)
    by_ipu = np.zeros((rows, ran.shape[1]), np.int64)  # in integers: a hostile report's 63-bit cycles wrap, as
    np.add.at(by_ipu, index, cycles)  # integers do, where floats would overflow (the layers' sums: a test holds it)
    ipus, step_max = by_step(cycles, ran)
    steps = np.bincount(index, weights=ipus, minlength=rows).astype(np.int64)
    several = np.bincount(index, weights=ipus > 1, minlength=rows) > 0
    longest = np.full(rows, -1, np.int64)
    np.maximum.at(longest, index[ipus > 0], step_max[ipus > 0])
    hits = np.flatnonzero((step_max == longest[index]) & (ipus > 0))
    ids, first = np.unique(index[hits], return_index=True)  # the first step of each that long
    longest_step = np.full(rows, -1, np.int64)
    longest_ipu = np.full(rows, -1, np.int64)
    longest_step[ids] = hits[first] + lo
    longest_ipu[ids] = cycles[hits[first]].argmax(axis=1)
    return {"steps": np.bincount(index, minlength=rows), "cycles_by_ipu": by_ipu, "count": steps, "longest": longest, "longest_step": longest_step,
            "longest_ipu": longest_ipu, "several_ipus": several}


def program_figures(report: Report, lo: int = 0, hi: int | None = None) -> ProgramFigures:
    """Each program's figures over the execution steps [LO, HI) (every step by default: as ingest kept
    them, where it did)."""
    execution, count = report.execution, len(report.programs)
    hi = execution.num_steps if hi is None else hi
    by_id = execution.program_figures if (lo, hi) == (0, execution.num_steps) else None
    if by_id is None:
        by_id = figures_by_id(execution.program[lo:hi], execution.cycles[lo:hi], execution.cycles_from[lo:hi],
                              count, lo)
    return per_program(by_id, count)


def per_program(by_id: dict[str, np.ndarray], count: int) -> ProgramFigures:
    """BY_ID's figures (figures_by_id's) for each of COUNT programs, and a last row for the ids of none."""
    ids = np.arange(len(by_id["count"])) - 1
    row = np.where((ids >= 0) & (ids < count), ids, count)
    cycles_by_ipu = np.zeros((count + 1, by_id["cycles_by_ipu"].shape[1]), np.int64)
    np.add.at(cycles_by_ipu, row, by_id["cycles_by_ipu"])
    steps = np.zeros(count + 1, np.int64)
    np.add.at(steps, row, by_id["count"])
    several = np.zeros(count + 1, bool)
    np.logical_or.at(several, row, by_id["several_ipus"])
    longest = np.full(count + 1, -1, np.int64)
    np.maximum.at(longest, row, by_id["longest"])
    hits = np.flatnonzero((by_id["longest"] == longest[row]) & (by_id["longest"] >= 0))
    hits = hits[np.lexsort((by_id["longest_step"][hits], row[hits]))]  # by program, the first step first
    programs, first = np.unique(row[hits], return_index=True)
    longest_step = np.full(count + 1, -1, np.int64)
    longest_ipu = np.full(count + 1, -1, np.int64)
    longest_step[programs] = by_id["longest_step"][hits[first]]
    longest_ipu[programs] = by_id["longest_ipu"][hits[first]]
    return ProgramFigures(cycles_by_ipu, steps, longest, longest_step, longest_ipu, several, int(cycles_by_ipu.sum()))


def data_moved(report: Report, programs: np.ndarray, lo: int = 0,
               hi: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Bytes in and out of each of PROGRAMS (bool per program, and the unknown programs' row) over the
    steps [LO, HI) on the IPUs that ran them; the execution profile must give them (libpva's)."""
    execution, count = report.execution, len(report.programs)
    hi = execution.num_steps if hi is None else hi
    index, _, ran = step_cycles(report, lo, hi)
    chosen = np.flatnonzero(programs[index])
    moved = []
    for column in (execution.data_in, execution.data_out):
        data = np.asarray(column[lo:hi]).reshape(ran.shape)[chosen]
        per_step = np.where(ran[chosen], data, 0).sum(axis=1)
        moved.append(np.rint(np.bincount(index[chosen], weights=per_step, minlength=count + 1)).astype(np.int64))
    return moved[0], moved[1]


@dataclass(frozen=True, eq=False)
class HotspotTable:
    """The rows of one table (compute sets, exchanges or programs), costliest first."""

    by: str
    names: list[str]
    ids: np.ndarray  # int64 per row: the compute set's number, or the program's
    programs: np.ndarray  # int64 per row: the program that ran its longest step, -1 for steps of no known program
    cycles_by_ipu: np.ndarray  # int64 [rows, IPUs]
    count: np.ndarray  # IPU-steps
    longest: np.ndarray  # its longest single step on one IPU
    longest_step: np.ndarray  # that step (absolute index)
    longest_ipu: np.ndarray
    layers: list[str | None]  # its program's model layer
    kinds: list[str]  # exchanges: the kind of each; else empty
    data_in: np.ndarray | None  # exchanges: bytes in, where the report has them
    data_out: np.ndarray | None
    total: int  # IPU-cycles of every step counted, host waits included
    _orders: dict[str, np.ndarray] = field(default_factory=dict, init=False, repr=False)  # by sort, once sorted

    def __len__(self) -> int:
        return len(self.names)

    @cached_property
    def cycles(self) -> np.ndarray:
        return self.cycles_by_ipu.sum(axis=1)

    @cached_property
    def mean(self) -> np.ndarray:
        return self.cycles / np.maximum(self.count, 1)

    @cached_property
    def share(self) -> np.ndarray:
        return self.cycles / self.total if self.total else np.zeros(len(self))

    @cached_property
    def longest_name(self) -> int:
        return max(map(len, self.names), default=0)

    @cached_property
    def lowered_names(self) -> list[str]:
        return [name.lower() for name in self.names]

    def order(self, sort: str) -> np.ndarray:
        """Every row in SORT's order (figures largest first, names in any case A to Z), sorted once."""
        order = self._orders.get(sort)
        if order is None:
            if sort == "name":
                order = np.argsort(np.array(self.lowered_names, dtype=object), kind="stable")
            else:
                order = np.argsort(-self.column(sort), kind="stable")
            self._orders[sort] = order
        return order

    def prepare(self) -> None:
        """Sort by every column and fold the names to lower case now, so that a key's sort or filter only picks
        rows (HotspotsNavigator.prepare)."""
        for sort in SORTS:
            self.order(sort)

    def column(self, sort: str) -> np.ndarray:
        """The values SORT orders the rows by (not "name")."""
        return {"cycles": self.cycles, "count": self.count, "mean": self.mean, "longest": self.longest}[sort]

    def select(self, sort: str = "cycles", text: str = "") -> np.ndarray:
        """The rows whose name contains TEXT (any case), in SORT's order (figures largest first)."""
        order = self.order(sort)
        needle = text.lower()
        if not needle:
            return order
        kept = np.fromiter((needle in name for name in self.lowered_names), bool, len(self))
        return order[kept[order]]

    def row(self, row: int) -> dict[str, Any]:
        """Row ROW as `pvtui hotspots --json` gives it."""
        out = {
            "name": self.names[row], "id": int(self.ids[row]), "cycles": int(self.cycles[row]),
            "share": float(self.share[row]), "count": int(self.count[row]), "mean_cycles": float(self.mean[row]),
            "max_cycles": int(self.longest[row]), "cycles_by_ipu": self.cycles_by_ipu[row].tolist(),
            "program": int(self.programs[row]) if self.programs[row] >= 0 else None, "layer": self.layers[row],
        }
        if self.by == "exchange":
            out["kind"] = self.kinds[row]
            for key, column in (("data_in", self.data_in), ("data_out", self.data_out)):
                out[key] = int(column[row]) if column is not None else None
        return out

    def totals(self, rows: np.ndarray) -> dict[str, int]:
        """What ROWS add up to: IPU-cycles and IPU-steps, and the longest step among them."""
        return {"cycles": int(self.cycles[rows].sum()), "count": int(self.count[rows].sum()),
                "max_cycles": int(self.longest[rows].max(initial=0))}


@dataclass(frozen=True, eq=False)
class StepRows:
    """Single steps on one IPU, longest first: the STEP_ROWS longest of those kept (`kept` of them)."""

    steps: np.ndarray  # absolute step index
    ipus: np.ndarray
    cycles: np.ndarray
    programs: np.ndarray  # -1 for no known program
    kept: int  # step-IPU pairs the filters keep
    total: int

    def __len__(self) -> int:
        return len(self.steps)


class Hotspots:
    """The report's hotspots: each table made once, over every run or over one."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self._figures: dict[int | None, ProgramFigures] = {}
        self._all_balances: dict[int, TileBalance | Unavailable] | Unavailable | None = None
        self._one_balance: dict[int, dict[int, TileBalance | Unavailable] | Unavailable] = {}

    def unavailable(self) -> Unavailable | None:
        """Why there are no hotspots, or None."""
        if self.report.execution is None:
            return Unavailable(self.report.missing("execution"))
        if self.report.programs is None:
            return Unavailable(self.report.missing("programs"))
        return None

    @cached_property
    def host_waits(self) -> np.ndarray:
        """Per program (and the unknown programs' row), whether its steps wait on the host."""
        return np.append(host_wait_programs(self.report), False)

    def prepare_tile_balances(self) -> None:
        """Compute every compute set's balance over tiles (about 1 s on the large report), once: for a worker.
        Balances count every run and step type, so a compute-set table read for another needs no new ones."""
        if self._all_balances is None:
            self._all_balances = tile_balances(self.report)

    def tile_balance(self, compute_set: int) -> TileBalance | Unavailable:
        """COMPUTE_SET's balance over tiles: from every compute set's once prepared, else computed for it
        alone (a few ms), once."""
        balances = self._all_balances
        if balances is None:
            if compute_set not in self._one_balance:
                self._one_balance[compute_set] = tile_balances(self.report, compute_set)
            balances = self._one_balance[compute_set]
        if isinstance(balances, Unavailable):
            return balances
        if compute_set in balances:
            return balances[compute_set]
        steps = len(self.report.execution.bsp_steps)
        return Unavailable(f"None of its steps is among the {steps:,} with per-tile cycles.")

    @cached_property
    def layer_of_program(self) -> list[str | None]:
        """Per program, its model layer (None for one placed nowhere)."""
        return program_layers(self.report)

    @cached_property
    def types(self) -> np.ndarray:
        """Per program (and the unknown programs' row, -1), its type's number."""
        return np.append(np.asarray(self.report.programs.type, dtype=np.int64), -1)

    @cached_property
    def step_types(self) -> list[str]:
        """The step types of the steps ranked (not host waits), in the report's order."""
        ranked = (self.figures().count > 0) & ~self.host_waits
        kept = set(self.types[ranked].tolist())
        return [name for code, name in enumerate(self.report.programs.type_names) if code in kept]

    def figures(self, run: int | None = None) -> ProgramFigures:
        """Per program over every run, or over run RUN (0-based)."""
        if run not in self._figures:
            lo, hi = self.report.execution.run_range(run) if run is not None else (0, None)
            self._figures[run] = program_figures(self.report, lo, hi)
        return self._figures[run]

    def type_mask(self, type_name: str | None) -> np.ndarray:
        """Per program, whether its type is TYPE_NAME (any case; all where None); ValueError naming the types."""
        if type_name is None:
            return np.ones(len(self.types), dtype=bool)
        names = [name.lower() for name in self.report.programs.type_names]
        if type_name.lower() not in names:
            raise ValueError(f"no step type {type_name!r}; choose one of {', '.join(self.report.programs.type_names)}")
        return self.types == names.index(type_name.lower())

    def host_totals(self, run: int | None = None) -> dict[str, int]:
        """The host waits' IPU-cycles and IPU-steps, never ranked."""
        figures = self.figures(run)
        return {"cycles": int(figures.cycles_by_ipu[self.host_waits].sum()),
                "count": int(figures.count[self.host_waits].sum())}

    def exchange_kinds(self, figures: ProgramFigures) -> list[str | None]:
        """Per program, its kind of exchange, or None for one that is not an exchange."""
        programs = self.report.programs
        remote = np.append(remote_buffer_programs(self.report), False)
        kinds: list[str | None] = []
        phases = [phase_of(name) for name in programs.type_names]
        for program, type_ in enumerate(self.types.tolist()):
            if remote[program]:
                kinds.append(REMOTE)
            elif type_ < 0 or phases[type_] != "exchange":
                kinds.append(None)
            elif programs.type_names[type_] != "GlobalExchange":
                kinds.append(INTERNAL)
            else:
                kinds.append(INTER_IPU if figures.several_ipus[program] else GLOBAL)
        return kinds

    def table(self, by: str, run: int | None = None, type_name: str | None = None) -> HotspotTable:
        """The rows BY compute set, exchange or program, over RUN (every run where None), of the steps of
        type TYPE_NAME (all where None); costliest first."""
        figures = self.figures(run)
        ran = (figures.count > 0) & ~self.host_waits & self.type_mask(type_name)
        kinds: list[str] = []
        if by == "compute-set":
            return self._compute_sets(figures, ran)
        if by == "exchange":
            every = self.exchange_kinds(figures)
            exchanges = np.array([kind is not None for kind in every])
            members = np.flatnonzero(ran & exchanges)
            kinds = [every[p] for p in members.tolist()]
            if self.report.execution.data_in is not None and self.report.execution.data_out is not None:
                lo, hi = self.report.execution.run_range(run) if run is not None else (0, None)
                moved = data_moved(self.report, exchanges, lo, hi)
                return self._rows(by, figures, members, members, kinds, moved=(moved[0][members], moved[1][members]))
        elif by == "program":
            members = np.flatnonzero(ran)
        else:
            raise ValueError(f"--by {by!r}: choose one of {', '.join(BY)}")
        return self._rows(by, figures, members, members, kinds)

    def _rows(self, by: str, figures: ProgramFigures, ids: np.ndarray, programs: np.ndarray, kinds: list[str],
              cycles_by_ipu: np.ndarray | None = None, count: np.ndarray | None = None,
              names: list[str] | None = None, moved: tuple[np.ndarray, np.ndarray] | None = None) -> HotspotTable:
        """A table of rows IDS whose longest step PROGRAMS ran; their figures those of PROGRAMS unless given;
        MOVED: an exchange's bytes in and out, where the report has them."""
        known = len(self.report.programs)
        if names is None:
            names = names_at(self.report.programs.names, programs.tolist(), lambda _: NO_PROGRAM)
        cycles_by_ipu = figures.cycles_by_ipu[programs] if cycles_by_ipu is None else cycles_by_ipu
        count = figures.count[programs] if count is None else count
        order = np.argsort(-cycles_by_ipu.sum(axis=1), kind="stable")
        layers = self.layer_of_program
        data_in, data_out = (moved[0][order], moved[1][order]) if moved is not None else (None, None)
        shown = programs[order]
        return HotspotTable(
            by, [names[i] for i in order.tolist()], ids[order],
            np.where(shown < known, shown, -1), cycles_by_ipu[order], count[order], figures.longest[shown],
            figures.longest_step[shown], figures.longest_ipu[shown],
            [layers[p] if p < known else None for p in shown.tolist()],
            [kinds[i] for i in order.tolist()] if kinds else [], data_in, data_out, figures.total)

    def _compute_sets(self, figures: ProgramFigures, ran: np.ndarray) -> HotspotTable:
        """Rows by compute set: the programs that run each summed; the program of its longest step."""
        sets = np.append(np.asarray(self.report.programs.compute_set, dtype=np.int64), -1)
        members = np.flatnonzero(ran & (sets >= 0))
        ids, group = np.unique(sets[members], return_inverse=True)
        cycles_by_ipu = np.zeros((len(ids), figures.cycles_by_ipu.shape[1]), np.int64)
        np.add.at(cycles_by_ipu, group, figures.cycles_by_ipu[members])
        count = np.bincount(group, weights=figures.count[members], minlength=len(ids)).astype(np.int64)
        order = np.lexsort((-figures.longest[members], group))  # each set's longest first
        starts = np.flatnonzero(np.r_[True, np.diff(group[order]) != 0]) if len(order) else order
        longest_program = members[order[starts]]
        names = names_at(self.report.programs.compute_set_names, ids.tolist(), lambda i: f"compute set {i}")
        return self._rows("compute-set", figures, ids, longest_program, [], cycles_by_ipu, count, names)

    def steps(self, run: int | None = None, type_name: str | None = None, text: str = "",
              limit: int | None = STEP_ROWS) -> StepRows:
        """The LIMIT longest (all where None) single steps on one IPU of RUN (all runs where None), of type
        TYPE_NAME, whose program's name contains TEXT; host waits left out."""
        report = self.report
        lo, hi = report.execution.run_range(run) if run is not None else (0, report.execution.num_steps)
        keep = ~self.host_waits & self.type_mask(type_name)
        if text:
            needle = text.lower()
            names = report.programs.names
            keep[:-1] &= np.array([needle in name.lower() for name in names.take(range(len(names)))], dtype=bool)
            keep[-1] &= needle in NO_PROGRAM
        index, cycles, ran = step_cycles(report, lo, hi)
        pairs = ran & keep[index][:, None]
        flat = np.where(pairs, cycles, -1).ravel()
        kept = int(pairs.sum())
        top = kept if limit is None else min(limit, kept)
        chosen = np.argpartition(-flat, top - 1)[:top] if 0 < top < len(flat) else np.flatnonzero(flat >= 0)
        chosen = chosen[np.lexsort((chosen, -flat[chosen]))]
        step, ipu = np.divmod(chosen, ran.shape[1])
        programs = index[step]
        return StepRows(step + lo, ipu, flat[chosen], np.where(programs < len(report.programs), programs, -1),
                        kept, self.figures(run).total)


def names_at(names: Any, indices: list[int], missing: Callable[[int], str]) -> list[str]:
    """NAMES (a string table, or a list where the report has none) at INDICES, read at once; MISSING(i)
    for an index it has no name for."""
    known = len(names)
    inside = [i for i in indices if 0 <= i < known]
    found = dict(zip(inside, names.take(inside) if hasattr(names, "take") else [names[i] for i in inside]))
    return [found[i] if i in found else missing(i) for i in indices]


def step_row(report: Report, rows: StepRows, row: int) -> dict[str, Any]:
    """Single step ROW as `pvtui hotspots --by step --json` gives it: its run counts from 1."""
    execution, programs = report.execution, report.programs
    step, program = int(rows.steps[row]), int(rows.programs[row])
    run = int(np.searchsorted(np.asarray(execution.run_step_offsets), step, side="right"))
    return {"run": run, "step": step, "ipu": int(rows.ipus[row]), "cycles": int(rows.cycles[row]),
            "program": program if program >= 0 else None,
            "name": programs.names[program] if program >= 0 else NO_PROGRAM,
            "type": programs.type_name(program) if program >= 0 else None}


def resolve_run(report: Report, run: int | None) -> int | None:
    """RUN as the user counts it (from 1) to a run's index; ValueError where the report has no such run."""
    if run is None:
        return None
    runs = report.execution.num_runs
    if not 1 <= run <= runs:
        raise ValueError(f"no run {run}: this report has {runs} profiled run{'s' * (runs != 1)} (1 to {runs})")
    return run - 1


def hotspots_data(report: Report, by: str = "compute-set", type_name: str | None = None, run: int | None = None,
                  top: int | None = None) -> dict[str, Any] | Unavailable:
    """The `pvtui hotspots --json` answer: {"by", "rows"} costliest (longest) first; Unavailable where the
    report cannot say."""
    hotspots = Hotspots(report)
    reason = hotspots.unavailable()
    if reason is not None:
        return reason
    index = resolve_run(report, run)
    if by == "step":
        rows = hotspots.steps(index, type_name, limit=top)
        return {"by": by, "rows": [step_row(report, rows, i) for i in range(len(rows))]}
    table = hotspots.table(by, index, type_name)
    shown = range(len(table)) if top is None else range(min(top, len(table)))
    return {"by": by, "rows": [table.row(i) for i in shown]}



@dataclass(frozen=True)
class TileBalance:
    """A compute set's cycles over tiles, summed over its steps with per-tile cycles."""

    slowest: int  # the tile with the most cycles
    slowest_cycles: int
    max_over_mean: float  # the slowest tile's cycles over the mean of the tiles that ran it
    tiles: int  # tiles that ran it
    steps: int  # its steps with per-tile cycles


BALANCE_ROWS = 512  # per-tile rows summed at once: at most 512 x tiles x 8 bytes (24 MB at 5,888 tiles)


def tile_balances(report: Report, compute_set: int | None = None) -> dict[int, TileBalance | Unavailable] | Unavailable:
    """How each compute set's cycles spread over tiles (or COMPUTE_SET's alone), from the steps with per-tile
    cycles that ran one of its programs: only the compute sets some such step ran are keys.

    One pass over the per-tile cycles, a block of whole compute sets at a time: on the large report (10,000
    steps of 5,888 tiles) about 1 s for all of them, where one alone takes a few ms."""
    execution = report.execution
    if "bsp" not in report.parts or execution is None or execution.bsp_steps is None:
        return Unavailable(report.missing("bsp"))
    programs = np.asarray(execution.program)[np.asarray(execution.bsp_steps)]
    known = (programs >= 0) & (programs < len(report.programs))
    sets = np.full(len(programs), -1, dtype=np.int64)
    sets[known] = np.asarray(report.programs.compute_set, dtype=np.int64)[programs[known]]
    rows = np.flatnonzero(sets >= 0 if compute_set is None else sets == compute_set)
    rows = rows[np.argsort(sets[rows], kind="stable")]  # each compute set's rows together
    keys = sets[rows]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if len(rows) else np.zeros(0, dtype=np.int64)
    ends = np.r_[starts[1:], len(rows)]
    balances: dict[int, TileBalance | Unavailable] = {}
    first = 0
    while first < len(starts):
        last = first + 1  # whole compute sets, as many as BALANCE_ROWS hold (one at least)
        while last < len(starts) and ends[last] - starts[first] <= BALANCE_ROWS:
            last += 1
        lo, hi = starts[first], ends[last - 1]
        per_tile = np.add.reduceat(np.asarray(execution.bsp_cycles[rows[lo:hi]]), starts[first:last] - lo, axis=0,
                                   dtype=np.int64)
        ran = per_tile > 0
        tiles = ran.sum(axis=1)
        slowest = per_tile.argmax(axis=1)
        slowest_cycles = per_tile[np.arange(len(per_tile)), slowest]
        total = np.where(ran, per_tile, 0).sum(axis=1)
        for group in range(last - first):
            key = int(keys[starts[first + group]])
            if not tiles[group]:
                balances[key] = Unavailable("Its steps with per-tile cycles count no cycles on any tile.")
                continue
            balances[key] = TileBalance(
                int(slowest[group]), int(slowest_cycles[group]),
                float(slowest_cycles[group] * tiles[group] / total[group]), int(tiles[group]),
                int(ends[first + group] - starts[first + group]))
        first = last
    return balances


def compute_set_vertices(report: Report, compute_set: int) -> list[tuple[str, int]] | Unavailable:
    """(vertex type, instances) of COMPUTE_SET, most instances first, where the report has them."""
    programs = report.programs
    vertices = programs.compute_set_vertices(compute_set)
    if not vertices:
        return Unavailable("This report names no vertices for its compute sets: they need profile.pop read by"
                           " libpva.")
    names = programs.vertex_type_names
    return sorted(((names[t] if t < len(names) else f"vertex type {t}", int(n)) for t, n in vertices),
                  key=lambda item: -item[1])
