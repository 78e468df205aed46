"""The metrics a regression gate judges (`pvtui compare A B --fail-if`, `--metrics`): one catalogue of
stable dotted names, each with its unit and what it counts.

A metric is one figure of a report (`memory.max_tile`), or a family of figures, one for each name the
report holds (`cycles.layer.NAME`: one per top-level model layer). Every value is read from the model
function the screens and commands call for the same figure (queries.summary for Summary's figures,
queries.category_totals for Memory's categories, queries.run_figures for Trace's run span, the model
layers' report_layers for Operations and `compare --group layer`): never computed a second way. A figure
a report cannot give is Unavailable, saying which file or option would add it.

A new family (`cycles.compute_set.NAME`) is one more Metric in CATALOGUE whose READ gives
{name: value} or Unavailable.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Callable, Union

from pvtui.model.hotspots import Hotspots
from pvtui.model.layer_compare import report_layers
from pvtui.model.queries import category_totals, run_figures, summary
from pvtui.model.report import Report
from pvtui.model.unavailable import Unavailable

MEMBER = "NAME"  # the last part of a family's name in the catalogue, standing for each member's name
UNITS = ("bytes", "cycles", "count")
LIBPVA = "profile.pop read by libpva (--reader libpva, with the Poplar SDK enabled)"

Value = Union[int, Unavailable]


class ReportFigures:
    """One report's figures, each model function called once however many metrics read it."""

    def __init__(self, report: Report) -> None:
        self.report = report

    @cached_property
    def summary(self) -> dict:
        return summary(self.report)

    @property
    def memory(self) -> dict:
        return self.summary["memory"]

    @cached_property
    def layers(self) -> dict[str, tuple[int | None, int | None]] | Unavailable:
        """Each top-level model layer's (IPU-cycles, memory), the host waits left out: never a layer."""
        report = self.report
        if report.programs is None:
            return Unavailable(report.missing("programs"))
        layers, host = report_layers(report)
        return {name: (figure.cycles, figure.memory) for name, figure in layers.items() if name != host}


def _memory_missing(figures: ReportFigures) -> Unavailable:
    return Unavailable(figures.report.missing("memory"))


def _execution_missing(figures: ReportFigures) -> Unavailable | None:
    report = figures.report
    return Unavailable(report.missing("execution")) if report.execution is None else None


def _given(value: int | None, why: Callable[[], Unavailable]) -> Value:
    return why() if value is None else int(value)


def memory_total(f: ReportFigures) -> Value:
    return _given(f.memory["total_including_gaps"], lambda: _memory_missing(f))


def max_tile(f: ReportFigures) -> Value:
    return _given(f.memory["max_tile_bytes"], lambda: _memory_missing(f))


def tiles_over_limit(f: ReportFigures) -> Value:
    def why() -> Unavailable:
        if f.memory["max_tile_bytes"] is None:
            return _memory_missing(f)
        return Unavailable(f"This report does not say the memory per tile (the target's bytes per tile): it needs "
                           f"{LIBPVA}.")

    return _given(f.memory["tiles_over_limit"], why)


def always_live(f: ReportFigures) -> Value:
    def why() -> Unavailable:
        if f.report.memory is None:
            return _memory_missing(f)
        return Unavailable(f"This report has no always-live bytes per tile: they need {LIBPVA}.")

    return _given(f.memory["always_live_bytes"], why)


def peak_not_always_live(f: ReportFigures) -> Value:
    return _given(f.memory["peak_not_always_live_bytes"], lambda: Unavailable(f.report.missing("liveness")))


def categories(f: ReportFigures) -> dict[str, int] | Unavailable:
    if f.report.categories_being_read:
        return Unavailable(f.report.missing("categories"))
    return category_totals(f.report) or _memory_missing(f)


