"""The debug contexts above a program (debug.cbor): their chain from the outermost down, and the debug
layers (popart, poplibs, ...) the program tree can name a program by, with the programs each layer names.

Apart from the flame view's nesting (model/flame.py), so that the Programs screen, which names by layer,
starts without importing the trace's model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from pvtui.model import schema as s

if TYPE_CHECKING:
    from pvtui.model.report import Report


def context_chain(report: Report, context_id: int) -> list[int]:
    """Rows of the debug contexts from the outermost down to CONTEXT_ID; [] when it is not in debug.cbor."""
    debug = report.debug
    if debug is None or context_id < 0:
        return []
    chain: list[int] = []
    seen: set[int] = set()
    while context_id >= 0 and context_id not in seen:
        seen.add(context_id)
        row = debug.index_of(context_id)
        if row < 0:
            break
        chain.append(row)
        context_id = int(debug.parent[row])
    return chain[::-1]


def layer_names(report: Report) -> list[str]:
    """The debug layers whose names the program tree can show (not the driver's own contexts)."""
    debug = report.debug
    return [] if debug is None else [name for name in debug.layer_names if name != "poplar_driver"]


def name_in_layer(report: Report, program: int, layer: str, memo: dict[int, str | None]) -> str | None:
    """The name of the innermost context of LAYER above PROGRAM's debug context (its operation there), or None."""
    context = report.programs.debug_context(program)
    if context not in memo:
        debug = report.debug
        rows = [row for row in context_chain(report, context) if debug.layer_names[int(debug.layer[row])] == layer]
        memo[context] = debug.names[rows[-1]] if rows else None
    return memo[context]


def programs_in_layer(report: Report, layer: str) -> np.ndarray:
    """Programs whose debug context, or a context above it, is of debug layer LAYER (those the tree can
    name by that layer's operation, name_in_layer), ascending. Pointer jumping over the contexts'
    parents: O(contexts x log depth), not a walk per program."""
    programs, debug = report.programs, report.debug
    contexts = None if programs is None else programs.opt(s.PROGRAM_DEBUG_CONTEXT)
    if contexts is None or debug is None or layer not in debug.layer_names or not len(debug):
        return np.zeros(0, dtype=np.int64)
    ids = np.asarray(debug.ids, dtype=np.int64)
    has = np.asarray(debug.layer) == debug.layer_names.index(layer)
    up = _rows_of(ids, np.asarray(debug.parent, dtype=np.int64))
    up = np.where(up < 0, np.arange(len(ids)), up)  # a root points at itself
    for _ in range(64):  # 2**64 levels; a cycle of parents (a damaged file) ends here too
        has = has | has[up]
        jumped = up[up]
        if np.array_equal(jumped, up):
            break
        up = jumped
    rows = _rows_of(ids, np.asarray(contexts, dtype=np.int64))
    return np.flatnonzero((rows >= 0) & has[np.maximum(rows, 0)])


def _rows_of(ids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The row of each context id of WANTED in the sorted IDS, -1 where it is not there."""
    rows = np.minimum(np.searchsorted(ids, wanted), len(ids) - 1)
    return np.where((wanted >= 0) & (ids[rows] == wanted), rows, -1)
