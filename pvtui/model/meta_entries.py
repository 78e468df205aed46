"""The entries of a bundle's meta.json that the model reads, and the type each must have.

meta.json is read from disk, and a bundle may come from anyone (an export, a copy beside a report):
an entry of another type makes the bundle damaged, said once when it is opened, rather than a
traceback wherever a view reads it. Absent entries are the model's to default; entries not listed
here are read with their own checks (the kept figures) or not at all.
"""

from __future__ import annotations

import math
from typing import Any, Callable

LARGEST_COUNT = 2**63  # a count (bytes, cycles, tiles) beyond int64 is no report's, and numpy cannot take it


def _names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _table(value: Any) -> bool:
    return isinstance(value, dict)


def _count(value: Any) -> bool:
    return value is None or isinstance(value, int) and not isinstance(value, bool) and 0 <= value < LARGEST_COUNT


def _text(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _flag(value: Any) -> bool:
    return value is None or isinstance(value, bool)


def _frequency(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
                             and 0 < value < LARGEST_COUNT)


ENTRIES: dict[str, Callable[[Any], bool]] = {
    "columns": _names, "parts": _names, "notes": _names, "being_read": _names,
    "files": _table, "readers": _table, "name": _text, "poplar_version": _text, "compute_sets": _count,
    "instrumentation": lambda value: value is None or _table(value),
    "target": _table, "target.type": _text, "target.architecture": _text, "target.clock_hz": _frequency,
    **{f"target.{key}": _count for key in ("num_ipus", "tiles_per_ipu", "num_tiles", "bytes_per_tile",
                                           "num_replicas", "ipus_per_replica")},
    "archive": _table, "archive.members": _count, "archive.unusable": _count,
    "memory": _table, "memory.categories": _names,
    "liveness": _table, "liveness.always_live_bytes": _count,
    "programs": _table, "programs.types": _names, "programs.tree": _flag, "programs.count": _count,
    "execution": _table, "execution.runs": _flag, "execution.total_cycles": _count,
    "lowered": _table, "lowered.named": _flag, "lowered.steps": _count,
    "debug": _table, "debug.layers": _names, "debug.categories": _names, "debug.contexts": _count,
}


def damaged_entry(meta: dict[str, Any]) -> str | None:
    """The first entry of META (ENTRIES, by dotted name) present with a value of another type, else None."""
    for name, fits in ENTRIES.items():
        within, _, key = name.rpartition(".")
        holder = meta.get(within) if within else meta
        if isinstance(holder, dict) and key in holder and not fits(holder[key]):
            return name
    return None
