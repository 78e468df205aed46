"""The Textual app: one shared report model behind its screens (SCREENS: a mode each, imported when
first shown), and live reload."""

from __future__ import annotations

import contextlib
import gc
import importlib
import sys
import threading
import traceback
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from textual import events, work
from textual.app import App
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Input

from pvtui.process import collector
from pvtui.process.blas_threads import one_blas_thread
from pvtui.process.deferred_import import defer_import, defer_numpy_unused, load_deferred
from pvtui.errors import Cancelled, ReportError
from pvtui.render.glyphs import basic_console
from pvtui.safe_text import visible
from pvtui.screens.app_keys import APP_BINDINGS, APP_KEYS
from pvtui.screens.base import ReportScreen, key_state
from pvtui.ui.slots import ReportSlot, Slot
from pvtui.ui.long_lived import collect_then_freeze, freeze_after_frame
from pvtui.process.streams import NEEDS_TERMINAL, on_a_terminal
from pvtui.ui.textual_private import DamageEndsTheApp, InstantModeSwitch, ParsedOnChange
from pvtui.ui.theming import ThemeVariables, builtin_themes, resolve_theme_name, user_theme_dir
from pvtui.units import UNIT_NAMES
from pvtui.ui.parsed_css import ParsedCss, parsed_css_folder, textual_installed
from pvtui.ui.parts_shown import PartsShown
from pvtui.ui.user_files import UserFiles
from pvtui.widgets.look import AsciiGlyphs
from pvtui.widgets.status import StatusLine

if TYPE_CHECKING:
    from pvtui.user.config import Config
    from pvtui.model.report import Report
    from pvtui.sources.base import CancelToken, ReportFiles
    from pvtui.user.state import State


def start_lightly() -> None:
    """Set up the process for the app, before anything imports numpy (importing this module does not).

    The first frame needs no numpy: a stand-in takes its place until the report is opened,
    after that frame, and others take the place of its modules that pvtui does not use. And numpy's
    OpenBLAS starts one thread (pvtui.process.blas_threads).
    """
    defer_import("numpy")
    defer_numpy_unused()
    one_blas_thread()


# The longest a report's opening waits for the first frame before it imports numpy or reads the files: a frame
# never painted (an app ended first) must not hold the worker, which the interpreter waits for at exit.
FIRST_FRAME_WAIT = 1.0

