"""A report shown while it is read: on a first open, the parts read so far reach the screens as they
are read (pvtui.sources.ingest.load_report's `shown`) the way a reload's model does (the app's
`report_generation`), and the views of parts not read yet say how far the reading is."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App
from textual.reactive import reactive

if TYPE_CHECKING:
    from textual.screen import Screen

    from pvtui.model.report import Report
    from pvtui.sources.base import CancelToken, ReportFiles
    from pvtui.ui.slots import ReportSlot


class PartsShown(App):
    """An app (pvtui.app.PvtuiApp) that shows the parts of a report read so far while the rest is read."""

    # How far the reading of the report shown is, once its first parts are shown: said beside each view's
    # "not read yet" (screens.base.UnavailableNotice); empty when none is read.
    reading_progress = reactive("")
    cancel_token: CancelToken | None
    loading: Screen | None  # the progress dialog while files are read

    @property
    def report_whole(self) -> bool:
        """Whether the report shown is read whole (no part of it still being read): export applies."""
        return self.report_shown and not self.shown_slot.report.being_read

    def _hide_loading(self) -> None:
        """The progress dialog closed, if it is up."""
        if self.loading is not None and self.screen is self.loading:
            self.pop_screen()
        self.loading = None

    def exit(self, *args, **kwargs) -> None:
        """As Textual's, the reading of a report cancelled first: its thread leaves nothing in the cache."""
        if self.cancel_token is not None:
            self.cancel_token.cancel()
        super().exit(*args, **kwargs)

    async def _parts_read(self, slot: ReportSlot, files: ReportFiles, report: Report) -> None:
        """The parts of a report read so far (a first open, `being_read`): shown while the rest is read, the
        screens shown filled in as each part arrives; the progress dialog gives way to each view's own."""
        if self.cancel_token is None or self.cancel_token.cancelled:
            return
        first = slot.report is None
        slot.files, slot.report = files, report
        if first:
            self._hide_loading()
        self.report_generation += 1  # the screen in front composes its body, or each redraws from the newer model
