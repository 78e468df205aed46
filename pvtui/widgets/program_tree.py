"""The program tree: one Line-API widget over flat arrays of the rows it shows.

`TreeRows` holds one row per program shown, in display order: its program, depth,
parent row and whether it is its parent's last child. A node's open subtree is the
run of deeper rows right after it, so expanding inserts its children's rows (a slice
of the report's child list: 10,000 children are one array insert) and collapsing
deletes that run. `ProgramTree` draws row `scroll_y + y` from the model when asked,
keeping the drawn lines in a Strip cache keyed by what they show.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np
from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.events import Click
from textual.geometry import Region, Size
from textual.strip import Strip

from pvtui.model.step_types import phase_of
from pvtui.ui.textual_private import SteadyScrollbars, update_scrollbars
from pvtui.widgets.line_cache import CachedLines
from pvtui.widgets.look import look_of
from pvtui.widgets.palette import phase_text_styles
from pvtui.widgets.scrolling import keep_row_visible

if TYPE_CHECKING:
    from pvtui.model.report import Programs

EXPAND_CAP = 100_000  # most grandchild rows one "expand children" may add
ROW_FIELDS = [("program", "i8"), ("depth", "i4"), ("parent", "i8"), ("last", "?")]  # one shown row
MATCH = Style(underline=True, bold=True)  # the part of a name the search found
PLAIN = Style()  # made once: a Style() per part of a row was a third of drawing it
ICON_WIDTH = 2  # ▼ or ▶ (their ASCII stand-ins on a basic console) and a space
# what a row shows left of its label for each ancestor below the roots, and for itself
GUIDE_LAST, GUIDE_MORE, BRANCH_LAST, BRANCH_MORE = "   ", "│  ", "└─ ", "├─ "


class TreeRows:
    """The rows of a program tree, roots first, from the report's child lists (CSR).

    `expanded` remembers the programs opened, so re-expanding a node reopens the
    descendants that were open under it. `cursor` is a row that every change keeps
    on its program (or on the node whose subtree it was in).
    """

    def __init__(self, child_offsets: np.ndarray, child_ids: np.ndarray, roots: np.ndarray) -> None:
        # plain arrays: indexing a memmap one element at a time is several times slower
        self._offsets = np.asarray(child_offsets, dtype=np.int64)
        self._ids = np.asarray(child_ids)
        self.rows = self._block(np.asarray(roots), -1, -1)
        self.expanded: set[int] = set()
        self.cursor = 0

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def program(self) -> np.ndarray:
        return self.rows["program"]

    @property
    def depth(self) -> np.ndarray:
        return self.rows["depth"]

    @property
    def parent(self) -> np.ndarray:
        return self.rows["parent"]

    # Questions --------------------------------------------------------------------

    def children(self, program: int) -> np.ndarray:
        return self._ids[self._offsets[program] : self._offsets[program + 1]]

    def count(self, program: int) -> int:
        return int(self._offsets[program + 1] - self._offsets[program])

    def expandable(self, row: int) -> bool:
        return self.count(int(self.rows["program"][row])) > 0

    def is_open(self, row: int) -> bool:
        depth = self.rows["depth"]
        return row + 1 < len(depth) and depth[row + 1] > depth[row]

    def end_of(self, row: int) -> int:
        """The row after ROW's open subtree."""
        beyond = self.rows["depth"][row + 1 :] <= self.rows["depth"][row]
        first = int(beyond.argmax()) if len(beyond) else 0
        return row + 1 + first if len(beyond) and beyond[first] else len(self.rows)

    def row_of(self, program: int) -> int | None:
        """The first row showing PROGRAM."""
        hits = np.flatnonzero(self.rows["program"] == program)
        return int(hits[0]) if len(hits) else None

    def guides(self, row: int) -> str:
        """The guide lines left of ROW's label: one part per ancestor below the roots, then ROW's branch."""
        rows = self.rows
        if rows["depth"][row] == 0:
            return ""
        parts = [BRANCH_LAST if rows["last"][row] else BRANCH_MORE]
        above = int(rows["parent"][row])
        while rows["depth"][above] > 0:
            parts.append(GUIDE_LAST if rows["last"][above] else GUIDE_MORE)
            above = int(rows["parent"][above])
        return "".join(reversed(parts))

    def previous_sibling(self, row: int) -> int | None:
        parent = int(self.rows["parent"][row])
        first = parent + 1
        hits = np.flatnonzero(self.rows["parent"][first:row] == parent)
        return first + int(hits[-1]) if len(hits) else None

    def next_sibling(self, row: int) -> int | None:
        after = self.end_of(row)
        return after if after < len(self.rows) and self.rows["parent"][after] == self.rows["parent"][row] else None

    # Changes: each returns the rows added (negative: removed) ---------------------

    def expand(self, row: int) -> int:
        if self.is_open(row) or not self.expandable(row):
            return 0
        program = int(self.rows["program"][row])
        self.expanded.add(program)
        return self._splice(row + 1, row + 1, self._open_rows(program, int(self.rows["depth"][row]), row, {program}))

    def collapse(self, row: int, forget: bool = False) -> int:
        """Hide ROW's descendants; FORGET also forgets which of them were open."""
        program = int(self.rows["program"][row])
        if forget:
            self._forget(program)
        else:
            self.expanded.discard(program)
        return self._splice(row + 1, self.end_of(row), self._block(np.zeros(0, np.int64), 0, row))

    def expand_children(self, row: int, cap: int = EXPAND_CAP) -> tuple[int, int, int]:
        """Open ROW and its children, in order, while their children's rows stay within CAP.

        Returns (children opened, expandable children, rows added).
        """
        program = int(self.rows["program"][row])
        kids = self.children(program)
        counts = self._offsets[kids + 1] - self._offsets[kids]
        expandable = kids[counts > 0]
        within = int(np.searchsorted(np.cumsum(counts[counts > 0]), cap, side="right"))
        self.expanded.add(program)
        self.expanded.update(expandable[:within].tolist())
        block = self._open_rows(program, int(self.rows["depth"][row]), row, {program})
        remembered = np.fromiter(self.expanded, np.int64, len(self.expanded))
        opened = int(np.isin(expandable, remembered).sum())
        return opened, len(expandable), self._splice(row + 1, self.end_of(row), block)

    def reveal(self, path: list[int]) -> int | None:
        """Open every program along PATH (a root first) and return the last one's row."""
        rows = self.rows
        hits = np.flatnonzero((rows["depth"] == 0) & (rows["program"] == path[0])) if path else []
        if not len(hits):
            return None
        row = int(hits[0])
        for program in path[1:]:
            self.expand(row)
            inside = self.rows[row + 1 : self.end_of(row)]
            depth = self.rows["depth"][row] + 1
            hits = np.flatnonzero((inside["program"] == program) & (inside["depth"] == depth))
            if not len(hits):
                return None
            row += 1 + int(hits[0])
        return row

    def open_programs(self) -> list[int]:
        """The programs whose rows are open now, in row order."""
        depth = self.rows["depth"]
        return self.rows["program"][:-1][depth[1:] > depth[:-1]].tolist()

    def reopen(self, programs: list[int]) -> None:
        """Just PROGRAMS open (those under an open parent), as open_programs said them; the cursor on the first row."""
        self.expanded = set(programs)
        self.rows = self._block(self.rows["program"][self.rows["depth"] == 0], -1, -1)
        self.cursor = 0
        remembered = np.fromiter(self.expanded, np.int64, len(self.expanded))
        for row in np.flatnonzero(np.isin(self.rows["program"], remembered))[::-1].tolist():
            self.expand(row)  # from the last root up: a root's rows go in below it, the rows above stay

    # Building rows ----------------------------------------------------------------

    def _block(self, programs: np.ndarray, depth: int, parent_row: int) -> np.ndarray:
        block = np.zeros(len(programs), ROW_FIELDS)
        block["program"] = programs
        block["depth"] = depth + 1
        block["parent"] = parent_row
        if len(block):
            block["last"][-1] = True
        return block

    def _open_rows(self, program: int, depth: int, row: int, path: set[int]) -> np.ndarray:
        """The rows under PROGRAM open at ROW: its children, each remembered open one with its own.

        PATH holds the programs above, so that a cycle in the child lists is not reopened.
        """
        kids = self.children(program)
        block = self._block(kids, depth, row)
        if not self.expanded:
            return block
        remembered = np.fromiter(self.expanded, np.int64, len(self.expanded))
        reopen = [i for i in np.flatnonzero(np.isin(kids, remembered)).tolist() if int(kids[i]) not in path]
        if not reopen:
            return block
        pieces, start, next_row = [], 0, row + 1
        for i in reopen:
            pieces.append(block[start : i + 1])
            next_row += i + 1 - start
            kid = int(kids[i])
            below = self._open_rows(kid, depth + 1, next_row - 1, path | {kid})
            pieces.append(below)
            next_row += len(below)
            start = i + 1
        pieces.append(block[start:])
        return np.concatenate(pieces)

    def _splice(self, start: int, stop: int, block: np.ndarray) -> int:
        """Put BLOCK (parents given as rows from START on) in place of rows [START, STOP)."""
        delta = len(block) - (stop - start)
        self.rows = np.concatenate([self.rows[:start], block, self.rows[stop:]])
        after = self.rows["parent"][start + len(block) :]
        after[after >= stop] += delta
        if self.cursor >= stop:
            self.cursor += delta
        elif self.cursor >= start:
            self.cursor = start - 1  # its row is gone: onto the node whose subtree it was in
        return delta

    def _forget(self, program: int) -> None:
        """Forget PROGRAM and every remembered-open program below it."""
        stack = [program]
        while stack and self.expanded:
            program = stack.pop()
            self.expanded.discard(program)
            remembered = np.fromiter(self.expanded, np.int64, len(self.expanded))
            kids = self.children(program)
            stack.extend(kids[np.isin(kids, remembered)].tolist())


class ProgramTree(CachedLines, SteadyScrollbars, can_focus=True):
    """The programs of a report, roots first (the first one open), one row per shown program."""

    BINDINGS = [
        Binding("up", "move(-1)", "Previous program", show=False),
        Binding("down", "move(1)", "Next program", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "move_to_end(False)", "First program", show=False),
        Binding("end", "move_to_end(True)", "Last program", show=False),
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

    def __init__(
        self, programs: "Programs", *, on_cursor: Callable[[], None] | None = None, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.programs = programs
        # Called at once on every cursor move, not by a message: a message lands after
        # this frame, and the details would cost a second one.
        self.on_cursor = on_cursor
        self.rows = TreeRows(programs.child_offsets, programs.child_ids, programs.roots)
        if len(self.rows):
            self.rows.expand(0)
        self._told: int | None = self.cursor_program  # the cursor's program on_cursor last heard of
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
        keep_row_visible(self, row)  # a scroll repaints every row
        for changed in {before, row}:
            self.refresh_line(changed)
        self._tell_cursor()

    def _tell_cursor(self) -> None:
        if self.cursor_program != self._told:
            self._told = self.cursor_program
            if self.on_cursor is not None:
                self.on_cursor()

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
