"""The native reader's programs and execution steps: from programs, compute_sets, steps, steps_by_ipu
and execution_cycle_totals.

A program's type is its steps' type (steps.type): a program that is no step has none in the tables
and reads "Unknown". The tables give no program tree, so every program is a root; no runs, so every
step is in one; no tile balance, data moved or per-tile cycles.
"""

from __future__ import annotations

import numpy as np

from pvtui.model import schema as s
from pvtui.model.arrays import distinct
from pvtui.model.bundle import release_pages
from pvtui.sources.native_tables import LIBPVA, ProfileTables, StepIds, beyond, numbered
from pvtui.sources.pop_schema import PROFILE
from pvtui.sources.sqlite.database import NULL

UNKNOWN_TYPE = "Unknown"
MAX_IPUS = 4096  # an IPU column whose values reach this is not one
FILL_SLICE = 1 << 20
ONE_RUN = "all runs"


def read_programs(profile: ProfileTables) -> list[str]:
    """The programs part: the parts filled."""
    ctx = profile.ctx
    found = profile.get("programs", "programs")
    if found is None:
        ctx.note("programs", f"{PROFILE}: has no programs table the native reader can use; {LIBPVA} gives programs")
        return []
    ids, names = profile.texts(found, "id", "name")
    order = np.argsort(ids, kind="stable")
    profile.program_ids = ids[order]
    names = [names[i] for i in order.tolist()]
    n = len(names)
    types, type_of, compute_set_of = _program_types(profile, n)
    w = ctx.writer
    w.strings(s.PROGRAM_NAME, names)
    w.array(s.PROGRAM_TYPE, type_of, np.int16)
    w.array(s.PROGRAM_PARENT, np.full(n, -1), np.int32)
    w.array(s.PROGRAM_CHILD_OFFSETS, np.zeros(n + 1), np.int64)
    w.array(s.PROGRAM_CHILDREN, np.zeros(0), np.int32)
    w.array(s.PROGRAM_ROOTS, np.arange(n), np.int32)
    w.array(s.PROGRAM_COMPUTE_SET, compute_set_of, np.int32)
    set_count = _compute_sets(profile)
    ctx.meta["programs"] = {"types": types, "count": n, "tree": False}
    ctx.meta["compute_sets"] = set_count
    ctx.add_part("programs")
    return ["programs"]


def _program_types(profile: ProfileTables, n: int) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(type names, each program's type, each program's compute set) from the steps that run it: the
    type of a program's first step (a step's type is its program's). Keeps the steps' programs for the
    execution part (profile.steps_read)."""
    type_of = np.zeros(n, np.int64)
    compute_set_of = np.full(n, -1, np.int64)
    steps = profile.get("steps", "programs")
    if steps is None:
        return [UNKNOWN_TYPE], type_of, compute_set_of
    first_row = np.full(n, -1, np.int64)
    read = StepsRead()
    for rowid, step_id, program_id, compute_set in profile.batches(steps, ["id", "program", "compute_set"],
                                                                   rowid=True):
        program = profile.program_index(program_id)
        read.add(step_id, program.astype(np.int32))
        known = program >= 0
        with_set = known & (compute_set != NULL)
        compute_set_of[program[with_set]] = compute_set[with_set]
        programs, first = np.unique(program[known], return_index=True)  # each program's first row in the batch
        new = first_row[programs] < 0
        first_row[programs[new]] = rowid[known][first[new]]
    profile.steps_read = read.finish()
    stepped = np.flatnonzero(first_row >= 0)
    texts = profile.texts_at(steps, "type", first_row[stepped])
    index = dict.fromkeys([UNKNOWN_TYPE, *texts])  # each type's number, in the order first met: one look-up a program
    index.update((name, number) for number, name in enumerate(index))
    type_of[stepped] = [index[t or UNKNOWN_TYPE] for t in texts]
    return list(index), type_of, compute_set_of


class StepsRead:
    """The steps table's ids and programs, batch by batch in row order, into StepIds and each step's
    program in the ids' order. While the ids run on without a gap, none is kept."""

    def __init__(self) -> None:
        self.first: int | None = None
        self.count = 0
        self.ids: list[np.ndarray] | None = None  # the ids, once they stop running on
        self.programs: list[np.ndarray] = []

    def add(self, step_id: np.ndarray, program: np.ndarray) -> None:
        self.programs.append(program)
        if self.first is None and len(step_id):
            self.first = int(step_id[0])
        if self.ids is None and not self._runs_on(step_id):
            first = self.first or 0
            self.ids = [np.arange(first, first + self.count)]
        if self.ids is not None:
            self.ids.append(step_id.copy())  # a copy: the slice would keep the whole batch
        self.count += len(step_id)

    def _runs_on(self, step_id: np.ndarray) -> bool:
        if not len(step_id):
            return True
        start = (self.first or 0) + self.count
        return (int(step_id[0]) == start and int(step_id[-1]) == start + len(step_id) - 1
                and bool((np.diff(step_id) == 1).all()))

    def finish(self) -> tuple[StepIds, np.ndarray]:
        """(the step ids, each one's program index), ascending by id."""
        program = np.concatenate(self.programs) if self.programs else np.zeros(0, np.int32)
        self.programs.clear()
        if self.ids is None:
            return StepIds(self.first or 0, self.count), program
        ids = np.concatenate(self.ids)
        self.ids = None
        if (np.diff(ids) < 0).any():
            order = np.argsort(ids, kind="stable")
            ids, program = ids[order], program[order]
        return StepIds(int(ids[0]) if len(ids) else 0, len(ids), ids), program


