"""Programs: the program tree, searchable, with the selected program's details."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input

from pvtui.model.contexts import layer_names, name_in_layer, programs_in_layer
from pvtui.model.navigators.programs import EXPAND_CAP, ProgramsNavigator
from pvtui.model.program_search import in_display_order, programs_table
from pvtui.model.tables import Table
from pvtui.model.unavailable import Unavailable
from pvtui.render.programs import match_status, program_details
from pvtui.screens.base import Needs, ReportScreen, UnavailableNotice, beside_or_under
from pvtui.widgets.detail_text import DetailText
from pvtui.widgets.palette import phase_text_styles
from pvtui.widgets.keys import close_search, open_search
from pvtui.widgets.pane_scroll import PaneScroll
from pvtui.widgets.program_tree import ProgramTree
from pvtui.widgets.search_bar import SearchBar
from pvtui.widgets.to_ui import to_ui
from pvtui.user.state import MAX_EXPANDED

if TYPE_CHECKING:
    from pvtui.model.report import Report

NO_SELECTION = "Select a program to see its details."


class ProgramsScreen(ReportScreen):
    """The program tree: expand, search by name, read a program's details. `nav` (a ProgramsNavigator) holds
    the tree's rows and the search; the tree widget draws them."""

    SCREEN_NAME = "Programs"

    DEFAULT_CSS = beside_or_under("ProgramsScreen", "#programs-body", "ProgramTree", "#details-scroll", 9)

    BINDINGS = [
        open_search("Search"),
        Binding("n", "step_match(True)", "Next match", id="programs.next"),
        Binding("N", "step_match(False)", "Prev match", key_display="N", id="programs.previous"),
        Binding("e", "expand_children", "Expand children", id="programs.expand"),
        Binding("c", "collapse_subtree", "Collapse", id="programs.collapse"),
        close_search("Close search"),
        Binding("L", "cycle_names", "Names", key_display="L", id="programs.names"),
    ]
    KEYS = {
        **{action: Needs(shown=("has_tree",))
           for action in ("open_search", "expand_children", "collapse_subtree", "cycle_names")},
        "step_match": Needs(shown=("has_matches",)),
        "close_search": Needs(shown=("searching",)),
    }
    NAVIGATOR = ProgramsNavigator
    nav: ProgramsNavigator

    # Composition ------------------------------------------------------------------

    def compose_body(self) -> ComposeResult:
        programs = self.report.programs
        rows = self.nav.load(programs)
        if programs is None or rows is None:
            yield UnavailableNotice(Unavailable(self.report.missing("programs")))
            return
        yield SearchBar("part of a program name; Enter finds it", id="search", says=True)
        with Horizontal(id="programs-body", classes="unpainted"):
            yield ProgramTree(programs, rows, id="program-tree")
            with PaneScroll(id="details-scroll"):
                yield DetailText(id="details")

    def show_report(self) -> None:
        self._focus_tree()
        expanded = self.pv_app.remembered("expanded")
        if isinstance(expanded, list) and self.tree is not None:  # the programs open when it was left
            self.tree.reopen(expanded)
        self.show_details()
        search = self.pv_app.remembered("search")
        if isinstance(search, str) and self.tree is not None:  # the search it was left with, found again
            self.nav.searching = True
            self.query_one(SearchBar).add_class("open")
            self.query_one(SearchBar).field.value = search
            self._search(self.report, search)

    def remembered_place(self) -> dict:
        """The programs open (the first MAX_EXPANDED), and the search text while the search is open."""
        text = self.query_one(SearchBar).field.value.strip() if self.nav.searching else ""
        place = {"search": text} if text else {}
        if self.tree is not None:
            place["expanded"] = self.tree.rows.open_programs()[:MAX_EXPANDED]
        return place

    @property
    def tree(self) -> ProgramTree | None:
        found = self.query(ProgramTree)
        return found.first() if found else None

    def _focus_tree(self) -> None:
        if self.tree is not None:
            self.tree.focus()

    # Details ----------------------------------------------------------------------

    def selected_program(self) -> int | None:
        return self.nav.cursor_program

    @on(ProgramTree.CursorMoved)
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

    def theme_changed(self) -> None:
        self.show_details()  # the phases' colours are the theme's

    # Search -----------------------------------------------------------------------

    def action_open_search(self) -> None:
        self.nav.searching = True
        self.query_one(SearchBar).add_class("open")
        self.start_typing(self.query_one(SearchBar).field)

    def action_close_search(self) -> None:
        self.nav.searching = False
        self.query_one(SearchBar).remove_class("open")
        self.nav.finder.clear()
        if self.tree is not None:
            self.tree.set_highlight("")
        self._focus_tree()
        self.refresh_bindings()

    @on(Input.Submitted, "#search-input")
    def _submitted(self, event: Input.Submitted) -> None:
        needle = event.value.strip()
        if needle:
            self.query_one(SearchBar).say("searching…")
            self._search(self.report, needle)

    @work(thread=True, exclusive=True, group="program-search")
    def _search(self, report: "Report", needle: str) -> None:
        matches = self.nav.finder.find(report.programs, needle)
        to_ui(self, self._found, report, needle, matches)

    def _found(self, report: "Report", needle: str, matches: np.ndarray) -> None:
        if report is not self.report or self.tree is None:
            return  # a reload came in meanwhile: the matches are of the old report's programs
        self.nav.finder.matches = matches
        self.tree.set_highlight(needle)
        self.refresh_bindings()
        if len(matches) == 0:
            self.query_one(SearchBar).say(f"no program name contains {needle!r}")
            return
        self.jump_to(int(matches[0]))
        self.tree.focus()

    def action_step_match(self, forward: bool) -> None:
        program = self.nav.finder.step(self.selected_program(), forward)
        if program >= 0:
            self.jump_to(program)

    def _show_match_status(self, program: int) -> None:
        position = self.nav.finder.position(program)
        if position is not None:
            self.query_one(SearchBar).say(match_status(position, len(self.nav.finder.matches)))

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
        """Name the tree's rows by Poplar program names, then by each debug layer's operations, in turn;
        with a layer's names, say how many programs have one and put the cursor on the first."""
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
        self._find_named(report, layer)

    @work(thread=True, exclusive=True, group="program-names")
    def _find_named(self, report: "Report", layer: str) -> None:
        named = in_display_order(programs_in_layer(report, layer), self.nav.finder.order(report.programs))
        to_ui(self, self._named_found, report, layer, named)

    def _named_found(self, report: "Report", layer: str, named: np.ndarray) -> None:
        tree = self.tree
        if report is not self.report or tree is None or not tree.name_source or tree.name_source[0] != layer:
            return  # a reload, or another L, came in meanwhile
        total = len(report.programs)
        if not len(named):
            self.notify(f"Names: {layer} operations · none of the {total:,} programs has one; rows keep their "
                        "Poplar names (muted)", timeout=4)
            return
        self.jump_to(int(named[0]))
        self.notify(f"Names: {layer} operations · {len(named):,} of {total:,} programs have one; the cursor is "
                    "on the first, the others keep their Poplar names (muted)", timeout=4)

    # Export -----------------------------------------------------------------------

    def export_table(self) -> Table | None:
        """Every program, or the search's matches while a search is shown."""
        programs, tree = self.report.programs, self.tree
        if programs is None or tree is None:
            return None
        return programs_table(programs, self.nav.finder.matches if tree.highlight_text else None, tree.highlight_text)

    # Reload -----------------------------------------------------------------------

    def report_changed(self) -> None:
        super().report_changed()
        self._rebuild(self.selected_program())

    @work(exclusive=True, group="programs-rebuild")
    async def _rebuild(self, selected: int | None) -> None:
        await self.recompose()  # the navigator's rows and search are the new report's (compose_body)
        self._focus_tree()
        programs = self.report.programs
        if selected is not None and programs is not None and selected < len(programs):
            self.jump_to(selected)
        self.show_details()
        self.refresh_bindings()
