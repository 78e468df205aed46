"""What is on one tile (variables, compute sets, vertices, exchange code) and where one variable
lives: shared by `pvtui memory --tile/--variable` and the Memory screen's tabs.

Each table is a list of rows, or None when the report lacks the data; `why_missing` names
what would add it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from pvtui.model import schema as s
from pvtui.model.report import Report
from pvtui.model.tables import Table
from pvtui.model.navigators.memory import tile_memory

TILE_TABLES = ("variables", "compute_sets", "vertices", "exchanges")


class ComputeSetOnTile(NamedTuple):
    id: int  # the compute set's index (libpva's)
    name: str
    vertices: int  # vertex types
    instances: int
    state_bytes: int


class VertexTypeOnTile(NamedTuple):
    name: str
    instances: int
    state_bytes: int
    code_bytes: int


class ExchangeOnTile(NamedTuple):
    program_id: int
    program: str
    type: str
    code_bytes: int


def _rows(report: Report, offsets: str, tile: int, *columns: str) -> list[np.ndarray] | None:
    bundle = report.bundle
    if report.memory is None or not bundle.has(offsets):
        return None
    off = bundle.array(offsets)
    lo, hi = int(off[tile]), int(off[tile + 1])
    return [np.asarray(bundle.array(c)[lo:hi]) for c in columns]


def compute_sets_on_tile(report: Report, tile: int) -> list[ComputeSetOnTile] | None:
    """The compute sets with vertices on TILE, most vertex state first."""
    rows = _rows(report, s.TILE_CS_OFFSETS, tile, s.TILE_CS_SET, s.TILE_CS_VERTICES, s.TILE_CS_INSTANCES,
                 s.TILE_CS_STATE_BYTES)
    if rows is None or report.programs is None:
        return None
    names = report.programs.compute_set_names
    out = [ComputeSetOnTile(int(cs), names[int(cs)], int(v), int(n), int(b)) for cs, v, n, b in zip(*rows)]
    return sorted(out, key=lambda r: (-r.state_bytes, r.name))


def vertices_on_tile(report: Report, tile: int) -> list[VertexTypeOnTile] | None:
    """Vertex types on TILE: instances, state bytes and code bytes, most bytes first."""
    rows = _rows(report, s.TILE_VT_OFFSETS, tile, s.TILE_VT_TYPE, s.TILE_VT_INSTANCES, s.TILE_VT_STATE_BYTES)
    if rows is None or report.programs is None:
        return None
    names = report.programs.vertex_type_names
    code = dict(report.memory.vertices_of_tile(tile))
    types = {int(t): (int(n), int(b)) for t, n, b in zip(*rows)}
    out = [VertexTypeOnTile(names[t], *types.get(t, (0, 0)), int(code.get(t, 0))) for t in set(types) | set(code)]
    return sorted(out, key=lambda r: (-(r.state_bytes + r.code_bytes), r.name))


def exchanges_on_tile(report: Report, tile: int) -> list[ExchangeOnTile] | None:
    """Exchange code on TILE by program, largest first."""
    rows = _rows(report, s.TILE_EXCHANGE_OFFSETS, tile, s.TILE_EXCHANGE_PROGRAM, s.TILE_EXCHANGE_BYTES)
    if rows is None or report.programs is None:
        return None
    programs = report.programs
    out = [ExchangeOnTile(int(p), programs.names[int(p)], programs.type_name(int(p)), int(b)) for p, b in zip(*rows)]
    return sorted(out, key=lambda r: (-r.code_bytes, r.program))


def why_missing(report: Report, table: str) -> str:
    """One sentence: why TABLE ("variables", "compute_sets", "vertices", "exchanges") is absent."""
    if table == "variables":
        return report.missing("lowered")
    if report.memory is None:
        return report.missing("memory")
    return (f"This report's model holds no per-tile {table.replace('_', ' ')}: profile.pop read through libpva"
            " gives them (export the report again with this pvtui).")


def check_tile(report: Report, tile: int) -> None:
    memory = tile_memory(report)
    count = 0 if memory is None else memory.num_tiles
    if not 0 <= tile < count:
        raise LookupError(f"no tile {tile}: the report has tiles 0 to {count - 1}" if count
                          else f"no tile {tile}: the report has no per-tile memory")


def tile_report(report: Report, tile: int) -> dict[str, Any]:
    """The `pvtui memory --tile N --json` object; LookupError when there is no such tile."""
    check_tile(report, tile)
    memory = tile_memory(report)
    assert memory is not None
    tables = {name: tile_table(report, tile, name) for name in TILE_TABLES}
    return {
        "tile": tile,
        "ipu": memory.ipu_of(tile),
        **dict(zip(("including_gaps", "excluding_gaps"), memory.tile_totals(tile))),
        "limit": memory.limit,
        "categories": dict(memory.tile_categories(tile)),
        **{name: None if table is None else [dict(zip(table.columns, row)) for row in table.rows]
           for name, table in tables.items()},
        "missing": {name: why_missing(report, name) for name, table in tables.items() if table is None}
        | ({} if report.lowered is None or report.lowered.has_liveness
           else {"variable_liveness": report.missing("variable_liveness")}),
    }


def variable_report(report: Report, name: str) -> dict[str, Any]:
    """The `pvtui memory --variable NAME --json` object; LookupError when there is no such variable."""
    lowered = report.lowered
    if lowered is None:
        raise LookupError(f"no variable {name!r}: {report.missing('lowered')}")
    name_id = lowered.name_id(name)
    if name_id is None:
        raise LookupError(f"no variable named {name!r} among the lowered variables")
    by_tile = lowered.bytes_by_tile(name_id)
    return {
        "variable": name,
        "by_tile": by_tile.tolist(),
        "total": int(by_tile.sum()),
        "tiles": int(np.count_nonzero(by_tile)),
    }



def tile_table(report: Report, tile: int, table: str) -> Table | None:
    """One of TILE_TABLES for TILE as plain rows, largest first; None when the report lacks it."""
    if table == "variables":
        if report.lowered is None:
            return None
        variables = report.lowered.tile_variables(tile)
        if not report.lowered.has_liveness:  # profile.pop read without libpva
            rows = [[v.bytes, v.name, _context_name(report, v.debug_context)] for v in variables]
            return Table(f"tile{tile}-variables", ["bytes", "name", "debug_context"], rows)
        rows = [[v.bytes, v.always_live, v.steps_live, v.name, _context_name(report, v.debug_context)]
                for v in variables]
        return Table(f"tile{tile}-variables", ["bytes", "always_live", "steps_live", "name", "debug_context"], rows)
    if table == "compute_sets":
        sets = compute_sets_on_tile(report, tile)
        return None if sets is None else Table(
            f"tile{tile}-compute-sets", ["state_bytes", "instances", "vertices", "compute_set_id", "name"],
            [[c.state_bytes, c.instances, c.vertices, c.id, c.name] for c in sets])
    if table == "vertices":
        vertices = vertices_on_tile(report, tile)
        return None if vertices is None else Table(
            f"tile{tile}-vertices", ["instances", "state_bytes", "code_bytes", "name"],
            [[v.instances, v.state_bytes, v.code_bytes, v.name] for v in vertices])
    exchanges = exchanges_on_tile(report, tile)
    return None if exchanges is None else Table(
        f"tile{tile}-exchanges", ["code_bytes", "type", "program_id", "program"],
        [[e.code_bytes, e.type, e.program_id, e.program] for e in exchanges])


TILE_CONTENTS = (("variables", "variables"), ("compute sets", "compute_sets"), ("vertex types", "vertices"),
                 ("exchanges", "exchanges"))  # (what a comparison calls it, its table in tile_table)


def tile_contents(report: Report, tiles: list[int]) -> tuple[list[str], list[list[int | None]]]:
    """What is on each of TILES, as the tile detail's tables list it: a row per table of TILE_CONTENTS, each
    tile's count of entries in it (None where the report lacks the table)."""
    rows = []
    for _name, table in TILE_CONTENTS:
        found = [tile_table(report, tile, table) for tile in tiles]
        rows.append([None if each is None else sum(1 for _row in each.rows) for each in found])
    return [name for name, _table in TILE_CONTENTS], rows


def row_program(report: Report, table: str, row: dict[str, Any]) -> int | None:
    """The program a row of TABLE (a tile table, as column -> value) leads to: an exchange's own, or the
    first program that runs a compute set; None for other tables or where the report has no such program."""
    if table == "exchanges":
        return row.get("program_id")
    if table != "compute_sets" or report.programs is None or row.get("compute_set_id") is None:
        return None
    running = np.flatnonzero(np.asarray(report.programs.compute_set) == row["compute_set_id"])
    return int(running[0]) if len(running) else None


def _context_name(report: Report, context_id: int) -> str | None:
    """The name of a debug context, where debug.cbor holds it."""
    if context_id < 0 or report.debug is None:
        return None
    row = report.debug.index_of(context_id)
    return None if row < 0 else report.debug.names[row]
