"""What each column of indices refers to, checked as a bundle maps it (Bundle.array); and how many rows each
column has, against the others of its table (schema.SHAPES), and what numbers it holds, checked from the
headers as it opens.

A bundle may come from anyone: an index beyond what it refers to would be an IndexError in a view, and a
huge one a count of gigabytes (np.bincount); a column shorter than its table, an IndexError or a broadcast
error; floats where indices are, a TypeError. A column that breaks its rule is damaged, said once with its
file, as a column with a damaged header is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np

from pvtui.errors import ReportError
from pvtui.model import schema as s

# column: (its lowest value, the column (or string table) it indexes: values below its length). Not
# steps.program: a step may name a program the table does not hold, and the views say so
# (model/queries.py unknown_program)
INDICES: dict[str, tuple[int, str]] = {
    s.TILE_VERTEX_TYPE: (0, s.VERTEX_TYPE_STATE_BYTES),
    s.PROGRAM_PARENT: (-1, s.PROGRAM_TYPE),
    s.PROGRAM_CHILDREN: (0, s.PROGRAM_TYPE),
    s.PROGRAM_ROOTS: (0, s.PROGRAM_TYPE),
    s.PROGRAM_COMPUTE_SET: (-1, s.COMPUTE_SET_NAME),
    s.COMPUTE_SET_VERTEX_TYPE: (0, s.VERTEX_TYPE_STATE_BYTES),
    s.TILE_CS_SET: (0, s.COMPUTE_SET_NAME),
    s.TILE_VT_TYPE: (0, s.VERTEX_TYPE_STATE_BYTES),
    s.TILE_EXCHANGE_PROGRAM: (0, s.PROGRAM_TYPE),
    s.INTERVAL_VARIABLE: (0, s.VARIABLE_BYTES),
    s.LOWERED_NAME: (0, s.LOWERED_NAMES),
    s.LOWERED_NAME_PIECES: (0, s.LOWERED_TILE),
    s.LOWERED_CLASS: (0, s.LOWERED_CLASS_STEPS),
    s.BSP_STEP: (0, s.STEP_PROGRAM),
    s.OPERATION_PROGRAMS: (0, s.PROGRAM_TYPE),
}
# column: the column it is the offsets of (CSR): rising, from 0 to that column's length
OFFSETS: dict[str, str] = {
    s.TILE_VERTEX_OFFSETS: s.TILE_VERTEX_TYPE,
    s.PROGRAM_CHILD_OFFSETS: s.PROGRAM_CHILDREN,
    s.COMPUTE_SET_VERTEX_OFFSETS: s.COMPUTE_SET_VERTEX_TYPE,
    s.TILE_CS_OFFSETS: s.TILE_CS_SET,
    s.TILE_VT_OFFSETS: s.TILE_VT_TYPE,
    s.TILE_EXCHANGE_OFFSETS: s.TILE_EXCHANGE_PROGRAM,
    s.LOWERED_TILE_OFFSETS: s.LOWERED_TILE,
    s.LOWERED_NAME_OFFSETS: s.LOWERED_NAME_PIECES,
    s.LOWERED_CLASS_OFFSETS: s.LOWERED_CLASS_START,
    s.RUN_STEP_OFFSETS: s.STEP_PROGRAM,
    s.OPERATION_PROGRAM_OFFSETS: s.OPERATION_PROGRAMS,
}
# columns of liveness steps: from 0 to the number of steps (an end is exclusive)
STEPS = (s.INTERVAL_START, s.INTERVAL_END)
# columns of codes, and their lowest (-1: none); their names are meta.json's, and a code with none is named
# so (model/part.py)
CODES = {s.PROGRAM_TYPE: 0, s.DEBUG_LAYER: -1, s.DEBUG_CATEGORY: -1}
REFERENCE_RULES = {*INDICES, *OFFSETS, *STEPS, *CODES}  # the columns a rule covers


# the numbers each column holds (numpy's kind of type): signed integers of any size, but for these, and a string
# table's blob (bytes); the views compute with them as such (a float is no index, true or false no count)
KINDS = {s.STEP_TILE_BALANCE: "f", s.STEP_ACTIVE_TILE_BALANCE: "f", s.PROGRAM_FIGURES + "several_ipus": "b"}
PART_PREFIXES = tuple(s.COLUMN_PARTS)
KIND_WORDS = {"i": "signed integers", "u": "unsigned integers", "f": "floats", "b": "true or false", "u1": "bytes"}


def kind_damage(descrs: dict[str, str]) -> dict[str, str]:
    """The columns of the schema's parts among DESCRS (their headers' types, as "<i8") that do not hold the
    numbers they do (KINDS), each with its problem."""
    damage = {}
    for name, descr in descrs.items():
        if not name.startswith(PART_PREFIXES):
            continue  # of no part: no view reads it
        due = "u1" if name.endswith(".blob") else KINDS.get(name, "i")
        if not descr[1:].startswith(due):
            damage[name] = f"holds {KIND_WORDS[descr[1]]} of {descr[2:]} bytes, where it holds {KIND_WORDS[due]}"
    return damage


def length_damage(shapes: dict[str, tuple[int, ...]]) -> dict[str, str]:
    """The columns among SHAPES (their headers' shapes) whose dimensions are not what schema.SHAPES says of
    them, each with its problem: the first column (in schema.SHAPES's order) with a letter gives its count."""
    counts: dict[str, tuple[int, str]] = {}  # a letter's count, and the column that gave it
    damage = {}
    for name, dims in s.SHAPES.items():
        shape = shapes.get(name)
        if shape is None:
            continue
        if len(shape) != len(dims):
            damage[name] = f"{len(shape)} dimensions, where it has {len(dims)}"
            continue
        given = {}  # the counts this column gives, once it is seen whole
        for axis, (dim, size) in enumerate(zip(dims, shape)):
            if dim is None:
                continue
            letter, _, more = dim.partition("+")
            extra = int(more or 0)
            if letter.isdigit():
                due, source = int(letter), ""
            elif letter in counts:
                count, given_by = counts[letter]
                due, source = count + extra, f" ({given_by}.npy has {count:,})"
            elif size >= extra:
                given[letter] = (size - extra, name)
                continue
            else:
                due, source = extra, ""
            if size != due:
                what = ("rows", "columns")[min(axis, 1)]
                damage[name] = f"{size:,} {what}, where {due:,} {'is' if due == 1 else 'are'} due{source}"
                break
        else:
            counts.update(given)
    return damage


def check_references(name: str, path: Path, values: np.ndarray, count: Callable[[str], int | None]) -> None:
    """Raise ReportError where column NAME's VALUES (its file at PATH) break its rule. COUNT gives a column's
    (or string table's) length, None where the bundle has none."""
    if name in OFFSETS:
        lowest, bound, past_end = 0, count(OFFSETS[name]), 1
    elif name in INDICES:
        lowest, bound, past_end = INDICES[name][0], count(INDICES[name][1]), 0
    elif name in STEPS:
        lowest, bound, past_end = 0, count(s.LIVENESS_PROGRAM), 1
    elif name in CODES:
        lowest, bound, past_end = CODES[name], None, 0
    else:
        return
    if not values.size:
        return
    low, high = int(values.min()), int(values.max())
    if low < lowest or (bound is not None and high >= bound + past_end):
        within = f"{lowest} to {bound + past_end - 1}" if bound is not None else f"{lowest} or more"
        raise ReportError(path, f"damaged column: values from {low} to {high}, where they are {within}")
    if name in OFFSETS and bool((np.diff(values) < 0).any()):
        raise ReportError(path, "damaged column: offsets that fall")
    if name in OFFSETS and bound is not None and (int(values[0]) != 0 or high != bound):
        raise ReportError(path, f"damaged column: offsets from {int(values[0])} to {high}, where they run from 0 to "
                                f"{bound}, the length of {OFFSETS[name]}.npy")
