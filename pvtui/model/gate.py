"""A regression gate over two reports: conditions `METRIC OP LIMIT` (`pvtui compare A B --fail-if`), parsed
and judged against the metrics of model/metrics.py.

OP is one of > >= < <=. A plain limit applies to B (`memory.max_tile > 600KiB`); a signed one to B's
change from A (`cycles.device > +50000`, `memory.max_tile > +2%`). Bytes take pvtui's units (B, KiB,
MiB, GiB, TiB, kB, MB, GB, TB), cycles and counts are bare. `*` in METRIC applies the condition to each
metric it matches. A condition holds (the gate fails) when its comparison is true; it needs B alone for
a plain limit, both reports for a change. Figures are compared exactly (fractions, never floats).
"""

from __future__ import annotations

import difflib
import operator
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from pvtui.model.metrics import CATALOGUE, MEMBER, Metric, Pair, Value, family_of, metric_of, value_of
from pvtui.model.unavailable import Unavailable

OPERATORS: dict[str, Callable[[object, object], bool]] = {
    ">": operator.gt, ">=": operator.ge, "<": operator.lt, "<=": operator.le}
BYTE_UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
              "kB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}
MINUS_SIGNS = "-\u2212"  # ASCII, and the minus pvtui prints (units.MINUS)
MAX_DIGITS = 30
WILDCARD = "*"

