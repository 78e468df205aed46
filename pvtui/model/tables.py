"""A table as a screen or command shows it: what export writes to CSV or JSON."""

from __future__ import annotations

from typing import Any, Iterable, NamedTuple


class Table(NamedTuple):
    name: str  # what it holds, for the file name: "memory-tiles", "operations-popart"
    columns: list[str]
    rows: Iterable[list[Any]]  # plain values (int, float, str, None); may be a generator
