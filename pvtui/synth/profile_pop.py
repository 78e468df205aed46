"""A synthetic report's profile.pop: a real SQLite database of the tables the public record shows.

Graphcore never published profile.pop's schema (reference/profile-pop-tables.md). What one public
analysis script queried is evidence; the rest is our guess, kept apart here:

| table | columns: evidence | columns: our guess |
|---|---|---|
| programs | id, name | ids from 1, as libpva's `_id` |
| compute_sets | compute_set (libpva's index), name | |
| steps | id, type (the program's type), program, compute_set | ids from 1; compute_set NULL for no set |
| steps_by_ipu | step_id, cycles, active_tiles, cycles_base, active_cycles_from_min, active_cycles_to_max | `ipu`; a row for every IPU, an idle one with no active tiles and NULL cycles |
| vars_info | size_bytes, category (var_categories.id), tile | `name` (vars_string_table.id); rows for code and data too |
| var_categories | id, name | |
| vars_string_table | | id, string |
| memory_by_tile | total (including gaps) | `tile` |
| execution_cycle_totals | | one row, `total` |

Every value comes from the same truth as the libpva stand-in's. vars_info holds a row per program
and tile for exchange and control code, per vertex type and tile for vertex code and state, per tile
for the other code and data categories, and a row per lowered variable piece (always-live ones, and
not-always-live ones whether or not they are live at the same time). Liveness, the program tree,
runs, tile balance, data moved, per-tile cycles and the target are in none of the tables the record
shows, so they are not here either: the stand-in (and profile.pvtui) carry them.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator

import numpy as np

from pvtui.synth.arrays import expand_ranges
from pvtui.synth.graph import EXCHANGE_CATEGORY, VERTEX_TYPE_NAMES
from pvtui.synth.memory import CATEGORIES, DATA_CATEGORIES, SYSTEM_VARIABLES

if TYPE_CHECKING:
    from pvtui.synth.model import SyntheticReport

ID_BASE = 1  # programs.id and steps.id, as the stand-in's `_id`
ROWS_PER_INSERT = 200_000
VARIABLE_CATEGORY = "variable"
SCHEMA = (
    "CREATE TABLE programs (id INTEGER PRIMARY KEY, name TEXT)",
    "CREATE TABLE compute_sets (compute_set INTEGER PRIMARY KEY, name TEXT)",
    "CREATE TABLE steps (id INTEGER PRIMARY KEY, type TEXT, program INTEGER, compute_set INTEGER)",
    "CREATE TABLE steps_by_ipu (step_id INTEGER, ipu INTEGER, cycles INTEGER, active_tiles INTEGER,"
    " cycles_base INTEGER, active_cycles_from_min INTEGER, active_cycles_to_max INTEGER)",
    "CREATE TABLE var_categories (id INTEGER PRIMARY KEY, name TEXT)",
    "CREATE TABLE vars_string_table (id INTEGER PRIMARY KEY, string TEXT)",
    "CREATE TABLE vars_info (tile INTEGER, category INTEGER, size_bytes INTEGER, name INTEGER)",
    "CREATE TABLE memory_by_tile (tile INTEGER, total INTEGER)",
    "CREATE TABLE execution_cycle_totals (total INTEGER)",
)


def write_profile_pop(truth: SyntheticReport, path: Path) -> None:
    """PATH as an SQLite database of the tables above, written aside and renamed into place."""
    path = Path(path)
    scratch = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    scratch.unlink(missing_ok=True)
    try:
        with sqlite3.connect(scratch) as db:
            db.execute("PRAGMA journal_mode = OFF")
            db.execute("PRAGMA synchronous = OFF")
            for statement in SCHEMA:
                db.execute(statement)
            _write_graph(db, truth)
            _write_steps(db, truth)
            _write_memory(db, truth)
        db.close()
        os.replace(scratch, path)
    except BaseException:
        scratch.unlink(missing_ok=True)
        raise


def _insert(db: sqlite3.Connection, table: str, columns: Iterable[np.ndarray | list]) -> None:
    """Rows made of COLUMNS (equal lengths), inserted a batch at a time; None is NULL."""
    columns = list(columns)
    count = len(columns[0])
    marks = ", ".join("?" * len(columns))
    for lo in range(0, count, ROWS_PER_INSERT):
        hi = min(count, lo + ROWS_PER_INSERT)
        batch = [c[lo:hi].tolist() if isinstance(c, np.ndarray) else c[lo:hi] for c in columns]
        db.executemany(f"INSERT INTO {table} VALUES ({marks})", zip(*batch))


def _write_graph(db: sqlite3.Connection, truth: SyntheticReport) -> None:
    g = truth.graph
    _insert(db, "programs", [np.arange(g.num_programs) + ID_BASE, g.program_name])
    _insert(db, "compute_sets", [np.arange(len(g.compute_set_name)), g.compute_set_name])


def _write_steps(db: sqlite3.Connection, truth: SyntheticReport) -> None:
    g, e = truth.graph, truth.execution
    program = e.program.astype(np.int64)
    types = np.array(g.program_type_names, dtype=object)[g.program_type[program]]
    compute_set = g.program_compute_set[program]
    ids = np.arange(e.num_steps) + ID_BASE
    _insert(db, "steps", [ids, list(types), program + ID_BASE,
                          [None if cs < 0 else cs for cs in compute_set.tolist()]])
    x, ipus = e.cycles.shape
    active = e.cycles_from >= 0
    base = np.where(active, e.cycles_from, np.iinfo(np.int64).max).min(axis=1, keepdims=True)
    tpi = truth.scale.tiles_per_ipu
    ipu_lo = np.arange(ipus) * tpi
    lo, hi = g.program_lo[program].astype(np.int64)[:, None], g.program_hi[program].astype(np.int64)[:, None]
    active_tiles = np.clip(np.minimum(hi, ipu_lo + tpi) - np.maximum(lo, ipu_lo), 0, None)

    def nullable(values: np.ndarray) -> list:
        return [v if on else None for v, on in zip(values.ravel().tolist(), active.ravel().tolist())]

    _insert(db, "steps_by_ipu", [
        np.repeat(ids, ipus), np.tile(np.arange(ipus), x), e.cycles.ravel(), active_tiles.ravel(),
        nullable(np.broadcast_to(base, (x, ipus))), nullable(e.cycles_from - base), nullable(e.cycles_to - base),
    ])
    _insert(db, "execution_cycle_totals", [[e.total_cycles]])


class _Strings:
    """vars_string_table: each distinct name once, by id."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def __call__(self, names: Iterable[str]) -> np.ndarray:
        return np.array([self.ids.setdefault(name, len(self.ids)) for name in names], np.int64)


