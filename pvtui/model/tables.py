"""A table as a screen or command shows it: what export writes to CSV or JSON."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable


@dataclass
class Table:
    name: str  # what it holds, for the file name: "memory-tiles", "operations-popart"
    columns: list[str]
    rows: Iterable[list[Any]]  # plain values (int, float, str, None); may be a generator
