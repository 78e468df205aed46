"""The regression gate's output (`pvtui compare A B --fail-if`): a table of every condition (metric, A, B,
change, limit, verdict), the failed ones first, as text, JSON, Markdown (a job summary) or GitHub Actions
workflow commands (an `::error` line per failed condition, then the text table); and the metrics listed
(`--metrics`), and a malformed condition with a caret under the spot.

Text from a report (a layer's name) reaches here made visible (pvtui.safe_text), except for JSON, which keeps
it exact; Markdown and workflow commands escape what their formats read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from pvtui.model.unavailable import Unavailable
from pvtui.render.differences import format_change, format_delta, format_value
from pvtui.safe_text import visible
from pvtui.units import MINUS, count_of

if TYPE_CHECKING:
    from pvtui.model.gate import ConditionError, Verdict
    from pvtui.model.metrics import Pair, Value

HEADINGS = ("metric", "A", "B", "change", "limit", "verdict")
FAILED, PASSED = "FAILED", "ok"
ABSENT = "absent"  # a family member the report does not hold, counted 0
# Markdown: every ASCII punctuation mark but these is escaped (a name's `|` would end a cell, `*` or `<` format)
_MD_PLAIN = set(".,-%/+() ")  # ( and ) make a link only after a ], which is escaped
_MD_SPECIAL = re.compile("[" + re.escape("".join(c for c in map(chr, range(33, 127))
                                                if not c.isalnum() and c not in _MD_PLAIN)) + "]")


@dataclass(frozen=True)
class Shown:
    """How figures read: bytes in UNITS (a mode of pvtui.units), negative changes with MINUS."""

    units: str = "binary"
    minus: str = MINUS

    def value(self, value: "Value | None", unit: str) -> str:
        if isinstance(value, Unavailable):
            return "—"
        return ABSENT if value is None else format_value(value, unit, self.units)

    def change(self, pair: "Pair") -> str:
        if pair.change is None:
            return "—"
        share = "" if pair.share is None else f" ({format_change(float(pair.share), self.minus)})"
        return format_delta(pair.change, pair.unit, self.units, self.minus) + share


def limit_text(verdict: "Verdict") -> str:
    condition = verdict.condition
    return f"{condition.op} {condition.limit.text}"


def verdict_cells(verdict: "Verdict", shown: Shown) -> list[str]:
    """A verdict's cells under HEADINGS, the metric's name made visible."""
    pair = verdict.pair
    return [visible(pair.metric), shown.value(pair.a, pair.unit), shown.value(pair.b, pair.unit), shown.change(pair),
            visible(limit_text(verdict)), FAILED if verdict.failed else PASSED]


def failed_count(verdicts: list["Verdict"]) -> str:
    """How many checks failed: a check is one condition on one metric (a wildcard's condition makes several)."""
    return f"{sum(v.failed for v in verdicts):,} of {count_of(len(verdicts), 'check')} failed"


# JSON ------------------------------------------------------------------------------------------


def figure(value: "Value | None") -> int | None:
    """A value as JSON gives it: the figure, or None where the report cannot give it or lacks it."""
    return None if isinstance(value, Unavailable) else value


def gate_json(verdicts: list["Verdict"]) -> dict[str, Any]:
    """`{"conditions": [{"condition", "metric", "a", "b", "change", "limit", "failed"}], "failed": N}`: exact
    strings and figures (bytes, cycles or counts; null where a report cannot give one or lacks the member)."""
    return {
        "conditions": [
            {"condition": v.condition.text, "metric": v.pair.metric, "a": figure(v.pair.a), "b": figure(v.pair.b),
             "change": v.pair.change, "limit": limit_text(v), "failed": v.failed} for v in verdicts],
        "failed": sum(v.failed for v in verdicts),
    }


# Text, Markdown, GitHub --------------------------------------------------------------------------


def print_text(verdicts: list["Verdict"], heading: str, shown: Shown) -> None:
    """The table, after HEADING (visible already) and how many conditions failed: every line of the table
    starts with its border, so that none reads as a workflow command."""
    rows = [verdict_cells(verdict, shown) for verdict in verdicts]
    print_table(f"{heading} · {failed_count(verdicts)}", HEADINGS, rows, right=(1, 2, 3),
                bold=[verdict.failed for verdict in verdicts])


def print_table(heading: str, headings: Sequence[str], rows: list[list[str]], right: Sequence[int],
                bold: Sequence[bool] = (), notes: Sequence[str] = ()) -> None:
    """HEADING, then ROWS under HEADINGS (the columns RIGHT right-aligned, a row bold where BOLD says), then NOTES:
    on a terminal as wide as it is, the first column (the names) folded to fit; else as wide as they need (a file
    has no width)."""
    from rich.cells import cell_len
    from rich.table import Table
    from rich.text import Text

    from pvtui.render.console import TextConsole

    table = Table()
    for index, name in enumerate(headings):
        table.add_column(name, justify="right" if index in right else "left", no_wrap=index > 0, overflow="fold")
    for index, row in enumerate(rows):
        table.add_row(*(Text(cell) for cell in row), style="bold" if index < len(bold) and bold[index] else None)
    console = TextConsole()
    if not console.is_terminal:
        widths = [max([cell_len(name)] + [cell_len(row[i]) for row in rows]) for i, name in enumerate(headings)]
        console = TextConsole(width=max(80, sum(widths) + 3 * len(widths) + 1))
    console.print(Text(heading), soft_wrap=True)
    console.print(table)
    for note in notes:
        console.print(Text(note), soft_wrap=True)


def markdown_cell(text: str) -> str:
    """TEXT escaped for a cell of a Markdown table: its punctuation read as itself, never as a cell's end."""
    return _MD_SPECIAL.sub(lambda match: "\\" + match.group(), text)


def markdown(verdicts: list["Verdict"], heading: str, shown: Shown) -> str:
    """The table for a job summary ($GITHUB_STEP_SUMMARY), after HEADING (visible already)."""
    lines = [f"### {markdown_cell(heading)}", "", f"**{failed_count(verdicts)}**", "",
             "| " + " | ".join(HEADINGS) + " |", "|:--|--:|--:|--:|:--|:--|"]
    for verdict in verdicts:
        cells = [markdown_cell(cell) for cell in verdict_cells(verdict, shown)]
        if verdict.failed:
            cells[-1] = f"**{cells[-1]}**"
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def workflow_data(text: str) -> str:
    """TEXT as a workflow command's message: %, CR and LF escaped, as GitHub's toolkit does."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def workflow_property(text: str) -> str:
    """TEXT as a workflow command's property (title=): as a message, and `:` and `,` escaped too."""
    return workflow_data(text).replace(":", "%3A").replace(",", "%2C")


def github_errors(verdicts: list["Verdict"], shown: Shown) -> list[str]:
    """An `::error title=…::…` line per failed condition."""
    lines = []
    for verdict in verdicts:
        if not verdict.failed:
            continue
        metric, a, b, change, limit, _ = verdict_cells(verdict, shown)
        title = f"pvtui gate: {metric} {limit}"
        message = f"{metric} {limit} failed: A {a}, B {b}, change {change} ({visible(verdict.condition.text)})"
        lines.append(f"::error title={workflow_property(title)}::{workflow_data(message)}")
    return lines


def print_gate(verdicts: list["Verdict"], fmt: str, heading: str, shown: Shown) -> None:
    """VERDICTS (failed first) in FMT: text, json, md or github."""
    if fmt == "json":
        print(json.dumps(gate_json(verdicts), indent=2))
    elif fmt == "md":
        print(markdown(verdicts, heading, shown))
    else:
        for line in github_errors(verdicts, shown) if fmt == "github" else ():
            print(line)
        print_text(verdicts, heading, shown)


# Metrics and errors -----------------------------------------------------------------------------------


def metrics_json(pairs: list["Pair"]) -> dict[str, Any]:
    """`{"metrics": [{"metric", "unit", "a", "b", "change", "unavailable"}]}`: UNAVAILABLE says why, by report
    ("A", "B"), where one cannot give the metric."""
    return {"metrics": [
        {"metric": p.metric, "unit": p.unit, "a": figure(p.a), "b": figure(p.b), "change": p.change,
         "unavailable": {side: value.reason for side, value in (("A", p.a), ("B", p.b))
                         if isinstance(value, Unavailable)}} for p in pairs]}


def print_metrics(pairs: list["Pair"], heading: str, shown: Shown) -> None:
    """Every metric with its unit, A, B and change; then why a report cannot give those it cannot."""
    rows, reasons = [], {}  # reasons: {reason: {metric: the reports that cannot give it}}
    for pair in pairs:
        rows.append([visible(pair.metric), pair.unit, shown.value(pair.a, pair.unit), shown.value(pair.b, pair.unit),
                     shown.change(pair)])
        for side, value in (("A", pair.a), ("B", pair.b)):
            if isinstance(value, Unavailable):
                reasons.setdefault(visible(value.reason), {}).setdefault(visible(pair.metric), []).append(side)
    notes = []
    for reason, metrics in reasons.items():
        named = ", ".join(f"{metric} ({' and '.join(sides)})" for metric, sides in metrics.items())
        notes.append(f"— {named}: {reason}")
    print_table(heading, ("metric", "unit", "A", "B", "change"), rows, right=(2, 3, 4), notes=notes)


def caret_lines(error: "ConditionError") -> list[str]:
    """A condition that does not parse: what is wrong, the condition, and a caret under the spot."""
    from rich.cells import cell_len

    return [f"pvtui: --fail-if: {error.problem}", f"  {visible(error.text)}",
            "  " + " " * cell_len(visible(error.text[: error.column])) + "^"]