SCREENS = {
    "summary": "pvtui.screens.summary:SummaryScreen",
    "memory": "pvtui.screens.memory:MemoryScreen",
    "liveness": "pvtui.screens.liveness:LivenessScreen",
    "programs": "pvtui.screens.programs:ProgramsScreen",
    "trace": "pvtui.screens.trace:TraceScreen",
    "insights": "pvtui.screens.insights:InsightsScreen",
    "operations": "pvtui.screens.operations:OperationsScreen",
    "hotspots": "pvtui.screens.hotspots:HotspotsScreen",
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


class PvtuiApp(StatusLine, InstantModeSwitch, ThemeVariables, ParsedOnChange, DamageEndsTheApp, UserFiles, PartsShown,
                App):
    """pvtui: the screens show the reports of its slots (A, and B in a comparison), one shared model each;
    what it says shows on the status line.

    What every screen shows alike travels one way: the reactives below, with Textual's `theme`, which
    each report screen watches (pvtui.screens.base.ReportScreen).
    """

    TITLE = "pvtui"
    # The app's stylesheet, read as it starts. A screen's own CSS_PATH, first read as it is first shown, would
    # have Textual parse the whole stylesheet again from scratch (40-80 ms): a screen's layout is its DEFAULT_CSS.
    CSS_PATH = "app.tcss"
    MODES = {name: _screen_factory(target) for name, target in SCREENS.items()}
    COMMANDS = App.COMMANDS | {ScreenActions, _export_commands}
    BINDINGS = APP_BINDINGS
    KEYS = APP_KEYS
    units: var[str] = var("binary")  # of bytes, on every screen: binary, si or bytes (u cycles them)
    shown: var[Slot] = var(Slot.A)  # the report the single-report screens show (B switches, in a comparison)
    report_generation: var[int] = var(0)  # bumped when the reports open and when a reload swaps a new model in

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
        reader: str | None = None,
        config: Config | None = None,
        state: State | None = None,
        debug: bool = False,
    ) -> None:
        """THEME, READER: CONFIG's defaults where not given; STATE: the reports opened before (pvtui.user.state)."""
        from pvtui.user.config import load_config

        self.config = config if config is not None else load_config()
        defaults = self.config.defaults
        self.first_screen = "compare" if compare_with is not None else first_screen
        if len(reports) == 1:
            # The first screen is the mode the app starts in, so it paints with the app's first
            # frame; switch_mode would hold that frame back 50 ms to mask a transition.
            self.DEFAULT_MODE = self.first_screen
        super().__init__()
        self.reports = reports
        self.path = path
        self.state = state
        self.a = ReportSlot(Slot.A, reports[0] if len(reports) == 1 else None)
        self.b = None if compare_with is None else ReportSlot(Slot.B, compare_with)  # of `pvtui compare`
        self.cache = cache
        self.reader = reader or defaults.get("reader", "auto")  # which reader reads profile.pop (sources/readers.py)
        self.watch = watch
        self.tracebacks: list[str] | None = [] if debug else None  # --debug: those of pvtui's bugs, said at the end
        self.waiting = waiting  # a screen that waits for the reports to be written (pvtui capture --live)
        self.cancel_token: CancelToken | None = None
        self.load_running = False  # from open_report until the report is open, failed or cancelled
        self.loading: Screen | None = None  # the progress dialog while files are read
        self.first_frame = threading.Event()  # set once the first screen's frame is painted
        self.reloads = ReloadOffers(self)
        self.units = UNIT_NAMES.get(defaults.get("units", ""), "binary")
        self._ascii_glyphs = [AsciiGlyphs()] if basic_console() else []  # TERM=linux: every glyph in ASCII
        self.stylesheet.kept = ParsedCss(parsed_css_folder(cache), textual_installed())
        self.use_themes(theme, self.config)
        if self.config.keymap:
            self.set_keymap(self.config.keymap)  # checked after the first frame (pvtui.ui.keymap.check_config)

    def get_line_filters(self):
        """Textual's line filters, then on a basic console the one that draws every glyph in ASCII."""
        return [*super().get_line_filters(), *self._ascii_glyphs]

    def on_mount(self) -> None:
        for problem in self.theme_problems:
            self.notify(problem, severity="warning", timeout=8)
        self.check_user_files()
        if self.waiting is not None:
            self.push_screen(self.waiting, self.open_written)
        else:
            self.open_written(self.reports)

    def on_ready(self) -> None:  # the first frame is painted: what is alive lives as long as the app
        gc.freeze()
        if isinstance(self.screen, ReportScreen):  # the first screen's: the opening goes on, not after the
            self.first_frame.set()  # layouts Textual adds as it starts (call_after_refresh waited 16 ms more)
        else:  # a picker or a wait: the collections held for the start go on (else once the report is shown)
            collector.resume()

    def on_key(self, event: events.Key) -> None:
        """Before the bindings, in the order keys came. A printable key here while a field has the focus came
        with the key that opened it (a burst over SSH) to the widget focused before, where Textual drops it:
        type it into the field. Else the screen may take the key, typed into a line of its own (take_typed)."""
        field = self.focused
        if isinstance(field, Input) and event.is_printable:
            event.prevent_default()
            field.post_message(events.Key(event.key, event.character))
        elif isinstance(self.screen, ReportScreen) and self.screen.take_typed(event):
            event.prevent_default()

    def open_written(self, reports: list[ReportFiles] | None) -> None:
        """Open the one report, or let the user pick one of several or of those opened before; quit on none."""
        if not reports and not (reports is not None and self.recent):
            self.exit()
            return
        self.reports = reports
        if len(reports) == 1:
            self.open_report(reports[0])
        else:
            from pvtui.screens.dialogs import ReportPicker

            self.push_screen(ReportPicker(reports, recent=self.recent), self.open_report)

    def offer_reports(self, reports: list[ReportFiles], news: str) -> None:
        """More reports than those found at the start (an engine's written later, under `pvtui capture --live`):
        said in a notification, and E picks the one shown."""
        self.reports = [*self.reports, *reports]
        self.refresh_bindings()
        self.notify(f"{news}: E picks the report shown.", timeout=10)

    def action_pick_report(self) -> None:
        """Choose the report shown among those found; the one shown now stays until another opens."""
        if len(self.reports) < 2 or not self.can_switch or self.load_running:  # one report read at a time
            return
        from pvtui.screens.dialogs import ReportPicker

        def chosen(files: ReportFiles | None) -> None:
            if files is not None and (self.a.files is None or files.name != self.a.files.name):
                self.open_report(files)

        self.push_screen(ReportPicker(self.reports, self.a.files, self.recent), chosen)

    # Loading and reloading -------------------------------------------------------

    @property
    def slots(self) -> list[ReportSlot]:
        """A, and B in a comparison."""
        return [self.a] if self.b is None else [self.a, self.b]

    @property
    def report(self) -> "Report | None":
        """A's model: the report opened, the first of a comparison (None until read)."""
        return self.a.report

    @property
    def ready(self) -> bool:
        """Whether the report, and the one compared with it, are open for the screens to show."""
        return all(slot.is_open for slot in self.slots)

    @property
    def comparing(self) -> bool:
        """Whether B is open beside A: the Compare screen and the A/B switch apply."""
        return self.b is not None and self.b.is_open

    @property
    def can_switch(self) -> bool:
        """Whether the screen keys apply: a report is open, and no load runs but the reading of the rest of
        the one shown."""
        return self.a.is_open and (not self.load_running or self.a.report.being_read)

    @property
    def report_shown(self) -> bool:
        """Whether the screen in front shows the open report and no load runs: units and export apply."""
        return self.ready and self.can_switch and not getattr(self.screen, "opening", False)

    @property
    def shown_slot(self) -> ReportSlot:
        """The report the single-report screens show: B after the user switched to it, else A."""
        return self.b if self.shown is Slot.B and self.b is not None else self.a

    def open_report(self, files: ReportFiles | None, slot: ReportSlot | None = None) -> None:
        """Read FILES into SLOT (A unless given): a reload where it holds a report already; quit on none."""
        if files is None:
            self.exit()
            return
        from pvtui.sources.base import CancelToken

        slot = slot or self.a
        self.load_running = True
        self.cancel_token = CancelToken()
        if slot is self.a and not slot.is_open:
            slot.files = files
            self._show_first_screen()
        self._load(slot, files)

    @work(group="first-screen")
    async def _show_first_screen(self) -> None:
        """Paint the first screen's frame (no numpy, no model), while `_load` opens the report: its metadata and
        headers beside the frame, numpy or the files only once it is painted (as they hold the GIL)."""
        if self.current_mode != self.first_screen:  # picked from several reports: not shown yet
            await self.switch_mode(self.first_screen)
        self.screen.call_after_refresh(self.first_frame.set)  # a screen's, run once its frame is painted

    def _show_loading(self, name: str, token: CancelToken) -> None:
        from pvtui.screens.dialogs import LoadingScreen

        self.loading = LoadingScreen(name, token)
        self.push_screen(self.loading)

    def _close_loading(self) -> None:
        self.load_running = False
        self.reading_progress = ""
        self._hide_loading()

    @work(thread=True, exclusive=True, group="load")
    def _load(self, slot: ReportSlot, files: ReportFiles) -> None:
        """Open the bundle of SLOT's report FILES, or read them into one with the progress dialog up."""
        from pvtui.sources.ingest import load_report, open_current

        token = self.cancel_token
        first = not slot.is_open and self.b is None  # one report: a comparison opens once both are read
        shown = partial(self.call_from_thread, self._parts_read, slot, files) if first else None  # each part as read
        try:
            try:
                report = open_current(files, self.cache, reader=self.reader)
            except ReportError:
                report = None  # reading the files below reports the problem
            if report is None:
                collector.resume()  # a read with progress, not the start's few hundred milliseconds
                self.first_frame.wait(FIRST_FRAME_WAIT)
                self.call_from_thread(self._show_loading, files.name, token)
                report = load_report(files, progress=self._progress, cancel=token, cache=self.cache, reader=self.reader,
                                     shown=shown)
        except Cancelled:
            self.call_from_thread(self._load_cancelled, slot)
        except ReportError as exc:
            self.call_from_thread(self._load_failed, slot, files, str(exc))
        except Exception as exc:  # a reader's bug: said as a report that did not open, and the app runs on
            self.call_from_thread(self._load_failed, slot, files, bug_line(files, exc, self.tracebacks))
        else:
            if not (isinstance(screen := self.screen, ReportScreen) and screen.shows_without_numpy(report)):
                self.first_frame.wait(FIRST_FRAME_WAIT)
                load_deferred("numpy")  # here, not on the UI thread: the screen's body reads columns
            self.call_from_thread(self._loaded, slot, files, report)

    def run(self, *args, **kwargs):
        """As Textual's; then the CSS parsed is kept, and --debug's tracebacks said on the terminal given back."""
        try:
            return super().run(*args, **kwargs)
        finally:
            self.stylesheet.kept.save()  # those of the screens shown since the first
            say_tracebacks(self.tracebacks or [])

    def _progress(self, stage: str, done: float, total: float) -> None:
        from pvtui.screens.dialogs import LoadingScreen

        def update() -> None:
            if isinstance(self.screen, LoadingScreen):
                self.screen.show_progress(stage, done, total)
            elif self.load_running and self.a.is_open and self.a.report.being_read:
                self.reading_progress = f"{stage} {done / total:.0%}" if total else stage

        self.call_from_thread(update)

    async def _loaded(self, slot: ReportSlot, files: ReportFiles, report: "Report") -> None:
        self._close_loading()
        before, before_files = slot.report, slot.files
        slot.files, slot.report = files, report
        if before is not None and before.being_read:  # its first parts shown: the rest fill in
            self._opened(let_go=True)
        elif before is not None:
            self._reloaded(slot, before, before_files)
        elif self.b is not None and not self.b.is_open:
            self.open_report(self.b.files, self.b)  # B next; the app opens once both are read
            return
        else:
            self._opened()
        self.reloads.offer_pending()

    def _opened(self, let_go: bool = False) -> None:
        """The reports are read: the screen in front shows them, and their files are watched. LET_GO: the parts
        shown while they were read, and the screens built over them (frozen then), are collected."""
        self.remember_opened(self.a.files)
        self.report_generation += 1  # the screen in front composes its body; the others when shown again
        # what is alive once the first screen is up lives as long as the app
        (collect_then_freeze if let_go else freeze_after_frame)(self)
        if self.watch:
            for slot in self.slots:
                self._watch_files(slot)

    @work(thread=True, group="import-screens", exit_on_error=False)
    def report_painted(self) -> None:
        """A screen painted its body over a report: numpy (where the first screen was shown without it) and every
        screen's module are imported while the user reads it (done by the first, so that a key's first showing
        of a screen does not: 50-100 ms each on the large report's machine). The start is over: collections go on
        (held since the start: numpy's import and the body made 40-50 of them, 10 ms, and found next to nothing)."""
        collector.resume()
        load_deferred("numpy")
        for target in SCREENS.values():
            importlib.import_module(target.split(":")[0])
        self.stylesheet.kept.save()  # the stylesheets parsed for this start, read back at the next

    def _reloaded(self, slot: ReportSlot, before: "Report", before_files: ReportFiles | None) -> None:
        """SLOT holds a new model in place of BEFORE: the screens redraw from it, and the user is told."""
        self.report_generation += 1
        collect_then_freeze(self)
        files = slot.files
        assert files is not None and slot.report is not None
        if before_files is not None and before_files.name != files.name:  # another engine's, picked with E
            self.notify(f"Showing {files.name}", timeout=3)
            self.remember_opened(files)
            if self.watch:
                self.workers.cancel_group(self, "watch")
                self._watch_files(slot)
        else:
            self.reloads.tell_reloaded(slot.report, before)

    def _load_cancelled(self, slot: ReportSlot) -> None:
        self._close_loading()
        if not slot.is_open or slot.report.being_read:
            self.exit(message="pvtui: cancelled; nothing was written")
        else:
            self.notify("Reload cancelled: the report shown is unchanged.", timeout=4)

    def _load_failed(self, slot: ReportSlot, files: ReportFiles, message: str) -> None:
        """Say why the report did not open, with the check of its files; then quit unless a report is shown."""
        from pvtui.screens.dialogs import OpenFailed

        collector.resume()  # where the start ends here
        self._close_loading()
        reload = slot.is_open and not slot.report.being_read

        def closed(_: None) -> None:
            if not reload:
                self.exit(return_code=2, message=f"pvtui: {message}")

        self.push_screen(OpenFailed(files, message, reload), closed)

    @work(group="watch")
    async def _watch_files(self, slot: ReportSlot) -> None:
        from pvtui.sources.watch import watch_report

        assert slot.files is not None and slot.report is not None
        try:
            async for seen in watch_report(slot.files, slot.report.files):
                if seen.kind == "changed":
                    self.reloads.offer(seen.paths, slot)
                else:  # a report directory removed, or made again
                    self.notify(seen.said(), severity="warning" if seen.kind == "gone" else "information", timeout=8)
        except (OSError, UnicodeError) as exc:  # no inotify watch left, a path watchfiles cannot encode
            self.notify(f"Live reload is off: the report files cannot be watched ({exc})",
                        severity="warning", timeout=8)

    # Actions ----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return key_state(self.KEYS, action, parameters, self)

    @property
    def several_found(self) -> bool:
        """Several reports were found where the user pointed, and no comparison holds them to two."""
        return len(self.reports) > 1 and self.b is None

    @property
    def picker_closed(self) -> bool:
        from pvtui.screens.dialogs import ReportPicker

        return not isinstance(self.screen, ReportPicker)

    @property
    def on_single_report_screen(self) -> bool:
        """The screen in front shows one report (A or B): not Compare, nor a dialog."""
        return getattr(self.screen, "SCREEN_NAME", "Compare") != "Compare"

    def action_switch_report(self) -> None:
        """Show the other report of the comparison on the single-report screens."""
        if not self.comparing or not self.can_switch:
            return
        self.shown = Slot.A if self.shown is Slot.B else Slot.B
        shown = self.shown_slot.report
        assert shown is not None
        self.notify(f"Showing {self.shown.value}: {shown.name}  (B switches)", timeout=3)

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
        self.notify(f"Units: {self.units}", timeout=2)

    def action_export(self) -> None:
        if self.report_whole:
            from pvtui.screens.export import open_export

            open_export(self)

    def action_help(self) -> None:
        from pvtui.screens.dialogs import HelpScreen

        if self.loading is None and not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))


