"""A view over the columns of one part of a bundle, the base of the model's parts."""

from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from pvtui.model.bundle import Bundle
from pvtui.model.strings import StringTable
from pvtui.safe_text import visible, visible_all


class Part:
    """A view over the columns of one part of the bundle.

    Its names and strings are visible (pvtui.safe_text), unless it was made with EXACT_TEXT:
    `strings` and `text` are the only ways a part hands out text from the report.
    """

    def __init__(self, bundle: Bundle, exact_text: bool = False) -> None:
        self.bundle = bundle
        self.meta = bundle.meta
        self.exact_text = exact_text

    def strings(self, name: str, form: Callable[[str], str] = visible) -> StringTable:
        """The string table NAME, each string read through FORM (visible) unless the text is exact."""
        table = self.bundle.strings(name)
        return table if self.exact_text else table.with_form(form)

    def text(self, value: Any) -> Any:
        return report_text(value, self.exact_text)

    def col(self, name: str) -> np.ndarray:
        return self.bundle.array(name)

    def length(self, name: str) -> int:
        """Column NAME's length, read from its header: the column is not mapped (nor numpy imported)."""
        return self.bundle.length(name)

    def opt(self, name: str) -> np.ndarray | None:
        return self.bundle.array(name) if self.bundle.has(name) else None

    def code_names(self, entry: str, what: str) -> "CodeNames":
        """The names meta.json's ENTRY ("debug.layers") gives the codes of a column, each a WHAT."""
        within, key = entry.split(".")
        return CodeNames(self.text(list(self.meta.get(within, {}).get(key, []))), what)


class CodeNames(list):
    """Names looked up by codes read from a column. A code with no name (a damaged bundle's column) gets
    one that says so: never an IndexError, nor another code's name by a negative index."""

    def __init__(self, names: list[str], what: str) -> None:
        super().__init__(names)
        self.what = what

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, slice):
            return super().__getitem__(key)
        code = operator.index(key)
        return super().__getitem__(code) if 0 <= code < len(self) else f"({self.what} {code}: no name)"


def report_text(value: Any, exact_text: bool) -> Any:
    """VALUE from a bundle's metadata (a name, a list of names, a document), its strings made visible
    unless EXACT_TEXT."""
    return value if exact_text else visible_all(value)
