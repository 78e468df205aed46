"""`pvtui sql` over the report's warm bundle: issue 34's query warm, the first query that fills the steps
view, and the peak memory that takes beside the bundle's size."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from bench.app import cached_bundle
from bench.figures import Results, Row, megabytes, median, seconds
from bench.reports import dir_bytes
from bench.runner import run_child

WARM_LIMIT = 1.0  # seconds, issue 34
MEMORY_SHARE = 0.5  # the peak memory a fraction of the bundle: at most half of it


def measure_sql(cache: Path, runs: int, results: Results, say: Callable[[str], None]) -> None:
    say("  pvtui sql")
    bundle = cached_bundle(cache)
    if bundle is None:
        return
    timed = [run_child("sql", bundle=str(bundle)) for _ in range(runs)]
    rows = timed[0]["rows"]
    warm = median(t for job in timed for t in job["warm"])
    results.add(Row("sql", f"`select program, sum(cycles) from steps group by program`, warm ({rows:,} rows)",
                    seconds(warm), target=f"<= {seconds(WARM_LIMIT)}", met=warm <= WARM_LIMIT))
    results.add(Row("sql", "the same, first: the steps view filled from the bundle's columns",
                    seconds(median(job["first"] for job in timed))))
    peak, size = median(job["peak_bytes"] for job in timed), dir_bytes(bundle)
    results.add(Row("sql", f"peak memory of the first query, beside the bundle ({megabytes(size)})", megabytes(peak),
                    target=f"<= {MEMORY_SHARE:.0%} of the bundle", met=peak <= MEMORY_SHARE * size))
