"""A JSON file (framework.json, app.json) as a tree whose nodes are made as they are expanded."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from pvtui.render.json_text import json_value

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
                node.add_leaf(Text.assemble((str(key), "bold"), " = ", json_value(child)))
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