_OPERATOR = re.compile(r"[<>]=?")
_NUMBER = re.compile(r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+")
_UNIT = re.compile(r"%|[A-Za-z]+")


class ConditionError(ValueError):
    """A condition that does not parse: what is wrong, and at which character of TEXT (for a caret)."""

    def __init__(self, problem: str, text: str, column: int) -> None:
        super().__init__(problem)
        self.problem, self.text, self.column = problem, text, column


class GateError(ValueError):
    """A gate that cannot be judged: a line per condition that cannot (an unknown metric, one a report cannot
    give), or its ConditionError (a limit in bytes for a metric in cycles), for a caret."""

    def __init__(self, lines: list[str | ConditionError]) -> None:
        super().__init__("\n".join(map(str, lines)))
        self.lines = lines


@dataclass(frozen=True)
class Limit:
    value: Fraction  # in the metric's unit (bytes after the unit written), or a percentage
    signed: bool  # written with + or -: B's change from A; else B itself
    percent: bool
    unit: str | None  # the byte unit written, None for a bare number or a percentage
    text: str  # as written
    unit_at: int | None  # where the unit starts in the condition


@dataclass(frozen=True)
class Condition:
    text: str  # as given
    metric: str  # as written, maybe with WILDCARD
    op: str
    limit: Limit

    @property
    def needs_a(self) -> bool:
        """Whether judging it reads report A: a change from A does, a plain limit does not."""
        return self.limit.signed


def parse_condition(text: str) -> Condition:
    """TEXT as a condition; ConditionError saying what is wrong and where."""
    found = _OPERATOR.search(text)
    if found is None:
        stray = re.search(r"[=!]", text)
        if stray is not None:
            raise ConditionError("not an operator: use >, >=, < or <=", text, stray.start())
        word = re.match(r"\s*\S+\s*", text)
        raise ConditionError("expected an operator (>, >=, < or <=) after the metric", text,
                             word.end() if word else len(text))
    metric = text[: found.start()].strip()
    if not metric:
        raise ConditionError("expected a metric before the operator (see `pvtui compare A B --metrics`)", text,
                             found.start())
    return Condition(text, metric, found.group(), parse_limit(text, found.end()))


def parse_limit(text: str, start: int) -> Limit:
    """The limit written in TEXT from START on: [+|-] NUMBER [UNIT | %]."""
    at = _skip_spaces(text, start)
    if at == len(text):
        raise ConditionError("expected a limit after the operator (600KiB, +5%, +50000)", text, at)
    first = at
    signed = text[at] in "+" + MINUS_SIGNS
    negative = text[at] in MINUS_SIGNS
    if signed:
        at = _skip_spaces(text, at + 1)
    number = _NUMBER.match(text, at)
    if number is None:
        raise ConditionError("expected a number", text, at)
    if len(re.sub(r"\D", "", number.group())) > MAX_DIGITS:
        raise ConditionError(f"a number of more than {MAX_DIGITS} digits", text, at)
    value = Fraction(number.group().replace(",", ""))
    at = _skip_spaces(text, number.end())
    unit = _UNIT.match(text, at)
    percent, written, unit_at = False, None, None
    if unit is not None:
        written = unit.group()
        if written == "%":
            percent, written = True, None
            if not signed:
                raise ConditionError("a percentage is a change from A: sign it (+5% or -5%)", text, first)
        elif written in BYTE_UNITS:
            value *= BYTE_UNITS[written]
            unit_at = at
        else:
            raise ConditionError(f"unknown unit {written!r}: use {', '.join(BYTE_UNITS)} or a signed %", text, at)
        at = _skip_spaces(text, unit.end())
    if at < len(text):
        raise ConditionError("unexpected text after the limit", text, at)
    return Limit(-value if negative else value, signed, percent, written, text[first:].strip(), unit_at)


def _skip_spaces(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


# Judging -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """One condition judged on one metric: its values in A and B (metrics.Pair), and whether it holds."""

    condition: Condition
    pair: Pair
    failed: bool


def holds(condition: Condition, a: int | None, b: int | None) -> bool:
    """Whether CONDITION is true of A's and B's values (None counting 0)."""
    a, b = a or 0, b or 0
    limit, compare = condition.limit, OPERATORS[condition.op]
    if not limit.signed:
        return compare(b, limit.value)
    if not limit.percent:
        return compare(b - a, limit.value)
    if a == 0:  # from nothing: no change, or an unbounded growth
        return compare(0, limit.value) if b == 0 else condition.op in (">", ">=")
    return compare(Fraction((b - a) * 100, a), limit.value)


@dataclass(frozen=True)
class Reports:
    """The two reports' metrics (metrics.read_metrics) and how to name each report in a message."""

    a: dict[str, Value]
    b: dict[str, Value]
    a_name: str = "A"
    b_name: str = "B"

    def needed(self, condition: Condition) -> list[tuple[str, str, dict[str, Value]]]:
        """(side, report name, metrics) of each report CONDITION reads: B, and A for a change."""
        sides = [("B", self.b_name, self.b)]
        return sides + [("A", self.a_name, self.a)] if condition.needs_a else sides


def judge(conditions: list[Condition], reports: Reports) -> list[Verdict]:
    """Every condition judged on every metric it names, in the order given; GateError where any cannot be,
    with a line (or a ConditionError, for a caret) for each."""
    verdicts, problems = [], []
    for condition in conditions:
        try:
            verdicts.extend(_judge(condition, reports))
        except GateError as error:
            problems.extend(error.lines)
        except ConditionError as error:
            problems.append(error)
    if problems:
        raise GateError(problems)
    return verdicts


def failed_first(verdicts: list[Verdict]) -> list[Verdict]:
    return sorted(verdicts, key=lambda verdict: not verdict.failed)


def _judge(condition: Condition, reports: Reports) -> list[Verdict]:
    verdicts = []
    for name in _matched(condition, reports):
        metric = metric_of(name)
        _check_unit(condition, name, metric)
        for side, report, values in reports.needed(condition):
            value = value_of(values, name)
            if isinstance(value, Unavailable):
                raise GateError([f"--fail-if '{condition.text}': report {side} ({report}) cannot give {name}: "
                                 f"{value.reason}"])
        pair = Pair(name, metric.unit, value_of(reports.a, name), value_of(reports.b, name))
        failed = holds(condition, *(None if isinstance(v, Unavailable) else v for v in (pair.a, pair.b)))
        verdicts.append(Verdict(condition, pair, failed))
    return verdicts


def _matched(condition: Condition, reports: Reports) -> list[str]:
    """The metrics CONDITION names, of the reports it reads: its metric, or those its wildcard matches (a family
    a report cannot give by its catalogue name); GateError for none."""
    written = condition.metric
    sides = reports.needed(condition)
    given = list(dict.fromkeys(name for _, _, values in sides for name in values))
    known = [name for name in given if not name.endswith("." + MEMBER)]
    which = "A or B" if condition.needs_a else "B"
    if WILDCARD in written:
        pattern = re.compile(".*".join(map(re.escape, written.split(WILDCARD))), re.DOTALL)
        matched = [name for name in given if pattern.fullmatch(name)]
        if matched:
            return matched
        raise GateError([f"--fail-if '{condition.text}': {written} matches no metric of report {which}"
                         f"{_nearest(written, known)}"])
    family = family_of(written)
    if written in known or family is not None and family.name in given:
        return [written]
    missing = f"no metric {written}" if family is None else f"report {which} has no {written}"
    raise GateError([f"--fail-if '{condition.text}': {missing}{_nearest(written, known)}"])


def _nearest(written: str, known: list[str]) -> str:
    """`; did you mean NAME?` for the known metric or catalogue entry nearest WRITTEN, else a pointer."""
    candidates = known + [m.prefix + WILDCARD if m.family else m.name for m in CATALOGUE]
    near = difflib.get_close_matches(written, candidates, n=1, cutoff=0.5)
    if near:
        return f"; did you mean {near[0]}?"
    return " (`pvtui compare A B --metrics` lists them)"


def _check_unit(condition: Condition, name: str, metric: Metric) -> None:
    limit = condition.limit
    if limit.unit is not None and metric.unit != "bytes":
        what = "a count" if metric.unit == "count" else f"in {metric.unit}"
        raise ConditionError(f"{name} is {what}, not bytes: its limit takes no unit",
                             condition.text, limit.unit_at)
