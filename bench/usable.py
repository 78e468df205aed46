"""A first open, usable while it is read: from the app's start (empty cache) to the Memory screen usable,
and to every screen usable; over the large model's profile.pop of 16 runs by the native reader, and over
the report's own profile.pop through the libpva adapter (the generator's stand-in as libpva's report).
Each beside the same open with no part shown before the whole (as pvtui opened a report before)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench.figures import Results, Row, median, seconds
from bench.reports import LongProfile
from bench.runner import run_child

MEMORY_USABLE_SECONDS = 2.0  # the Memory screen within ~1-2 s of a first open, while the rest is read


def _open(report: Path, workdir: Path, reader: str, shown: bool, standin: Path | None = None) -> dict:
    cache = Path(tempfile.mkdtemp(prefix="usable-", dir=workdir))
    try:
        return run_child("usable", report=str(report), cache=str(cache), reader=reader, shown=shown,
                         standin=str(standin or ""))
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def _rows(label: str, runs: list[dict], before: list[dict], results: Results, target: float | None) -> None:
    memory, every = median(r["memory_usable"] for r in runs), median(r["every_usable"] for r in runs)
    whole = median(r["every_usable"] for r in before)
    section = "first open, usable while read"
    before = f"{seconds(whole)} with nothing shown before the whole"
    results.add(Row(section, f"{label}: Memory usable", seconds(memory), baseline=before,
                    target=f"< {seconds(target)}" if target else "", met=memory < target if target else None))
    results.add(Row(section, f"{label}: every screen usable", seconds(every), baseline=before))


def measure_usable(long_profile: LongProfile | None, report: Path, workdir: Path, runs: int, results: Results,
                   say: Callable[[str], None], adapter: bool = True) -> None:
    """The native reader over LONG_PROFILE (when given) RUNS times; the libpva adapter over REPORT's stand-in once."""
    if long_profile is not None:
        say(f"  usable while read: native x{runs}")
        shown = [_open(long_profile.directory, workdir, "native", True) for _ in range(runs)]
        whole = [_open(long_profile.directory, workdir, "native", False) for _ in range(runs)]
        _rows(f"profile.pop over {long_profile.runs} runs, native reader", shown, whole, results,
              MEMORY_USABLE_SECONDS)
    if adapter:
        say("  usable while read: the libpva adapter over the stand-in x1")
        shown = [_open(report, workdir, "libpva", True, report)]
        whole = [_open(report, workdir, "libpva", False, report)]
        _rows("the report, libpva adapter over the stand-in", shown, whole, results, None)
