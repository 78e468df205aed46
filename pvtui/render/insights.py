"""The Insights sections as Rich renderables: the `pvtui insights` tables and the Insights screen."""

from __future__ import annotations

import math
from typing import Any, Callable

from pvtui.model.unavailable import Unavailable
from pvtui.render.unavailable import unavailable_text
from pvtui.units import count_of

HISTOGRAM_HEIGHT = 6  # lines of bars
Fmt = Callable[[int], str]

SECTIONS = (
    ("capacity", "Capacity"),
    ("fullest_tiles", "Fullest tiles"),
    ("histogram", "Tiles by memory"),
    ("vertices", "Largest vertices"),
    ("liveness", "Liveness peaks"),
    ("suggestions", "Suggestions"),
)


def headline(data: dict[str, Any], fmt: Fmt):
    """The worst tile and the liveness peak, in two lines, or what the report lacks for them."""
    from rich.text import Text

    text = Text()
    fullest, live = data["fullest_tiles"], data["liveness"]
    text.append("Worst tile: ", style="bold")
    if not isinstance(fullest, Unavailable):
        worst = fullest["tiles"][0]
        share = "" if worst["proportion"] is None else f" ({_percent(worst['proportion'])} of its memory)"
        where = "(IPU unknown)" if worst["ipu"] is None else f"on IPU {worst['ipu']}"
        text.append(f"{worst['tile']} {where}, {fmt(worst['bytes'])}{share}")
    else:
        text.append("unknown (see Fullest tiles)", style="italic")
    text.append("\nLiveness peak: ", style="bold")
    if not isinstance(live, Unavailable):
        model = live["model"]
        text.append(f"step {model['peak_step']:,}, {fmt(model['not_always_live_bytes'])} not-always-live")
    else:
        text.append("unknown (see Liveness peaks)", style="italic")
    return text


def section_renderables(key: str, section: dict[str, Any] | Unavailable, fmt: Fmt) -> list:
    """What the section KEY shows, bytes formatted by FMT; its reason when the report cannot fill it."""
    if isinstance(section, Unavailable):
        return [unavailable_text(section)]
    return {
        "capacity": capacity_renderables,
        "fullest_tiles": lambda s, f: [fullest_table(s, f)],
        "histogram": lambda s, f: [histogram_text(s, f, HISTOGRAM_HEIGHT)],
        "vertices": vertices_renderables,
        "liveness": liveness_renderables,
        "suggestions": suggestions_renderables,
    }[key](section, fmt)


def _percent(proportion: float | None) -> str:
    return "—" if proportion is None else f"{100 * proportion:.1f}%"


def capacity_renderables(section: dict[str, Any], fmt: Fmt) -> list:
    from rich.text import Text

    status = section["status"]
    head = Text()
    if status is None:
        head.append(section["status_reason"], style="italic")
    elif status == "out of memory":
        over = section["tiles_over_limit"]
        head.append("Out of memory", style="bold red")
        head.append(f": {count_of(over, 'tile')} over the {fmt(section['bytes_per_tile'])} limit,"
                    f" by {fmt(section['bytes_over_limit'])} in all")
    else:
        head.append("In capacity", style="bold green")
        head.append(f": every tile is within its {fmt(section['bytes_per_tile'])}")
    source = "" if section["source"] == "profile" else " (archive.a: allocated ELF bytes, no gaps)"
    lines = [head, Text(f"Used {_used(section, fmt)}{source}")]
    for ipu in section["per_ipu"]:
        over = f", {ipu['tiles_over_limit']:,} over the limit" if ipu["tiles_over_limit"] else ""
        lines.append(Text(f"  IPU {ipu['ipu']}: {_used(ipu, fmt)}{over}"))
    if section["per_ipu_reason"]:
        lines.append(Text(f"  {section['per_ipu_reason']}", style="italic"))
    return lines


def _used(part: dict[str, Any], fmt: Fmt) -> str:
    if part["capacity_bytes"] is None:
        return fmt(part["used_bytes"])
    return f"{fmt(part['used_bytes'])} of {fmt(part['capacity_bytes'])} ({_percent(part['proportion'])})"


def fullest_table(section: dict[str, Any], fmt: Fmt):
    from rich.table import Table

    table = Table(box=None, padding=(0, 1), header_style="bold")
    for name in ("tile", "IPU", "bytes", "of limit", "over by"):
        table.add_column(name, justify="right", no_wrap=True, min_width=len(name))
    table.add_column("largest category", overflow="ellipsis")
    for row in section["tiles"]:
        over = row["over_by"]
        largest = row["categories"][:1]
        ipu = "unknown" if row["ipu"] is None else str(row["ipu"])
        table.add_row(str(row["tile"]), ipu, fmt(row["bytes"]), _percent(row["proportion"]),
                      fmt(over) if over else "—", "".join(f"{c['name']} {fmt(c['bytes'])}" for c in largest),
                      style="red" if over else None)
    return table


