"""Summary: the target, graph, memory and execution facts, the files, and the JSON files."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Label, Static

from pvtui.model.queries import summary, summary_reads_columns
from pvtui.model.tables import Table
from pvtui.model.unavailable import Unavailable
from pvtui.render.facts import fact_rows, over_limit_warning, summary_facts_table
from pvtui.render.json_text import json_value
from pvtui.render.tables import facts_table, files_row
from pvtui.screens.base import Needs, ReportScreen, UnavailableNotice
from pvtui.widgets.json_tree import JsonTree

if TYPE_CHECKING:
    from pvtui.model.report import Report


class SummaryScreen(ReportScreen):
    SCREEN_NAME = "Summary"
    BINDINGS = [Binding("f", "focus_next_tree", "Next JSON tree", id="summary.tree")]
    KEYS = {"focus_next_tree": Needs(shown=("has_json_tree",))}
    DEFAULT_CSS = """
    SummaryScreen #summary { padding: 0 1; }
    SummaryScreen .facts { height: auto; margin-bottom: 1; }
    SummaryScreen .warning { color: $error; text-style: bold; height: auto; }
    SummaryScreen .note { color: $warning; height: auto; }
    SummaryScreen .heading { text-style: bold; margin-top: 1; }
    """

    _summed: tuple[Any, dict[str, Any]] | None = None  # the report and its summary() (figures, no units)

    def compose_body(self) -> ComposeResult:
        yield VerticalScroll(*self._widgets(), id="summary")

    def _summary(self) -> dict[str, Any]:
        """summary() of the report shown, computed once for it (it reads every step for device time): the
        units only change how its figures are written."""
        if self._summed is None or self._summed[0] is not self.report:
            self._summed = (self.report, summary(self.report))
        return self._summed[1]

    def shows_without_numpy(self, report: "Report") -> bool:
        return not summary_reads_columns(report)

    def report_changed(self) -> None:
        super().report_changed()
        self._fill()
        self.refresh_bindings()

    def units_changed(self) -> None:
        """Redraw the facts in place: the JSON trees keep what is expanded."""
        for widget, renderable in zip(self.query(".fact").results(Static), self._facts(self._summary())):
            widget.update(renderable)

    def _fill(self) -> None:
        body = self.query_one("#summary", VerticalScroll)
        body.remove_children()
        body.mount_all(list(self._widgets()))

    def _facts(self, data: dict[str, Any]) -> list:
        """What shows bytes: the out-of-memory warning (if any) and the fact tables."""
        facts: list = []
        warning = over_limit_warning(data, self.bytes)
        if warning is not None:
            facts.append(Text(warning, style="bold"))
        facts.extend(facts_table(title, rows) for title, rows in fact_rows(data, self.bytes))
        return facts

    def export_table(self) -> Table:
        return summary_facts_table(self._summary())

    def _widgets(self):
        report = self.report
        data = self._summary()
        facts = self._facts(data)
        if data["memory"]["tiles_over_limit"]:
            yield Static(facts.pop(0), classes="fact warning")
        problems = report.problems
        if report.memory is None and report.missing("memory") not in problems:
            yield Static(report.missing("memory"), classes="note", markup=False)
        for problem in problems:
            yield Static(problem, classes="note", markup=False)
        for table in facts:
            yield Static(table, classes="fact facts")
        yield Static(facts_table("Files", [("Present", files_row(data["file_states"], data["readers"]))]),
                     classes="facts")
        for part, label, value in (("framework", "framework.json", report.framework_json),
                                   ("app", "app.json", report.app_json)):
            yield Label(label, classes="heading")
            if value is None:
                present = data["files"].get(label)
                yield UnavailableNotice(Unavailable(report.missing(part) if present else f"{label} is not in this report."))
            elif isinstance(value, (dict, list)):
                yield JsonTree(label, value)
            else:
                yield Static(json_value(value))

    @property
    def has_json_tree(self) -> bool:
        """A JSON file gives a tree to move to."""
        report = self.report
        return any(isinstance(value, (dict, list)) for value in (report.framework_json, report.app_json))

    def action_focus_next_tree(self) -> None:
        trees = list(self.query(JsonTree))
        if not trees:
            return
        focused = self.focused
        index = trees.index(focused) + 1 if focused in trees else 0
        trees[index % len(trees)].focus()
