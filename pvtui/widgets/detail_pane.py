"""The Memory screen's detail pane, whose tabs are built once the frame it is first shown in is painted."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.containers import Vertical
from textual.message import Message

from pvtui.ui.textual_private import AlikeRows

if TYPE_CHECKING:
    from pvtui.widgets.tile_tables import TileDetails


class DetailPane(AlikeRows, Vertical):
    """Holds the selected tile's TileDetails, mounted by `build` after the frame this pane is mounted in (its
    tabs, panes and texts, 17 widgets, with their import: 9% of the instructions of a start on the Memory
    screen); it then says Built, and the screen fills them. A key for the tabs before then does nothing.
    """

    class Built(Message):
        """The tabs are mounted and composed."""

    def on_mount(self) -> None:
        # in the pane's own message loop: awaiting the mount in the screen's would hold the screen's callbacks
        self.screen.call_after_refresh(self.call_later, self.build)

    @property
    def details(self) -> TileDetails | None:
        """The tabs, once mounted and composed."""
        return self.children[0] if self.children and self.children[0].is_mounted else None  # type: ignore[return-value]

    async def build(self) -> None:
        """Mount the tabs, then say Built."""
        if not self.is_attached:  # the app quit, or the screen was built again, before this frame's end
            return
        from pvtui.widgets.tile_tables import TileDetails

        details = TileDetails(id="tile-details")
        details.display = False  # laid out first once composed whole: else its tabs' underline may take a
        await self.mount(details)  # tab's width from before its label was laid out, and keep it
        details.display = True
        self.post_message(self.Built())
