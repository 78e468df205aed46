"""Summary: the target, graph, memory and execution facts, the files, and the JSON files."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Label, Static, Tree
from textual.widgets.tree import TreeNode

from pvtui.model.queries import summary
from pvtui.screens.base import ReportScreen, Unavailable

JSON_CHUNK = 200  # children added per expansion of a large JSON array or object


def fact_rows(data: dict[str, Any], fmt) -> list[tuple[str, list[tuple[str, str | None]]]]:
    """The summary's sections as (title, [(label, value)]); FMT formats bytes."""
    t, m, p, e = data["target"], data["memory"], data["programs"], data["execution"]
    instrumentation = data["instrumentation"] or {}
    clock = f"{t['clock_hz'] / 1e9:.3g} GHz" if t["clock_hz"] else None

    def b(v):
        return None if v is None else fmt(v)

    used = None
    if m["total_including_gaps"] is not None and t["total_memory"]:
        used = f"{100 * m['total_including_gaps'] / t['total_memory']:.1f}% of {fmt(t['total_memory'])}"
    peak = None
    if m["peak_step"] is not None:
        peak = f"{fmt(m['peak_not_always_live_bytes'])} at step {m['peak_step']} ({m['peak_step_name']})"
    largest = None
    if m["max_tile"] is not None:
        largest = f"tile {m['max_tile']}: {fmt(m['max_tile_bytes'])}"
    return [
        ("Target", [
            ("Type", t["type"]),
            ("Architecture", t["architecture"]),
            ("IPUs", _str(t["num_ipus"])),
            ("Tiles per IPU", _str(t["tiles_per_ipu"])),
            ("Total tiles", _str(t["num_tiles"])),
            ("Replicas", _str(t["num_replicas"])),
            ("Memory per tile", b(t["bytes_per_tile"])),
            ("Memory per IPU", b(t["bytes_per_ipu"])),
            ("Total memory", b(t["total_memory"])),
            ("Clock", clock),
            ("Poplar", data["poplar_version"]),
            ("Instrumentation", instrumentation.get("compute")),
            ("External exchange", instrumentation.get("external_exchange")),
        ]),
        ("Memory", [
            ("Including gaps", b(m["total_including_gaps"])),
            ("Excluding gaps", b(m["total_excluding_gaps"])),
            ("Used", used),
            ("Largest tile", largest),
            ("Tiles over limit", _str(m["tiles_over_limit"])),
            ("Always-live", b(m["always_live_bytes"])),
            ("Peak not-always-live", peak),
        ]),
        ("Graph and execution", [
            ("Programs", _str(p["count"])),
            ("Compute sets", _str(p["compute_sets"])),
            ("Debug contexts", _str(data["debug_contexts"])),
            ("Runs", _str(e["runs"]) if e else "no execution profile"),
            ("Execution steps", _str(e["steps"]) if e else None),
            ("Total cycles", f"{e['total_cycles']:,}" if e and e["total_cycles"] is not None else None),
            ("Time at the clock", _time(e, t)),
        ]),
    ]


def _str(value: Any) -> str | None:
    return None if value is None else f"{value:,}" if isinstance(value, int) else str(value)


def _time(execution: dict | None, target: dict) -> str | None:
    if not execution or not execution["total_cycles"] or not target["clock_hz"]:
        return None
    return f"{execution['total_cycles'] / target['clock_hz'] * 1e3:.3f} ms"


def facts_table(title: str, rows: list[tuple[str, str | None]]) -> Table:
    table = Table(title=title, title_justify="left", show_header=False, box=None, padding=(0, 1),
                  title_style="bold")
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for label, value in rows:
        table.add_row(label, Text("—", style="dim") if value is None else value)
    return table


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
        yield VerticalScroll(id="summary")

    def on_mount(self) -> None:
        self._fill()

    def report_changed(self) -> None:
        super().report_changed()
        self._fill()

    def units_changed(self) -> None:
        self._fill()

    def _fill(self) -> None:
        body = self.query_one("#summary", VerticalScroll)
        body.remove_children()
        body.mount_all(list(self._widgets()))

    def _widgets(self):
        report = self.report
        data = summary(report)
        over = data["memory"]["tiles_over_limit"]
        if over:
            limit = self.bytes(data["target"]["bytes_per_tile"])
            yield Static(f"Out of memory: {over} tile{'s' if over > 1 else ''} over the {limit} limit"
                         " (press m, then w for the worst)", classes="warning")
        if report.memory is None:
            yield Static(report.missing("memory"), classes="note")
        for note in report.notes:
            yield Static(note.split("] ", 1)[-1], classes="note", markup=False)
        for title, rows in fact_rows(data, self.bytes):
            yield Static(facts_table(title, rows), classes="facts")
        files = Text()
        for name, present in data["files"].items():
            files.append(f"{'✓' if present else '✗'} {name}   ", style="" if present else "dim")
        yield Static(facts_table("Files", [("Present", files)]), classes="facts")
        for label, value in (("framework.json", report.framework_json), ("app.json", report.app_json)):
            yield Label(label, classes="heading")
            if value is None:
                present = data["files"].get(label)
                yield Unavailable(f"{label} is {'unreadable' if present else 'not in this report'}.")
            elif isinstance(value, (dict, list)):
                yield JsonTree(label, value)
            else:
                yield Static(repr_json(value))

    def action_focus_next_tree(self) -> None:
        trees = list(self.query(JsonTree))
        if not trees:
            return
        focused = self.focused
        index = trees.index(focused) + 1 if focused in trees else 0
        trees[index % len(trees)].focus()
