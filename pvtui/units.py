"""Figures as shown: memory units as the desktop tool offers them (binary KiB, SI kB or plain bytes), cycles, counts."""

from __future__ import annotations

from typing import Callable

Fmt = Callable[[int], str]  # how bytes are shown: format_bytes in the units chosen

UNIT_MODES = ("binary", "si", "bytes")
UNIT_NAMES = {"KiB": "binary", "kB": "si", "bytes": "bytes"}  # each mode as the app's `u` and `--units` name it
MINUS = "\u2212"  # the sign of a negative change: one minus sign wherever pvtui prints one (ASCII "-" where
# the look is ASCII, widgets/look.py)
_BINARY = ("B", "KiB", "MiB", "GiB", "TiB")
_SI = ("B", "kB", "MB", "GB", "TB")


def format_bytes(value: float | int | None, mode: str = "binary") -> str:
    """`1.5 MiB`, `1.6 MB` or `1,572,864 B`; None is shown as a dash."""
    if value is None:
        return "—"
    if mode == "bytes":
        return f"{int(value):,} B"
    base, names = (1024, _BINARY) if mode == "binary" else (1000, _SI)
    size = float(value)
    for name in names:
        if abs(size) < base or name == names[-1]:
            return f"{int(size)} {name}" if name == "B" else f"{size:.1f} {name}"
        size /= base
    raise AssertionError("unreachable")


def sign(value: float, minus: str = MINUS) -> str:
    """The sign a change is printed with: `+`, MINUS, or nothing for zero."""
    return "+" if value > 0 else minus if value < 0 else ""


def signed_bytes(value: int, mode: str = "binary", minus: str = MINUS) -> str:
    """A change in bytes with its sign: `+4.6 MiB`, `−1.4 MiB`, `0 B`."""
    return sign(value, minus) + format_bytes(abs(value), mode)


def next_mode(mode: str) -> str:
    return UNIT_MODES[(UNIT_MODES.index(mode) + 1) % len(UNIT_MODES)]


def format_cycles(value: int | None) -> str:
    return "—" if value is None else f"{int(value):,}"


def format_share(share: float | None) -> str:
    """A share of a whole as a percentage, `15.6%`; None is a dash."""
    return "—" if share is None else f"{share:.1%}"


def count_of(number: int, noun: str, plural: str | None = None) -> str:
    """`1 tile`, `2,944 tiles`: NUMBER with NOUN, plural (NOUN + s unless given) but for exactly one."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"
