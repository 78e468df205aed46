"""The Hotspots screen's navigator: the table shown (compute sets, exchanges, programs or single steps),
the run and step type counted, each table once read, its sort and filter, the rows shown and the one
under the cursor, and what each key does to them. Pure: the screen reads the tables in workers and draws."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from pvtui.model.hotspots import (
    BY, LABELS, SORTS, Hotspots, HotspotTable, StepRows, TileBalance, step_row,
)
from pvtui.model.tables import Table
from pvtui.model.unavailable import Unavailable

if TYPE_CHECKING:
    from pvtui.model.report import Report

STEP_SORTS = ("cycles", "step", "ipu", "name")  # single steps: longest first, in step order, by IPU, by name
Key = tuple[str, "int | None", "str | None", str]  # what a table is read for: by, run, step type, filter (steps)


class HotspotsNavigator:
    """Where the Hotspots screen is. `by` names the table shown, read for `run` (None: every run) and
    `type_name` (None: every step type); each table's sort in `sorts`; `filter_text` keeps the rows whose
    name contains it (single steps: are read again for it). The screen tells `select` the row under the
    table's cursor (a filter's total row is last)."""

    def __init__(self) -> None:
        self.report: Report | None = None
        self.hotspots: Hotspots | None = None
        self.reason: Unavailable | None = None  # why the report has no hotspots
        self.by = BY[0]
        self.sorts = {by: "cycles" for by in BY}
        self.filter_text = ""
        self.filter_open = False
        self.run: int | None = None  # 0-based
        self.type_name: str | None = None
        self.read: dict[Key, HotspotTable | StepRows] = {}
        self.shown: np.ndarray | tuple[()] = ()  # rows of the table read, in the order shown (no numpy yet:
        # the screen's first frame paints before numpy is imported)
        self.cursor = -1

    def open(self, report: Report) -> None:
        """REPORT (a reload's): its tables are read again; the table, sorts and filter kept, the run and type
        where the report still has them."""
        self.report, self.filter_open, self.read = report, False, {}
        self.hotspots = Hotspots(report)
        self.reason = self.hotspots.unavailable()
        if self.reason is None:
            if self.run is not None and self.run >= report.execution.num_runs:
                self.run = None
            if self.type_name is not None and self.type_name not in self.hotspots.step_types:
                self.type_name = None

    # Reading the tables ----------------------------------------------------------------------------

    @property
    def key(self) -> Key:
        return self.by, self.run, self.type_name, self.filter_text if self.by == "step" else ""

    def to_read(self) -> Key | None:
        """What the table shown waits for, or None where it is read (or the report has none)."""
        return None if self.reason is not None or self.key in self.read else self.key

    def reading_stages(self, key: Key) -> list[tuple[str, Callable[[], object]]]:
        """What reading table KEY does first, in order, each with the words that say it (1/3…): the
        screen's worker runs them, then read_table, which reuses what they computed."""
        assert self.hotspots is not None
        hotspots, by, run = self.hotspots, key[0], key[1]
        lo, hi = self.report.execution.run_range(run) if run is not None else (0, self.report.execution.num_steps)
        return [
            (f"1/3 Counting the IPU-cycles of {hi - lo:,} steps on every IPU…", lambda: hotspots.figures(run)),
            ("2/3 Finding each program's model layer…", lambda: hotspots.layer_of_program),
            (f"3/3 Ranking the {LABELS[by]}…", lambda: None),
        ]

    def read_table(self, key: Key) -> HotspotTable | StepRows:
        """The table KEY names, from the report: the screen's worker calls this."""
        assert self.hotspots is not None
        by, run, type_name, text = key
        if by == "step":
            return self.hotspots.steps(run, type_name, text)
        return self.hotspots.table(by, run, type_name)

    def prepare(self, table: HotspotTable | StepRows) -> None:
        """Once TABLE is painted, in a worker of the screen's, what a key would otherwise compute: every sort
        (a first sort by name took 27 ms on the large report) and, for compute sets, every balance over
        tiles (10-120 ms each as the cursor reached it, reading per-tile cycles)."""
        if isinstance(table, HotspotTable):
            table.prepare()
            if table.by == "compute-set":
                self.hotspots.prepare_tile_balances()

    def table_read(self, key: Key, table: HotspotTable | StepRows) -> None:
        self.read[key] = table

    @property
    def ready(self) -> bool:
        return self.reason is None and self.key in self.read

    @property
    def table(self) -> HotspotTable | StepRows | None:
        return self.read.get(self.key)

    @property
    def sort(self) -> str:
        return self.sorts[self.by]

    def rows(self) -> None:
        """Work out the rows shown: those the filter keeps, in the sort's order."""
        table = self.table
        if isinstance(table, HotspotTable):
            self.shown = table.select(self.sort, self.filter_text)
        elif isinstance(table, StepRows):
            self.shown = self._step_order(table)
        else:
            self.shown = np.zeros(0, np.int64)

    def _step_order(self, rows: StepRows) -> np.ndarray:
        """Single steps, kept by their read, in the sort's order (the longest first within a tie)."""
        if self.sort == "cycles":
            return np.arange(len(rows))
        if self.sort == "name":
            names = self.report.programs.names
            key = np.array([names[p].lower() if p >= 0 else "" for p in rows.programs.tolist()], dtype=object)
        else:
            key = rows.steps if self.sort == "step" else rows.ipus
        return np.argsort(key, kind="stable")

    # The row under the cursor --------------------------------------------------------------------

    def select(self, cursor: int) -> None:
        self.cursor = cursor

    def selected(self) -> int | None:
        """The row of the table read under the cursor (None on the total row, or with no rows)."""
        return int(self.shown[self.cursor]) if 0 <= self.cursor < len(self.shown) else None

    def selected_program(self) -> int:
        """The program of the row under the cursor, -1 where none."""
        row, table = self.selected(), self.table
        return -1 if row is None or table is None else int(table.programs[row])

    def selected_step(self) -> tuple[int, int] | None:
        """The row's longest step (a single step: itself) and the IPU it ran that long on."""
        row, table = self.selected(), self.table
        if row is None or table is None:
            return None
        if isinstance(table, StepRows):
            return int(table.steps[row]), int(table.ipus[row])
        step = int(table.longest_step[row])
        return (step, int(table.longest_ipu[row])) if step >= 0 else None

    def selected_layer(self) -> str | None:
        """The model layer of the row's program."""
        program = self.selected_program()
        return self.hotspots.layer_of_program[program] if program >= 0 and self.hotspots is not None else None

    def selected_compute_set(self) -> int | None:
        row, table = self.selected(), self.table
        if row is None or not isinstance(table, HotspotTable) or table.by != "compute-set":
            return None
        return int(table.ids[row])

    def selected_balance(self) -> TileBalance | Unavailable | None:
        """How the compute set under the cursor spreads over tiles (None: the row is no compute set)."""
        compute_set = self.selected_compute_set()
        if compute_set is None:
            return None
        return self.hotspots.tile_balance(compute_set)

    # What the keys need ---------------------------------------------------------------------------

    @property
    def available(self) -> bool:
        return self.reason is None

    @property
    def filtering(self) -> bool:
        return bool(self.filter_text) or self.filter_open

    @property
    def row_has_program(self) -> bool:
        return not self.ready or self.selected_program() >= 0

    @property
    def row_has_step(self) -> bool:
        return not self.ready or self.selected_step() is not None

    @property
    def row_has_layer(self) -> bool:
        return not self.ready or self.selected_layer() is not None

    @property
    def row_has_tiles(self) -> bool:
        """The row is a compute set whose steps have per-tile cycles (or the rows are still read)."""
        return not self.ready or isinstance(self.selected_balance(), TileBalance)

    @property
    def several_runs(self) -> bool:
        return self.report is not None and self.reason is None and self.report.execution.num_runs > 1

    # What the keys do -----------------------------------------------------------------------------

    def next_table(self) -> None:
        self.by = BY[(BY.index(self.by) + 1) % len(BY)]
        self.cursor = 0

    def next_sort(self) -> None:
        sorts = STEP_SORTS if self.by == "step" else SORTS
        self.sorts[self.by] = sorts[(sorts.index(self.sort) + 1) % len(sorts)]

    def filter(self, text: str) -> None:
        """Keep the rows whose name contains TEXT; none closes the filter bar."""
        self.filter_text = text
        self.filter_open = self.filter_open and bool(text)

    def next_run(self) -> None:
        """Every run, then each run in turn."""
        runs = self.report.execution.num_runs
        self.run = 0 if self.run is None else (self.run + 1 if self.run + 1 < runs else None)

    def next_type(self) -> None:
        """Every step type, then each type of the steps ranked in turn."""
        types = self.hotspots.step_types
        at = types.index(self.type_name) if self.type_name in types else -1
        self.type_name = types[at + 1] if at + 1 < len(types) else None

    def export_table(self) -> Table | None:
        """The table as shown, for export: figures as numbers, names as the report gives them."""
        table = self.table
        if table is None:
            return None
        rows = self.shown.tolist()
        if isinstance(table, StepRows):
            dicts = [step_row(self.report, table, row) for row in rows]
        else:
            dicts = [table.row(row) for row in rows]
        if not dicts:
            return None
        columns = [key for key in dicts[0] if key != "cycles_by_ipu"]
        return Table(f"hotspots-{self.by}", columns, [[d[c] for c in columns] for d in dicts])