def report_total(f: ReportFigures) -> Value:
    def why() -> Unavailable:
        return _execution_missing(f) or Unavailable(
            "This report states no report total: profile.pop's execution_cycle_totals table gives it.")

    return _given((f.summary["execution"] or {}).get("report_total_cycles"), why)


def run_span(f: ReportFigures) -> Value:
    execution = f.report.execution
    if execution is None:
        return _execution_missing(f)
    return sum(run_figures(execution, run)["run_span_cycles"] for run in range(execution.num_runs))


def device_time(f: ReportFigures) -> Value:
    def why() -> Unavailable:
        if f.report.execution is None:
            return _execution_missing(f)
        if not f.report.execution.runs_known:
            return Unavailable(f"This report does not split its steps into the runs profiled: device time needs "
                               f"{LIBPVA}.")
        return Unavailable("Every step of every run waits on the host: no run has a device time.")

    return _given((f.summary["execution"] or {}).get("device_cycles"), why)


def _layer_figure(f: ReportFigures, index: int, missing: Callable[[], Unavailable | None]) \
        -> dict[str, int] | Unavailable:
    layers = f.layers
    if isinstance(layers, Unavailable):
        return layers
    reason = missing()
    if reason is not None:
        return reason
    return {name: int(figures[index]) for name, figures in layers.items()}


def layer_cycles(f: ReportFigures) -> dict[str, int] | Unavailable:
    return _layer_figure(f, 0, lambda: _execution_missing(f))


def layer_memory(f: ReportFigures) -> dict[str, int] | Unavailable:
    def missing() -> Unavailable | None:
        known = f.report.programs.code_bytes is not None
        return None if known else Unavailable(f"This report has no code bytes of its programs: they need {LIBPVA}.")

    return _layer_figure(f, 1, missing)


def compute_set_cycles(f: ReportFigures) -> dict[str, int] | Unavailable:
    """Each compute set's IPU-cycles by name (Hotspots' compute sets; two of one name summed)."""
    hotspots = Hotspots(f.report)
    missing = hotspots.unavailable()
    if missing is not None:
        return missing
    table = hotspots.table("compute-set")
    cycles: dict[str, int] = {}
    for name, value in zip(table.names, table.cycles.tolist()):
        cycles[name] = cycles.get(name, 0) + int(value)
    return cycles


@dataclass(frozen=True)
class Metric:
    """One entry of the catalogue: a figure, or a family of figures (its name ends in `.NAME`)."""

    name: str
    unit: str  # one of UNITS
    counts: str  # what it counts, in one sentence (the README's catalogue)
    read: Callable[[ReportFigures], object]  # a figure: its Value; a family: {member name: int} or Unavailable

    @property
    def family(self) -> bool:
        return self.name.endswith("." + MEMBER)

    @property
    def prefix(self) -> str:
        """What every member's name starts with: `cycles.layer.`."""
        return self.name[: -len(MEMBER)]


CATALOGUE: tuple[Metric, ...] = (
    Metric("memory.total", "bytes", "every tile's memory including gaps, summed (Summary's memory including "
           "gaps; needs profile.pop).", memory_total),
    Metric("memory.max_tile", "bytes", "the largest tile's memory (Summary's largest tile): including gaps from "
           "profile.pop, else archive.a's allocated bytes.", max_tile),
    Metric("memory.tiles_over_limit", "count", "tiles whose memory is over the memory per tile (Summary's tiles "
           "over limit).", tiles_over_limit),
    Metric("memory.always_live", "bytes", "always-live bytes over every tile (Summary's always-live).", always_live),
    Metric("memory.peak_not_always_live", "bytes", "the not-always-live bytes at the liveness peak, the step with "
           "the most (Summary's and Liveness's peak).", peak_not_always_live),
    Metric("memory.category.NAME", "bytes", "one memory category's bytes over every tile (Memory's categories, "
           "`pvtui memory --json`'s categories): profile.pop's categories, or archive.a's code, data and bss.",
           categories),
    Metric("memory.layer.NAME", "bytes", "one top-level model layer's memory: the code of its leaf programs plus "
           "the variables its operations list (Operations by model layer, `compare --group layer`).", layer_memory),
    Metric("cycles.report_total", "cycles", "the report total: the total cycles the report states.", report_total),
    Metric("cycles.run_span", "cycles", "every run's run span (first step start to last step end), summed.",
           run_span),
    Metric("cycles.device", "cycles", "device time: every run's span without the host waits at its ends, "
           "summed (Summary's device time).", device_time),
    Metric("cycles.layer.NAME", "cycles", "one top-level model layer's IPU-cycles over every profiled run "
           "(Operations by model layer, `compare --group layer`); host waits are never a model layer.",
           layer_cycles),
    Metric("cycles.compute_set.NAME", "cycles", "one compute set's IPU-cycles over every profiled run, step and "
           "IPU (Hotspots' compute sets, `pvtui hotspots --by compute-set`); host waits are never one.",
           compute_set_cycles),
)


