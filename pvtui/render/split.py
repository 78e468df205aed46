"""Pipeline splits as Rich renderables: the `pvtui split` tables and the Insights screen's section."""

from __future__ import annotations

from typing import Any, Callable

from pvtui.model.unavailable import Unavailable
from pvtui.render.unavailable import unavailable_text


def split_renderables(data: dict[str, Any] | Unavailable, fmt: Callable[[int], str], boxed: bool = True,
                      pattern_hint: str = "") -> list:
    """The stages, the split points, the memory per layer and how they were counted, bytes formatted by FMT;
    the reason alone when the report cannot answer. BOXED False gives the compact tables of the app, and
    PATTERN_HINT ends the line that names the layer pattern."""
    from rich.text import Text

    from pvtui.model.splits import DEFAULT_LAYER_PATTERN

    if isinstance(data, Unavailable):
        return [unavailable_text(data)]
    out: list = [stages_table(data, fmt, boxed)]
    if data["split_after"]:
        out.append(Text(f"Split after: {', '.join(data['split_after'])}"))
    shared = data["stages"][0]["shared_bytes"] if data["stages"] else 0
    out += [Text(data["fit_rule"], style="dim"),
            Text(f"Each stage includes {fmt(shared)}: its share of the memory no layer owns.", style="dim")]
    out += [Text(note, style="yellow") for note in data["notes"]]
    out.append(layers_table(data, fmt, boxed))
    if not all(layer["matched"] for layer in data["layers"]):
        out.append(Text("* not named by the pattern: operations grouped by the first part of their names",
                        style="dim"))
    default = " (the default)" if data["pattern"] == DEFAULT_LAYER_PATTERN else ""
    out += [Text(f"Layers are named by the pattern {data['pattern']}{default}{pattern_hint}.", style="dim"),
            Text(data["counted"], style="dim")]
    return out


def _table(title: str, boxed: bool):
    from rich.table import Table

    if boxed:
        return Table(title=title, title_justify="left")
    return Table(title=title, title_justify="left", box=None, padding=(0, 1), header_style="bold",
                 title_style="bold")


def stages_table(data: dict[str, Any], fmt: Callable[[int], str], boxed: bool = True):
    from rich.text import Text

    tile = data["bytes_per_tile"]
    ipus = f"{data['ipus']} IPU{'s' * (data['ipus'] != 1)}"
    limit = "tile memory unknown" if tile is None else f"tile memory {fmt(tile)}"
    table = _table(f"Stages on {ipus} ({limit})", boxed)
    for name, justify in (("IPU", "right"), ("layers", "left"), ("memory", "right"), ("worst tile", "right"),
                          ("of tile", "right"), ("fits", "left")):
        table.add_column(name, justify=justify, no_wrap=name != "layers")
    for stage in data["stages"]:
        worst = stage["estimated_worst_tile_bytes"]
        share = f"{100 * worst / tile:.0f}%" if tile and worst is not None else "—"
        fits = {True: "yes", False: "no", None: "unknown"}[stage["fits"]]
        table.add_row(str(stage["ipu"]), Text(", ".join(stage["layers"])), fmt(stage["memory"]),
                      "—" if worst is None else fmt(worst), share, fits, style="red" if stage["fits"] is False else None)
    return table


def layers_table(data: dict[str, Any], fmt: Callable[[int], str], boxed: bool = True):
    from rich.text import Text

    table = _table("Memory per layer", boxed)
    table.add_column("layer", overflow="ellipsis")
    for name in ("ops", "code", "always-live", "peak temporaries", "memory"):
        table.add_column(name, justify="right", no_wrap=True)
    for layer in data["layers"]:
        name = layer["name"] if layer["matched"] else f"{layer['name']} *"
        table.add_row(Text(name), f"{layer['operations']:,}", fmt(layer["code_bytes"]), fmt(layer["always_live_bytes"]),
                      fmt(layer["peak_not_always_live_bytes"]), fmt(layer["memory"]))
    return table
