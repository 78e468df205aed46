"""The Memory screen's detail pane, whose tabs are shown once the frame it is first shown in is painted."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical

from pvtui.widgets.tile_tables import TileDetails


class DetailPane(Vertical):
    """Holds the selected tile's TileDetails, composed with the screen's body but hidden until the frame this
    pane is mounted in is painted: its tabs, panes and texts (17 widgets) are neither laid out nor drawn in
    that frame, a tenth of the Memory screen's start. (Mounted only then, they were torn down half-mounted
    when the app quit within that time, and Textual's tabs raised.)"""

    def compose(self) -> ComposeResult:
        details = TileDetails(id="tile-details")
        details.display = False
        yield details

    def on_mount(self) -> None:
        self.screen.call_after_refresh(self.show_details)

    @property
    def details(self) -> TileDetails:
        return self.query_one(TileDetails)

    def show_details(self) -> None:
        self.details.display = True