class ReloadOffers:
    """Offers to reload a report whose files changed on disk, never forcing it. One prompt at a time,
    about one report: changes seen during a load or another report's prompt are offered after it."""

    def __init__(self, app: PvtuiApp) -> None:
        self.app = app
        self.pending: list[tuple[Path, ReportSlot]] = []  # each changed file, and the report it is of
        self.prompted: ReportSlot | None = None  # the report whose reload the prompt shown offers

    def offer(self, changed: list[Path], slot: ReportSlot) -> None:
        """Offer to reload the report of SLOT, whose files CHANGED."""
        from pvtui.screens.dialogs import ReloadPrompt

        app = self.app
        if app.load_running or (isinstance(app.screen, ReloadPrompt) and self.prompted is not slot):
            self.pending.extend((path, slot) for path in changed if (path, slot) not in self.pending)
            return
        if isinstance(app.screen, ReloadPrompt):
            app.screen.add_changes(changed)
            return

        def answer(reload: bool | None) -> None:
            if reload:  # A is found again where the user pointed, which may hold several reports
                app.open_report(slot.files_now(app.path if slot is app.a else None), slot)
            else:
                self.offer_pending()

        self.prompted = slot
        app.push_screen(ReloadPrompt(changed), answer)

    def tell_reloaded(self, report: "Report", before: "Report | None") -> None:
        """Reloaded; and what the new files could not give that the old ones did, so damage is not missed."""
        new = [p for p in report.problems if before is None or p not in before.problems]
        if not new:
            self.app.notify(f"Reloaded {report.name}", timeout=3)
            return
        more = f" (and {len(new) - 1} more: see Summary)" if len(new) > 1 else ""
        self.app.notify(f"Reloaded {report.name}, with a problem: {new[0]}{more}", severity="warning", timeout=10)

    def offer_pending(self) -> None:
        """Offer the reloads held back, A's first."""
        changed, self.pending = self.pending, []
        for slot in self.app.slots:
            paths = [path for path, of in changed if of is slot]
            if paths:
                self.offer(paths, slot)