def _write_memory(db: sqlite3.Connection, truth: SyntheticReport) -> None:
    m = truth.memory
    num_tiles = truth.num_tiles
    _insert(db, "var_categories", [np.arange(len(CATEGORIES)), list(CATEGORIES)])
    strings = _Strings()
    for tile, category, size, name in _pieces(truth, strings):
        _insert(db, "vars_info", [tile, np.full(len(tile), CATEGORIES.index(category)), size, name])
    _insert(db, "vars_string_table", [np.arange(len(strings.ids)), list(strings.ids)])
    _insert(db, "memory_by_tile", [np.arange(num_tiles), m.including_gaps])


def _pieces(truth: SyntheticReport, strings: _Strings) -> Iterator[tuple[np.ndarray, str, np.ndarray, np.ndarray]]:
    """(tiles, category, bytes, name ids) of vars_info's rows, a category at a time."""
    g, m, low = truth.graph, truth.memory, truth.lowered
    num_tiles = truth.num_tiles
    program_names = strings(g.program_name)
    types = np.array(g.program_type_names)[g.program_type]
    code = [(category, (types == type_name) & (g.exchange_per_tile > 0), g.exchange_per_tile)
            for type_name, category in EXCHANGE_CATEGORY.items()]
    code.append(("controlCode", g.control_per_tile > 0, g.control_per_tile))
    for category, chosen, per_tile in code:
        programs = np.flatnonzero(chosen)
        rows, tiles = expand_ranges(g.program_lo[programs], g.program_hi[programs])
        yield tiles, category, per_tile[programs][rows], program_names[programs][rows]
    vertex_tiles = np.repeat(np.arange(num_tiles), np.diff(m.vertex_offsets))
    vertex_names = strings(VERTEX_TYPE_NAMES)[m.vertex_type]
    yield vertex_tiles, "vertexCode", m.vertex_code, vertex_names
    yield vertex_tiles, "vertexInstanceState", m.vertex_state, vertex_names
    every_tile = np.arange(num_tiles)
    for category in (c for c in DATA_CATEGORIES if c != "vertexInstanceState"):
        yield every_tile, category, m.category(category), strings([category])[np.zeros(num_tiles, np.int64)]
    names = np.array(low.class_name, dtype=object)[low.piece_class]
    system = np.isin(names, list(SYSTEM_VARIABLES))
    name_ids = strings(low.class_name)[low.piece_class]
    yield low.piece_tile[~system], VARIABLE_CATEGORY, low.piece_bytes[~system], name_ids[~system]
    for name in SYSTEM_VARIABLES:
        own = names == name
        yield low.piece_tile[own], name, low.piece_bytes[own], name_ids[own]
