"""The user's files the app reads besides reports: the configuration (pvtui.config: a keymap, defaults), and
what it remembers between runs (pvtui.state: the reports opened, offered again by the picker)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

if TYPE_CHECKING:
    from pvtui.config import Config
    from pvtui.sources.base import ReportFiles
    from pvtui.state import Recent, State


class UserFiles(App):
    """An app with the user's configuration, that records each report it opens in its State (none: nothing
    is read nor written)."""

    config: Config
    state: State | None = None

    def check_user_files(self) -> None:
        """Say what in them is not usable, in one line, after the first frame (pvtui.keymap.check_config)."""
        from functools import partial

        from pvtui.keymap import check_config

        self.run_worker(partial(check_config, self), thread=True, group="config")

    @property
    def recent(self) -> list[Recent]:
        """The reports opened before, newest first (none without a state, or with --fresh)."""
        return [] if self.state is None else self.state.recent

    def remember_opened(self, files: ReportFiles) -> None:
        """FILES were opened: first of the recent reports, with their size now."""
        if self.state is None:
            return
        from pvtui.sources.written import sizes_and_date

        sizes, _newest = sizes_and_date(files)
        self.state.opened(files.directory, files.name, sum(size or 0 for _path, size in sizes))
