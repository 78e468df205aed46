"""The tables of profile.pop that the public record shows, and how their columns are found at run time.

Evidence (reference/profile-pop-tables.md: one public analysis script that queried real
profile.pop files of Poplar SDK 3.x, and the notes written from it): the table names below and the
columns in `evidence`. Nothing else about the schema is public.

Our guesses, where the record is silent, are kept in `guessed`: which column of steps_by_ipu names
the IPU and which column of memory_by_tile names the tile (else a step's rows are its IPUs in order,
and memory_by_tile's rows are the tiles in order), how vars_info names its string in
vars_string_table and which columns of that table are the id and the text, and which column of
execution_cycle_totals is the total. A column is found by its name, in any case; a guessed one by a
pattern, and only when exactly one column matches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pvtui.sources.sqlite.database import Table

PROFILE = "profile.pop"


@dataclass(frozen=True)
class Known:
    """A table of the record: the columns seen in public queries, and those we look for by pattern."""

    evidence: tuple[str, ...]
    guessed: dict[str, str] = field(default_factory=dict)  # role -> regular expression over column names
    text: tuple[str, ...] = ()  # columns (evidence or guessed roles) read as text, not integers
    gives: str = ""


IPU = r"ipu(_?(id|index|num|number))?"
TILE = r"tile(_?(id|index|num|number))?"
KNOWN: dict[str, Known] = {
    "programs": Known(("id", "name"), text=("name",), gives="program names"),
    "compute_sets": Known(("compute_set", "name"), text=("name",), gives="compute set names"),
    "steps": Known(("id", "type", "program", "compute_set"), text=("type",), gives="execution steps"),
    "steps_by_ipu": Known(
        ("step_id", "cycles", "active_tiles", "cycles_base", "active_cycles_from_min", "active_cycles_to_max"),
        {"ipu": IPU}, gives="each step's cycles, active tiles, start and end on each IPU"),
    "vars_info": Known(("size_bytes", "category", "tile"), {"name": r".*(name|string|str).*"},
                       gives="variable pieces on tiles, and their memory categories"),
    "var_categories": Known(("id", "name"), text=("name",), gives="memory category names"),
    "vars_string_table": Known((), {"id": r"(string_?)?id|index", "string": r"string|name|value|text"},
                               text=("string",), gives="variable names"),
    "memory_by_tile": Known(("total",), {"tile": TILE}, gives="each tile's memory"),
    "execution_cycle_totals": Known((), {"total": r"total|cycles|total_cycles"}, gives="the report total"),
}


class Unusable(Exception):
    """A known table that cannot be read: the message is one line naming it and why."""


@dataclass(frozen=True)
class Found:
    """A known table as this file has it: the column chosen for each evidence name and guessed role."""

    table: Table
    columns: dict[str, str]  # evidence name or guessed role -> the file's column name

    def has(self, role: str) -> bool:
        return role in self.columns

    def __getitem__(self, role: str) -> str:
        return self.columns[role]


def find(tables: dict[str, Table], name: str) -> Found | None:
    """Known table NAME as the file has it, None when the file has no such table.

    Raises Unusable when an evidence column is missing or holds the wrong kind of values."""
    table = _table(tables, name)
    if table is None:
        return None
    known = KNOWN[name]
    columns: dict[str, str] = {}
    missing = []
    for column in known.evidence:
        found = table.column(column)
        if found is None:
            missing.append(column)
        else:
            columns[column] = found.name
    if missing:
        have = ", ".join(c.name for c in table.columns) or "none"
        raise Unusable(f"{PROFILE}: {table.name} not read: it has no column {', '.join(missing)} (its columns: "
                       f"{have}); an unknown schema, libpva needed")
    for role, pattern in known.guessed.items():
        matches = [c.name for c in table.columns if re.fullmatch(pattern, c.name, re.IGNORECASE)
                   and c.name not in columns.values()]
        if len(matches) == 1:
            columns[role] = matches[0]
    for role, column in columns.items():
        declared = table.column(column)
        if role not in known.text and declared is not None and not declared.holds_integers:
            raise Unusable(f"{PROFILE}: {table.name} not read: its column {column} is declared"
                           f" {declared.declared}, not whole numbers; an unknown schema, libpva needed")
    return Found(table, columns)


def _table(tables: dict[str, Table], name: str) -> Table | None:
    return next((t for key, t in tables.items() if key.lower() == name), None)


def known_present(tables: dict[str, Table]) -> list[str]:
    """The known tables this file has, in the record's order."""
    return [name for name in KNOWN if _table(tables, name) is not None]


def describe_known(tables: dict[str, Table]) -> str:
    """In words, which known tables are present, and any the native reader cannot use: what `pvtui check`
    says of a profile.pop."""
    present = known_present(tables)
    absent = [name for name in KNOWN if name not in present]
    if not present:
        return f"none of the {len(KNOWN)} tables the public record shows (the native reader needs them; libpva reads any)"
    if absent:
        said = f"{len(present)} of the {len(KNOWN)} tables the public record shows (absent: {', '.join(absent)})"
    else:
        said = f"all {len(KNOWN)} tables the public record shows"
    unusable = []
    for name in present:
        try:
            find(tables, name)
        except Unusable as exc:
            unusable.append(str(exc).removeprefix(f"{PROFILE}: "))
    return "; ".join([said, *unusable])
