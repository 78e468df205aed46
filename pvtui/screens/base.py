"""What every report screen shares: the shared model, its name shown, what is missing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, NamedTuple, Protocol

from rich.text import Text
from textual.app import ComposeResult
from textual import events
from textual.events import Click
from textual.geometry import Offset, Size
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Static

from pvtui.model.unavailable import Unavailable
from pvtui.render.visible_text import visible_text
from pvtui.ui.textual_private import FramesOnTheBeat, StyledOnMount, screens_of_every_mode, styled_as_now
from pvtui.ui.long_lived import freeze_after_frame
from pvtui.units import format_bytes
from pvtui.widgets.drawn_by_rich import DrawnByRich
from pvtui.widgets.key_bar import KeyBar
from pvtui.widgets.look import look_of

if TYPE_CHECKING:
    from textual.app import App

    from pvtui.model.report import Report
    from pvtui.model.tables import Table
    from pvtui.ui.slots import ReportSlot, Slot


WIDE = 120  # columns from which a screen's details sit beside its main view
SHORT = 20  # terminal rows below which a screen is "short"
MIN_LABEL = 8  # cells the report's name keeps before the tabs lose their padding


class TitleBar(Widget):
    """One line of tabs: the report's name, then every screen with its key letter marked.

    The current screen's tab stands out; the name (a directory's: made visible) gives way (ellipsis)
    before the tabs do, once they have lost their padding and, where it keeps fewer than MIN_LABEL cells
    even so (a comparison at 80 columns), the last tabs but the current one their names but for their
    key. A click on a tab switches to its screen, as its key does.
    """

    DEFAULT_CSS = """
    TitleBar {
        height: 1;
        background: $panel;
        color: $foreground;
        padding: 0 1;
    }
    """

    def __init__(self, label: str, current: str, tabs: tuple[tuple[str, str], ...], id: str | None = None) -> None:
        super().__init__(id=id)
        self.label, self.current, self.tabs = label, current, tabs
        self.tab_columns: list[tuple[int, int, str]] = []  # each tab's first and past-last column, its name

    def show(self, label: str, tabs: tuple[tuple[str, str], ...]) -> None:
        self.label, self.tabs = label, tabs
        self.refresh()

    def _tab(self, key: str, name: str, padding: str, short: bool = False) -> Text:
        at = 0 if short else name.lower().find(key.lower())
        shown = key if short else name if at >= 0 else f"{key}·{name}"  # the key is not a letter of the name
        tab = Text(f"{padding}{shown}{padding}", style="reverse bold" if name == self.current else "dim")
        start = max(at, 0) + len(padding)
        tab.stylize("bold underline not dim", start, start + 1)
        return tab

    def _tabs(self, padding: str, short: int = 0) -> tuple[Text, list[tuple[int, int, str]]]:
        """The tabs, padded by PADDING (spaced apart where it is empty), the last SHORT but the current one
        by their key alone; and the columns each spans."""
        others = [name for _, name in self.tabs if name != self.current]
        shortened = set(others[len(others) - short:]) if short else set()
        tabs, columns = Text(no_wrap=True), []
        for key, name in self.tabs:
            if columns and not padding:
                tabs.append(" ")
            tab = self._tab(key, name, padding, name in shortened)
            columns.append((tabs.cell_len, tabs.cell_len + tab.cell_len, name))
            tabs.append(tab)
        return tabs, columns

    def render(self) -> DrawnByRich:
        return DrawnByRich(self.line_text())

    def line_text(self) -> Text:
        """The report's name and the tabs, as wide as the bar (self.tab_columns: where each tab is)."""
        tabs, columns = self._tabs(" ")
        room = self.content_size.width - tabs.cell_len - 1
        short = 0
        while room < MIN_LABEL and self.label and short < len(self.tabs) - 1:  # the name would be lost:
            tabs, columns = self._tabs("", short)  # tabs without padding, then the last by their key, make room
            room = self.content_size.width - tabs.cell_len - 1
            short += 1
        label = visible_text(self.label, "bold")
        label.no_wrap, label.overflow = True, "ellipsis"
        label.truncate(max(room, 0), overflow="ellipsis", pad=True)
        before = room + 1 if room > 0 else 0
        self.tab_columns = [(before + start, before + end, name) for start, end, name in columns]
        return Text.assemble(label, " ", tabs) if room > 0 else tabs

    async def on_click(self, event: Click) -> None:
        offset = event.get_content_offset(self)
        for start, end, name in self.tab_columns if offset is not None else ():
            if start <= offset.x < end:
                await self.run_action(f"app.show({name.lower()!r})")


