"""Figures and targets: medians and percentiles, the printed table, BENCHMARKS.md.

Pure functions over plain data, so the table and the `targets met` line can be
tested from made-up figures without timing anything.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field


def median(values: Iterable[float]) -> float:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else math.nan


def percentile(values: Iterable[float], q: float) -> float:
    """The q-th percentile (0..100), linear between the closest ranks."""
    values = sorted(v for v in values if v is not None)
    if not values:
        return math.nan
    if len(values) == 1:
        return values[0]
    rank = (len(values) - 1) * q / 100
    lo = math.floor(rank)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (rank - lo)


@dataclass
class Row:
    """One line of the table: a figure, its baseline in the same run, and the target if any.

    `met` is None for figures without a target (context), else whether the target holds.
    """

    section: str
    what: str
    value: str
    baseline: str = ""
    ratio: str = ""
    target: str = ""
    met: bool | None = None
    note: str = ""


@dataclass
class Results:
    rows: list[Row] = field(default_factory=list)
    machine: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add(self, row: Row) -> Row:
        self.rows.append(row)
        return row

    @property
    def targets(self) -> list[Row]:
        return [r for r in self.rows if r.met is not None]

    def score(self) -> tuple[int, int]:
        targets = self.targets
        return sum(1 for r in targets if r.met), len(targets)

    def summary_line(self) -> str:
        met, total = self.score()
        return f"targets met: {met}/{total}"


# --- formatting -----------------------------------------------------------------


def seconds(value: float) -> str:
    if value is None or math.isnan(value):
        return "—"
    if value < 1:
        return f"{value * 1000:.1f} ms"
    return f"{value:.2f} s"


def millis(value: float) -> str:
    return "—" if value is None or math.isnan(value) else f"{value:.1f} ms"


def megabytes(value: float) -> str:
    return "—" if value is None or math.isnan(value) else f"{value / 1e6:,.1f} MB"


def throughput(nbytes: float, secs: float) -> str:
    if not secs or math.isnan(secs):
        return "—"
    return f"{nbytes / 1e6 / secs:,.1f} MB/s"


def ratio(value: float, baseline: float) -> str:
    if not baseline or value is None or math.isnan(value) or math.isnan(baseline):
        return "—"
    return f"{value / baseline:.2f}x"


def mark(met: bool | None) -> str:
    return "" if met is None else ("yes" if met else "NO")


HEADERS = ("measure", "pvtui", "baseline", "ratio", "target", "met")


def _cells(row: Row) -> tuple[str, ...]:
    what = f"{row.section}: {row.what}" if row.section else row.what
    return (what, row.value, row.baseline, row.ratio, row.target, mark(row.met))


def text_table(rows: Sequence[Row]) -> str:
    """A plain fixed-width table for the terminal."""
    cells = [HEADERS] + [_cells(r) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(HEADERS))]
    lines = []
    for n, line in enumerate(cells):
        lines.append("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_table(rows: Sequence[Row]) -> str:
    lines = ["| " + " | ".join(HEADERS) + " |", "|" + "|".join("---" for _ in HEADERS) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(_md_escape(c) for c in _cells(row)) + " |")
    return "\n".join(lines)


def missed_sections(text: str) -> dict[str, str]:
    """The `### section` blocks of bench/missed.md: why a section's targets can be missed."""
    blocks: dict[str, str] = {}
    for block in text.split("### ")[1:]:
        name, _, body = block.partition("\n")
        blocks[name.strip()] = body.strip()
    return blocks


def markdown(results: Results, title: str, method: str, missed: dict[str, str] | None = None) -> str:
    """The whole of BENCHMARKS.md: machine, table, notes, why targets were missed, method, the score."""
    out = [f"# {title}", ""]
    out.append("Written by `python -m bench`; run it again after a change and compare.")
    out.append("")
    out.append("## Machine")
    out.append("")
    for key, value in results.machine.items():
        out.append(f"- {key}: {value}")
    out.append("")
    out.append("## Figures")
    out.append("")
    out.append(markdown_table(results.rows))
    out.append("")
    notes = [r for r in results.rows if r.note]
    if notes or results.notes:
        out.append("## Notes")
        out.append("")
        for row in notes:
            out.append(f"- {row.section}: {row.what}: {row.note}")
        for note in results.notes:
            out.append(f"- {note}")
        out.append("")
    failed = list(dict.fromkeys(r.section for r in results.rows if r.met is False))
    if failed:
        out.append("## Missed targets")
        out.append("")
        for section in failed:
            why = (missed or {}).get(section, "Not diagnosed yet.")
            out.append(f"### {section}")
            out.append("")
            out.append(why)
            out.append("")
    out.append("## Method")
    out.append("")
    out.append(method.strip())
    out.append("")
    out.append(results.summary_line())
    out.append("")
    return "\n".join(out)