def bug_line(files: ReportFiles, exc: Exception, tracebacks: list[str] | None) -> str:
    """One line for an error no reader should raise (a bug), naming the report; its traceback added to
    TRACEBACKS where --debug keeps them."""
    if tracebacks is not None:
        tracebacks.append("".join(traceback.format_exception(exc)))
    then = "its traceback follows on stderr when the explorer ends" if tracebacks is not None else \
        "run with --debug for its traceback"
    return visible(f"{files.directory}: not opened: a bug in pvtui ({type(exc).__name__}: {exc}); {then}, "
                   "and please report it")


def say_tracebacks(texts: list[str]) -> None:
    """TEXTS on stderr, each line made visible (a traceback quotes paths and messages)."""
    for text in texts:
        with contextlib.suppress(OSError):  # stderr closed or full: nowhere else to say it
            print("\n".join(map(visible, text.rstrip("\n").split("\n"))), file=sys.stderr, flush=True)


def left_on(state: State, reports: list[ReportFiles]) -> str:
    """The screen the one report of REPORTS was left on, as STATE remembers it; else Summary."""
    from pvtui.commands.common import FIRST_SCREENS

    index = state.place_of(reports[0].directory, reports[0].name).get("screen") if len(reports) == 1 else None
    return FIRST_SCREENS[index] if isinstance(index, int) and index < len(FIRST_SCREENS) else "summary"


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
    path: Path | None, engine: str | None = None, theme: str | None = None, compare_with: ReportFiles | None = None,
    screen: str | None = None, reader: str | None = None, config: Path | None = None, fresh: bool = False,
    debug: bool = False,
) -> int:
    """Discover the reports at PATH and run the explorer on SCREEN (else the one the report was left on, else
    Summary; comparing with COMPARE_WITH), profile.pop read by READER (the configuration at CONFIG sets what
    is not given); where PATH is None and no report is here, the picker offers those opened before. FRESH:
    nothing remembered is offered or returned to. 2 on bad input, or where there is no terminal to run it on."""
    try:
        return _run_app(path, engine, theme, compare_with, screen, reader, config, fresh, debug)
    finally:
        collector.resume()  # where the app ended before its first frame, or never started


