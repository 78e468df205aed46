"""Insights: how full the target is, where the memory goes, and what would free some of it.

`insights(report)` is one JSON-ready object with a key per section. A section the report cannot fill
is an Unavailable saying why, and the others stand; each that it fills has `available` true.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import numpy as np

from pvtui.errors import Cancelled
from pvtui.model import schema as s
from pvtui.model.queries import step_program_name
from pvtui.model.report import Report
from pvtui.model.navigators.memory import TileMemory, tile_memory
from pvtui.model.unavailable import Unavailable
from pvtui.units import count_of

FULLEST = 5  # tiles in the fullest-tiles table, and the worst tiles of the liveness section
HISTOGRAM_BINS = 20  # bins of the JSON histogram; the screen draws one per column
LISTED = 10  # variables listed for the model's peak
LISTED_AT_STEP = 3  # model-wide variables listed beside an IPU's or a tile's peak
VERTEX_TYPES = 5  # vertex types listed by state and by code
SUGGESTED_VARIABLES = 3  # peak variables whose removal is costed
FP32 = "FLOAT"  # popart's elementType name for 32-bit floats
ROWS_PER_READ = 2_000  # liveness steps read at a time from the per-tile table

IPU_UNKNOWN = "IPU unknown: the report does not say which IPU each tile is on (profile.pop would)."
NOT_PER_TILE = (
    "The report does not say which variables live on which IPU or tile: the variables listed"
    " beside an IPU's or a tile's peak are the whole model's at that step."
)


def insights(report: Report, cancelled: Callable[[], bool] = lambda: False) -> dict[str, Any]:
    """Every section; raises Cancelled when CANCELLED turns true during a long read."""
    memory = tile_memory(report)
    fullest = fullest_tiles(report, memory)
    tiles = [] if isinstance(fullest, Unavailable) else [row["tile"] for row in fullest["tiles"]]
    live = liveness(report, tiles, cancelled)
    return {
        "report": report.name,
        "capacity": capacity(report, memory),
        "fullest_tiles": fullest,
        "histogram": histogram(report, memory, HISTOGRAM_BINS),
        "vertices": vertices(report),
        "liveness": live,
        "suggestions": suggestions(report, memory, live),
    }


def _no_tiles(report: Report) -> Unavailable:
    if report.memory is None and report.archive is None:
        return Unavailable(report.missing("memory"))
    return Unavailable("The report lists no tiles.")


def _share(part: int, whole: int | None) -> float | None:
    return part / whole if whole else None


def capacity(report: Report, memory: TileMemory | None) -> dict[str, Any] | Unavailable:
    """In capacity or out of memory, with the share of memory used, overall and per IPU."""
    if memory is None or memory.num_tiles == 0:
        return _no_tiles(report)
    values, limit = memory.including_gaps, memory.limit
    over = values > limit if limit else np.zeros(len(values), bool)
    per_ipu = []
    for ipu in memory.ipus:
        on_ipu = memory.ipu == ipu
        used = int(values[on_ipu].sum())
        whole = limit * int(on_ipu.sum()) if limit else None
        per_ipu.append({"ipu": ipu, "used_bytes": used, "capacity_bytes": whole, "proportion": _share(used, whole),
                        "tiles_over_limit": int(over[on_ipu].sum())})
    used = int(values.sum())
    whole = limit * memory.num_tiles if limit else None
    status = None if not limit else "out of memory" if over.any() else "in capacity"
    return {
        "available": True,
        "source": memory.source,
        "status": status,
        "status_reason": None if limit else "The report does not give the memory of a tile, so no limit to compare with.",
        "bytes_per_tile": limit,
        "used_bytes": used,
        "capacity_bytes": whole,
        "proportion": _share(used, whole),
        "tiles_over_limit": int(over.sum()),
        "bytes_over_limit": int((values[over] - limit).sum()) if limit else 0,
        "per_ipu": per_ipu,
        "per_ipu_reason": None if memory.ipu_known else IPU_UNKNOWN,
    }


def fullest_tiles(report: Report, memory: TileMemory | None, count: int = FULLEST) -> dict[str, Any] | Unavailable:
    """The COUNT tiles with the most bytes (including gaps), with their largest categories."""
    if memory is None or memory.num_tiles == 0:
        return _no_tiles(report)
    values, limit = memory.including_gaps, memory.limit
    order = np.argsort(-values, kind="stable")[:count]
    tiles = []
    for tile in order.tolist():
        total = int(values[tile])
        tiles.append({
            "tile": tile, "ipu": memory.ipu_of(tile), "bytes": total, "proportion": _share(total, limit),
            "over_by": max(total - limit, 0) if limit else None,
            "categories": [{"name": name, "bytes": b} for name, b in memory.tile_categories(tile)[:3]],
        })
    return {"available": True, "source": memory.source, "bytes_per_tile": limit, "tiles": tiles}


def histogram(report: Report, memory: TileMemory | None, bins: int) -> dict[str, Any] | Unavailable:
    """Tiles counted by their bytes in BINS equal bins from the emptiest tile to the fullest
    (or to the limit, when no tile reaches it)."""
    if memory is None or memory.num_tiles == 0:
        return _no_tiles(report)
    values, limit = memory.including_gaps, memory.limit
    lo = int(values.min())
    hi = max(int(values.max()), limit or 0, lo + 1)
    try:
        counts, edges = np.histogram(values, bins=max(bins, 1), range=(lo, hi))
    except ValueError:  # bins of no width in float64: every tile's count of bytes alike, and beyond 2**53
        return Unavailable(f"The tiles' bytes, {lo:,} to {hi:,}, are too large to count in bins: the report is"
                           " damaged.")
    return {"available": True, "source": memory.source, "bytes_per_tile": limit,
            "edges": [int(e) for e in edges], "counts": counts.tolist()}


def vertices(report: Report) -> dict[str, Any]:
    """The vertex types with the most state (over all instances) and the most code (over all tiles)."""
    return {"available": True, "state": _vertex_state(report), "code": _vertex_code(report)}


def _vertex_state(report: Report) -> dict[str, Any] | Unavailable:
    programs = report.programs
    if programs is None:
        return Unavailable(report.missing("programs"))
    if programs.opt(s.COMPUTE_SET_VERTEX_OFFSETS) is None:
        return Unavailable("The profile does not list the vertices of its compute sets.")
    each = np.asarray(programs.vertex_state_bytes, dtype=np.int64)
    instances = np.bincount(np.asarray(programs.col(s.COMPUTE_SET_VERTEX_TYPE), dtype=np.int64),
                            weights=np.asarray(programs.col(s.COMPUTE_SET_VERTEX_COUNT)),
                            minlength=len(each))[: len(each)].astype(np.int64)
    total = instances * each
    order = np.argsort(-total, kind="stable")[:VERTEX_TYPES]
    names = programs.vertex_type_names
    return {"available": True, "total_bytes": int(total.sum()), "types": [
        {"name": names[t], "state_bytes": int(each[t]), "instances": int(instances[t]), "total_bytes": int(total[t])}
        for t in order.tolist() if total[t] > 0
    ]}


def _vertex_code(report: Report) -> dict[str, Any] | Unavailable:
    memory = report.memory
    if memory is None:
        return Unavailable(report.missing("memory"))
    if memory.opt(s.TILE_VERTEX_OFFSETS) is None or report.programs is None:
        return Unavailable("The profile does not list the vertices of each tile.")
    names = report.programs.vertex_type_names
    types = np.asarray(memory.col(s.TILE_VERTEX_TYPE), dtype=np.int64)
    code = np.asarray(memory.col(s.TILE_VERTEX_CODE), dtype=np.int64)
    total = np.bincount(types, weights=code, minlength=len(names)).astype(np.int64)
    tiles = np.bincount(types, minlength=len(names))
    largest = np.zeros(len(total), np.int64)
    np.maximum.at(largest, types, code)
    order = np.argsort(-total, kind="stable")[:VERTEX_TYPES]
    return {"available": True, "total_bytes": int(total.sum()), "types": [
        {"name": names[t] if t < len(names) else f"vertex type {t}", "code_bytes": int(total[t]),
         "tiles": int(tiles[t]), "largest_on_a_tile": int(largest[t])}
        for t in order.tolist() if total[t] > 0
    ]}


def _named(report: Report, pairs: list[tuple[int, int]]) -> list[dict[str, Any]]:
    names = report.liveness.variable_names
    return [{"name": names[v], "bytes": int(b)} for v, b in pairs]


def liveness(report: Report, worst_tiles: list[int], cancelled: Callable[[], bool]) -> dict[str, Any] | Unavailable:
    """The peak of not-always-live memory for the model, each IPU and the WORST_TILES."""
    live = report.liveness
    if live is None or len(live) == 0:
        return Unavailable(report.missing("liveness"))
    peak = live.peak_step
    at_peak = live.live_variables(peak)
    sizes = np.asarray(live.always_live_sizes, dtype=np.int64)
    order = np.argsort(-sizes, kind="stable")[:LISTED]
    peak_bytes = int(live.not_always_live[peak])
    always = live.always_live_bytes
    model = {
        "peak_step": peak,
        "peak_step_name": step_program_name(report, int(live.program[peak])),
        "not_always_live_bytes": peak_bytes,
        "always_live_bytes": always,
        "total_bytes": None if always is None else always + peak_bytes,
        "not_always_live_variables": {
            "count": len(at_peak), "bytes": int(sum(b for _, b in at_peak)), "largest": _named(report, at_peak[:LISTED]),
        },
        "always_live_variables": {
            "count": len(sizes), "bytes": int(sizes.sum()),
            "unnamed_bytes": None if always is None else always - int(sizes.sum()),
            "largest": [{"name": live.always_live_names[v], "bytes": int(sizes[v])} for v in order.tolist()],
        },
    }
    return {"available": True, "steps": len(live), "model": model, "per_ipu": _ipu_peaks(report),
            "worst_tiles": _tile_peaks(report, worst_tiles, cancelled), "variables_note": NOT_PER_TILE}


def _step_entry(report: Report, step: int, peak_bytes: int) -> dict[str, Any]:
    live = report.liveness
    return {
        "peak_step": step,
        "peak_step_name": step_program_name(report, int(live.program[step])),
        "not_always_live_bytes": peak_bytes,
        "model_variables_at_step": _named(report, live.live_variables(step)[:LISTED_AT_STEP]),
    }


def _ipu_peaks(report: Report) -> dict[str, Any] | Unavailable:
    by_ipu = report.liveness.by_ipu
    if by_ipu is None:
        return Unavailable("This report has no liveness per IPU: profile.pop gives it per step for each IPU.")
    table = np.asarray(by_ipu)
    always = None
    if report.memory is not None and report.memory.always_live is not None:
        ipu = np.asarray(report.memory.ipu, dtype=np.int64)
        known = (ipu >= 0) & (ipu < table.shape[1])  # a tile of no known IPU is in no IPU's sum
        always = np.bincount(ipu[known], weights=np.asarray(report.memory.always_live)[known],
                             minlength=table.shape[1])
    ipus = []
    for ipu in range(table.shape[1]):
        step = int(np.argmax(table[:, ipu]))
        entry = {"ipu": ipu, **_step_entry(report, step, int(table[step, ipu]))}
        entry["always_live_bytes"] = None if always is None else int(always[ipu])
        ipus.append(entry)
    return {"available": True, "ipus": ipus}


def column_peaks(table: np.ndarray, columns: list[int], cancelled: Callable[[], bool]) -> tuple[np.ndarray, np.ndarray]:
    """(step, bytes) of the largest value of each of COLUMNS, read ROWS_PER_READ rows at a time."""
    best = np.full(len(columns), -1, np.int64)
    steps = np.zeros(len(columns), np.int64)
    for lo in range(0, table.shape[0], ROWS_PER_READ):
        if cancelled():
            raise Cancelled()
        block = np.asarray(table[lo : lo + ROWS_PER_READ][:, columns], dtype=np.int64)
        rows = block.argmax(axis=0)
        values = block[rows, np.arange(len(columns))]
        better = values > best
        best[better], steps[better] = values[better], lo + rows[better]
    return steps, best


def _tile_peaks(report: Report, tiles: list[int], cancelled: Callable[[], bool]) -> dict[str, Any] | Unavailable:
    by_tile = report.liveness.by_tile
    if by_tile is None:
        return Unavailable(report.missing("liveness_tiles"))
    if not tiles:
        return _no_tiles(report)
    steps, peaks = column_peaks(by_tile, tiles, cancelled)
    memory = report.memory
    rows = []
    for tile, step, peak in zip(tiles, steps.tolist(), peaks.tolist()):
        entry = {"tile": tile, **_step_entry(report, step, peak)}
        entry["ipu"] = None if memory is None else int(memory.ipu[tile])
        entry["always_live_bytes"] = None if memory is None else int(memory.always_live[tile])
        rows.append(entry)
    return {"available": True, "tiles": rows}


# Suggestions ---------------------------------------------------------------------


def _suggestion(kind: str, text: str, saving: int | None, assumption: str, needs: str | None = None) -> dict:
    return {"kind": kind, "text": text, "saving_bytes": saving, "assumption": assumption, "needs": needs}


def _finding(kind: str, text: str, needs: str | None = None) -> dict:
    """What was looked for and not found, or could not be looked for: no saving to offer."""
    return {"kind": kind, "text": text, "needs": needs}


def suggestions(report: Report, memory: TileMemory | None, live: dict[str, Any] | Unavailable) -> dict[str, Any]:
    """`items`: what would free memory, each with its estimated saving in bytes and the assumption
    behind it; `findings`: what was looked for without finding anything to suggest."""
    items, findings = [], []
    if memory is not None and memory.limit:
        items.extend(_fit(memory))
    if not isinstance(live, Unavailable):
        fp32 = _fp32(report, live["model"])
        (items if "saving_bytes" in fp32 else findings).append(fp32)
        items.extend(_shorter_lives(report))
    else:
        findings.append(_finding("liveness", "Variables were not looked at: the report has no liveness.",
                                 live.reason))
    return {"available": True, "items": items, "findings": findings}


def _fit(memory: TileMemory) -> list[dict]:
    values, limit = memory.including_gaps, memory.limit
    over = np.flatnonzero(values > limit)
    if not len(over):
        return []
    worst = int(over[np.argmax(values[over])])
    ipu = memory.ipu_of(worst)
    excess = int((values[over] - limit).sum())
    others = f" and {count_of(len(over) - 1, 'more tile', 'more tiles')}" if len(over) > 1 else ""
    return [_suggestion(
        "fit",
        f"Bring tile {worst} (IPU {'unknown' if ipu is None else ipu}){others} under the limit to fit: move variables"
        f" off {'them' if others else 'it'}, or spread them over more tiles.",
        excess,
        "The saving needed is the bytes above the limit, summed over the tiles over it (including gaps).",
    )]


def element_types(report: Report, names: set[str]) -> dict[str, str]:
    """Element type of each of NAMES that a popart tensor context (tensorId) gives."""
    debug = report.debug
    if debug is None or "popart" not in debug.layer_names or "tensor" not in debug.category_names:
        return {}
    rows = np.flatnonzero((np.asarray(debug.layer) == debug.layer_names.index("popart"))
                          & (np.asarray(debug.category) == debug.category_names.index("tensor")))
    found = {}
    for row in rows.tolist():
        try:
            fields = json.loads(debug.fields[row])
        except ValueError:
            continue
        tensor = fields.get("tensorId") if isinstance(fields, dict) else None
        if tensor in names and isinstance(fields.get("elementType"), str):
            found[tensor] = fields["elementType"]
    return found


def _fp32(report: Report, model: dict[str, Any]) -> dict:
    """FP32 variables live at the peak (always-live or not), and what FP16 would save there."""
    live = report.liveness
    at_peak = [(live.variable_names[v], int(b)) for v, b in live.live_variables(model["peak_step"])]
    always = [(name, int(b)) for name, b in zip(live.always_live_names, np.asarray(live.always_live_sizes))]
    variables = at_peak + always
    assumption = ("Storing an FP32 variable as FP16 halves its bytes; variables live at the peak step"
                  " (always-live or not) lower the peak by that much. Accuracy may need some of them in FP32.")
    per_tile = ("Which of them sit on the worst tiles needs per-tile variable lists"
                " (libpva's alwaysLiveVariablesForTile and named lowered variables), which the report model does"
                " not hold.")
    if report.debug is None:
        return _finding("fp32", "FP32 variables cannot be looked for: the report gives no element types.",
                        f"{report.missing('debug')} Its popart tensor contexts give each tensor's elementType.")
    types = element_types(report, {name for name, _ in variables})
    typed = [(name, b) for name, b in variables if name in types]
    fp32 = sorted(((name, b) for name, b in typed if types[name] == FP32), key=lambda v: -v[1])
    untyped = [(name, b) for name, b in variables if name not in types]
    untyped_note = (f"{len(untyped):,} of the {count_of(len(variables), 'variable')} live at the peak"
                    " have no element type in the report: each needs a"
                    f" popart tensor context in debug.cbor whose tensorId is its name.") if untyped else None
    if not fp32:
        kinds = ", ".join(sorted(set(types[name] for name, _ in typed))) or "none"
        return _finding("fp32", f"No FP32 variables found among the {count_of(len(typed), 'variable')} live at the peak"
                        f" whose element type debug.cbor gives (types: {kinds}).", untyped_note)
    listed = ", ".join(name for name, _ in fp32[:3]) + (f" and {len(fp32) - 3:,} more" if len(fp32) > 3 else "")
    saving = sum(b for _, b in fp32) // 2
    return _suggestion("fp32", f"Store {count_of(len(fp32), 'FP32 variable')} live at the peak"
                       f" as FP16: {listed}.", saving, assumption, f"{untyped_note or ''} {per_tile}".strip())


def _shorter_lives(report: Report) -> list[dict]:
    """For the largest variables live before and after the peak step: how far the peak would fall, at
    most, were each not live at all. Those made or freed at the peak step itself are left out."""
    live = report.liveness
    series = np.asarray(live.not_always_live, dtype=np.int64)
    peak = live.peak_step
    interval_var = np.asarray(live.col(s.INTERVAL_VARIABLE))
    starts, ends = np.asarray(live.col(s.INTERVAL_START)), np.asarray(live.col(s.INTERVAL_END))
    found = []
    for variable, size in live.live_variables(peak):
        if len(found) == SUGGESTED_VARIABLES:
            break
        mine = np.flatnonzero(interval_var == variable)
        if not np.any((starts[mine] < peak) & (peak + 1 < ends[mine])):
            continue
        diff = np.zeros(len(series) + 1, np.int64)
        np.add.at(diff, np.clip(starts[mine], 0, len(series)), size)
        np.add.at(diff, np.clip(ends[mine], 0, len(series)), -size)
        without = series - np.cumsum(diff)[: len(series)]
        new_peak = int(np.argmax(without))
        at_most = int(series[peak] - without[new_peak])
        if at_most <= 0:
            continue
        only_peak = series.copy()
        only_peak[peak] -= size
        spans = ", ".join(f"{int(a):,}–{int(b) - 1:,}" for a, b in zip(starts[mine], ends[mine]))
        name = live.variable_names[variable]
        item = _suggestion(
            "shorter_life",
            f"Shorten the life of {name} (live at steps {spans}), for example by recomputing it where it is"
            " used; the saving is an upper bound, reached were it live at no step.",
            at_most,
            "Were it live at no step and nothing took its place, the model's not-always-live peak would fall"
            " by this much, " + (f"still at step {peak:,}." if new_peak == peak else f"to step {new_peak:,}."),
        )
        # freed at the peak step alone, the highest other step caps the saving: name it
        only_peak[peak] = -1
        highest_other = int(np.argmax(only_peak))
        saving_alone = int(series[peak] - max(series[peak] - size, int(only_peak[highest_other])))
        item["at_peak_step_only"] = {
            "step": peak, "saving_bytes": saving_alone,
            "capped_by_step": highest_other if saving_alone < size else None,
        }
        found.append(item)
    return found
