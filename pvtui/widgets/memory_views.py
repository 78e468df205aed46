"""The bars and the tile map in one place, one of them shown; the keys go to the one shown."""

from __future__ import annotations

from textual.binding import Binding
from textual.containers import Container

from pvtui.widgets.heatmap import TileHeatmap
from pvtui.widgets.keys import PAGE_AND_ENDS
from pvtui.widgets.tile_map import TileMap


class MemoryViews(Container, can_focus=True):
    """TileHeatmap and TileMap stacked, one layer each, the hidden one `visibility: hidden`.

    `v` (show_map) lays out nothing new: both views keep their size, so the one shown
    paints from its cached lines, and the focus stays here, so nothing is restyled. A
    view hidden with `display: none`, or focused itself, would cost a second frame after
    the switch's: its size, then the focus moving away from a hidden widget, restyle it
    and its scrollbars after the layout.
    """

    BLANK = True  # its own lines, under the view shown, are one blank line repeated: drawn once (Textual's)
    DEFAULT_CSS = """
    MemoryViews {
        layers: bars map;
    }
    MemoryViews > TileHeatmap, MemoryViews > TileMap {
        width: 1fr;
        height: 1fr;
    }
    MemoryViews > TileHeatmap { layer: bars; }
    MemoryViews > TileMap {
        layer: map;
        visibility: hidden;
    }
    """

    BINDINGS = [
        Binding("left", "move(-1, 0)", "Previous tile", show=False),
        Binding("right", "move(1, 0)", "Next tile", show=False),
        Binding("up", "move(0, -1)", "Up", show=False),
        Binding("down", "move(0, 1)", "Down", show=False),
        *PAGE_AND_ENDS,
    ]

    def __init__(self, heatmap: TileHeatmap, tile_map: TileMap, *, id: str | None = None) -> None:
        super().__init__(heatmap, tile_map, id=id)
        self.heatmap = heatmap
        self.tile_map = tile_map
        self.map_shown = False

    @property
    def shown(self) -> TileHeatmap | TileMap:
        return self.tile_map if self.map_shown else self.heatmap

    def show_map(self, shown: bool) -> None:
        self.map_shown = shown
        self.tile_map.visible = shown
        self.heatmap.visible = not shown

    def on_resize(self) -> None:
        if not self.map_shown:
            self.tile_map.fit()  # hidden, it has no size (nor resize) of its own: it takes this one

    def action_move(self, across: int, down: int) -> None:
        self.shown.move(across, down)

    def action_page(self, direction: int) -> None:
        self.shown.page(direction)

    def action_move_to_end(self, last: bool) -> None:
        self.shown.move_to_end(last)