def _run_app(
    path: Path | None, engine: str | None, theme: str | None, compare_with: ReportFiles | None, screen: str | None,
    reader: str | None, config: Path | None, fresh: bool, debug: bool,
) -> int:
    start_lightly()
    from pvtui.user.config import load_config
    from pvtui.sources.discovery import discover
    from pvtui.user.state import State

    state = State(fresh=fresh)
    try:
        reports = discover(path or Path("."))
    except ReportError as exc:
        if path is not None or not state.recent:
            print(visible(f"pvtui: {exc}"), file=sys.stderr)
            return 2
        reports = []  # none here: the picker offers those opened before
    if engine is not None:
        reports = [r for r in reports if r.name == engine]
        if not reports:
            print(visible(f"pvtui: {path}: no report named {engine!r} here"), file=sys.stderr)
            return 2
    app = PvtuiApp(reports, path=path or Path("."), theme=theme, compare_with=compare_with,
                   first_screen=screen or left_on(state, reports), reader=reader, config=load_config(config),
                   state=state, debug=debug)
    if problem := theme_problem(app, theme):
        print(visible(problem), file=sys.stderr)
        return 2
    if not on_a_terminal():  # said after what is wrong with the arguments, before anything is drawn
        print(NEEDS_TERMINAL, file=sys.stderr)
        return 2
    app.run()
    return app.return_code or 0
