"""Summary: the target, graph, memory and execution facts, the files, and the JSON files."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Label, Static, Tree
from textual.widgets.tree import TreeNode

from pvtui.model.facts import fact_rows
from pvtui.model.queries import summary
from pvtui.model.tables import Table
from pvtui.render.tables import facts_table, files_row
from pvtui.screens.base import ReportScreen, Unavailable
from pvtui.units import count_of

JSON_CHUNK = 200  # children added per expansion of a large JSON array or object


class JsonTree(Tree):
    """A JSON document whose nodes are created as they are expanded."""

    DEFAULT_CSS = """
    JsonTree { height: auto; max-height: 16; background: $surface; }
    """

    def __init__(self, label: str, value: Any, **kwargs) -> None:
        super().__init__(label, data=value, **kwargs)
        self.show_root = True

    def on_mount(self) -> None:
        self._fill(self.root)
        self.root.expand()

    def _fill(self, node: TreeNode, start: int = 0) -> None:
        value = node.data
        items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        for key, child in items[start : start + JSON_CHUNK]:
            if isinstance(child, (dict, list)) and child:
                size = f"{len(child)} {'keys' if isinstance(child, dict) else 'items'}"
                node.add(Text.assemble((str(key), "bold"), f"  {size}"), data=child)
            else:
                node.add_leaf(Text.assemble((str(key), "bold"), " = ", repr_json(child)))
        rest = len(items) - start - JSON_CHUNK
        if rest > 0:
            node.add_leaf(f"… {rest} more (Enter loads them)", data=("more", node, start + JSON_CHUNK))

    def on_tree_node_expanded(self, event: Tree.NodeExpanded) -> None:
        node = event.node
        if not node.children and isinstance(node.data, (dict, list)):
            self._fill(node)

    def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        data = event.node.data
        if isinstance(data, tuple) and data and data[0] == "more":
            _, parent, start = data
            event.node.remove()
            self._fill(parent, start)


def repr_json(value: Any) -> Text:
    if isinstance(value, str):
        return Text(f'"{value}"', style="green")
    if value is None or isinstance(value, bool):
        return Text(str(value).lower() if value is not None else "null", style="italic")
    return Text(str(value), style="cyan")


class SummaryScreen(ReportScreen):
    SCREEN_NAME = "Summary"
    BINDINGS = [Binding("f", "focus_next_tree", "Next JSON tree", id="summary.tree")]
    DEFAULT_CSS = """
    SummaryScreen #summary { padding: 0 1; }
    SummaryScreen .facts { height: auto; margin-bottom: 1; }
    SummaryScreen .warning { color: $error; text-style: bold; height: auto; }
    SummaryScreen .note { color: $warning; height: auto; }
    SummaryScreen .heading { text-style: bold; margin-top: 1; }
    """

    def compose_body(self) -> ComposeResult:
        yield VerticalScroll(*self._widgets(), id="summary")

    def report_changed(self) -> None:
        super().report_changed()
        self._fill()
        self.refresh_bindings()

    def units_changed(self) -> None:
        """Redraw the facts in place: the JSON trees keep what is expanded."""
        for widget, renderable in zip(self.query(".fact").results(Static), self._facts(summary(self.report))):
            widget.update(renderable)

    def _fill(self) -> None:
        body = self.query_one("#summary", VerticalScroll)
        body.remove_children()
        body.mount_all(list(self._widgets()))

    def _facts(self, data: dict[str, Any]) -> list:
        """What shows bytes: the out-of-memory warning (if any) and the fact tables."""
        facts: list = []
        over = data["memory"]["tiles_over_limit"]
        if over:
            limit = self.bytes(data["target"]["bytes_per_tile"])
            facts.append(Text(f"Out of memory: {count_of(over, 'tile')} over the {limit} limit"
                              " (press m, then w for the worst)", style="bold"))
        facts.extend(facts_table(title, rows) for title, rows in fact_rows(data, self.bytes))
        return facts

    def export_table(self) -> Table:
        """The facts as `pvtui summary --json` gives them: numbers in bytes, cycles and hertz, each file's
        state; a fact the report does not give is empty."""
        data = summary(self.report)
        rows = [["report", "name", data["name"]], ["report", "poplar_version", data["poplar_version"]]]
        for section in ("target", "memory", "programs", "execution", "instrumentation"):
            rows += [[section, fact, value] for fact, value in (data[section] or {}).items()]
        rows.append(["debug", "contexts", data["debug_contexts"]])
        rows += [["files", name, state] for name, state in data["file_states"].items()]
        rows += [["readers", part, reader] for part, reader in data["readers"].items()]
        return Table("summary", ["section", "fact", "value"], rows)

    def _widgets(self):
        report = self.report
        data = summary(report)
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
                yield Unavailable(report.missing(part) if present else f"{label} is not in this report.")
            elif isinstance(value, (dict, list)):
                yield JsonTree(label, value)
            else:
                yield Static(repr_json(value))

    def key_state(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "focus_next_tree":  # hidden where no JSON file gives a tree to move to
            report = self.report
            return any(isinstance(value, (dict, list)) for value in (report.framework_json, report.app_json))
        return True

    def action_focus_next_tree(self) -> None:
        trees = list(self.query(JsonTree))
        if not trees:
            return
        focused = self.focused
        index = trees.index(focused) + 1 if focused in trees else 0
        trees[index % len(trees)].focus()