def fullest_rows(section: dict[str, Any] | Unavailable) -> tuple[list[str], list[list[Any]]]:
    """The fullest tiles as plain columns and rows, for export."""
    columns = ["tile", "ipu", "bytes", "proportion_of_limit", "over_by", "largest_category", "largest_category_bytes"]
    if isinstance(section, Unavailable):
        return columns, []
    rows = []
    for r in section["tiles"]:
        largest = r["categories"][0] if r["categories"] else {"name": None, "bytes": None}
        rows.append([r["tile"], r["ipu"], r["bytes"], r["proportion"], r["over_by"], largest["name"], largest["bytes"]])
    return columns, rows



def column_eighths(counts: list[int], height: int) -> tuple[list[int], bool]:
    """Each column's height in eighths of a line, and whether on a log scale: used when one column
    holds most of the tiles and would flatten all the others. A non-empty column shows at least an eighth."""
    tallest = max(max(counts, default=0), 1)
    log = sum(1 for c in counts if c) > 1 and tallest > sum(counts) / 2
    top = math.log1p(tallest) if log else tallest
    scaled = [math.log1p(c) if log else c for c in counts]
    return [0 if c == 0 else max(1, round(8 * height * v / top)) for c, v in zip(counts, scaled)], log


def histogram_text(section: dict[str, Any], fmt: Fmt, height: int):
    """One column of block characters a bin, HEIGHT lines tall; bins above the limit in red."""
    from rich.text import Text

    from pvtui.render.glyphs import BLOCKS

    counts, edges, limit = section["counts"], section["edges"], section["bytes_per_tile"]
    tallest = max(max(counts), 1)
    eighths, log = column_eighths(counts, height)
    over = [limit is not None and lo >= limit for lo in edges[:-1]]
    limit_note = f"; ▲ marks the limit, {fmt(limit)}" if limit is not None and limit < edges[-1] else ""
    scale = "; heights on a log scale" if log else ""
    text = Text(f"{count_of(sum(counts), 'tile')} by bytes, a column for each {fmt(edges[1] - edges[0])} range;"
                f" the tallest column holds {count_of(tallest, 'tile')}{scale}{limit_note}\n", style="dim")
    for line in range(height - 1, -1, -1):
        for e, red in zip(eighths, over):
            text.append(BLOCKS[min(max(e - 8 * line, 0), 8)], style="red" if red else "")
        text.append("\n")
    marker = next((i for i, lo in enumerate(edges[:-1]) if limit is not None and lo <= limit < edges[i + 1]), None)
    axis = ["─"] * len(counts)
    if marker is not None:
        axis[marker] = "▲"
    text.append("".join(axis) + "\n")
    left, right = fmt(edges[0]), fmt(edges[-1])
    text.append(left + " " * max(len(counts) - len(left) - len(right), 1) + right)
    return text


def vertices_renderables(section: dict[str, Any], fmt: Fmt) -> list:
    from rich.table import Table
    from rich.text import Text

    out = []
    for key, title, columns in (
        ("state", "Vertex state, all instances", ("each", "instances", "total")),
        ("code", "Vertex code, all tiles", ("tiles", "largest", "total")),
    ):
        part = section[key]
        if isinstance(part, Unavailable):
            out.append(unavailable_text(part, title))
            continue
        table = Table(title=f"{title}: {fmt(part['total_bytes'])}", title_justify="left", box=None,
                      padding=(0, 1), header_style="bold", title_style="bold")
        table.add_column("vertex type", overflow="fold")  # the whole name, on more lines where it must
        for name in columns:
            table.add_column(name, justify="right", no_wrap=True, min_width=len(name))
        for row in part["types"]:
            if key == "state":
                values = (fmt(row["state_bytes"]), f"{row['instances']:,}", fmt(row["total_bytes"]))
            else:
                values = (f"{row['tiles']:,}", fmt(row["largest_on_a_tile"]), fmt(row["code_bytes"]))
            table.add_row(Text(row["name"]), *values)
        out.append(table)
    return out


def _variables(variables: list[dict[str, Any]], fmt: Fmt) -> str:
    return ", ".join(f"{v['name']} {fmt(v['bytes'])}" for v in variables) or "none"