def beside_or_under(screen: str, body: str, main: str, details: str, under: int) -> str:
    """CSS: in BODY, the DETAILS pane beside the MAIN view (two fifths of the width, a rule on its left);
    on a narrow SCREEN under it, UNDER rows high, or three tenths of a short one. Selectors all."""
    return f"""
    {screen} {body} {{ height: 1fr; }}
    {screen} {main} {{ width: 3fr; height: 1fr; }}
    {screen} {details} {{ width: 2fr; height: 1fr; border-left: vkey $panel; padding: 0 1; }}
    {screen}.narrow {body} {{ layout: vertical; }}
    {screen}.narrow {main} {{ width: 1fr; }}
    {screen}.narrow {details} {{ width: 1fr; height: {under}; border-left: none; border-top: hkey $panel; }}
    {screen}.short.narrow {details} {{ height: 30vh; }}
    """


class ReportsShown(Protocol):
    """What a report screen reads of its app (pvtui.app.PvtuiApp, which imports the screens and so is
    not imported by them): the reports, which one is shown, the units of bytes (those three, and the
    report generation, reactives the screens watch)."""

    a: ReportSlot
    b: ReportSlot | None  # in a comparison
    shown: Slot
    units: str
    report_generation: int

    @property
    def slots(self) -> list[ReportSlot]: ...

    @property
    def shown_slot(self) -> ReportSlot: ...

    @property
    def ready(self) -> bool: ...

    @property
    def report_shown(self) -> bool: ...

    @property
    def report_whole(self) -> bool: ...

    def remembered(self, name: str) -> Any:
        """Where the report opened was left, as a screen said it (remembered_place): once, else None; of the
        types pvtui.user.state checks it has (whole numbers, a window of two, a text)."""

    def report_painted(self) -> None:
        """Called once a screen's body over a report is painted."""


class UnavailableNotice(Static):
    """Where a view would be, the reason of the model's Unavailable that stands in its place: never markup
    (it may quote the report's names and paths). Without one (None) it is hidden."""

    DEFAULT_CSS = """
    UnavailableNotice {
        color: $warning;
        padding: 1 2;
        height: auto;
    }
    """

    def __init__(self, why: Unavailable | None = None, **kwargs) -> None:
        super().__init__("" if why is None else why.reason, markup=False, **kwargs)
        self.why = why
        self.display = why is not None

    def on_mount(self) -> None:
        if hasattr(self.app, "reading_progress"):
            self.watch(self.app, "reading_progress", lambda _progress: self._say(layout=False))

    def show(self, why: Unavailable | None) -> None:
        """WHY's reason, or hidden where there is none (the view shows)."""
        self.why = why
        self.display = why is not None
        if why is not None:  # updating costs a layout: only when it shows
            self._say(layout=True)

    def _say(self, layout: bool) -> None:
        """The reason; where it says a part is not read yet (model.report.BeingRead), with how far the
        reading is."""
        if self.why is None or not self.display:
            return
        reason = self.why.reason
        progress = getattr(self.app, "reading_progress", "") if self.is_attached else ""
        if progress:
            from pvtui.model.report import BeingRead  # once a report is being read (numpy with it)

            if isinstance(reason, BeingRead):
                reason = f"{reason} Reading {progress}."
        self.update(reason, layout=layout)


