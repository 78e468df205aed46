"""Long names (paths of layers and operations) on several lines instead of cut."""

from __future__ import annotations

import re


def wrap_at_slashes(name: str, width: int) -> list[str]:
    """NAME on lines of at most WIDTH characters, broken after '/' where it can be, else where it must."""
    width = max(width, 1)
    lines: list[str] = []
    for part in re.findall(r"[^/]*/|[^/]+$", name):
        if lines and len(lines[-1]) + len(part) <= width:
            lines[-1] += part
        else:
            lines.append(part)
    return [line[i : i + width] for line in lines for i in range(0, len(line), width)] or [""]
