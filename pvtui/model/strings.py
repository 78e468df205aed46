"""String tables: many strings as one UTF-8 blob plus an offsets array."""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

import numpy as np

from pvtui.safe_text import visible, visible_each


class StringTable:
    """Read-only, lazily decoded sequence of strings over a blob and its offsets.

    FORM, where given, is applied to each string read (the model's tables make their strings
    visible with it, pvtui.safe_text); `exact` reads a string as stored.
    """

    def __init__(self, blob: np.ndarray, offsets: np.ndarray, form: Callable[[str], str] | None = None) -> None:
        self.blob = blob
        self.offsets = offsets
        self.form = form

    def with_form(self, form: Callable[[str], str]) -> "StringTable":
        """The same strings, each read through FORM."""
        return StringTable(self.blob, self.offsets, form)

    @staticmethod
    def encode(values: Iterable[str]) -> tuple[np.ndarray, np.ndarray]:
        encoded = [str(v).encode("utf-8", "surrogatepass") for v in values]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        if encoded:
            np.cumsum([len(b) for b in encoded], out=offsets[1:])
        blob = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        return blob, offsets

    def __len__(self) -> int:
        return max(len(self.offsets) - 1, 0)

    def __getitem__(self, index: int) -> str:
        text = self.exact(index)
        return text if self.form is None else self.form(text)

    def exact(self, index: int) -> str:
        """The string at INDEX as stored, whatever the table's form."""
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(index)
        start, end = int(self.offsets[index]), int(self.offsets[index + 1])
        return bytes(self.blob[start:end]).decode("utf-8", "replace")

    def take(self, indices: Iterable[int]) -> list[str]:
        """The strings at INDICES, reading the blob once (not one memory-map read each)."""
        blob, offsets = bytes(self.blob), np.asarray(self.offsets).tolist()
        texts = [blob[offsets[i] : offsets[i + 1]].decode("utf-8", "replace") for i in indices]
        if self.form is visible:
            return visible_each(texts)
        return texts if self.form is None else list(map(self.form, texts))

    def __iter__(self) -> Iterator[str]:
        for i in range(len(self)):
            yield self[i]

    def find(self, needle: str, start: int = 0, ignore_case: bool = True) -> int:
        """Index of the first string at or after START containing NEEDLE, or -1.

        Searches the blob itself, so a search over 100,000 names decodes only the hit.
        """
        if not needle or len(self) == 0:
            return -1
        raw = bytes(self.blob)
        pattern = needle.encode("utf-8")
        if ignore_case:
            raw, pattern = raw.lower(), pattern.lower()
        pos = int(self.offsets[max(start, 0)]) if start < len(self) else len(raw)
        while True:
            hit = raw.find(pattern, pos)
            if hit < 0:
                return -1
            index = int(np.searchsorted(self.offsets, hit, side="right")) - 1
            if hit + len(pattern) <= int(self.offsets[index + 1]):
                return index
            pos = int(self.offsets[index + 1])