def _peak_text(entry: dict[str, Any], fmt: Fmt):
    from rich.text import Text

    on_ipu = f"on IPU {entry['ipu']}, " if "tile" in entry and entry["ipu"] is not None else ""
    text = Text(f"{on_ipu}peak at step {entry['peak_step']:,}, {fmt(entry['not_always_live_bytes'])} not-always-live")
    if entry.get("always_live_bytes") is not None:
        text.append(f" + {fmt(entry['always_live_bytes'])} always-live")
    if entry["peak_step_name"]:
        text.append(f"\nprogram: {entry['peak_step_name']}", style="dim")
    text.append("\nwhole model's largest there: ", style="dim")
    text.append(_variables(entry["model_variables_at_step"], fmt))
    return text


def _hanging(rows: list[tuple[str, Any]]):
    """Labels in a column of their own, so wrapped lines stay indented under their text."""
    from rich.table import Table
    from rich.text import Text

    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    for label, content in rows:
        grid.add_row(label, Text(content) if isinstance(content, str) else content)
    return grid


def liveness_renderables(section: dict[str, Any], fmt: Fmt) -> list:
    from rich.text import Text

    model = section["model"]
    head = Text()
    head.append("Model", style="bold")
    head.append(f": peak at step {model['peak_step']:,} of {section['steps']:,},"
                f" {fmt(model['not_always_live_bytes'])} not-always-live")
    if model["always_live_bytes"] is not None:
        head.append(f" + {fmt(model['always_live_bytes'])} always-live = {fmt(model['total_bytes'])}")
    if model["peak_step_name"]:
        head.append(f"\n  program: {model['peak_step_name']}", style="dim")
    out = [head]
    for key, label in (("not_always_live_variables", "Not-always-live at the peak"),
                       ("always_live_variables", "Always-live variables")):
        group = model[key]
        out.append(_variable_table(f"{label}: {group['count']:,}, {fmt(group['bytes'])}", group["largest"], fmt))
    unnamed = model["always_live_variables"]["unnamed_bytes"]
    if unnamed is not None and unnamed > 0:
        out.append(Text(f"The other {fmt(unnamed)} of the {fmt(model['always_live_bytes'])} always-live is memory"
                        " the report lists under no variable name.", style="dim"))
    for key, label in (("per_ipu", "IPU"), ("worst_tiles", "Tile")):
        part = section[key]
        if isinstance(part, Unavailable):
            out.append(unavailable_text(part, "Per IPU" if key == "per_ipu" else "Worst tiles"))
            continue
        rows = []
        for entry in part["ipus" if key == "per_ipu" else "tiles"]:
            rows.append((f"{label} {entry['ipu' if key == 'per_ipu' else 'tile']}", _peak_text(entry, fmt)))
        out.append(_hanging(rows))
    out.append(Text(section["variables_note"], style="italic dim"))
    return out


def _variable_table(title: str, variables: list[dict[str, Any]], fmt: Fmt):
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, title_justify="left", box=None, padding=(0, 1), show_header=False,
                  title_style="bold")
    table.add_column("variable", overflow="fold")
    table.add_column("bytes", justify="right", no_wrap=True)
    for variable in variables:
        table.add_row(Text(variable["name"]), fmt(variable["bytes"]))
    return table


SAVING_LABELS = {"fit": "to free", "shorter_life": "saves at most"}


def _alone_text(alone: dict[str, Any], fmt: Fmt) -> str:
    """What freeing the variable at the peak step alone saves, and which step keeps it from saving more."""
    step, saving, other = alone["step"], alone["saving_bytes"], alone.get("capped_by_step")
    if other is None:
        return f" Freed at step {step:,} alone, it saves {fmt(saving)}."
    if saving == 0:
        return f" Freed at step {step:,} alone, it saves nothing: step {other:,} is just as high."
    return f" Freed at step {step:,} alone, it saves {fmt(saving)}: step {other:,} is then as high."


def suggestions_renderables(section: dict[str, Any], fmt: Fmt) -> list:
    from rich.text import Text

    rows = []
    for number, item in enumerate(section["items"], start=1):
        text = Text()
        text.append(f"{item['text']}\n", style="bold")
        saving = item["saving_bytes"]
        text.append(f"{SAVING_LABELS.get(item['kind'], 'saves')}: {'unknown' if saving is None else fmt(saving)}. ")
        text.append(item["assumption"], style="dim")
        alone = item.get("at_peak_step_only")
        if alone:
            text.append(_alone_text(alone, fmt), style="dim")
        if item["needs"]:
            text.append(f"\nneeds: {item['needs']}", style="italic")
        rows.append((f"{number}.", text))
    out = [_hanging(rows) if rows else Text("Nothing to suggest from what this report holds.", style="italic")]
    for finding in section["findings"]:
        text = Text(finding["text"])
        if finding["needs"]:
            text.append(f"\nneeds: {finding['needs']}", style="italic")
        out.append(_hanging([("·", text)]))
    return out