def _compute_sets(profile: ProfileTables) -> int | None:
    ctx = profile.ctx
    found = profile.get("compute_sets", "programs")
    if found is None:
        return None
    index, names = profile.texts(found, "compute_set", "name")
    if len(index) and (index.min() < 0 or index.max() >= 4 * len(index) + 1024):
        ctx.note("programs", f"{PROFILE}: compute_sets.compute_set is not an index (from {index.min():,} to"
                             f" {index.max():,}): compute set names not read")
        return None
    table = [""] * (int(index.max()) + 1 if len(index) else 0)
    for i, name in zip(index.tolist(), names):
        table[i] = name
    ctx.writer.strings(s.COMPUTE_SET_NAME, table)
    return len(names)


def read_execution(profile: ProfileTables) -> list[str]:
    """The execution part: the parts filled."""
    ctx = profile.ctx
    steps, by_ipu = profile.get("steps", "execution"), profile.get("steps_by_ipu", "execution")
    if steps is None or by_ipu is None:
        missing = " and ".join(name for name, f in (("steps", steps), ("steps_by_ipu", by_ipu)) if f is None)
        ctx.note("execution", f"{PROFILE}: has no {missing} table the native reader can use: no execution"
                              f" profile read ({LIBPVA} reads it, where the report has one)")
        return []
    if profile.empty(steps) or profile.empty(by_ipu):
        ctx.note("execution", f"{PROFILE}: the steps tables are empty: no execution profile")
        return []
    step_ids, program = _step_programs(profile, steps)
    x = len(step_ids)
    if not by_ipu.has("ipu"):
        ctx.note("execution", f"{PROFILE}: steps_by_ipu has no column for the IPU: a step's rows are taken as"
                              " IPUs 0, 1, … in their order")
    ipus = StepColumns(profile, by_ipu, step_ids).read()
    w = ctx.writer
    w.array(s.STEP_PROGRAM, program, np.int32)
    w.strings(s.RUN_NAME, [ONE_RUN])
    w.array(s.RUN_STEP_OFFSETS, [0, x], np.int64)
    ctx.meta["execution"] = {"total_cycles": _total_cycles(profile), "runs": False}
    profile.num_ipus = ipus
    ctx.add_part("execution")
    return ["execution"]


def ipus_named_first(profile: ProfileTables) -> int | None:
    """The IPUs the first rows of steps_by_ipu name by its IPU column, as StepColumns.read first takes them
    (all its rows rarely name more); None where it has no such column."""
    by_ipu = profile.get("steps_by_ipu", "execution")
    if by_ipu is None or not by_ipu.has("ipu"):
        return None
    for batch in profile.batches(by_ipu, ["ipu"]):
        ipus = batch[0]
        return numbered(distinct(ipus[(ipus >= 0) & (ipus < MAX_IPUS)])) or None
    return None


def _step_programs(profile: ProfileTables, steps) -> tuple[StepIds, np.ndarray]:
    """(the step ids, the program index of each step, -1 where the program table lacks it): as the
    programs part read them, else read now."""
    if profile.steps_read is not None:
        read, profile.steps_read = profile.steps_read, None
        return read
    read = StepsRead()
    for step_id, program_id in profile.batches(steps, ["id", "program"]):
        read.add(step_id, profile.program_index(program_id).astype(np.int32))
    return read.finish()


def _total_cycles(profile: ProfileTables) -> int | None:
    """The report total: execution_cycle_totals' one row; None (noted) when it has none or several."""
    found = profile.get("execution_cycle_totals", "execution")
    if found is None:
        return None
    rows = profile.count(found)
    if not found.has("total") or rows != 1:
        have = ", ".join(c.name for c in found.table.columns)
        profile.ctx.note("execution", f"{PROFILE}: execution_cycle_totals ({rows:,} rows; columns {have})"
                                      " does not say which is the report total: it is not shown")
        return None
    total = int(profile.column(found, "total")[0])
    return None if total == NULL else total


