"""Which reader reads profile.pop, as `--reader` says: libpva (module `pva`, from the Poplar SDK) or
pvtui's native reader of its SQLite tables (sources/native.py).

`auto` takes libpva where it imports, since only libpva reads every part of the report, and the
native reader elsewhere (and where libpva fails to open the file). A bundle made from the same
profile.pop (a synthetic report's profile.pvtui, an export beside its report) stands in for it under
`auto` (sources/ingest.py).
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from types import ModuleType

READERS = ("auto", "native", "libpva")
LIBPVA, NATIVE = "libpva", "native"


@lru_cache(maxsize=1)
def libpva() -> ModuleType | None:
    """The `pva` module, or None where it does not import (anything it raises means not usable)."""
    try:
        return importlib.import_module("pva")
    except Exception:  # an SDK half set up raises more than ImportError (OSError for a missing .so...)
        return None


def resolve(reader: str) -> str:
    """The reader READER means here: LIBPVA or NATIVE."""
    if reader not in READERS:
        raise ValueError(f"unknown reader {reader!r}: choose one of {', '.join(READERS)}")
    if reader == "auto":
        return LIBPVA if libpva() is not None else NATIVE
    return reader
