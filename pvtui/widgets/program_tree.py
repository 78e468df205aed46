"""The program tree: Textual's Tree, populated only when a node is expanded, in chunks.

A node with 10,000 children shows its first CHUNK and a "… N more" node that loads
the next chunk when selected. Labels are drawn from the model at render time, so a
theme change recolours them without rebuilding a node.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Union

import numpy as np
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from pvtui.model.program_search import chunk_around
from pvtui.model.step_types import phase_of
from pvtui.widgets.palette import phase_text_styles

if TYPE_CHECKING:
    from pvtui.model.report import Programs

CHUNK = 100  # nodes added per expansion: about 11 ms of Tree work at ~0.1 ms a node
EXPAND_CAP = 5_000  # most nodes one "expand children" may create


@dataclass(frozen=True)
class ProgramItem:
    """A node showing PROGRAM, the POSITION-th child of its parent (or root)."""

    program: int
    position: int


@dataclass(frozen=True)
class MoreChildren:
    """A node standing for children [START, STOP) of PARENT (-1: the roots) not yet loaded."""

    parent: int
    start: int
    stop: int


NodeData = Union[ProgramItem, MoreChildren]
ProgramNode = TreeNode[NodeData]
MATCH = Style(underline=True, bold=True)  # the part of a name the search found


class ProgramTree(Tree[NodeData]):
    """The programs of a report, roots first (the first one open), children created on expand.

    Its size is its pane's, whatever its lines: Tree's layout of the screen on each
    change of its lines is left out (a layout repaints the scrollbar a frame later,
    a second frame per expansion), and the scrollbars follow the lines at once.
    """

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    DEFAULT_CSS = """
    ProgramTree {
        background: $surface;
        overflow-y: scroll;  /* a scrollbar coming and going would cost a layout, and a frame */
    }
    """

    def __init__(
        self, programs: "Programs", *, on_cursor: Callable[[], None] | None = None, id: str | None = None
    ) -> None:
        super().__init__("programs", id=id)
        self.programs = programs
        # Called at once on every cursor move, not by a NodeHighlighted message: a
        # message lands after this frame, and the details would cost a second one.
        self.on_cursor = on_cursor
        # plain arrays: indexing a memmap one element at a time is several times slower
        self._type = np.asarray(programs.type)
        self._child_offsets = np.asarray(programs.child_offsets)
        self.show_root = False
        self.guide_depth = 3
        self.auto_expand = True
        self.highlight_text = ""
        self._styles: dict[str, Style] = {}
        self._populate(self.root, -1)

    def watch_cursor_line(self, previous_line: int, line: int) -> None:
        super().watch_cursor_line(previous_line, line)
        if previous_line != line and self.on_cursor is not None:
            self.on_cursor()

    # Colours ------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.recolour())
        self.recolour()
        if self.root.children:
            first = self.root.children[0]
            self.ensure_children(first)
            first.expand()

    def recolour(self) -> None:
        self._styles = phase_text_styles(self.app.theme_variables)
        self._invalidate()

    # Labels -------------------------------------------------------------------------

    def _count(self, program: int) -> int:
        return int(self._child_offsets[program + 1] - self._child_offsets[program])

    def _parts(self, program: int) -> tuple[str, str, str]:
        """The label's type, name (on one line) and child count ("" for a leaf)."""
        count = self._count(program)
        name = self.programs.names[program].replace("\n", " ")
        return self.programs.type_names[int(self._type[program])], name, f" ({count:,})" if count else ""

    def plain_label(self, data: NodeData) -> str:
        if isinstance(data, MoreChildren):
            return f"… {data.stop - data.start:,} more (Enter loads {CHUNK})"
        type_name, name, count = self._parts(data.program)
        return f"{type_name} {name}{count}" if name else f"{type_name}{count}"

    def label_text(self, data: NodeData) -> Text:
        """The node's label: type coloured by phase, name, and child count."""
        muted = self._styles.get("muted", Style())
        if isinstance(data, MoreChildren):
            return Text(self.plain_label(data), style=muted)
        type_name, name, count = self._parts(data.program)
        text = Text(type_name, style=self._styles.get(phase_of(type_name), Style()))
        if name:
            text.append(" ")
            start = len(text)
            text.append(name)
            self._mark_match(text, name, start)
        text.append(count, style=muted)
        return text

    def _mark_match(self, text: Text, name: str, start: int) -> None:
        if self.highlight_text:
            at = name.lower().find(self.highlight_text.lower())
            if at >= 0:
                text.stylize(MATCH, start + at, start + at + len(self.highlight_text))

    def render_label(self, node: ProgramNode, base_style: Style, style: Style) -> Text:
        if node.data is None:
            return super().render_label(node, base_style, style)
        label = self.label_text(node.data)
        label.stylize(style)
        if not node.allow_expand:
            return label
        icon = self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE
        return Text.assemble((icon, base_style), label)

    def process_label(self, label) -> Text:
        # Our labels are one-line Text already: skip the split Tree does twice per node.
        return label if isinstance(label, Text) else super().process_label(label)

    def get_label_width(self, node: ProgramNode) -> int:
        # Tree measures every visible line on each rebuild: keep it cheap.
        return node._label.cell_len + (2 if node.allow_expand else 0)

    # Lazy population ----------------------------------------------------------------

    def children_of(self, parent: int) -> np.ndarray:
        return self.programs.roots if parent < 0 else self.programs.children(parent)

    def _add(self, node: ProgramNode, data: NodeData, before: int | None = None) -> ProgramNode:
        expandable = isinstance(data, ProgramItem) and self._count(data.program) > 0
        return node.add(Text(self.plain_label(data)), data, before=before, allow_expand=expandable)

    def _add_range(self, node: ProgramNode, parent: int, start: int, stop: int, before: int | None) -> int:
        """Add children [START, STOP) of PARENT as nodes before index BEFORE; how many were added."""
        children = self.children_of(parent)[start:stop].tolist()
        for offset, program in enumerate(children):
            at = None if before is None else before + offset
            self._add(node, ProgramItem(program, start + offset), at)
        return len(children)

    def _populate(self, node: ProgramNode, parent: int) -> int:
        """Give NODE its first chunk of children (and a "more" node); the nodes created."""
        if node.children:
            return 0
        total = len(self.children_of(parent))
        added = self._add_range(node, parent, 0, min(CHUNK, total), None)
        if total > CHUNK:
            self._add(node, MoreChildren(parent, CHUNK, total))
            added += 1
        return added

    def ensure_children(self, node: ProgramNode) -> int:
        if isinstance(node.data, ProgramItem):
            return self._populate(node, node.data.program)
        return 0

    def load_more(self, node: ProgramNode, position: int | None = None) -> ProgramNode | None:
        """Replace a "more" node by the chunk holding POSITION (its first, by default).

        What stays unloaded on either side keeps a "more" node. Returns the node at
        POSITION, or None.
        """
        data = node.data
        parent = node.parent
        if not isinstance(data, MoreChildren) or parent is None:
            return None
        if position is None:
            position = data.start
        first, last = chunk_around(position, data.start, data.stop, CHUNK)
        index = list(parent.children).index(node)
        node.remove()
        if first > data.start:
            self._add(parent, MoreChildren(data.parent, data.start, first), index)
            index += 1
        self._add_range(parent, data.parent, first, last, index)
        if last < data.stop:
            self._add(parent, MoreChildren(data.parent, last, data.stop), index + last - first)
        return parent.children[index + position - first]

    def child_node(self, node: ProgramNode, program: int) -> ProgramNode | None:
        """The node of PROGRAM under NODE, loading the chunk that holds it if needed."""
        parent = node.data.program if isinstance(node.data, ProgramItem) else -1
        self.ensure_children(node)
        hits = np.flatnonzero(np.asarray(self.children_of(parent)) == program)
        if len(hits) == 0:
            return None
        position = int(hits[0])
        for child in node.children:
            data = child.data
            if isinstance(data, ProgramItem) and data.position == position:
                return child
            if isinstance(data, MoreChildren) and data.start <= position < data.stop:
                return self.load_more(child, position)
        return None

    def reveal(self, path: list[int]) -> ProgramNode | None:
        """Expand every program along PATH (root first) and return the last one's node."""
        node: ProgramNode | None = self.root
        for depth, program in enumerate(path):
            node = self.child_node(node, program)
            if node is None:
                return None
            if depth < len(path) - 1:
                self.ensure_children(node)
                node.expand()
        return node

    def expand_children(self, node: ProgramNode, budget: int = EXPAND_CAP) -> tuple[int, int]:
        """Expand NODE and each of its loaded children one level, creating at most BUDGET nodes.

        Returns (children expanded, expandable children).
        """
        budget -= self.ensure_children(node)
        node.expand()
        expandable = [child for child in node.children if child.allow_expand]
        done = 0
        for child in expandable:
            if budget <= 0:
                break
            budget -= self.ensure_children(child)
            child.expand()
            done += 1
        return done, len(expandable)

    def _invalidate(self) -> None:
        # Tree._invalidate without its layout (see the class's docstring)
        self._clear_line_cache()
        self._updates += 1
        self.root._reset()
        self.refresh()

    def watch_virtual_size(self, size: Size) -> None:
        self._scroll_update(size)

    # Events -------------------------------------------------------------------------

    def _toggle_node(self, node: ProgramNode) -> None:
        # Children before the expansion, and the lines (and scrollbar) rebuilt at once:
        # one frame draws the node open with its children, not one without them first.
        if node.allow_expand and not node.is_expanded:
            self.ensure_children(node)
        super()._toggle_node(node)
        self._tree_lines

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[NodeData]) -> None:
        self.ensure_children(event.node)

    def on_tree_node_selected(self, event: Tree.NodeSelected[NodeData]) -> None:
        if isinstance(event.node.data, MoreChildren):
            event.stop()
            loaded = self.load_more(event.node)
            if loaded is not None:
                self.call_after_refresh(self.move_cursor, loaded)

    def select_program_node(self, node: ProgramNode) -> None:
        """Put the cursor on NODE once the lines are rebuilt, centred in the view."""

        def place() -> None:
            self.move_cursor(node)
            self.scroll_to(y=max(node.line - self.scrollable_content_region.height // 2, 0), animate=False)

        self.call_after_refresh(place)