def family_of(name: str) -> Metric | None:
    """The family whose member NAME would be (`cycles.layer.encoder` → cycles.layer.NAME), else None."""
    return next((m for m in CATALOGUE if m.family and name.startswith(m.prefix) and len(name) > len(m.prefix)),
                None)


def metric_of(name: str) -> Metric | None:
    """The catalogue entry of a metric's NAME: a figure's own entry, or its family's."""
    return next((m for m in CATALOGUE if m.name == name and not m.family), None) or family_of(name)


def read_metrics(report: Report) -> dict[str, Value]:
    """Every metric REPORT gives, by name: each figure, each family's members by their own names; a family the
    report cannot give once, by its catalogue name (`cycles.layer.NAME`), as Unavailable."""
    figures = ReportFigures(report)
    values: dict[str, Value] = {}
    for metric in CATALOGUE:
        value = metric.read(figures)
        if metric.family and not isinstance(value, Unavailable):
            values.update((metric.prefix + member, figure) for member, figure in value.items())
        else:
            values[metric.name] = value
    return values


def value_of(values: dict[str, Value], name: str) -> Value | None:
    """NAME's value in a report's VALUES (read_metrics); its family's Unavailable where the report gives none of
    the family; None for a family member the report does not hold (a layer it has not)."""
    if name in values:
        return values[name]
    family = family_of(name)
    return values.get(family.name) if family is not None else None


@dataclass(frozen=True)
class Pair:
    """A metric's values in A and B: a figure, Unavailable, or None where that report does not hold the family
    member (a layer it has not), counted 0."""

    metric: str
    unit: str
    a: Value | None
    b: Value | None

    @property
    def change(self) -> int | None:
        """B - A, a member absent from one report counting 0 there; None where a report cannot give it."""
        if isinstance(self.a, Unavailable) or isinstance(self.b, Unavailable):
            return None
        return (self.b or 0) - (self.a or 0)

    @property
    def share(self) -> Fraction | None:
        """The change as a share of A (1/4 is 25% more); None where A is 0 or the change unknown."""
        change = self.change
        return None if change is None or not self.a else Fraction(change, self.a)


def pairs(a: dict[str, Value], b: dict[str, Value]) -> list[Pair]:
    """Every metric of A's and B's (read_metrics) side by side, A's order first; a family one report cannot give
    by its catalogue name, where the other gives none of its members either (else they say it)."""
    names = list(dict.fromkeys([*a, *b]))

    def shown(name: str) -> bool:
        family = family_of(name)
        return family is None or family.name != name or not any(
            other != name and other.startswith(family.prefix) for other in names)

    return [Pair(name, metric_of(name).unit, value_of(a, name), value_of(b, name)) for name in names if shown(name)]


def catalogue_markdown() -> str:
    """The catalogue as the README lists it: a line per metric, its unit and what it counts."""
    return "\n".join(f"- `{m.name}` ({m.unit}): {m.counts}" for m in CATALOGUE)
