"""Short items (legend entries, status facts) on as few lines as a width allows, never cut inside one."""

from __future__ import annotations

from rich.text import Text


def item_lines(items: list[Text], width: int, gap: str = "  ", max_lines: int = 2) -> list[Text]:
    """ITEMS on lines of at most WIDTH cells, GAP between them, broken only between items.

    Past MAX_LINES, the last line ends with the count of the items left out ("+3").
    """
    rows: list[list[Text]] = []
    for item in items:
        if rows and sum(i.cell_len + len(gap) for i in rows[-1]) + item.cell_len <= width:
            rows[-1].append(item)
        else:
            rows.append([item])
    left_out = sum(len(row) for row in rows[max_lines:])
    rows = rows[:max_lines]
    if left_out:
        rest = f"+{left_out}"
        last = rows[-1]
        while len(last) > 1 and sum(i.cell_len + len(gap) for i in last) + len(rest) > width:
            last.pop()  # whole items give way to the count
            left_out += 1
            rest = f"+{left_out}"
        last.append(Text(rest, "dim"))
    lines = [Text(gap).join(row) for row in rows]
    for line in lines:
        line.truncate(max(width, 1), overflow="ellipsis")  # only an item wider than the whole line
    return lines
