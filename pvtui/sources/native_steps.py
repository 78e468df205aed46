"""The native reader's programs and execution steps: from programs, compute_sets, steps, steps_by_ipu
and execution_cycle_totals.

A program's type is its steps' type (steps.type): a program that is no step has none in the tables
and reads "Unknown". The tables give no program tree, so every program is a root; no runs, so every
step is in one; no tile balance, data moved or per-tile cycles.
"""

from __future__ import annotations

import numpy as np

from pvtui.model import schema as s
from pvtui.model.bundle import release_pages
from pvtui.sources.native import LIBPVA, PROFILE, ProfileTables
from pvtui.sources.sqlite_file import NULL, quote

UNKNOWN_TYPE = "Unknown"
MAX_IPUS = 4096  # an IPU column whose values reach this is not one
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
    type of a program's first step (a step's type is its program's)."""
    type_of = np.zeros(n, np.int64)
    compute_set_of = np.full(n, -1, np.int64)
    steps = profile.get("steps", "programs")
    if steps is None:
        return [UNKNOWN_TYPE], type_of, compute_set_of
    first_row = np.full(n, -1, np.int64)
    for rowid, program_id, compute_set in profile.batches(steps, ["program", "compute_set"], rowid=True):
        program = profile.program_index(program_id)
        known = program >= 0
        with_set = known & (compute_set != NULL)
        compute_set_of[program[with_set]] = compute_set[with_set]
        fresh, at = np.unique(program[known], return_index=True)
        unseen = first_row[fresh] < 0
        first_row[fresh[unseen]] = rowid[known][at[unseen]]
    stepped = np.flatnonzero(first_row >= 0)
    texts = profile.texts_at(steps, "type", first_row[stepped])
    types = list(dict.fromkeys([UNKNOWN_TYPE, *texts]))
    type_of[stepped] = [types.index(t or UNKNOWN_TYPE) for t in texts]
    return types, type_of, compute_set_of


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
    step_ids, program = _step_programs(profile, steps)
    x = len(step_ids)
    ipus, by_column = _ipu_count(profile, by_ipu, step_ids)
    if x == 0 or ipus == 0:
        ctx.note("execution", f"{PROFILE}: the steps tables are empty: no execution profile")
        return []
    StepColumns(profile, by_ipu, step_ids, ipus, by_column).read()
    w = ctx.writer
    w.array(s.STEP_PROGRAM, program, np.int32)
    w.strings(s.RUN_NAME, [ONE_RUN])
    w.array(s.RUN_STEP_OFFSETS, [0, x], np.int64)
    ctx.meta["execution"] = {"total_cycles": _total_cycles(profile)}
    profile.num_ipus = ipus
    ctx.add_part("execution")
    return ["execution"]


def _step_programs(profile: ProfileTables, steps) -> tuple[np.ndarray, np.ndarray]:
    """(step ids ascending, the program index of each step, -1 where the program table lacks it)."""
    ids, programs = [], []
    for batch in profile.batches(steps, ["id", "program"]):
        ids.append(batch[0])
        programs.append(batch[1])
    step_ids = np.concatenate(ids) if ids else np.zeros(0, np.int64)
    program = np.concatenate(programs) if programs else np.zeros(0, np.int64)
    order = np.argsort(step_ids, kind="stable")
    return step_ids[order], profile.program_index(program[order])


def _ipu_count(profile: ProfileTables, by_ipu, step_ids: np.ndarray) -> tuple[int, bool]:
    """How many IPUs, and whether the IPU column says each row's: one more than its largest value, else
    the most rows a step has."""
    ctx = profile.ctx
    if by_ipu.has("ipu"):
        column = quote(by_ipu["ipu"])
        low, high = profile.db.execute(f"SELECT min({column}), max({column}) FROM {quote(by_ipu.table.name)}").fetchone()
        if isinstance(low, int) and isinstance(high, int) and 0 <= low <= high < MAX_IPUS:
            return high + 1, True
        ctx.note("execution", f"{PROFILE}: steps_by_ipu.{by_ipu['ipu']} runs from {low} to {high}, not IPU"
                              " numbers: a step's rows are taken as its IPUs in order")
    else:
        ctx.note("execution", f"{PROFILE}: steps_by_ipu has no column for the IPU: a step's rows are taken as"
                              " IPUs 0, 1, … in their order")
    counts = np.zeros(len(step_ids), np.int64)
    for batch in profile.batches(by_ipu, ["step_id"]):
        step = np.searchsorted(step_ids, batch[0])
        np.add.at(counts, step[(step < len(step_ids))], 1)
    return (int(counts.max()) if len(counts) else 0), False