class Needs(NamedTuple):
    """What a key needs to apply: facts without which it is hidden, then facts without which it is
    shown dimmed. A fact is the name of a boolean attribute of the screen's `key_facts()`."""

    shown: tuple[str, ...] = ()
    usable: tuple[str, ...] = ()

    def __add__(self, other: "Needs") -> "Needs":
        return Needs(self.shown + other.shown, self.usable + other.usable)

    def state(self, facts: object) -> bool | None:
        """True where every fact holds, None (dimmed) where one of `usable` does not, False (hidden)
        where one of `shown` does not."""
        if not all(getattr(facts, fact) for fact in self.shown):
            return False
        return True if all(getattr(facts, fact) for fact in self.usable) else None


def key_state(keys: Mapping[str, Needs], action: str, parameters: tuple[object, ...], facts: object,
              every: Needs = Needs()) -> bool | None:
    """Whether the key of ACTION with PARAMETERS applies (Needs.state): by what KEYS says it needs (under
    "name(parameters)" as its binding writes them, else "name"; else nothing) and what EVERY key needs,
    the facts being attributes of FACTS."""
    needs = keys.get(f"{action}({', '.join(map(repr, parameters))})") if parameters else None
    return (every + (needs or keys.get(action, Needs()))).state(facts)


_NO_PARAMETER = object()


def _move(move: str) -> Callable[..., None]:
    """The action of a key that makes the navigator's MOVE, with the key's parameter if it has one,
    then redraws the screen."""

    def action(screen: Any, parameter: object = _NO_PARAMETER) -> None:
        parameters = () if parameter is _NO_PARAMETER else (parameter,)
        getattr(screen.nav, move)(*parameters)
        screen.redraw()

    action.__doc__ = f"The navigator's `{move}`, then a redraw."
    return action


