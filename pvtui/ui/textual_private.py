"""The few private parts of Textual pvtui relies on, in one place.

Each saves a frame or a stylesheet parse that the public API would cost. Every one
has a test (tests/test_textual_private.py) that fails if a Textual release changes
what it relies on, so that an upgrade shows here and not as a slow or broken screen.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.text import Text
from textual import _time
from textual.app import App
from textual.css.stylesheet import Stylesheet
from textual.events import ScreenResume
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.screen import UPDATE_PERIOD, Screen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import EventTargetGone, Timer
from textual.widget import AwaitMount, Widget
from textual.widgets import Input
from textual.worker import WorkerFailed

from pvtui.errors import ReportError
from pvtui.ui.drawn_once import each_kind_drawn_once

if TYPE_CHECKING:
    from textual.css.model import RuleSet
    from textual.scrollbar import ScrollBar

    from pvtui.ui.parsed_css import ParsedCss


# The bases of the parts of pvtui's App and Screen classes (mixins) kept apart: to type checkers the Textual class
# each is mixed into, before it; when run, plain classes, as making a subclass of Textual's costs 1.5-3 M instructions
# (its bindings merged, its attributes listed) on every start. A part says no BINDINGS nor CSS and decorates no
# handler with `on`: Textual reads those only from its own subclasses (its handlers by name it finds in any base).
AppPart = App if TYPE_CHECKING else object
ScreenPart = Screen if TYPE_CHECKING else object
WidgetPart = Widget if TYPE_CHECKING else object


def styled_as_now(screen: Screen, app: App) -> None:
    """Mark a new SCREEN as styled with APP's stylesheet as it is now.

    Textual parses the whole stylesheet again, twice, on the first switch to a screen
    whose `_css_update_count` lags the app's (10-25 ms): needed only for screens styled
    before a theme change, which a screen being built is not.
    """
    screen._css_update_count = app._css_update_count


class StyledOnMount(ScreenPart):
    """A Screen that the resumes of its first showing do not style again.

    Textual styles every widget of a screen again on each ScreenResume (its look may lag
    what changed while it was suspended), and a switch to a new mode posts two. A screen
    shown for the first time was styled as its widgets were mounted, just before, with the
    stylesheet as it is (styled_as_now): styling it again was a sixth of the Memory screen's
    first showing. Its later resumes restyle it as Textual does. Subclasses' own
    on_screen_resume run first (Textual calls each class's, subclass first).
    """

    _shown_once = False

    def on_screen_resume(self, event: ScreenResume) -> None:
        if not self._shown_once:
            event.refresh_styles = False
            self.call_after_refresh(self._first_frame_painted)

    def _first_frame_painted(self) -> None:
        self._shown_once = True

    async def first_frame_painted(self) -> None:
        """Called once the screen, a new mode's of an InstantModeSwitch app, painted its first frame."""


class TimerOnTheBeat(Timer):
    """A Timer whose tick, after ticks it missed (`skip`), comes on the next beat of its interval.

    Textual's counts one interval too many there: its next tick comes 1 to 2 intervals later, not 0 to 1.
    A screen's update timer, paused between keys, has always missed ticks: of a key answered in two frames
    (a table's cursor, then the details the screen draws for the row it reached), the first came at once
    and the second 17-33 ms later, where 0-17 ms is due.

    Each tick waits one turn of the event loop first: a tick due at once (after missed ones) came as soon as
    the first widget's repaint reached the screen, and the repaints the same key asked of other widgets,
    posted from their own message loops a turn later, were painted a frame (16 ms) after (the Memory
    header after the heatmap on a zoom, the variable search's status after its field). Otherwise the same
    loop as Textual's Timer._run.
    """

    async def _run(self) -> None:
        count, interval = 0, self._interval
        self._active  # made in this thread, as Textual's loop does
        await self._active.wait()
        start = _time.get_time()
        while self._repeat is None or count <= self._repeat:
            due = start + (count + 1) * interval
            now = _time.get_time()
            if self._skip and due < now:
                count = int((now - start) / interval)  # the beat due next is the first after now
                continue
            await _time.sleep(max(0.0, due - now))
            count += 1
            await self._active.wait()
            if self._reset:
                start, count, self._reset = _time.get_time(), 0, False
                continue
            await asyncio.sleep(0)  # the repaints asked for with the one that woke the timer reach the screen
            try:
                await self._tick(next_timer=due, count=count)
            except EventTargetGone:
                break


class FramesOnTheBeat(ScreenPart):
    """A Screen whose frames come on its update timer's next beat (TimerOnTheBeat): Textual makes the
    timer on first use, in `Screen._update_timer`, with `set_interval`."""

    @property
    def _update_timer(self) -> Timer:
        if self._Screen__update_timer is None:
            timer = TimerOnTheBeat(self, UPDATE_PERIOD, name="screen_update", callback=self._on_timer_update,
                                   pause=True)
            timer._start()
            self._timers.add(timer)
            self._Screen__update_timer = timer
        return self._Screen__update_timer


def screens_of_every_mode(app: App) -> list[Screen]:
    """The screens of each of APP's modes' stacks, the one in front and those behind: Textual's public
    API names only the current mode's (`screen_stack`), and `App.children` only the screen in front."""
    return [screen for stack in app._screen_stacks.values() for screen in stack]


def update_scrollbars(view: ScrollView, virtual_size: Size) -> None:
    """Tell VIEW's scrollbars its new virtual size now, instead of through a layout (a second frame)."""
    view._scroll_update(virtual_size)


class SteadyScrollbars(ScrollView):
    """A ScrollView whose scrollbars a layout repaints only when the view's sizes changed, and which are
    QuickScrollBars (Widget's own properties, but for the class they make).

    For each view, a layout passes the virtual size the compositor measured (a Line-API
    view has no children: its own size), and Textual compares it with the one the view
    set, which always differs: so every layout of the screen repaints the scrollbars, in
    a frame of their own after the layout's (16 ms or more after a key that lays out).
    """

    _sizes_laid_out: tuple[Size, Size, Size] | None = None

    @property
    def vertical_scrollbar(self) -> ScrollBar:
        if self._vertical_scrollbar is None:
            self._vertical_scrollbar = self._new_scrollbar(True, self.scrollbar_size_vertical)
        return self._vertical_scrollbar

    @property
    def horizontal_scrollbar(self) -> ScrollBar:
        if self._horizontal_scrollbar is None:
            self._horizontal_scrollbar = self._new_scrollbar(False, self.scrollbar_size_horizontal)
        return self._horizontal_scrollbar

    def _new_scrollbar(self, vertical: bool, thickness: int) -> ScrollBar:
        from pvtui.widgets.quick_scrollbar import QuickScrollBar  # textual.scrollbar: not before a view needs one

        bar = QuickScrollBar(vertical=vertical, name="vertical" if vertical else "horizontal", thickness=thickness)
        bar.display = False
        self.app._start_widget(self, bar)
        return bar

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        sizes = (size, self.virtual_size, container_size)
        if sizes == self._sizes_laid_out:
            return self._container_size != container_size  # what Textual answers when nothing changed
        self._sizes_laid_out = sizes
        return super()._size_updated(size, virtual_size, container_size, layout)


class AlikeRows(WidgetPart):
    """A container whose own rows are drawn once for each kind: Textual draws them one by one (130-290 k
    instructions a row: each a new Strip, with seven caches, through the widget's styles), though a container
    draws nothing but its background and borders, so that every row but a top or bottom border's is alike.
    (Textual's BLANK does this for a container without borders.) Textual's way where rows may differ
    otherwise: padding above or below, keylines. Mixed in before a Textual container."""

    def render_lines(self, crop: Region) -> list[Strip]:
        styles = self.styles
        if not self.is_container or styles.padding.top or styles.padding.bottom or styles.keyline[0] != "none":
            return super().render_lines(crop)
        top, bottom = 0 if styles.border_top[0] else -1, self.outer_size.height - 1 if styles.border_bottom[0] else -1
        return each_kind_drawn_once(super().render_lines, crop,
                                    lambda y: "top" if y == top else "bottom" if y == bottom else "between")


class InstantModeSwitch(AppPart):
    """An App whose switch to a mode paints as soon as the mode's screen is whole.

    Textual holds the frame after `switch_mode` for 50 ms (`delay_update`) so that a
    screen being built is not seen half done. A screen shown before is whole: it paints
    at once. A new one holds the frames (a batch) until it is mounted (composed, its
    on_mount run), however long or short that takes, rather than for a fixed 50 ms.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.built_modes = {self.current_mode}  # modes whose screen exists: switching to them is instant
        self._in_switch = False
        self._releases: set[asyncio.Task] = set()  # the tasks that end the hold on a new screen's frames

    def switch_mode(self, mode: str):
        new = mode not in self.built_modes and mode != self.current_mode
        self._in_switch = True
        if new:
            self._begin_batch()
        try:
            mounted = super().switch_mode(mode)
        except BaseException:
            if new:
                self._end_batch()
            raise
        finally:
            self._in_switch = False
            self.built_modes.add(mode)
        if new:
            release = asyncio.create_task(self._paint_once_mounted(mounted))
            self._releases.add(release)
            release.add_done_callback(self._releases.discard)
        return mounted

    async def _paint_once_mounted(self, mounted: AwaitMount) -> None:
        try:
            await mounted
        finally:
            self._end_batch()
            if not self._batch_count:
                self.screen.refresh()
            self.screen.call_after_refresh(self.new_screen_painted, self.screen)

    async def new_screen_painted(self, screen: Screen) -> None:
        """Called once SCREEN, a new mode's, painted its first frame (a callback run while the frames are
        held runs before any frame: Textual's Screen runs them at once while the app batches)."""
        if isinstance(screen, StyledOnMount):
            await screen.first_frame_painted()

    def delay_update(self, delay: float = 0.05) -> None:
        if not self._in_switch:
            super().delay_update(delay)


class StylesheetParsedOnChange(Stylesheet):
    """A Stylesheet that parses its sources again only when they or its variables changed since it last did,
    and then in place.

    After a theme change Textual parses the whole stylesheet (25-60 ms) once for the screen in front, then
    again on the first switch to each other screen styled before the change (App.refresh_css), with the
    same sources and variables: eight parses more after each theme change. And Textual's reparse parses a
    fresh copy whose cache it drops, so the next widget type mounted parsed every source once more (at an
    app's start, the theme it sets before starting: 10 ms). Parsing in place keeps the cache; it is as
    safe, since parse() sets the rules only once every source parsed. Restyling is left as it is.
    (set_variables empties the parse cache, so a parse always reads the variables set.)

    And a source parsed in an earlier run, with the same variables, is read back from `kept`
    (pvtui.ui.parsed_css) rather than parsed: Textual's parser was 6% of a start's instructions.
    """

    _parsed_from: tuple[dict, dict] | None = None
    kept: ParsedCss | None = None  # the parses kept between runs, where the app gives them

    def _parse_rules(self, css: str, read_from: tuple[str, str], is_default_rules: bool = False,
                     tie_breaker: int = 0, scope: str = "") -> list[RuleSet]:
        """Textual's parse of one source, from the parses KEPT where they hold it (keyed as Textual's own
        cache is, and by the variables); a new one kept for the next run."""
        key = (css, read_from, is_default_rules, tie_breaker, scope)
        if self.kept is None or key in self._parse_cache:
            return super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
        rules = self.kept.parsed(self._variables, key)
        if rules is None:
            rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            if not any(rule.errors for rule in rules):
                self.kept.keep(self._variables, key, rules)
        else:
            self._parse_cache[key] = rules
        return rules

    def parse(self) -> None:
        super().parse()
        self._parsed_from = (dict(self._variables), dict(self.source))

    def reparse(self) -> None:
        if (dict(self._variables), dict(self.source)) != self._parsed_from:
            self.parse()


class ParsedOnChange(AppPart):
    """An App whose stylesheet is parsed again only when its sources or variables changed."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.stylesheet = StylesheetParsedOnChange(variables=self.get_css_variables())


class DamageEndsTheApp(AppPart):
    """An App that a report found damaged while a screen reads it (a column whose values break their rule,
    checked as it is first mapped: model/references.py; a bundle's are checked as it opens, and as each
    part of one being read is shown, so only a column written since can be) ends with the error's one line and the status of a report that does not open,
    not with Textual's traceback. `_handle_exception` is where Textual ends an app
    on an error raised in a handler or a worker (wrapped in WorkerFailed), and `_return_code` its status; no
    public hook sees both."""

    def _handle_exception(self, error: Exception) -> None:
        damage = error.error if isinstance(error, WorkerFailed) else error
        if not isinstance(damage, ReportError):
            super()._handle_exception(error)
            return
        super()._handle_exception(Said(f"pvtui: {damage}"))  # Textual shows an error that has __rich__
        self._return_code = 2


class Said(Exception):
    """An error Textual ends an app with by showing LINE, as plain text (a path in it may look like markup)."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line

    def __rich__(self) -> Text:
        return Text(self.line)


class InputWithoutLayout(Input):
    """An Input of a fixed size whose typing repaints it alone.

    Textual's Input sets its virtual size (the text's width) on every change, and a
    widget's virtual size asks for a layout of the whole screen (5-10 ms a key, and a
    frame of its own before the screen's answer to the key); a fixed-size Input scrolls
    its text within itself.
    """

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)


def show_as_focused(widget: Widget, shown: bool) -> None:
    """Draw WIDGET as focused (its `:focus` style; an Input's cursor) or not, the focus staying where it is.

    Textual sets `has_focus` as the focus moves, in the Focus and Blur handlers, a message after the key
    (a frame of their own); a widget that never takes the focus may set it itself, within the key."""
    widget.has_focus = shown


def normalized_keys(keys: str) -> str:
    """KEYS ("?,ctrl+j") as Textual's keymap holds them ("question_mark,ctrl+j"), to compare with bindings'."""
    return App._normalize_keymap({"keys": keys})["keys"]


def class_bindings(cls: type) -> list:
    """The bindings a widget, screen or app class has, its bases' included, as Textual merges them."""
    merged = cls._merged_bindings
    return [] if merged is None else [binding for bindings in merged.key_to_bindings.values() for binding in bindings]
