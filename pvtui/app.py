"""The Textual app: one shared report model behind five screens, and live reload."""

from __future__ import annotations

import gc
import importlib
import os
import sys
import weakref
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.screen import Screen
from textual.widgets import Input

from pvtui.deferred_import import defer_import
from pvtui.errors import Cancelled, ReportError
from pvtui.pv_colours import derived_variables
from pvtui.render.glyphs import basic_console
from pvtui.textual_private import InstantModeSwitch
from pvtui.theming import DEFAULT_THEME, builtin_themes, resolve_theme_name, user_theme_dir, user_themes
from pvtui.widgets.look import AsciiGlyphs
from pvtui.widgets.status import StatusLine

if TYPE_CHECKING:
    from pvtui.model.report import Report
    from pvtui.screens.base import ReportScreen
    from pvtui.sources.base import CancelToken, ReportFiles


def start_lightly() -> None:
    """Set up the process for the app, before anything imports numpy (importing this module does not).

    The first frame needs no numpy: a stand-in takes its place until the report is opened,
    after that frame. And pvtui does no linear algebra: numpy's OpenBLAS starts one thread,
    not a pool of one per core (up to 64), unless the user asked for more.
    """
    defer_import("numpy")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

SCREENS = {
    "summary": "pvtui.screens.summary:SummaryScreen",
    "memory": "pvtui.screens.memory:MemoryScreen",
    "liveness": "pvtui.screens.liveness:LivenessScreen",
    "programs": "pvtui.screens.programs:ProgramsScreen",
    "trace": "pvtui.screens.trace:TraceScreen",
    "insights": "pvtui.screens.insights:InsightsScreen",
    "operations": "pvtui.screens.operations:OperationsScreen",
    "compare": "pvtui.screens.compare:CompareScreen",
}


def _export_commands() -> type[Provider]:
    """The export commands, imported when the palette first opens rather than at start."""
    from pvtui.screens.export import ExportCommands

    return ExportCommands


def _screen_factory(target: str) -> Callable[[], Screen]:
    module, name = target.split(":")
    return lambda: getattr(importlib.import_module(module), name)()


class ScreenActions(Provider):
    """Every action of the current screen and the app, by its description."""

    def _actions(self):
        for key, active in self.screen.active_bindings.items():
            binding = active.binding
            if binding.description and active.enabled:
                run = partial(self.app.run_action, binding.action, active.node)  # the node is the default namespace
                yield binding.description, run, f"key: {binding.key_display or key}"

    async def discover(self) -> Hits:
        for text, run, help_text in self._actions():
            yield DiscoveryHit(text, run, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, run, help_text in self._actions():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), run, help=help_text)


