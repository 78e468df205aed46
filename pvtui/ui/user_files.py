"""The user's files the app reads besides reports: the configuration (pvtui.user.config: a keymap, defaults), and
what it remembers between runs (pvtui.user.state: the reports opened, offered again by the picker, and where each
was left: the screen, and what each screen says in `remembered_place`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pvtui.ui.textual_private import AppPart

if TYPE_CHECKING:
    from pvtui.user.config import Config
    from pvtui.screens.base import ReportsShown
    from pvtui.sources.base import ReportFiles
    from pvtui.user.state import Recent, State


class UserFiles(AppPart):
    """An app with the user's configuration, that records each report it opens in its State (none: nothing
    is read nor written)."""

    config: Config
    state: State | None = None
    place_opened: dict  # where the report opened was left before (pvtui.user.state.PLACE_FIELDS)
    place_pending: dict  # what of it the screens have not yet taken (remembered)

    def check_user_files(self) -> None:
        """Say what in them is not usable, in one line, after the first frame (pvtui.ui.keymap.check_config)."""
        from functools import partial

        from pvtui.ui.keymap import check_config

        self.run_worker(partial(check_config, self), thread=True, group="config")

    @property
    def recent(self) -> list[Recent]:
        """The reports opened before, newest first (none without a state, or with --fresh)."""
        return [] if self.state is None else self.state.offered

    def remembered(self, name: str) -> Any:
        """NAME of where the report opened was left (a screen's first showing takes it), else None."""
        return getattr(self, "place_pending", {}).pop(name, None)

    def remember_opened(self, files: ReportFiles) -> None:
        """FILES were opened: first of the recent reports, with their size now; the screens may take where
        it was left."""
        if self.state is None:
            return
        from pvtui.sources.written import sizes_and_date

        self.place_opened = self.state.place_of(files.directory, files.name)
        self.place_pending = dict(self.place_opened)
        sizes, _newest = sizes_and_date(files)
        self.state.opened(files.directory, files.name, sum(size or 0 for _path, size in sizes))

    def remember_place(self) -> None:
        """Where the report shown is left: the screen in front, and what each report screen that shows it
        says (remembered_place); what a screen not shown this time said before is kept. Not in a comparison."""
        app: ReportsShown = self  # type: ignore[assignment] - PvtuiApp
        files = app.a.files
        if self.state is None or app.b is not None or files is None or not hasattr(self, "place_opened"):
            return
        from pvtui.commands.common import FIRST_SCREENS
        from pvtui.screens.base import report_screens

        place = dict(self.place_opened)
        if self.current_mode in FIRST_SCREENS:
            place["screen"] = FIRST_SCREENS.index(self.current_mode)
        for screen in report_screens(self):
            if not screen.opening:
                place.update(screen.remembered_place())
        self.state.left(files.directory, files.name, place)

    def exit(self, *args, **kwargs) -> None:
        """Remember where the report is left, then end."""
        self.remember_place()
        super().exit(*args, **kwargs)