def _total_cycles(profile: ProfileTables) -> int | None:
    """The report total: execution_cycle_totals' one row; None (noted) when it has none or several."""
    found = profile.get("execution_cycle_totals", "execution")
    if found is None:
        return None
    if not found.has("total") or found.rows != 1:
        have = ", ".join(c.name for c in found.table.columns)
        profile.ctx.note("execution", f"{PROFILE}: execution_cycle_totals ({found.rows:,} rows; columns {have})"
                                      " does not say which is the report total: it is not shown")
        return None
    total = int(profile.column(found, "total")[0])
    return None if total == NULL else total


class StepColumns:
    """steps_by_ipu into the [steps, IPUs] columns: start, end, cycles and active tiles, written a batch at a
    time into memory-mapped columns whose pages are let go after each batch."""

    def __init__(self, profile: ProfileTables, by_ipu, step_ids: np.ndarray, ipus: int, by_column: bool) -> None:
        self.profile, self.by_ipu, self.step_ids, self.ipus = profile, by_ipu, step_ids, ipus
        self.by_column = by_column
        self.seen = np.zeros(len(step_ids), np.int64)  # rows of each step so far, without an IPU column

    def read(self) -> None:
        w = self.profile.ctx.writer
        shape = (len(self.step_ids), self.ipus)
        cols = {
            s.STEP_FROM: w.open_array(s.STEP_FROM, shape, np.int64),
            s.STEP_TO: w.open_array(s.STEP_TO, shape, np.int64),
            s.STEP_CYCLES: w.open_array(s.STEP_CYCLES, shape, np.int64),
            s.STEP_ACTIVE_TILES: w.open_array(s.STEP_ACTIVE_TILES, shape, np.int32),
        }
        cols[s.STEP_FROM][:] = -1
        cols[s.STEP_TO][:] = -1
        for arr in cols.values():
            release_pages(arr)
        roles = ["step_id", "cycles", "active_tiles", "cycles_base", "active_cycles_from_min", "active_cycles_to_max"]
        if self.by_column:
            roles.append("ipu")
        stray = 0
        for batch in self.profile.batches(self.by_ipu, roles):
            stray += self._place(cols, batch)
            for arr in cols.values():
                release_pages(arr)
        for arr in cols.values():
            arr.flush()
        if stray:
            self.profile.ctx.note("execution", f"{PROFILE}: {stray:,} rows of steps_by_ipu name no step of the"
                                               " steps table, or no IPU: not shown")

    def _place(self, cols: dict, batch: np.ndarray) -> int:
        """Write one batch; the number of its rows that name no known step or IPU."""
        step_id, cycles, active, base, lo, hi = batch[:6]
        step = np.searchsorted(self.step_ids, step_id)
        step[step >= len(self.step_ids)] = 0
        ok = self.step_ids[step] == step_id if len(self.step_ids) else np.zeros(len(step_id), bool)
        ipu = batch[6] if len(batch) > 6 else self._in_order(step, ok)
        ok &= (ipu >= 0) & (ipu < self.ipus)
        step, ipu = step[ok], ipu[ok]
        ran = (base[ok] != NULL) & (lo[ok] != NULL) & (hi[ok] != NULL)
        cols[s.STEP_FROM][step, ipu] = np.where(ran, base[ok] + lo[ok], -1)
        cols[s.STEP_TO][step, ipu] = np.where(ran, base[ok] + hi[ok], -1)
        cols[s.STEP_CYCLES][step, ipu] = np.where(cycles[ok] == NULL, 0, cycles[ok])
        cols[s.STEP_ACTIVE_TILES][step, ipu] = np.where(active[ok] == NULL, 0, active[ok])
        return int((~ok).sum())

    def _in_order(self, step: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """Without an IPU column: each row's place among its step's rows so far, in rowid order."""
        ipu = np.full(len(step), -1, np.int64)
        rows = np.flatnonzero(ok)
        order = rows[np.argsort(step[rows], kind="stable")]
        sorted_steps = step[order]
        first = np.searchsorted(sorted_steps, sorted_steps, side="left")
        ipu[order] = self.seen[sorted_steps] + np.arange(len(order)) - first
        np.add.at(self.seen, step[rows], 1)
        return ipu
