"""How a figure of A or B and their difference B - A read as text: in the comparison, its model layers and
the gate alike."""

from __future__ import annotations

from typing import Any

from pvtui.units import MINUS, format_bytes, sign


def format_value(value: Any, unit: str, units: str = "binary") -> str:
    """A figure of the summary as the tables show it; None is a dash."""
    if value is None:
        return "—"
    if unit == "bytes":
        return format_bytes(value, units)
    if unit in ("count", "cycles"):
        return f"{int(value):,}"
    return str(value)


def format_delta(value: int | None, unit: str, units: str = "binary", minus: str = MINUS) -> str:
    """B - A with its sign: +1.5 KiB, −3 (MINUS), 0."""
    if value is None:
        return "—"
    return sign(value, minus) + format_value(abs(value), unit, units)


def format_change(change: float | None, minus: str = MINUS) -> str:
    """B - A as a share of A, with its sign: +12.5%, −0.4% (MINUS)."""
    return "—" if change is None else f"{sign(change, minus) or '+'}{abs(change):.1%}"