class PvtuiApp(StatusLine, InstantModeSwitch):
    """pvtui: every screen reads `app.report`, the one shared model; what it says shows on the status line."""

    TITLE = "pvtui"
    CSS_PATH = "app.tcss"
    MODES = {name: _screen_factory(target) for name, target in SCREENS.items()}
    COMMANDS = App.COMMANDS | {ScreenActions, _export_commands}
    BINDINGS = [
        Binding("s", "show('summary')", "Summary", id="summary", show=False),
        Binding("m", "show('memory')", "Memory", id="memory", show=False),
        Binding("l", "show('liveness')", "Liveness", id="liveness", show=False),
        Binding("p", "show('programs')", "Programs", id="programs", show=False),
        Binding("t", "show('trace')", "Trace", id="trace", show=False),
        Binding("i", "show('insights')", "Insights", id="insights", show=False),
        Binding("o", "show('operations')", "Operations", id="operations", show=False),
        Binding("d", "show('compare')", "Diff", id="compare", show=False),
        Binding("d", "no_comparison", show=False),  # d without a second report: say how to get one
        Binding("B", "switch_report", "A/B", key_display="B", id="switch_report"),
        Binding("E", "pick_report", "Engine", key_display="E", id="pick_report"),
        Binding("x", "export", "Export", id="export", show=False),
        Binding("u", "cycle_units", "Units", id="units"),
        Binding("question_mark", "help", "Help", key_display="?", id="help"),
        Binding("q", "quit", "Quit", id="quit"),
    ]

    def __init__(
        self,
        reports: list[ReportFiles],
        *,
        path: Path | None = None,
        theme: str | None = None,
        watch: bool = True,
        cache: Path | None = None,
        compare_with: ReportFiles | None = None,
        first_screen: str = "summary",
        waiting: Screen | None = None,
    ) -> None:
        self.first_screen = "compare" if compare_with is not None else first_screen
        if len(reports) == 1:
            # The first screen is the mode the app starts in, so it paints with the app's first
            # frame; switch_mode would hold that frame back 50 ms to mask a transition.
            self.DEFAULT_MODE = self.first_screen
        super().__init__()
        self.reports = reports
        self.path = path
        self.files: ReportFiles | None = reports[0] if len(reports) == 1 else None
        self.report: Report | None = None
        self.compare_files = compare_with  # the second report (B) of `pvtui compare`
        self.compare_report: Report | None = None
        self.showing_b = False  # whether the single-report screens show B (switched with B)
        self.cache = cache
        self.watch = watch
        self.waiting = waiting  # a screen that waits for the reports to be written (pvtui capture --live)
        self.report_screens: "weakref.WeakSet[ReportScreen]" = weakref.WeakSet()
        self.cancel_token: CancelToken | None = None
        self.load_running = False  # from open_report until the report is open, failed or cancelled
        self.loading: Screen | None = None  # the progress dialog while files are read
        # changes seen during a load or another report's prompt, offered after it: (path, of B)
        self.pending_changes: list[tuple[Path, bool]] = []
        self.reload_second = False  # whether the reload prompt shown is about B
        self.units = "binary"  # memory units on every screen: binary, si or bytes
        self._ascii_glyphs = [AsciiGlyphs()] if basic_console() else []  # TERM=linux: every glyph in ASCII
        extra, self.theme_problems = user_themes()
        for item in builtin_themes() + extra:
            self.register_theme(item)
        self.theme = resolve_theme_name(theme, list(self.available_themes)) or DEFAULT_THEME

    def get_line_filters(self):
        """Textual's line filters, then on a basic console the one that draws every glyph in ASCII."""
        return [*super().get_line_filters(), *self._ascii_glyphs]

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """pvtui's pv-* colours for any theme (the palette offers Textual's too); a theme's own win."""
        return {**super().get_theme_variable_defaults(), **derived_variables(self.current_theme)}

    def on_mount(self) -> None:
        for problem in self.theme_problems:
            self.notify(problem, severity="warning", timeout=8)
        if self.waiting is not None:
            self.push_screen(self.waiting, self.open_written)
        else:
            self.open_written(self.reports)

    def on_key(self, event: events.Key) -> None:
        """A printable key coming up here while a text field has the focus was typed with the key
        that opened the field (one read: a paste, a burst over SSH) and handed to the widget focused
        before it; in the field's place, Textual would drop it (the field "consumes" printable keys,
        so no binding runs). Type it into the field, in the order it came. Runs before the bindings."""
        field = self.focused
        if isinstance(field, Input) and event.is_printable:
            event.prevent_default()
            field.post_message(events.Key(event.key, event.character))

    def open_written(self, reports: list[ReportFiles] | None) -> None:
        """Open the one report, or let the user pick one of several; quit on none."""
        if not reports:
            self.exit()
            return
        self.reports = reports
        if len(reports) == 1:
            self.open_report(reports[0])
        else:
            from pvtui.screens.dialogs import ReportPicker

            self.push_screen(ReportPicker(reports), self.open_report)

    def offer_reports(self, reports: list[ReportFiles], news: str) -> None:
        """More reports than those found at the start (an engine's written later, under `pvtui capture --live`):
        said in a notification, and E picks the one shown."""
        self.reports = [*self.reports, *reports]
        self.refresh_bindings()
        self.notify(f"{news}: E picks the report shown.", timeout=10)

    def action_pick_report(self) -> None:
        """Choose the report shown among those found; the one shown now stays until another opens."""
        if len(self.reports) < 2 or not self.can_switch:
            return
        from pvtui.screens.dialogs import ReportPicker

        def chosen(files: ReportFiles | None) -> None:
            if files is not None and (self.files is None or files.name != self.files.name):
                self.open_report(files, reload=True)

        self.push_screen(ReportPicker(self.reports, self.files), chosen)

    # Loading and reloading -------------------------------------------------------

    @property
    def ready(self) -> bool:
        """Whether the report, and the one compared with it, are open for the screens to show."""
        return self.report is not None and (self.compare_files is None or self.compare_report is not None)

    @property
    def can_switch(self) -> bool:
        """Whether the screen keys apply: a report is open and no load runs."""
        return self.report is not None and not self.load_running

    @property
    def report_shown(self) -> bool:
        """Whether the screen in front shows the open report and no load runs: units and export apply."""
        return self.ready and self.can_switch and not any(
            screen.opening for screen in self.report_screens if screen.is_current
        )

    @property
    def shown_report(self) -> "Report | None":
        """The report the single-report screens show: B after the user switched to it, else A."""
        return self.compare_report if self.showing_b and self.compare_report is not None else self.report

    @property
    def shown_files(self) -> ReportFiles | None:
        return self.compare_files if self.showing_b and self.compare_report is not None else self.files

    def open_report(self, files: ReportFiles | None, reload: bool = False, second: bool = False) -> None:
        """Open FILES as the report, or as the report compared with it when SECOND."""
        if files is None:
            self.exit()
            return
        from pvtui.sources.base import CancelToken

        self.load_running = True
        self.cancel_token = CancelToken()
        if self.report is None and not second:
            self.files = files
            self._open_first(files)
        else:
            self._load(files, reload, second)

    @work(group="first-screen")
    async def _open_first(self, files: ReportFiles) -> None:
        """Paint the first screen's frame, then open the report that fills its body.

        The frame needs neither numpy nor the model; opening the report needs both, and
        is started only after that frame is painted, so as not to hold the GIL before it.
        """
        if self.current_mode != self.first_screen:  # picked from several reports: not shown yet
            await self.switch_mode(self.first_screen)
        self.call_after_refresh(self._load, files, False, False)

    def _show_loading(self, name: str, token: CancelToken) -> None:
        from pvtui.screens.dialogs import LoadingScreen

        self.loading = LoadingScreen(name, token)
        self.push_screen(self.loading)

    def _close_loading(self) -> None:
        self.load_running = False
        if self.loading is not None and self.screen is self.loading:
            self.pop_screen()
        self.loading = None

    @work(thread=True, exclusive=True, group="load")
    def _load(self, files: ReportFiles, reload: bool, second: bool) -> None:
        """Open the report's bundle, or read its files into one with the progress dialog up."""
        from pvtui.sources.ingest import load_report, open_current

        token = self.cancel_token
        try:
            try:
                report = open_current(files, self.cache)
            except ReportError:
                report = None  # reading the files below reports the problem
            if report is None:
                self.call_from_thread(self._show_loading, files.name, token)
                report = load_report(files, progress=self._progress, cancel=token, cache=self.cache)
        except Cancelled:
            self.call_from_thread(self._load_cancelled, reload)
        except ReportError as exc:
            self.call_from_thread(self._load_failed, files, str(exc), reload)
        else:
            self.call_from_thread(self._loaded, files, report, reload, second)

    def _tell_reloaded(self, report: "Report", before: "Report | None") -> None:
        """Reloaded; and what the new files could not give that the old ones did, so damage is not missed."""
        new = [p for p in report.problems if before is None or p not in before.problems]
        if not new:
            self.notify(f"Reloaded {report.name}", timeout=3)
            return
        more = f" (and {len(new) - 1} more: see Summary)" if len(new) > 1 else ""
        self.notify(f"Reloaded {report.name}, with a problem: {new[0]}{more}", severity="warning", timeout=10)

    def _progress(self, stage: str, done: float, total: float) -> None:
        from pvtui.screens.dialogs import LoadingScreen

        def update() -> None:
            if isinstance(self.screen, LoadingScreen):
                self.screen.show_progress(stage, done, total)

        self.call_from_thread(update)

    async def _loaded(self, files: ReportFiles, report: "Report", reload: bool, second: bool = False) -> None:
        self._close_loading()
        before = self.compare_report if second else self.report
        before_files = self.compare_files if second else self.files
        if second:
            self.compare_files, self.compare_report = files, report
        else:
            self.files, self.report = files, report
        if reload:
            for screen in list(self.report_screens):
                if not screen.opening:  # one still opening composes its body from the new model
                    screen.report_changed()
            if before_files is not None and before_files.name != files.name:  # another engine's, picked with E
                self.notify(f"Showing {files.name}", timeout=3)
                if self.watch:
                    self.workers.cancel_group(self, "watch")
                    self._watch_files(files, second)
            else:
                self._tell_reloaded(report, before)
        elif self.compare_files is not None and self.compare_report is None:
            self.open_report(self.compare_files, second=True)  # B next; the app opens once both are read
            return
        else:
            for screen in list(self.report_screens):
                if screen.is_current:  # the others compose their body when they are shown again
                    await screen.report_opened()
            # What is alive once the first screen is up lives as long as the app: keep the
            # cyclic collector from walking it again (its full passes were the slowest frames).
            self.call_after_refresh(gc.freeze)
            if self.watch:
                self._watch_files(self.files, False)
                if self.compare_files is not None:
                    self._watch_files(self.compare_files, True)
        if self.pending_changes:
            changed, self.pending_changes = self.pending_changes, []
            for of_second in (False, True):
                paths = [path for path, is_second in changed if is_second == of_second]
                if paths:
                    self._offer_reload(paths, of_second)

    def _load_cancelled(self, reload: bool) -> None:
        self._close_loading()
        if not reload:
            self.exit(message="pvtui: cancelled; nothing was written")
        else:
            self.notify("Reload cancelled: the report shown is unchanged.", timeout=4)

    def _load_failed(self, files: ReportFiles, message: str, reload: bool) -> None:
        """Say why the report did not open, with the check of its files; then quit unless a report is shown."""
        from pvtui.screens.dialogs import OpenFailed

        self._close_loading()

        def closed(_: None) -> None:
            if not reload:
                self.exit(return_code=2, message=f"pvtui: {message}")

        self.push_screen(OpenFailed(files, message, reload), closed)

    @work(group="watch")
    async def _watch_files(self, files: ReportFiles, second: bool) -> None:
        from pvtui.watch import watch_report

        try:
            async for seen in watch_report(files):
                if seen.kind == "changed":
                    self._offer_reload(seen.paths, second)
                else:  # a report directory removed, or made again
                    self.notify(seen.said(), severity="warning" if seen.kind == "gone" else "information", timeout=8)
        except (OSError, UnicodeError) as exc:  # no inotify watch left, a path watchfiles cannot encode
            self.notify(f"Live reload is off: the report files cannot be watched ({exc})",
                        severity="warning", timeout=8)

    def _offer_reload(self, changed: list[Path], second: bool = False) -> None:
        """Offer to reload the report (B, when SECOND) whose files CHANGED."""
        from pvtui.screens.dialogs import ReloadPrompt

        if self.load_running or (isinstance(self.screen, ReloadPrompt) and self.reload_second != second):
            # One load, and one prompt for one report, at a time: the rest is offered after it.
            self.pending_changes.extend((p, second) for p in changed if (p, second) not in self.pending_changes)
            return
        if isinstance(self.screen, ReloadPrompt):
            self.screen.add_changes(changed)
            return

        def answer(reload: bool | None) -> None:
            if reload:
                self.open_report(self._rediscover(second), reload=True, second=second)
            elif self.pending_changes:
                changed, self.pending_changes = self.pending_changes, []
                for path, is_second in changed:
                    self._offer_reload([path], is_second)

        self.reload_second = second
        self.push_screen(ReloadPrompt(changed), answer)

    def _rediscover(self, second: bool = False) -> ReportFiles:
        """The same report's files as they are now (a debug.cbor may have appeared)."""
        from pvtui.sources.discovery import discover

        current = self.compare_files if second else self.files
        assert current is not None
        where = current.directory if second else self.path or current.directory
        try:
            for files in discover(where):
                if files.name == current.name:
                    return files
        except ReportError:
            pass
        return current

    # Actions ----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "show" and parameters == ("compare",):
            return self.compare_report is not None  # only with a second report
        if action == "pick_report":  # not over the picker itself
            from pvtui.screens.dialogs import ReportPicker

            return len(self.reports) > 1 and self.compare_files is None and not isinstance(self.screen, ReportPicker)
        if action == "switch_report":  # on the single-report screens of a comparison
            return self.compare_report is not None and getattr(self.screen, "SCREEN_NAME", "Compare") != "Compare"
        if action in ("cycle_units", "export"):
            return True if self.report_shown else None  # dimmed while the report is opened
        if action == "show":
            return True if self.can_switch else None
        return True

    def action_switch_report(self) -> None:
        """Show the other report of the comparison on the single-report screens."""
        if self.compare_report is None or not self.can_switch:
            return
        self.showing_b = not self.showing_b
        for screen in list(self.report_screens):
            if not screen.opening and screen.SCREEN_NAME != "Compare":
                screen.report_changed()
        shown = self.shown_report
        self.notify(f"Showing {'B' if self.showing_b else 'A'}: {shown.name}  (B switches)", timeout=3)

    def action_no_comparison(self) -> None:
        self.notify("No comparison: start one with `pvtui compare A B`.", timeout=4)

    def action_show(self, mode: str) -> None:
        if self.can_switch:
            self.switch_mode(mode)

    def action_cycle_units(self) -> None:
        from pvtui.units import next_mode

        if not self.report_shown:
            return
        self.units = next_mode(self.units)
        for screen in list(self.report_screens):
            if not screen.opening:
                screen.units_changed()
        self.notify(f"Units: {self.units}", timeout=2)

    def action_export(self) -> None:
        if self.report_shown:
            from pvtui.screens.export import open_export

            open_export(self)

    def action_help(self) -> None:
        from pvtui.screens.dialogs import HelpScreen

        if self.loading is None and not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))


