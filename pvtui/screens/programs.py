"""Programs: the program tree, searchable, with the selected program's details."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Callable

import numpy as np
from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, Label

from pvtui.model.flame import layer_names, name_in_layer
from pvtui.model.program_search import NameSearch, display_order, in_display_order, no_matches, step_match
from pvtui.model.step_types import phase_of
from pvtui.model.tables import Table
from pvtui.render.names import CPP_BREAKS, wrap_at_slashes
from pvtui.screens.base import ReportScreen, Unavailable
from pvtui.widgets.detail_text import DetailText
from pvtui.widgets.palette import phase_text_styles
from pvtui.widgets.program_tree import EXPAND_CAP, ProgramTree

if TYPE_CHECKING:
    from pvtui.model.report import Report

VERTEX_ROWS = 12  # vertex types listed per compute set
JSON_LINES = 16  # lines of a debug context's fields
NO_SELECTION = "Select a program to see its details."


def program_details(
    report: "Report",
    program: int,
    fmt: Callable[[int], str],
    styles: dict[str, Style] | None = None,
    width: int = 60,
) -> Text:
    """What the details pane says about PROGRAM; FMT formats bytes, STYLES colours phases."""
    programs = report.programs
    assert programs is not None
    styles = styles or {}
    muted = styles.get("muted", Style(dim=True))
    out = Text()

    def row(label: str, value: str | Text) -> None:
        out.append(f"{label:<10}", style=muted)
        out.append(value)
        out.append("\n")

    type_name = programs.type_name(program)
    phase = phase_of(type_name)
    row("Program", str(program))
    row("Type", Text.assemble((type_name, styles.get(phase, Style())), (f"  {phase}", muted)))
    row("Name", programs.names[program] or "—")
    if programs.has_tree:
        parent = int(programs.parent[program])
        row("Parent", "— (a root)" if parent < 0 else f"{parent}  {_describe(programs, parent)}")
        row("Children", f"{programs.num_children(program):,}")
    else:  # profile.pop read without libpva: a flat list
        row("Tree", Text(report.missing("program_tree"), style=muted))
    if programs.code_bytes is not None:
        code = fmt(int(programs.code_bytes[program]))
        if programs.num_children(program):  # so that a parent's figure is not added to its children's
            code = Text.assemble(code, ("  control code, its children's included", muted))
        row("Code", code)
    _compute_set(out, row, programs, int(programs.compute_set[program]), fmt, muted, width)
    _debug(out, row, report, programs.debug_context(program), muted, width)
    out.rstrip()
    return out


def _describe(programs, program: int) -> str:
    name = programs.names[program]
    return f"{programs.type_name(program)} {name}" if name else programs.type_name(program)


def _compute_set(out: Text, row, programs, compute_set: int, fmt, muted: Style, width: int) -> None:
    if compute_set < 0:
        row("Compute", "none")
        return
    row("Compute", f"set {compute_set}  {programs.compute_set_names[compute_set]}")
    vertices = sorted(programs.compute_set_vertices(compute_set), key=lambda v: -v[1])
    if not vertices:
        out.append("  no vertices recorded\n", style=muted)
        return
    state = np.asarray(programs.vertex_state_bytes)
    # the figures first: a vertex type's name takes the rest of the line, and as many lines as it needs
    out.append(f"  {'instances':>9} {'state':>12}  vertex type\n", style=muted)
    indent = " " * 26
    for vertex_type, count in vertices[:VERTEX_ROWS]:
        name = wrap_at_slashes(programs.vertex_type_names[vertex_type], max(width - len(indent), 12), CPP_BREAKS)
        out.append(f"  {count:>9,} {fmt(int(state[vertex_type]) * count):>12}  {name[0]}\n")
        for line in name[1:]:
            out.append(f"{indent}{line}\n")
    if len(vertices) > VERTEX_ROWS:
        out.append(f"  … {len(vertices) - VERTEX_ROWS} more vertex types\n", style=muted)


def _debug(out: Text, row, report: "Report", context: int, muted: Style, width: int) -> None:
    debug = report.debug
    if debug is None:
        row("Debug", Text(report.missing("debug"), style=muted))
        return
    index = debug.index_of(context) if context >= 0 else -1
    if index < 0:
        row("Debug", Text("no debug context linked to this program", style=muted))
        return
    layer = debug.layer_names[int(debug.layer[index])]
    category_index = int(debug.category[index])
    category = debug.category_names[category_index] if category_index >= 0 else "—"
    row("Debug", f"context {context}  {layer} · {category}")
    row("  name", debug.names[index] or "—")
    for line in _pretty_fields(debug.fields[index], width):
        out.append(f"  {line}\n")


def _pretty_fields(fields: str, width: int) -> list[str]:
    try:
        text = json.dumps(json.loads(fields), indent=1, ensure_ascii=False)
    except ValueError:
        text = fields
    lines = [part for line in text.splitlines() for part in _fold(line, width - 2)]
    if len(lines) > JSON_LINES:
        lines = lines[:JSON_LINES] + [f"… {len(lines) - JSON_LINES} more lines"]
    return lines


def _fold(line: str, width: int) -> list[str]:
    """LINE in pieces of at most WIDTH cells, each after the first indented two more than LINE."""
    indent = " " * (len(line) - len(line.lstrip()) + 2)
    room = max(width - len(indent), 8)
    pieces, line = [line[:width]], line[width:]
    while line:
        pieces.append(indent + line[:room])
        line = line[room:]
    return pieces


class ProgramsScreen(ReportScreen):
    """The program tree: expand, search by name, read a program's details."""

    SCREEN_NAME = "Programs"

    DEFAULT_CSS = """
    ProgramsScreen #programs-body { height: 1fr; }
    ProgramsScreen ProgramTree { width: 3fr; height: 1fr; }
    ProgramsScreen #details-scroll {
        width: 2fr;
        height: 1fr;
        border-left: vkey $panel;
        padding: 0 1;
    }
    ProgramsScreen.narrow #programs-body { layout: vertical; }
    ProgramsScreen.narrow ProgramTree { width: 1fr; }
    ProgramsScreen.narrow #details-scroll {
        width: 1fr;
        height: 9;
        border-left: none;
        border-top: hkey $panel;
    }
    ProgramsScreen.short.narrow #details-scroll { height: 30vh; }
    ProgramsScreen #search-bar { height: 1; display: none; background: $panel; }
    ProgramsScreen #search-bar.open { display: block; }
    ProgramsScreen #search-bar Label { width: auto; padding: 0 1; }
    ProgramsScreen #search-input { width: 1fr; }
    ProgramsScreen #search-status { color: $text-muted; }
    """

    BINDINGS = [
        Binding("slash", "open_search", "Search", key_display="/", id="programs.search"),
        Binding("n", "step_match(True)", "Next match", id="programs.next"),
        Binding("N", "step_match(False)", "Prev match", key_display="N", id="programs.previous"),
        Binding("e", "expand_children", "Expand children", id="programs.expand"),
        Binding("c", "collapse_subtree", "Collapse", id="programs.collapse"),
        Binding("escape", "close_search", "Close search", id="programs.close_search"),
        Binding("L", "cycle_names", "Names", key_display="L", id="programs.names"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.matches: np.ndarray  # program ids the search found, in the tree's order; set once the body shows
        # built on the first search of a report: its name search and each program's position in the tree
        self._name_search: tuple["Report", NameSearch, np.ndarray] | None = None

    # Composition ------------------------------------------------------------------

    def compose_body(self) -> ComposeResult:
        programs = self.report.programs
        if programs is None:
            yield Unavailable(self.report.missing("programs"))
            return
        with Horizontal(id="search-bar"):
            yield Label("/")
            yield Input(placeholder="part of a program name; Enter finds it", id="search-input", compact=True)
            yield Label("", id="search-status")
        with Horizontal(id="programs-body"):
            yield ProgramTree(programs, on_cursor=self.show_details, id="program-tree")
            with VerticalScroll(id="details-scroll"):
                yield DetailText(id="details")

    def show_report(self) -> None:
        self.matches = no_matches()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.show_details())
        self._focus_tree()
        self.show_details()

    @property
    def tree(self) -> ProgramTree | None:
        found = self.query(ProgramTree)
        return found.first() if found else None

    def _focus_tree(self) -> None:
        if self.tree is not None:
            self.tree.focus()

    # Details ----------------------------------------------------------------------

    def selected_program(self) -> int | None:
        return self.tree.cursor_program if self.tree is not None else None

    def show_details(self) -> None:
        if self.tree is None:
            return
        # grows only: a layout on each cursor move would cost a second frame
        details = self.query_one("#details", DetailText)
        program = self.selected_program()
        if program is None:
            details.show(Text(NO_SELECTION))
            return
        styles = phase_text_styles(self.app.theme_variables)
        width = max(self.query_one("#details-scroll").size.width - 2, 30)
        details.show(program_details(self.report, program, self.bytes, styles, width))

    def units_changed(self) -> None:
        self.show_details()

    # Search -----------------------------------------------------------------------

    def action_open_search(self) -> None:
        self.query_one("#search-bar").add_class("open")
        self.start_typing(self.query_one("#search-input", Input))

    def action_close_search(self) -> None:
        self.query_one("#search-bar").remove_class("open")
        self.matches = no_matches()
        if self.tree is not None:
            self.tree.set_highlight("")
        self._focus_tree()
        self.refresh_bindings()

    @on(Input.Submitted, "#search-input")
    def _submitted(self, event: Input.Submitted) -> None:
        needle = event.value.strip()
        if needle:
            self.query_one("#search-status", Label).update("searching…")
            self._search(self.report, needle)

    @work(thread=True, exclusive=True, group="program-search")
    def _search(self, report: "Report", needle: str) -> None:
        if self._name_search is None or self._name_search[0] is not report:
            programs = report.programs
            order = display_order(programs.child_offsets, programs.child_ids, programs.roots, programs.parent)
            self._name_search = (report, NameSearch(programs.names), order)
        _, search, order = self._name_search
        matches = in_display_order(search.matches(needle), order)
        self.app.call_from_thread(self._found, report, needle, matches)

    def _found(self, report: "Report", needle: str, matches: np.ndarray) -> None:
        if report is not self.report or self.tree is None:
            return  # a reload came in meanwhile: the matches are of the old report's programs
        self.matches = matches
        self.tree.set_highlight(needle)
        self.refresh_bindings()
        if len(matches) == 0:
            self.query_one("#search-status", Label).update(f"no program name contains {needle!r}")
            return
        self.jump_to(int(matches[0]))
        self.tree.focus()

    def action_step_match(self, forward: bool) -> None:
        current = self.selected_program()
        order = self._name_search[2] if self._name_search is not None else None
        program = step_match(self.matches, -1 if current is None else current, forward, order)
        if program >= 0:
            self.jump_to(program)

    def _show_match_status(self, program: int) -> None:
        found = np.flatnonzero(self.matches == program)
        if len(found):
            i = int(found[0])
            text = f"match {i + 1:,} of {len(self.matches):,}  n/N next/prev"
            self.query_one("#search-status", Label).update(text)

    def jump_to(self, program: int) -> bool:
        """Expand the path to PROGRAM, select it and scroll to it."""
        tree = self.tree
        if tree is None or not 0 <= program < len(self.report.programs):
            return False
        row = tree.reveal(self.report.programs.path_to(program))
        if row is None:
            self.notify(f"Program {program} is not reachable from the roots.", severity="warning")
            return False
        tree.select_row(row)
        self._show_match_status(program)
        return True

    # Expand and collapse ----------------------------------------------------------

    def action_expand_children(self) -> None:
        tree = self.tree
        if tree is None or tree.cursor_program is None or not tree.rows.expandable(tree.cursor_row):
            return
        opened, expandable = tree.expand_children()
        if opened < expandable:
            self.notify(
                f"Opened {opened:,} of {expandable:,} children: at most {EXPAND_CAP:,} rows of theirs at once.",
                severity="warning",
            )

    def action_collapse_subtree(self) -> None:
        if self.tree is not None and self.tree.cursor_program is not None:
            self.tree.collapse_subtree()

    def action_cycle_names(self) -> None:
        """Name the tree's rows by Poplar program names, then by each debug layer's operations, in turn."""
        tree = self.tree
        layers = layer_names(self.report)
        if tree is None:
            return
        if not layers:
            self.notify(self.report.missing("debug"), timeout=4)
            return
        current = tree.name_source[0] if tree.name_source else None
        choices = [None, *layers]
        layer = choices[(choices.index(current) + 1) % len(choices)] if current in choices else None
        if layer is None:
            tree.set_name_source(None)
            self.notify("Names: Poplar programs", timeout=2)
            return
        report, memo = self.report, {}
        tree.set_name_source((layer, lambda program: name_in_layer(report, program, layer, memo)))
        self.notify(f"Names: {layer} operations", timeout=2)

    def key_state(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cycle_names":
            return self.tree is not None
        if action in ("open_search", "expand_children", "collapse_subtree"):
            return self.tree is not None
        if action == "step_match":
            return len(self.matches) > 0
        if action == "close_search":
            return bool(self.query("#search-bar.open"))
        return True

    # Export -----------------------------------------------------------------------

    def export_table(self) -> Table | None:
        """Every program, or the search's matches while a search is shown."""
        programs, tree = self.report.programs, self.tree
        if programs is None or tree is None:
            return None
        needle = tree.highlight_text
        ids = self.matches.tolist() if needle else range(len(programs))
        columns = ["program", "name", "type", "parent", "compute_set", "compute_set_name", "code_bytes", "children"]

        def rows():
            for program in ids:
                compute_set = int(programs.compute_set[program])
                parent = int(programs.parent[program])
                yield [
                    program, programs.names[program], programs.type_name(program), None if parent < 0 else parent,
                    None if compute_set < 0 else compute_set,
                    None if compute_set < 0 else programs.compute_set_names[compute_set],
                    None if programs.code_bytes is None else int(programs.code_bytes[program]),
                    programs.num_children(program),
                ]

        return Table(f"programs-matching-{needle}" if needle else "programs", columns, rows())

    # Reload -----------------------------------------------------------------------

    def report_changed(self) -> None:
        super().report_changed()
        self._rebuild(self.selected_program())

    @work(exclusive=True, group="programs-rebuild")
    async def _rebuild(self, selected: int | None) -> None:
        self.matches = no_matches()
        self._name_search = None
        await self.recompose()
        self._focus_tree()
        programs = self.report.programs
        if selected is not None and programs is not None and selected < len(programs):
            self.jump_to(selected)
        self.show_details()
        self.refresh_bindings()