class StepColumns:
    """steps_by_ipu into the [steps, IPUs] columns: start, end, cycles and active tiles, written a batch at a
    time into memory-mapped columns whose pages are let go after each batch.

    There are as many IPUs as the first batch names (`numbered`: its distinct IPU numbers, or the most rows
    a step has, without an IPU column): where the rows name more, the columns are made again. A row on an
    IPU beyond those its table names is left out, and said."""

    ROLES = ["step_id", "cycles", "active_tiles", "cycles_base", "active_cycles_from_min", "active_cycles_to_max"]

    def __init__(self, profile: ProfileTables, by_ipu, step_ids: StepIds) -> None:
        self.profile, self.by_ipu, self.step_ids = profile, by_ipu, step_ids
        self.roles = self.ROLES + (["ipu"] if by_ipu.has("ipu") else [])

    def read(self) -> int:
        """Fill the columns; the number of IPUs."""
        ipus = 1
        while True:
            rows_on, stray = self._fill(ipus)
            wanted = max(numbered(np.flatnonzero(rows_on)), 1)
            if wanted <= ipus:
                break
            ipus = wanted
        note = self.profile.ctx.note
        on_beyond = np.flatnonzero(rows_on[ipus:]) + ipus
        if len(on_beyond):
            rows = int(rows_on[ipus:].sum())
            stray -= rows
            note("execution", beyond("steps_by_ipu", "IPUs", on_beyond, rows, ipus))
        if stray:
            note("execution", f"{PROFILE}: {stray:,} rows of steps_by_ipu name no step of the steps table, or no IPU"
                              f" from 0 to {MAX_IPUS - 1}: not shown")
        return ipus

    def _fill(self, ipus: int) -> tuple[np.ndarray, int]:
        """One pass into columns of IPUS IPUs: (the rows on each IPU from 0 to MAX_IPUS - 1, the rows not
        written); it stops after the first batch where that names more IPUs."""
        w = self.profile.ctx.writer
        shape = (len(self.step_ids), ipus)
        cols = {name: w.open_array(name, shape, np.int64) for name in (s.STEP_FROM, s.STEP_TO, s.STEP_CYCLES)}
        cols[s.STEP_ACTIVE_TILES] = w.open_array(s.STEP_ACTIVE_TILES, shape, np.int32)
        for name in (s.STEP_FROM, s.STEP_TO):
            flat = cols[name].reshape(-1)
            for lo in range(0, len(flat), FILL_SLICE):  # a slice at a time, let go: no column whole in memory
                flat[lo : lo + FILL_SLICE] = -1
                release_pages(cols[name])
        seen = np.zeros(len(self.step_ids) if len(self.roles) == len(self.ROLES) else 0, np.int64)
        rows_on, stray = np.zeros(MAX_IPUS, np.int64), 0
        for i, batch in enumerate(self.profile.batches(self.by_ipu, self.roles)):
            step, ipu, ok = self._where(batch, seen)
            rows_on += np.bincount(ipu[ok], minlength=MAX_IPUS)
            if i == 0 and numbered(np.flatnonzero(rows_on)) > ipus:  # the first batch says how many IPUs there are
                return rows_on, 0
            stray += self._place(cols, batch, step, ipu, ok & (ipu < ipus))
        for arr in cols.values():
            arr.flush()
        return rows_on, stray

    def _where(self, batch: np.ndarray, seen: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(step index, IPU, whether the row names a known step and a plausible IPU) of each row of BATCH."""
        step, ok = self.step_ids.where(batch[0])
        ipu = batch[6] if len(batch) > 6 else self._in_order(step, ok, seen)
        return step, ipu, ok & (ipu >= 0) & (ipu < MAX_IPUS)

    @staticmethod
    def _place(cols: dict, batch: np.ndarray, step: np.ndarray, ipu: np.ndarray, ok: np.ndarray) -> int:
        """Write the rows OK of one batch; the number of the others."""
        every = bool(ok.all())
        _, cycles, active, base, lo, hi = batch[:6] if every else (column[ok] for column in batch[:6])
        ipus = cols[s.STEP_FROM].shape[1]
        flat = step * ipus + ipu if every else step[ok] * ipus + ipu[ok]
        ran = (base != NULL) & (lo != NULL) & (hi != NULL)
        cols[s.STEP_FROM].reshape(-1)[flat] = np.where(ran, base + lo, -1)
        cols[s.STEP_TO].reshape(-1)[flat] = np.where(ran, base + hi, -1)
        cols[s.STEP_CYCLES].reshape(-1)[flat] = np.where(cycles == NULL, 0, cycles)
        cols[s.STEP_ACTIVE_TILES].reshape(-1)[flat] = np.where(active == NULL, 0, active)
        for arr in cols.values():
            release_pages(arr)
        return int(len(ok) - ok.sum())

    @staticmethod
    def _in_order(step: np.ndarray, ok: np.ndarray, seen: np.ndarray) -> np.ndarray:
        """Without an IPU column: each row's place among its step's rows so far, in rowid order."""
        ipu = np.full(len(step), -1, np.int64)
        rows = np.flatnonzero(ok)
        order = rows[np.argsort(step[rows], kind="stable")]
        sorted_steps = step[order]
        first = np.searchsorted(sorted_steps, sorted_steps, side="left")
        ipu[order] = seen[sorted_steps] + np.arange(len(order)) - first
        np.add.at(seen, step[rows], 1)
        return ipu
