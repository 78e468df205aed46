"""The views `pvtui sql` offers: each one's columns, their SQL types and what each counts.

The one place the views are described: the engine creates its tables from it, `--tables`
prints it, and the shell completes its names.
"""

from __future__ import annotations

from typing import NamedTuple


class Column(NamedTuple):
    name: str
    type: str  # INTEGER, REAL or TEXT
    doc: str


class View(NamedTuple):
    name: str
    doc: str
    columns: tuple[Column, ...]

    @property
    def column_names(self) -> list[str]:
        return [column.name for column in self.columns]


def _view(name: str, doc: str, *columns: tuple[str, str, str]) -> View:
    return View(name, doc, tuple(Column(*column) for column in columns))


VIEWS: dict[str, View] = {view.name: view for view in (
    _view("steps", "one row per IPU-step (a step and an IPU that ran it), every run; needs an execution profile",
          ("run", "INTEGER", "the run, from 0, in the order profiled"),
          ("step", "INTEGER", "the step's index in the report, from 0, over all runs"),
          ("ipu", "INTEGER", "the IPU"),
          ("program", "INTEGER", "the step's program: programs.id (NULL where no known program)"),
          ("type", "TEXT", "the program's type (NULL where no known program)"),
          ("start", "INTEGER", "the cycle the step starts on this IPU"),
          ("end", "INTEGER", "the cycle the step ends on this IPU"),
          ("cycles", "INTEGER", "the step's cycles on this IPU: summed, the IPU-cycles")),
    _view("runs", "one row per run profiled; needs an execution profile",
          ("run", "INTEGER", "the run, from 0"),
          ("name", "TEXT", "the run's name"),
          ("steps", "INTEGER", "steps of the program in the run"),
          ("ipu_steps", "INTEGER", "IPU-steps: step-IPU pairs that ran"),
          ("run_span_cycles", "INTEGER", "run span: the first step's start to the last step's end"),
          ("ipu_cycles", "INTEGER", "IPU-cycles: cycles summed over IPUs"),
          ("device_cycles", "INTEGER", "device time: the run span without the host waits at its ends")),
    _view("tiles", "one row per tile: its memory (profile.pop; archive.a's ELF bytes where only archive.a gives them)",
          ("ipu", "INTEGER", "the tile's IPU (NULL where the report does not say)"),
          ("tile", "INTEGER", "the tile, from 0 over all IPUs"),
          ("bytes", "INTEGER", "bytes used, gaps included (archive.a: code + data + bss)"),
          ("bytes_excluding_gaps", "INTEGER", "bytes used without the gaps between variables (NULL: not given)"),
          ("always_live", "INTEGER", "always-live bytes (NULL: not given)"),
          ("not_always_live", "INTEGER", "not-always-live bytes at the tile's own peak (NULL: not given)"),
          ("over_limit", "INTEGER", "1 where bytes exceed the tile's memory, else 0 (NULL: no limit known)")),
    _view("tile_categories", "one row per tile and memory category with bytes (profile.pop)",
          ("ipu", "INTEGER", "the tile's IPU"),
          ("tile", "INTEGER", "the tile"),
          ("category", "TEXT", "the memory category, as the Memory screen names it"),
          ("bytes", "INTEGER", "the category's bytes on the tile")),
    _view("variables", "one row per lowered variable piece on a tile (profile.pop with autoReport.outputLoweredVars)",
          ("tile", "INTEGER", "the tile"),
          ("name", "TEXT", "the variable's name"),
          ("bytes", "INTEGER", "the piece's bytes on the tile"),
          ("category", "TEXT", "always-live or not-always-live (NULL where the reader gave no live steps)"),
          ("steps_live", "INTEGER", "the liveness steps the piece is live (NULL where not given)")),
    _view("programs", "one row per program, ids as the Programs screen shows them",
          ("id", "INTEGER", "the program's id"),
          ("name", "TEXT", "the program's name"),
          ("type", "TEXT", "the program's type"),
          ("parent", "INTEGER", "its first parent's id (NULL for a root)"),
          ("compute_set", "INTEGER", "compute_sets.id it executes (NULL: none)"),
          ("code_bytes", "INTEGER", "control code bytes, its children's included (NULL: not given)"),
          ("layer", "TEXT", "its top model layer, as layers.name (NULL: a parent program that never ran)")),
    _view("compute_sets", "one row per compute set",
          ("id", "INTEGER", "the compute set's id"),
          ("name", "TEXT", "the compute set's name"),
          ("layer", "TEXT", "the top model layer of the first program executing it (NULL: none placed)")),
    _view("layers", "one row per top model layer, as `pvtui operations --group layer` (host waits included, flagged)",
          ("name", "TEXT", "the model layer"),
          ("cycles", "INTEGER", "IPU-cycles of its programs' steps, every run (NULL: no execution profile)"),
          ("memory", "INTEGER", "code_bytes + variable_bytes (NULL: no code bytes given)"),
          ("code_bytes", "INTEGER", "code of its leaf programs (NULL: not given)"),
          ("variable_bytes", "INTEGER", "bytes of the variables its operations list (NULL: not given)"),
          ("steps", "INTEGER", "execution steps of its programs, every run"),
          ("operations", "INTEGER", "operations at or below it"),
          ("host", "INTEGER", "1 for the host waits (never ranked as a model layer), else 0")),
    _view("liveness", "one row per liveness step: memory over program steps",
          ("step", "INTEGER", "the liveness step, from 0"),
          ("program", "INTEGER", "the step's program: programs.id"),
          ("always_live", "INTEGER", "always-live bytes of the whole target (NULL: not given)"),
          ("not_always_live", "INTEGER", "not-always-live bytes at the step")),
)}

REPORT_COLUMN = Column("report", "TEXT", "the report's path as given on the command line")


def create_statement(schema: str, view: View, with_report: bool = False) -> str:
    columns = ([REPORT_COLUMN] if with_report else []) + list(view.columns)
    body = ", ".join(f'"{c.name}" {c.type}' for c in columns)
    return f'CREATE TABLE "{schema}"."{view.name}" ({body})'


def catalogue_data() -> list[dict]:
    """The views and their columns, as `--tables --format json` prints them."""
    return [{"view": view.name, "counts": view.doc,
             "columns": [{"name": c.name, "type": c.type, "counts": c.doc} for c in view.columns]}
            for view in VIEWS.values()]
