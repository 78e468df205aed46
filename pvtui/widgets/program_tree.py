"""The program tree: one Line-API widget over the flat arrays of the rows it shows (TreeRows, of the Programs
navigator). It draws row `scroll_y + y` when asked, keeping the drawn lines in a Strip cache keyed by what
they show."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.events import Click
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip

from pvtui.model.step_types import phase_of
from pvtui.ui.textual_private import SteadyScrollbars, update_scrollbars
from pvtui.widgets.line_cache import CachedLines
from pvtui.widgets.look import look_of
from pvtui.widgets.palette import phase_text_styles
from pvtui.widgets.scrolling import cursor_bindings, keep_row_visible
from pvtui.widgets.tell_screen import tell_screen

if TYPE_CHECKING:
    from pvtui.model.navigators.programs import TreeRows
    from pvtui.model.report import Programs

MATCH = Style(underline=True, bold=True)  # the part of a name the search found
PLAIN = Style()  # made once: a Style() per part of a row was a third of drawing it
ICON_WIDTH = 2  # ▼ or ▶ (their ASCII stand-ins on a basic console) and a space


class ProgramTree(CachedLines, SteadyScrollbars, can_focus=True):
    """The programs of a report as ROWS shows them (what is open, the cursor: the Programs navigator's), one
    line per row; its keys open, close and move over them."""

    BINDINGS = [
        *cursor_bindings("Previous program", "Next program", "First program", "Last program"),
        Binding("right,enter", "expand_or_enter", "Expand / first child", show=False),
        Binding("left", "collapse_or_leave", "Collapse / parent", show=False),
        Binding("space", "toggle", "Expand or collapse", show=False),
        Binding("shift+left", "to_parent", "Parent", show=False),
        Binding("shift+up", "to_sibling(False)", "Previous sibling", show=False),
        Binding("shift+down", "to_sibling(True)", "Next sibling", show=False),
        Binding("shift+right", "to_parent_sibling", "Parent's next sibling", show=False),
    ]

    COMPONENT_CLASSES = {"program-tree--cursor", "program-tree--guides"}

    DEFAULT_CSS = """
    ProgramTree {
        background: $surface;
        color: $foreground;
        overflow-x: hidden;
        overflow-y: scroll;  /* a scrollbar coming and going would cost a layout, and a frame */
        & > .program-tree--guides { color: $surface-lighten-2; }
        & > .program-tree--cursor {
            text-style: $block-cursor-blurred-text-style;
            background: $block-cursor-blurred-background;
        }
        &:focus {
            background-tint: $foreground 5%;
            & > .program-tree--guides { color: $surface-lighten-3; }
            & > .program-tree--cursor {
                color: $block-cursor-foreground;
                background: $block-cursor-background;
                text-style: $block-cursor-text-style;
            }
        }
        &:light > .program-tree--guides { color: $surface-darken-1; }
    }
    """

    STRIP_CACHE_SIZE = 1024
    LINES_ON_BASE = True  # _render_row and blank lines add the base style to every segment

    class CursorMoved(Message):
        """The cursor is on another program: PROGRAM (None: no row)."""

        def __init__(self, program: int | None) -> None:
            super().__init__()
            self.program = program

    def __init__(self, programs: "Programs", rows: "TreeRows", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.programs = programs
        self.rows = rows
        self._told: int | None = self.cursor_program  # the cursor's program CursorMoved last said
        self.highlight_text = ""
        # what names the rows: a program's own name, else its operation's in a debug layer (None: none there)
        self.name_source: tuple[str, Callable[[int], str | None]] | None = None
        self._type = np.asarray(programs.type)
        self._phases: dict[str, Style] = {}
        self._look: tuple[Style, Style, Style] = (PLAIN, PLAIN, PLAIN)  # base, guides, cursor
        self._width = 0  # of the rows, looked up once per repaint

    # State --------------------------------------------------------------------------

    @property
    def cursor_row(self) -> int:
        return self.rows.cursor

    @property
    def cursor_program(self) -> int | None:
        return int(self.rows.program[self.cursor_row]) if self.cursor_row < len(self.rows) else None

    def move_cursor(self, row: int) -> None:
        """Put the cursor on ROW (clamped), scrolled into view; repaint the two rows."""
        if not len(self.rows):
            return
        row = max(0, min(row, len(self.rows) - 1))
        before, self.rows.cursor = self.cursor_row, row
        self._tell_cursor()  # first: the details join this frame
        keep_row_visible(self, row)  # a scroll repaints every row
        for changed in {before, row}:
            self.refresh_line(changed)

    def _tell_cursor(self) -> None:
        if self.cursor_program != self._told:
            self._told = self.cursor_program
            tell_screen(self, self.CursorMoved(self._told))

    def select_row(self, row: int) -> None:
        """Put the cursor on ROW, centred in the view (once the view has a size)."""
        height = self.scrollable_content_region.height
        if not height:
            self.call_after_refresh(self.select_row, row)
            return
        self.scroll_to(y=max(row - height // 2, 0), animate=False)
        self.move_cursor(row)

    def reveal(self, path: list[int]) -> int | None:
        """Open every program along PATH (a root first); the last one's row, or None."""
        before = len(self.rows)
        row = self.rows.reveal(path)
        self._changed(len(self.rows) - before)
        return row

    def reopen(self, programs: list[int]) -> None:
        """Just PROGRAMS open (TreeRows.reopen), the view at the top."""
        self.rows.reopen(programs)
        self._rows_changed()
        self.scroll_to(y=0, animate=False)
        self._tell_cursor()

    def set_name_source(self, source: tuple[str, Callable[[int], str | None]] | None) -> None:
        """Name each row by SOURCE (a layer and a program -> name function), or by program names (None)."""
        self.name_source = source
        self.refresh()

    def set_highlight(self, needle: str) -> None:
        """Mark NEEDLE in every name shown ("" marks nothing)."""
        self.highlight_text = needle
        self.refresh()

    def _changed(self, delta: int, first_row: int = 0) -> None:
        """After DELTA rows were added (or removed) from FIRST_ROW on: resize, repaint, keep the cursor in view."""
        if delta:
            self._rows_changed(first_row)
            keep_row_visible(self, self.cursor_row)
            self._tell_cursor()

    def _rows_changed(self, first_row: int = 0) -> None:
        """Resize to the rows and repaint the lines shown from FIRST_ROW down (those above are unchanged)."""
        size = Size(self.scrollable_content_region.width, len(self.rows))
        # The scrollbar is always there (overflow-y: scroll): tell it the new size now
        # instead of by a layout, which would repaint it in a second frame.
        self.set_reactive(ProgramTree.virtual_size, size)
        update_scrollbars(self, size)
        top = first_row - int(self.scroll_y)
        if top <= 0:
            self.refresh()
        elif top < self.size.height:
            self.refresh_lines(first_row, self.size.height - top)

    def toggle(self, row: int) -> None:
        self._changed(self.rows.collapse(row) if self.rows.is_open(row) else self.rows.expand(row), row)

    def expand_children(self) -> tuple[int, int]:
        """Open the cursor's program and its children: (children opened, expandable children)."""
        row = self.cursor_row
        opened, expandable, added = self.rows.expand_children(row)
        self._changed(added, row)
        return opened, expandable

    def collapse_subtree(self) -> None:
        """Close the cursor's program and everything open below it."""
        row = self.cursor_row
        self._changed(self.rows.collapse(row, forget=True), row)

    # Actions ------------------------------------------------------------------------

    def action_move(self, delta: int) -> None:
        self.move_cursor(self.cursor_row + delta)

    def action_page(self, direction: int) -> None:
        self.move_cursor(self.cursor_row + direction * max(self.scrollable_content_region.height - 1, 1))

    def action_move_to_end(self, last: bool) -> None:
        self.move_cursor(len(self.rows) - 1 if last else 0)

    def action_expand_or_enter(self) -> None:
        row = self.cursor_row
        if self.rows.is_open(row):
            self.move_cursor(row + 1)
        elif len(self.rows):
            self._changed(self.rows.expand(row), row)

    def action_collapse_or_leave(self) -> None:
        row = self.cursor_row
        if self.rows.is_open(row):
            self._changed(self.rows.collapse(row), row)
        else:
            self.action_to_parent()

    def action_toggle(self) -> None:
        if len(self.rows):
            self.toggle(self.cursor_row)

    def action_to_parent(self) -> None:
        if len(self.rows) and (parent := int(self.rows.parent[self.cursor_row])) >= 0:
            self.move_cursor(parent)

    def action_to_sibling(self, forward: bool) -> None:
        if not len(self.rows):
            return
        find = self.rows.next_sibling if forward else self.rows.previous_sibling
        sibling = find(self.cursor_row)
        if sibling is not None:
            self.move_cursor(sibling)

    def action_to_parent_sibling(self) -> None:
        if len(self.rows) and (parent := int(self.rows.parent[self.cursor_row])) >= 0:
            sibling = self.rows.next_sibling(parent)
            if sibling is not None:
                self.move_cursor(sibling)

    def on_click(self, event: Click) -> None:
        """Select the row clicked; a click on its ▶/▼ also opens or closes it."""
        row = int(self.scroll_y) + event.y
        if not 0 <= row < len(self.rows):
            return
        self.move_cursor(row)
        icon = len(self.rows.guides(row))
        if self.rows.expandable(row) and icon <= event.x < icon + ICON_WIDTH:
            self.toggle(row)

    # Rendering ----------------------------------------------------------------------

    def on_mount(self) -> None:
        self._rows_changed()

    def on_resize(self) -> None:
        self._rows_changed()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def restyle(self) -> None:
        self._phases = phase_text_styles(self.app.theme_variables)

    def render_lines(self, crop: Region) -> list[Strip]:
        # Looked up once per repaint, not per line: each costs a walk up the DOM.
        self._look = (
            self.rich_style,
            self.get_component_rich_style("program-tree--guides", partial=True),
            self.get_component_rich_style("program-tree--cursor", partial=False),
        )
        self._width = self.scrollable_content_region.width
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self._width
        base = self._look[0]
        row = int(self.scroll_y) + y
        if row >= len(self.rows):
            return Strip.blank(width, base)
        program = int(self.rows.program[row])
        guides = self.rows.guides(row)
        glyphs = look_of(self.app).glyphs
        icon = f"{glyphs.marker if self.rows.is_open(row) else glyphs.pointer} " if self.rows.count(program) else ""
        layer = self.name_source[0] if self.name_source else None
        key = (program, guides, icon, row == self.cursor_row, width, self.highlight_text, self._look, layer)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._render_row(program, guides, icon, row == self.cursor_row, width)
            self._strips[key] = strip
        return strip

    def _render_row(self, program: int, guides: str, icon: str, cursor: bool, width: int) -> Strip:
        base, guide_style, cursor_style = self._look
        muted = self._phases.get("muted", PLAIN)
        type_name = self.programs.type_names[int(self._type[program])]
        name = self.programs.names[program].replace("\n", " ")
        count = self.rows.count(program)
        label = [(icon, PLAIN), (type_name, self._phases.get(phase_of(type_name), PLAIN))]
        if self.name_source is not None:
            operation = self.name_source[1](program)
            if operation is None:  # no operation in that layer: its program name, muted
                label.append((f" {name}", muted))
                name = ""
            else:
                name = operation.replace("\n", " ")
        if name:
            label.append((" ", PLAIN))
            label += self._name_parts(name)
        if count:
            label.append((f" ({count:,})", muted))
        if cursor:
            label = [(text, style + cursor_style) for text, style in label]
        parts = [(guides, guide_style), *label]
        # one Strip, its styles combined here: this runs for every row an expansion shows
        segments = [Segment(text, base + style) for text, style in parts if text]
        used = sum(cell_len(text) for text, _ in parts)
        if used > width:
            cropped = Strip(segments, used).crop(0, max(width - 1, 0))
            return Strip([*cropped, Segment("…", base + muted)], width)
        segments.append(Segment(" " * (width - used), base))
        return Strip(segments, width)

    def _name_parts(self, name: str) -> list[tuple[str, Style]]:
        needle = self.highlight_text
        at = name.lower().find(needle.lower()) if needle else -1
        if at < 0:
            return [(name, PLAIN)]
        end = at + len(needle)
        return [(name[:at], PLAIN), (name[at:end], MATCH), (name[end:], PLAIN)]
