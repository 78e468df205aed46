"""Which columns of a table of names and figures show in the room there is: names first.

The names get the width of the longest while the figures that matter most fit beside
them; further figures show only where the longest name still fits whole. Where even
the figures that matter most leave the names too little room, those give way (never
the first, the sort's) and the names are cut; a screen then shows the whole name in
its details.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Sequence, TypeVar

Item = TypeVar("Item")

CELL_PADDING = 2  # a cell's padding, both sides together
TOTAL = "total"  # the key of a last row that totals what a filter keeps


class Fit(NamedTuple):
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


def share_room(room: int, longest: list[int], least: int) -> list[int]:
    """The cells of each text column, in the order they take ROOM (names first): each takes what its
    LONGEST cell needs while the columns after it keep min(their longest, LEAST); none gets fewer."""
    floors = [min(cells, least) for cells in longest]
    widths: list[int] = []
    for i, cells in enumerate(longest):
        widths.append(max(floors[i], min(cells, room - sum(widths) - sum(floors[i + 1:]))))
    return widths


def cut_middle(name: str, width: int) -> str:
    """NAME in WIDTH characters: its first part, an ellipsis and as much of its end as fits."""
    if len(name) <= width:
        return name
    head = name.split("/", 1)[0] + "/"
    if len(head) > width // 2:
        return name[: width - 1] + "…"
    return head + "…" + name[len(name) - (width - len(head) - 1) :]


def cut_end(text: str, width: int) -> str:
    """TEXT in WIDTH cells, ending in an ellipsis where it is cut."""
    return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


class Computed(Sequence[Item]):
    """A sequence of LENGTH items, each made by AT(i) when asked: a table's rows, of which a screen draws
    only those in view."""

    def __init__(self, length: int, at: Callable[[int], Item]) -> None:
        self.length, self.at = length, at

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, i):  # an int only: the rows are drawn one at a time
        if not -self.length <= i < self.length:
            raise IndexError(i)
        return self.at(i % self.length)


class TableRows(NamedTuple):
    """A table of names and figures as a screen shows it, before the columns are fitted to the room."""

    headings: dict[str, str]  # by column key, the names' ("name") first, in display order
    keys: Sequence[str]  # per row
    names: Sequence[str]
    cells: Sequence[dict[str, str]]  # per row, its figures by column key
    styles: Sequence[str]  # per row
    priority: list[str | tuple[str, ...]]  # the figures by how much they matter (fit_columns), the sort's first
    sort: str  # the column the rows are sorted by
    cut: Callable[[str, int], str] = cut_end  # how a name too long is cut
    total: tuple[str, str, dict[str, str]] | None = None  # a last row: its key, label and figures
    # where the rows are Computed: each figure column's widest cell, and the longest name (else measured)
    widths: dict[str, int] | None = None
    longest_name: int | None = None


def total_label(rows: int) -> str:
    return f"total of the {rows:,} row{'s' * (rows != 1)} kept"