def theme_problem(app: PvtuiApp, theme: str | None) -> str | None:
    """One line saying that THEME names none of APP's themes, or None where it does (or is None)."""
    if theme is not None and resolve_theme_name(theme, list(app.available_themes)) is None:
        its_file = str(user_theme_dir() / f"{theme}.json")
        for problem in app.theme_problems:  # the user's file of that name, and why it was left out
            if problem.startswith(f"{its_file}: "):
                return f"pvtui: {problem}"
        return f"pvtui: no theme named {theme!r}; the themes are {theme_names(app)}"
    return None


def theme_names(app: PvtuiApp) -> str:
    """The names --theme takes: pvtui's own (short), the user's, then Textual's; and where the user's live."""
    ours = {theme.name for theme in builtin_themes()}
    names = [name.removeprefix("pvtui-") for name in sorted(ours)]
    names += sorted(name for name in app.available_themes if name not in ours)
    return f"{', '.join(names)} (add your own in {Path('~/.config/pvtui/themes')}/NAME.json)"


def run_app(
    path: Path, engine: str | None = None, theme: str | None = None, compare_with: ReportFiles | None = None,
    screen: str = "summary",
) -> int:
    """Discover the reports at PATH and run the explorer on SCREEN (comparing with COMPARE_WITH); 2 on bad input."""
    start_lightly()
    from pvtui.sources.discovery import discover

    try:
        reports = discover(path)
    except ReportError as exc:
        print(f"pvtui: {exc}", file=sys.stderr)
        return 2
    if engine is not None:
        reports = [r for r in reports if r.name == engine]
        if not reports:
            print(f"pvtui: {path}: no report named {engine!r} here", file=sys.stderr)
            return 2
    app = PvtuiApp(reports, path=path, theme=theme, compare_with=compare_with, first_screen=screen)
    if problem := theme_problem(app, theme):
        print(problem, file=sys.stderr)
        return 2
    app.run()
    return app.return_code or 0
