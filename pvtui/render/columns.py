"""Which columns of a table of names and figures show in the room there is: names first.

The names get the width of the longest while the figures that matter most fit beside
them; further figures show only where the longest name still fits whole. Where even
the figures that matter most leave the names too little room, those give way (never
the first, the sort's) and the names are cut; a screen then shows the whole name in
its details.
"""

from __future__ import annotations

from dataclasses import dataclass

CELL_PADDING = 2  # a DataTable cell's padding, both sides together


@dataclass(frozen=True)
class Fit:
    columns: list[str]  # the figure columns shown, in their display order
    name_width: int  # cells of the name column (without its padding)


def fit_columns(room: int, longest: int, widths: dict[str, int], priority: list[str | tuple[str, ...]],
                essential: int, min_name: int) -> Fit:
    """The figure columns (WIDTHS: each one's cells, without padding, in display order) that show beside
    names of at most LONGEST cells in ROOM cells. PRIORITY ranks the figures, the sort's first (a tuple:
    columns that show all together or not at all); its first ESSENTIAL show whenever the names keep
    MIN_NAME cells beside them."""
    groups = [group for item in priority
              if (group := tuple(k for k in (item if isinstance(item, tuple) else (item,)) if k in widths))]
    cost = [sum(widths[key] + CELL_PADDING for key in group) for group in groups]
    name_room = room - CELL_PADDING
    chosen = list(range(min(essential, len(groups))))
    while len(chosen) > 1 and name_room - sum(cost[i] for i in chosen) < min(min_name, longest):
        chosen.pop()
    for i in range(essential, len(groups)):
        if name_room - sum(cost[c] for c in chosen) - cost[i] >= longest:
            chosen.append(i)
    name_width = max(min(longest, name_room - sum(cost[i] for i in chosen)), min(min_name, longest), 1)
    shown = {key for i in chosen for key in groups[i]}
    return Fit([key for key in widths if key in shown], name_width)


def cut_middle(name: str, width: int) -> str:
    """NAME in WIDTH characters: its first part, an ellipsis and as much of its end as fits."""
    if len(name) <= width:
        return name
    head = name.split("/", 1)[0] + "/"
    if len(head) > width // 2:
        return name[: width - 1] + "…"
    return head + "…" + name[len(name) - (width - len(head) - 1) :]