class ReportScreen(StyledOnMount, FramesOnTheBeat, Screen):
    """A screen over the app's one shared report.

    A screen shown before the report is open paints its frame (tabs and keys) with a
    line saying so; the body is composed once the report arrives. Subclasses compose
    their body in `compose_body`, fill it from the model in `show_report`, say what each of
    their keys needs in `KEYS` (action -> Needs) and `EVERY_KEY`, and refresh in
    `report_changed`, which runs after a reload swaps a new model in; they keep their selection
    across it where it still exists.

    What changes for every screen reaches each one way, through the app's reactives that `on_mount`
    watches: a change of units calls `units_changed`, of theme `theme_changed`, a new model (a reload)
    `report_changed`, the other report of a comparison shown `shown_changed`; on a screen whose body
    shows the report (one still opening composes it from the model there is then).

    A screen with a NAVIGATOR (a pure class in model/navigators/, the module named after the screen)
    keeps its state in `nav`, an instance of it; the facts its keys need are the navigator's, and the
    keys in MOVES (action -> the navigator's method) only move it, then `redraw` the screen.
    """

    KEY_BAR = True  # composes one: the status line shows there (pvtui.widgets.status)
    BLANK = True  # its own lines, its background under the widgets, are one blank line repeated: drawn once

    SCREEN_NAME: ClassVar[str] = ""
    # Below WIDE columns the screen has the class "narrow" (a screen's details go under its main view
    # instead of beside it), from WIDE on "wide": Textual sets them on every resize.
    HORIZONTAL_BREAKPOINTS = [(0, "narrow"), (WIDE, "wide")]
    DEFAULT_CSS = """
    ReportScreen #opening { padding: 1 2; color: $text-muted; height: auto; }  /* below it, the screen's background: fewer lines to draw */
    """
    # Textual repaints the whole screen when the focus moves (a full frame of every widget); the
    # widgets whose look depends on the focus restyle and repaint themselves.
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
    opening = True  # until the body shows the report
    # What the screen's keys need: every one of them, and each action ("name" or, for one binding of
    # several, "name(parameters)" as the binding writes it).
    EVERY_KEY: ClassVar[Needs] = Needs()
    KEYS: ClassVar[Mapping[str, Needs]] = {}
    NAVIGATOR: ClassVar[type | None] = None
    MOVES: ClassVar[Mapping[str, str]] = {}
    _has_body = False  # composed, or being composed, over the report
    _redraw_pending = False  # a newer model waits for the screen's workers to end
    _whole_at_once = False  # while show_in builds a screen

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for action, move in cls.__dict__.get("MOVES", {}).items():
            setattr(cls, f"action_{action}", _move(move))

    def __init__(self) -> None:
        super().__init__()
        styled_as_now(self, self.app)
        # Classed for the terminal's size before the first styling: the same classes set by the first
        # resize would style every widget of the new screen again (up to a third of its first showing).
        self.update_classes({**self.breakpoint_classes(self.app.size), **self.size_classes(self.app.size)},
                            update=False)
        self.nav = self.NAVIGATOR() if self.NAVIGATOR is not None else None
        self._due_when_shown: dict[str, Callable[[], None]] = {}  # hooks heard behind the front (_when_showing)
        # A new mode's screen over an open report composes its body after its first frame (first_frame_painted),
        # but one shown to call a method of (show_in) at once, as the screen calling waits for it.
        self._has_body = self.pv_app.ready and ReportScreen._whole_at_once
        self._awaiting_frame = self.pv_app.ready and not self._has_body

    def breakpoint_classes(self, size: Size) -> dict[str, bool]:
        """The classes of HORIZONTAL_BREAKPOINTS at SIZE, as Textual sets them on a resize."""
        reached = [name for width, name in sorted(self.HORIZONTAL_BREAKPOINTS) if size.width >= width]
        return {name: bool(reached) and name == reached[-1] for _width, name in self.HORIZONTAL_BREAKPOINTS}

    def size_classes(self, size: Size) -> dict[str, bool]:
        """The screen's own classes at the terminal's SIZE: below SHORT rows the detail panes give way to
        the main view (each screen's CSS says how)."""
        return {"short": size.height < SHORT}

    @property
    def pv_app(self) -> ReportsShown:
        return self.app  # type: ignore[return-value]

    @property
    def report(self) -> "Report":
        return self.pv_app.shown_slot.report

    def compose(self) -> ComposeResult:
        # A new screen (over a report already open too) paints its frame and this line within a frame of its key,
        # then its body in the line's place (report_opened: 100-400 ms of CPU on the large report), see __init__.
        yield TitleBar(self.title_label(), self.SCREEN_NAME, self.title_tabs(), id="title")
        if self._has_body:
            yield from self.compose_body()
        else:
            yield Static(visible_text(f"Opening {self.title_label()}…"), id="opening")
        yield KeyBar()

    def on_resize(self) -> None:
        self.update_classes(self.size_classes(self.app.size))

    def on_mount(self) -> None:
        self.watch(self.app, "report_generation", self._report_swapped, init=False)
        self.watch(self.app, "shown", self._when_showing(self.shown_changed), init=False)
        self.watch(self.app, "units", self._when_showing(self.units_changed, when_shown="units"), init=False)
        # after the app restyles to the new theme (Textual's own reaction, queued before ours)
        self.watch(self.app, "theme", lambda: self.app.call_next(self._when_showing(self.theme_changed, when_shown="theme")),
                   init=False)
        if self._has_body:
            self._show_body()

    def _when_showing(self, hook: Callable[[], None], when_shown: str = "") -> Callable[[], None]:
        """HOOK, to be called where the body shows the report. A hook WHEN_SHOWN names ("units", "theme") runs
        only on the screen shown (under a dialog too: the palette previews themes): another mode's screen
        runs it at its next showing, once however many changes came meanwhile. A theme or units change then
        redraws the screen seen, not all nine."""

        def call() -> None:
            if self.opening:
                return
            if when_shown and self not in self.app.screen_stack:  # another mode's (one under a dialog is in it)
                self._due_when_shown[when_shown] = hook
            else:
                hook()

        return call

    async def _report_swapped(self) -> None:
        """The reports opened (the screen in front composes its body; the others when shown again), or a
        reload swapped a new model in."""
        if not self.opening:
            self._redraw_once_rebuilt()
        elif self.is_current:
            await self.report_opened()

    def _redraw_once_rebuilt(self) -> None:
        """`report_changed`, once the screen's own workers are done with the model before: models arrive
        faster than a screen recomposes while a report is read (ui/parts_shown.py), and a recompose cut
        short would leave it empty. Each of its workers ending asks again (on_worker_state_changed)."""
        self._redraw_pending = True
        self._redraw_if_idle()

    def _redraw_if_idle(self) -> None:
        if not self._redraw_pending or any(w.node is self and w.is_running for w in self.app.workers):
            return
        self._redraw_pending = False
        if self.is_attached:
            self.report_changed()

    def on_worker_state_changed(self) -> None:
        """One of the screen's workers started or ended: a newer model waiting for them may be drawn."""
        self._redraw_if_idle()

    def on_screen_resume(self) -> None:
        due, self._due_when_shown = self._due_when_shown, {}
        for hook in due.values():  # the changes heard while behind
            hook()
        # the report may have opened while another screen was in front: its body, after this frame
        if not self._awaiting_frame:
            self.call_after_refresh(self._open_if_shown)

    async def first_frame_painted(self) -> None:
        """The screen's first frame (its title, keys and opening line) is painted: compose the body."""
        self._awaiting_frame = False
        await self._open_if_shown()

    async def report_opened(self) -> None:
        """Compose the body over the report, if this screen still says it is opening it."""
        if self._has_body or not self.pv_app.ready:
            return
        self._has_body = True
        async with self.batch():  # the body in place of the opening line: the title and key bar stay
            await self.mount_compose(self.compose_body(), before=(opening := self.query_one("#opening")))
            await opening.remove()
        if self.is_attached:
            self._show_body()
            if self.focused is None:  # Textual focuses a screen's first widget only when it is shown
                self.focus_next()

    async def _open_if_shown(self) -> None:
        if self.is_current:  # a screen left before its first frame was painted composes when shown again
            await self.report_opened()

    def _show_body(self) -> None:
        self.opening = False
        self.show_report()
        self.refresh_bindings()
        freeze_after_frame(self.app)  # the screen just built lives as long as the app
        self.call_after_refresh(self.pv_app.report_painted)  # after the frame the body is laid out for

    def compose_body(self) -> ComposeResult:
        yield from ()

    def shows_without_numpy(self, report: "Report") -> bool:
        """Whether the body shows REPORT from its metadata and headers alone: numpy is imported after it then."""
        return False

    def after_the_frame(self, start: Callable[..., object], *args: object) -> None:
        """Call START (which starts a worker) with ARGS once the frame at hand is painted: a thread started while
        the screen is built takes the GIL from the building (the Compare screen's first frame waited on it)."""
        self.call_after_refresh(start, *args)

    def show_report(self) -> None:
        """Fill the body, just composed, from the model."""

    def remembered_place(self) -> dict:
        """Where this screen is, for the next opening of the report to return to (pvtui.user.state.PLACE_FIELDS:
        numbers, and a search text); it takes them back with pv_app.remembered as its body is first shown."""
        return {}

    def get_widget_and_offset_at(self, x: int, y: int) -> tuple[Widget | None, Offset | None]:
        # Between the removal of a widget (the opening line, when the body replaces it) and the next
        # repaint, Textual's map still holds it, and a mouse press on it crashed the app's text
        # selection (Textual reads the removed widget's parent). Nothing is under the mouse then.
        widget, offset = super().get_widget_and_offset_at(x, y)
        if widget is not None and widget is not self and widget.parent is None:
            return None, None
        return widget, offset

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if self.opening else self.key_state(action, parameters)

    def key_state(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Whether the screen's key for ACTION applies now: True runs it, None dims it, False hides it."""
        return key_state(self.KEYS, action, parameters, self.key_facts(), self.EVERY_KEY)

    def key_facts(self) -> object:
        """What the facts of `KEYS` are attributes of: the screen's navigator, else the screen."""
        return self if self.nav is None else self.nav

    def redraw(self) -> None:
        """Draw what the navigator says, after a move."""

    def take_typed(self, event: events.Key | events.Paste) -> bool:
        """Whether the screen took EVENT, typed into a line that takes the keys while the focus stays where
        it is (PvtuiApp.on_key asks before the bindings run, in the order keys came; on_paste, a paste)."""
        return False

    def on_paste(self, event: events.Paste) -> None:
        if self.take_typed(event):
            event.stop()

    def start_typing(self, field: Input) -> None:
        """Give FIELD the focus now, not on the next message as focus() does: the keys that came
        with the one that opened it then go into it (see PvtuiApp.on_key)."""
        self.set_focus(field)

    async def show_program(self, program: int | None) -> None:
        """PROGRAM selected in the Programs tree; a warning where a row leads to none."""
        if program is None or program < 0:
            self.notify("This row leads to no program.", severity="warning")
            return
        await self.show_in("programs", "jump_to", program)

    async def show_in(self, mode: str, method: str, *args: object) -> object:
        """Switch to screen MODE and call its METHOD with ARGS: what it returns (None where it has none)."""
        ReportScreen._whole_at_once = True
        try:
            mounted = self.app.switch_mode(mode)
        finally:
            ReportScreen._whole_at_once = False
        await mounted
        call = getattr(self.app.screen, method, None)
        return call(*args) if call is not None else None

    def title_label(self) -> str:
        """What the title bar names: the report, and in a comparison which of the two it is."""
        app = self.pv_app
        files = app.shown_slot.files
        name = files.name if files is not None else ""
        return name if app.b is None else f"{app.shown.value}: {name}"

    def title_tabs(self) -> tuple[tuple[str, str], ...]:
        """The screens the user can switch to, with their keys."""
        if self.pv_app.b is None:
            return SCREEN_KEYS
        return SCREEN_KEYS + (("d", "Compare"),)

    def bytes(self, value: int | None) -> str:
        """VALUE in the units the user chose (u cycles binary, SI and bytes)."""
        return format_bytes(value, self.pv_app.units)

    @property
    def minus(self) -> str:
        """The sign of a negative change: U+2212, ASCII where the look is (a basic console)."""
        return look_of(self.app).glyphs.minus

    def units_changed(self) -> None:
        """Called when the user switches units; redraw what shows bytes."""
        self.refresh()

    def theme_changed(self) -> None:
        """Called when the user picks another theme, once the app's styles are the new theme's: redraw what
        draws in colours of its own."""

    def shown_changed(self) -> None:
        """Called when the other report of a comparison is shown: a single-report screen shows it."""
        self.report_changed()

    def export_table(self) -> "Table | None":
        """The screen's main table as it is shown (filtered, sorted), for CSV or JSON export."""
        return None

    def report_changed(self) -> None:
        """Called after a reload: the model is new; redraw from it."""
        for bar in self.query(TitleBar).results(TitleBar):  # none while the screen recomposes
            bar.show(self.title_label(), self.title_tabs())


# The base of a part of a screen's class kept in a module of its own, mixed in before ReportScreen (the Memory
# screen's three): as textual_private's AppPart and ScreenPart, that ReportScreen to type checkers, a plain class
# when run.
ReportScreenPart = ReportScreen if TYPE_CHECKING else object


def report_screens(app: App) -> list[ReportScreen]:
    """The report screens mounted in APP: the one in front and those of the other modes."""
    return [screen for screen in screens_of_every_mode(app) if isinstance(screen, ReportScreen)]


SCREEN_KEYS = (
    ("s", "Summary"), ("m", "Memory"), ("l", "Liveness"), ("p", "Programs"), ("t", "Trace"),
    ("i", "Insights"), ("o", "Operations"), ("H", "Hotspots"),
)
