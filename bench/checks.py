"""Figures the tests once held as timed assertions, measured here instead: the liveness
chart drawing a million steps, and writing the tiny synthetic report."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bench.figures import Results, Row, median, seconds
from bench.runner import run_child

CHART_STEPS = 1_000_000
CHART_LIMIT = 0.25  # seconds for every line of the chart, caches empty, at 200x50
TINY_SYNTH_LIMIT = 2.0  # seconds to generate and write the tiny report


def measure_checks(workdir: Path, runs: int, results: Results, say: Callable[[str], None]) -> None:
    say(f"  liveness chart repaint and tiny synth x{runs}")
    chart = [run_child("chart_repaint", steps=CHART_STEPS)["seconds"] for _ in range(runs)]
    synth = [run_child("synth_tiny", out=str(Path(workdir) / f"tiny-{n}"))["seconds"] for n in range(runs)]
    value = median(chart)
    results.add(Row(
        "checks", f"liveness chart: every line of {CHART_STEPS:,} steps, caches empty (200x50)", seconds(value),
        target=f"<= {seconds(CHART_LIMIT)}", met=value <= CHART_LIMIT,
    ))
    value = median(synth)
    results.add(Row(
        "checks", "synth: generate and write the tiny report", seconds(value),
        target=f"<= {seconds(TINY_SYNTH_LIMIT)}", met=value <= TINY_SYNTH_LIMIT,
    ))
