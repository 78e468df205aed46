"""The `pvtui compare A B --json` object: the comparison's figures (pvtui.model.compare) with the sentences
that say what each section compares (pvtui.render.compare); a section the reports cannot give stays the
model's Unavailable, which the command turns into JSON at its edge."""

from __future__ import annotations

from typing import Any

from pvtui.model.compare import LIVENESS_POINTS, LIVENESS_X, Changes, Comparison, LivenessPair, TileDiff
from pvtui.model.layer_compare import layers_json
from pvtui.model.unavailable import Unavailable
from pvtui.render.compare import changes_measure, changes_statement, liveness_statement, tile_measure, tile_statement

TOP_CHANGES = 10  # grown and shrunk entries


def tiles_json(diff: TileDiff | Unavailable, top: int = TOP_CHANGES) -> dict[str, Any] | Unavailable:
    if isinstance(diff, Unavailable):
        return diff
    delta = diff.delta
    return {
        "available": True,
        "statement": tile_statement(diff),
        "measure": tile_measure(diff),
        "a_tiles": diff.a.num_tiles,
        "b_tiles": diff.b.num_tiles,
        "a_ipus": len(diff.a.ipus) if diff.a.ipu_known else None,
        "b_ipus": len(diff.b.ipus) if diff.b.ipu_known else None,
        "compared_tiles": diff.compared,
        "total_delta": int(delta.sum()),
        "grew": int((delta > 0).sum()),
        "shrank": int((delta < 0).sum()),
        "unchanged": int((delta == 0).sum()),
        "largest_growth": [diff.tile_dict(t) for t in diff.ranked(True, top)],
        "largest_shrink": [diff.tile_dict(t) for t in diff.ranked(False, top)],
        "deltas": delta.tolist(),
    }


def liveness_json(pair: LivenessPair | Unavailable, count: int = LIVENESS_POINTS) -> dict[str, Any] | Unavailable:
    if isinstance(pair, Unavailable):
        return pair
    a, b = pair.points(count)
    return {
        "available": True,
        "statement": liveness_statement(pair),
        "x": LIVENESS_X,
        "with_always_live": pair.with_always_live,
        "a_steps": len(pair.a),
        "b_steps": len(pair.b),
        "a_peak": pair.peak(pair.a),
        "b_peak": pair.peak(pair.b),
        "points": [{"fraction": i / count, "a": int(x), "b": int(y)} for i, (x, y) in enumerate(zip(a, b))],
    }


def changes_json(changes: Changes | Unavailable, top: int = TOP_CHANGES) -> dict[str, Any] | Unavailable:
    if isinstance(changes, Unavailable):
        return changes
    return {
        "available": True,
        "statement": changes_statement(changes),
        "measure": changes_measure(changes),
        "matched": changes.matched,
        "only_a": changes.only_a,
        "only_b": changes.only_b,
        "changed": len(changes.rows),
        "grown": [c.as_dict() for c in changes.grown(top)],
        "shrunk": [c.as_dict() for c in changes.shrunk(top)],
    }


def comparison_json(c: Comparison) -> dict[str, Any]:
    """The `pvtui compare A B --json` object."""
    return {
        "a": {"name": c.a.name},
        "b": {"name": c.b.name},
        "difference": "B - A",
        "identical": c.identical,
        "summary": [row.as_dict() for row in c.summary],
        "tiles": tiles_json(c.tiles),
        "liveness": liveness_json(c.liveness),
        "programs": changes_json(c.programs),
        "operations": changes_json(c.operations),
        "layers": layers_json(c.layers),
    }
