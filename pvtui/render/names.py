"""Long names (paths of layers and operations, C++ vertex types) on several lines instead of cut."""

from __future__ import annotations

import re

CPP_BREAKS = "/,<:"  # where a C++ vertex type (popops::Reduce<popops::ReduceAdd,half,...>) may break


def wrap_at_slashes(name: str, width: int, after: str = "/") -> list[str]:
    """NAME on lines of at most WIDTH characters, broken after a character of AFTER ('/') where it can
    be, else where it must."""
    width = max(width, 1)
    breaks = re.escape(after)
    lines: list[str] = []
    for part in re.findall(rf"[^{breaks}]*[{breaks}]|[^{breaks}]+$", name):
        if lines and len(lines[-1]) + len(part) <= width:
            lines[-1] += part
        else:
            lines.append(part)
    return [line[i : i + width] for line in lines for i in range(0, len(line), width)] or [""]


def name_room(width: int, figure_widths: list[int], least: int) -> int:
    """The cells a Rich table's name column has beside figures of FIGURE_WIDTHS in WIDTH cells (each
    column has one space of padding either side and a border to its left, plus the closing border); at
    least LEAST."""
    return max(width - sum(figure_widths) - 3 * (len(figure_widths) + 1) - 1, least)
