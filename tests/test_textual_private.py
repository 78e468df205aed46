"""The private parts of Textual pvtui relies on: each test fails if a Textual release changes one."""

from __future__ import annotations

import asyncio
import inspect

import pytest
from textual.app import App
from textual.geometry import Size
from textual.screen import Screen
from textual.scroll_view import ScrollView

from textual.widgets import Button, Input

from pvtui.errors import ReportError
from pvtui.ui.textual_private import (
    AppPart, DamageEndsTheApp, InputWithoutLayout, InstantModeSwitch, ParsedOnChange, SteadyScrollbars, StyledOnMount,
    screens_of_every_mode, styled_as_now, update_scrollbars,
)

pytestmark = pytest.mark.anyio


def test_textual_restyles_a_screen_whose_css_update_count_lags_the_apps():
    """styled_as_now works because Textual compares these two counters before restyling a screen."""
    app_source = inspect.getsource(App)
    assert "screen._css_update_count != self._css_update_count" in app_source
    assert "self._css_update_count = -1" in inspect.getsource(Screen.__init__)


async def test_a_theme_change_moves_the_apps_count_and_styled_as_now_matches_it():
    class Plain(App):
        pass

    app = Plain()
    async with app.run_test() as pilot:
        before = app._css_update_count
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        assert app._css_update_count > before  # a screen styled before the change lags, and is restyled
        screen = Screen()
        styled_as_now(screen, app)
        assert screen._css_update_count == app._css_update_count


async def test_a_theme_change_parses_the_stylesheet_once_and_styles_every_screen_it_shows(monkeypatch):
    """Textual's App owns a Stylesheet made in App.__init__, and refresh_css parses it again from its source
    and variables on the first switch to each screen styled before a theme change; ParsedOnChange's
    stylesheet parses only when they changed, and the screen switched to is still styled anew."""
    from textual.css.stylesheet import Stylesheet
    from textual.widgets import Static

    assert "self.stylesheet = Stylesheet(variables=self.get_css_variables())" in inspect.getsource(App.__init__)
    assert "stylesheet.reparse()" in inspect.getsource(App.refresh_css)
    reparse = inspect.getsource(Stylesheet.reparse)
    assert "Stylesheet(variables=self._variables)" in reparse and "self.source.items()" in reparse
    # ParsedOnChange parses in place after a theme change: new variables must empty the parse cache
    assert "self._parse_cache.clear()" in inspect.getsource(Stylesheet.set_variables)
    parses = []
    parse = Stylesheet.parse
    monkeypatch.setattr(Stylesheet, "parse", lambda self: parses.append(1) or parse(self))

    class Painted(Screen):
        DEFAULT_CSS = "Painted Static { background: $primary; }"

        def compose(self):
            yield Static("x")

    class Modes(ParsedOnChange, App):
        MODES = {"a": Painted, "b": Painted}
        DEFAULT_MODE = "a"

    counts = []
    app = Modes()
    async with app.run_test() as pilot:
        await app.switch_mode("b")
        await app.switch_mode("a")
        await pilot.pause()
        for theme in ("textual-light", "nord"):
            parses.clear()
            app.theme = theme
            await pilot.pause()
            await app.switch_mode("b")  # styled before the change
            await pilot.pause()
            counts.append(len(parses))
            for mode in ("a", "b"):
                await app.switch_mode(mode)
                await pilot.pause()
                primary = app.get_css_variables()["primary"]
                assert app.screen.query_one(Static).styles.background.hex == primary.upper(), (theme, mode)
    assert counts == [1, 1]  # Textual alone: once for the screen in front, again for the other


def test_textual_parses_a_source_in_parse_rules_cached_by_what_stylesheet_parsed_on_change_keys_its_parses_by():
    """StylesheetParsedOnChange reads back the parses kept between runs in place of Textual's parse of a source:
    Textual's _parse_rules takes these arguments, and caches in _parse_cache by them alone (with the variables,
    which empty that cache when set)."""
    from textual.css.stylesheet import Stylesheet

    parameters = list(inspect.signature(Stylesheet._parse_rules).parameters)
    assert parameters == ["self", "css", "read_from", "is_default_rules", "tie_breaker", "scope"]
    source = inspect.getsource(Stylesheet._parse_rules)
    assert "cache_key = (css, read_from, is_default_rules, tie_breaker, scope)" in source
    assert "self._parse_cache[cache_key] = rules" in source and "variable_tokens=self._variable_tokens" in source


async def test_a_theme_set_before_the_start_is_parsed_once(monkeypatch):
    """App.__init__ setting a theme queues refresh_css, whose reparse parses the sources in a fresh Stylesheet
    and drops its cache, so the first screen's sources are parsed again: ParsedOnChange parses in place."""
    from textual.css.stylesheet import Stylesheet

    fresh = []
    parse = Stylesheet.parse
    monkeypatch.setattr(Stylesheet, "parse", lambda self: fresh.append(type(self) is Stylesheet) or parse(self))

    class Plain(App):
        def __init__(self) -> None:
            super().__init__()
            self.theme = "nord"

    class Themed(ParsedOnChange, Plain):
        pass

    reparsed = {}
    for app_type in (Themed, Plain):
        fresh.clear()
        async with app_type().run_test() as pilot:
            await pilot.pause()
        reparsed[app_type] = sum(fresh)
    assert reparsed[Themed] == 0 and reparsed[Plain] >= 1  # Textual alone parses fresh copies


async def test_the_screens_of_every_mode_are_those_shown_and_left_behind():
    """screens_of_every_mode reads App._screen_stacks: a mode's screen stays in it once another is shown."""
    first, second = Screen(), Screen()

    class Modes(App):
        MODES = {"first": lambda: first, "second": lambda: second}
        DEFAULT_MODE = "first"

    app = Modes()
    async with app.run_test() as pilot:
        await app.switch_mode("second")
        await pilot.pause()
        assert app.children == (second,) or list(app.children) == [second]  # the public view: the one in front
        assert set(screens_of_every_mode(app)) == {first, second}


async def test_update_scrollbars_sets_the_scrollbars_virtual_size_at_once():
    class View(ScrollView):
        pass

    class Host(App):
        def compose(self):
            yield View()

    async with Host().run_test(size=(20, 10)) as pilot:
        view = pilot.app.query_one(View)
        size = Size(20, 500)
        view.set_reactive(View.virtual_size, size)
        update_scrollbars(view, size)
        assert view.vertical_scrollbar.window_virtual_size == 500
        assert list(inspect.signature(ScrollView._scroll_update).parameters) == ["self", "virtual_size"]


async def _scrollbar_refreshes_per_layout(view_class: type[ScrollView], monkeypatch) -> list[int]:
    """How often VIEW_CLASS's vertical scrollbar is refreshed by each of three layouts of the screen,
    the second with nothing changed for it, the third with a new virtual size."""
    from textual.scrollbar import ScrollBar
    from textual.widgets import Label

    refreshed = []
    original = ScrollBar.refresh

    def counting(self, *args, **kwargs):
        if self.vertical and isinstance(self.parent, view_class):
            refreshed.append(1)
        return original(self, *args, **kwargs)

    class Host(App):
        def compose(self):
            yield Label("a label")
            yield view_class()

    counts = []
    async with Host().run_test(size=(20, 10)) as pilot:
        view = pilot.app.query_one(view_class)
        view.styles.height = "1fr"
        view.virtual_size = Size(20, 500)
        await pilot.pause()
        monkeypatch.setattr(ScrollBar, "refresh", counting)
        label = pilot.app.query_one(Label)
        for change in (lambda: label.update("a longer label"), lambda: label.update("a label"),
                       lambda: setattr(view, "virtual_size", Size(20, 600))):
            refreshed.clear()
            change()
            label.refresh(layout=True)
            await pilot.pause()
            counts.append(len(refreshed))
    return counts


async def test_every_layout_repaints_a_scroll_views_scrollbar_and_steady_scrollbars_only_on_a_change(monkeypatch):
    """Textual's _size_updated compares the compositor's virtual size with the view's own, which
    differ for a Line-API view: each layout refreshes its scrollbar. If this changes, SteadyScrollbars
    can go."""
    assert list(inspect.signature(ScrollView._size_updated).parameters) == [
        "self", "size", "virtual_size", "container_size", "layout"]
    plain = await _scrollbar_refreshes_per_layout(type("Plain", (ScrollView,), {}), monkeypatch)
    steady = await _scrollbar_refreshes_per_layout(type("Steady", (SteadyScrollbars,), {}), monkeypatch)
    assert all(plain), plain  # every layout, changed or not
    assert steady[:2] == [0, 0] and steady[2] > 0, steady  # only the new virtual size


@pytest.mark.parametrize("css", ["",
                                 "View { scrollbar-size: 3 2; scrollbar-color: red; scrollbar-background: #123456; }",
                                 "View { scrollbar-color: red 50%; scrollbar-background: blue 30%; }"])
async def test_quick_scrollbars_draw_the_lines_textual_draws(css):
    """A steady view's scrollbars are QuickScrollBars (made as Textual's Widget makes its own, whose code this
    copies but for the class), and their lines are those Textual draws: the thumb anywhere along the bar, at
    its ends, hovered, grabbed, a bar as long as the view."""
    from textual.geometry import Region
    from textual.scrollbar import ScrollBar

    from pvtui.widgets.quick_scrollbar import QuickScrollBar

    for made in ("vertical_scrollbar", "horizontal_scrollbar"):
        source = inspect.getsource(getattr(ScrollView, made).fget)
        assert "self.app._start_widget(self, scroll_bar)" in source and ".display = False" in source, made

    class View(SteadyScrollbars):
        DEFAULT_CSS = "View { height: 1fr; overflow: scroll scroll; }"

    class Host(App):
        CSS = css

        def compose(self):
            yield View()

    async with Host().run_test(size=(30, 12)) as pilot:
        view = pilot.app.query_one(View)
        view.virtual_size = Size(300, 500)
        await pilot.pause()
        checked = 0
        for bar in (view.vertical_scrollbar, view.horizontal_scrollbar):
            assert type(bar) is QuickScrollBar and bar.size.area
            for virtual, window, position, hover, grab in [(500, 10, 0, False, None), (500, 10, 123.4, False, None),
                                                          (500, 10, 490, True, None), (37, 10, 13.6, False, (1, 1)),
                                                          (10, 10, 0, False, None), (1_000_000, 3, 999_000, False, None)]:
                bar.window_virtual_size, bar.window_size, bar.position = virtual, window, position
                bar.mouse_over, bar.grabbed = hover, grab
                drawn = []
                for kind in (ScrollBar, QuickScrollBar):  # the same bar drawn by Textual's class, then by pvtui's
                    bar.__class__ = kind
                    bar.refresh()
                    drawn.append(bar.render_lines(Region(0, 0, *bar.size)))
                assert drawn[0] == drawn[1], (bar.vertical, virtual, window, position, hover, grab)
                checked += 1
        assert checked == 12 and ScrollBar.render_line is not QuickScrollBar.render_line


TWO_MODES = {"a": Screen, "b": Screen}


def two_modes(b: type[Screen]) -> InstantModeSwitch:
    """An InstantModeSwitch app in mode "a" (a bare Screen), with mode "b" showing a screen of type B."""

    class Modes(InstantModeSwitch, App):
        MODES = {**TWO_MODES, "b": b}
        DEFAULT_MODE = "a"

    return Modes()


async def test_switch_mode_holds_the_frame_through_delay_update_and_instant_switch_skips_it(monkeypatch):
    assert "self.delay_update()" in inspect.getsource(App.switch_mode)
    assert "not self.app._batch_count" in inspect.getsource(Screen._on_idle)  # a batch holds the frames
    held = []
    monkeypatch.setattr(App, "delay_update", lambda self, delay=0.05: held.append(self.current_mode))

    app = two_modes(Screen)
    async with app.run_test() as pilot:
        await app.switch_mode("b")  # never shown: held until mounted, not by delay_update's timer
        await pilot.pause()
        await app.switch_mode("a")  # shown before: painted at once
        await pilot.pause()
        assert app._batch_count == 0
    assert held == []


async def test_a_new_modes_frames_are_held_until_its_screen_is_mounted():
    mounted_while_held = []

    class Slow(Screen):
        def on_mount(self) -> None:
            mounted_while_held.append(self.app._batch_count > 0)

    app = two_modes(Slow)
    async with app.run_test() as pilot:
        await app.switch_mode("b")
        await pilot.pause()
        assert app._batch_count == 0  # released once mounted, with no timer to wait for
    assert mounted_while_held == [True]


async def test_a_screen_styled_on_mount_is_not_styled_again_until_shown_once(monkeypatch):
    """Textual restyles a resumed screen unless the event says not to; StyledOnMount says so on its first
    showing only (its handler runs before Screen's own)."""
    assert "if event.refresh_styles:" in inspect.getsource(Screen._on_screen_resume)
    styled = []
    real = App.update_styles
    monkeypatch.setattr(App, "update_styles", lambda self, node, animate=True: styled.append(node) or real(self, node, animate))

    class Plain(StyledOnMount, Screen):
        pass

    app = two_modes(Plain)
    async with app.run_test() as pilot:
        await app.switch_mode("b")
        await pilot.pause()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, Plain) and screen not in styled
        await app.switch_mode("a")
        await app.switch_mode("b")
        await pilot.pause()
        assert screen in styled  # shown before: restyled on resuming, as Textual does


async def test_typing_into_an_input_without_layout_asks_for_no_layout():
    """Input sets virtual_size on each change; InputWithoutLayout's does not lay the screen out."""
    assert "self.virtual_size = Size(self.content_width, 1)" in inspect.getsource(Input._watch_value)

    class Typing(App):
        def compose(self):
            yield InputWithoutLayout(id="plain")

    app = Typing()
    async with app.run_test() as pilot:
        await pilot.pause()
        app.screen._layout_required = False
        await pilot.press("a", "b")
        assert app.query_one(InputWithoutLayout).value == "ab"
        assert not app.screen._layout_required


async def test_an_input_shown_as_focused_draws_its_cursor_and_focus_style_the_focus_staying():
    """show_as_focused sets has_focus, which Input.render_line reads for its cursor and `:focus` matches."""
    from pvtui.ui.textual_private import show_as_focused

    assert "if self.has_focus:" in inspect.getsource(Input.render_line)

    class Beside(App):
        CSS = "Input:focus { color: red; }"

        def compose(self):
            yield Button("here")
            yield Input("ab", id="field")

    app = Beside()
    async with app.run_test() as pilot:
        field = app.query_one(Input)
        field.can_focus = False
        await pilot.pause()
        focused = app.focused

        def cursor_shown() -> bool:
            cursor = field.get_component_rich_style("input--cursor")
            return any(segment.style == cursor for segment in field.render_line(0))

        assert not cursor_shown() and not field.has_pseudo_class("focus")
        show_as_focused(field, True)
        await pilot.pause()
        assert cursor_shown() and field.has_pseudo_class("focus") and field.styles.color.rgb == (255, 0, 0)
        assert app.focused is focused
        show_as_focused(field, False)
        await pilot.pause()
        assert not cursor_shown() and not field.has_pseudo_class("focus")


def test_keymap_keys_are_normalized_and_class_bindings_merged_as_textual_does():
    """normalized_keys and class_bindings read App._normalize_keymap and DOMNode._merged_bindings."""
    from textual.binding import Binding

    from pvtui.ui.textual_private import class_bindings, normalized_keys

    assert normalized_keys("?,ctrl+j") == "question_mark,ctrl+j"

    class Keyed(App):
        BINDINGS = [Binding("x", "bell", "Bell", id="bell")]

    assert any(binding.id == "bell" and binding.key == "x" for binding in class_bindings(Keyed))


async def test_new_screen_painted_is_called_after_the_new_screens_first_frame():
    """While a new mode's frames are held, Screen._on_idle runs queued callbacks at once, before any frame:
    new_screen_painted is queued after the release, so it runs once the new screen's first frame is displayed."""
    displayed: list[Screen] = []
    painted: list[tuple[Screen, list[Screen]]] = []

    class Modes(InstantModeSwitch, App):
        MODES = TWO_MODES
        DEFAULT_MODE = "a"

        async def new_screen_painted(self, screen: Screen) -> None:
            painted.append((screen, list(displayed)))

    app = Modes()
    async with app.run_test() as pilot:
        real = app._display
        app._display = lambda screen, update: displayed.append(screen) or real(screen, update)
        await app.switch_mode("b")
        for _ in range(5):
            await pilot.pause()
        new = app.screen
    assert [screen for screen, _ in painted] == [new] and new in painted[0][1]


def test_textuals_timer_still_counts_one_interval_too_many_after_missed_ticks():
    """TimerOnTheBeat replaces this line of Textual's loop: if it changed, look again."""
    from textual.timer import Timer

    assert "count = int((now - start) / _interval + 1)" in inspect.getsource(Timer._run)


async def test_after_missed_ticks_the_next_tick_comes_on_the_next_beat_not_the_one_after():
    """Two timers of a 0.2 s beat: paused after their first tick, resumed 2.5 beats later (a tick at once),
    then left to run: Textual's next tick comes 1.5 beats after, TimerOnTheBeat's 0.5 beat after."""
    import time

    from textual.timer import Timer

    from pvtui.ui.textual_private import TimerOnTheBeat

    beat = 0.2
    app = App()
    async with app.run_test():
        ticks: dict[type, list[float]] = {Timer: [], TimerOnTheBeat: []}
        timers = {}

        def ticked(kind: type) -> None:
            ticks[kind].append(time.monotonic())
            if len(ticks[kind]) == 1:
                timers[kind].pause()
            elif len(ticks[kind]) == 3:
                timers[kind].stop()

        for kind in ticks:
            timers[kind] = kind(app, beat, callback=lambda kind=kind: ticked(kind))
            timers[kind]._start()
        await asyncio.sleep(3.5 * beat)
        for timer in timers.values():
            timer.resume()
        await asyncio.sleep(3 * beat)
        gaps = {kind: times[2] - times[1] for kind, times in ticks.items()}
    assert gaps[Timer] > beat > gaps[TimerOnTheBeat], gaps


async def test_a_report_screens_update_timer_is_on_the_beat(tiny_dir, cache_root):
    from pvtui.app import PvtuiApp
    from pvtui.sources.discovery import discover
    from pvtui.ui.textual_private import TimerOnTheBeat

    app = PvtuiApp(discover(tiny_dir), path=tiny_dir, watch=False, cache=cache_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert type(app.screen._update_timer) is TimerOnTheBeat
        assert app.screen._update_timer in app.screen._timers


@pytest.mark.parametrize("where", ["handler", "worker"])
@pytest.mark.parametrize("error", [ReportError("/r/steps.x.npy", "damaged column"), ValueError("a bug")])
async def test_textual_ends_an_app_on_an_error_in_a_handler_or_a_worker_through_handle_exception(where, error, capsys):
    """DamageEndsTheApp: a ReportError (the report found damaged while read) ends the app with its one line
    and status 2; any other error as Textual ends it (status 1, its traceback)."""
    from textual import work

    class Reading(Screen):  # as a report screen reads its columns: in its handlers, or in a worker
        def on_mount(self) -> None:
            if where == "worker":
                self.fail()
            else:
                raise error

        @work
        async def fail(self) -> None:
            raise error

    class Failing(DamageEndsTheApp, App):
        def on_mount(self) -> None:
            self.push_screen(Reading())

    app = Failing()
    with pytest.raises(Exception) as raised:  # what Textual ended the app on, raised again by its pilot
        async with app.run_test() as pilot:
            await pilot.pause(0.2)
    if isinstance(error, ReportError):
        assert raised.value.line == "pvtui: /r/steps.x.npy: damaged column" and app.return_code == 2
        said = capsys.readouterr()
        assert (said.out + said.err).strip() == "pvtui: /r/steps.x.npy: damaged column"  # one line, not a traceback
    else:
        assert error in (raised.value, getattr(raised.value, "error", None)) and app.return_code == 1


async def test_textual_calls_a_plain_bases_handlers_and_takes_its_reactives_but_not_its_bindings():
    """AppPart and ScreenPart: a part of an App or Screen class, a plain class when run, mixed in before the Textual
    class. Textual dispatches to the handlers (by name) of every class of the MRO and takes the reactives of every
    one, but merges the bindings (and CSS, and handlers decorated with `on`) only of its own subclasses."""
    from textual.binding import Binding
    from textual.reactive import reactive

    class Part(AppPart):
        BINDINGS = [Binding("x", "bell")]
        count = reactive(0)
        mounted = seen = None

        def on_mount(self) -> None:
            self.mounted = True

        def watch_count(self, value: int) -> None:
            self.seen = value

    class Mixed(Part, App):
        pass

    assert "x" not in Mixed._merged_bindings.key_to_bindings
    app = Mixed()
    async with app.run_test() as pilot:
        app.count = 3
        await pilot.pause()
        assert app.mounted and app.seen == 3


def test_the_plain_parts_of_the_app_and_the_screens_say_nothing_textual_reads_only_from_its_own_subclasses():
    import importlib
    from typing import Generic

    from textual.dom import DOMNode

    from pvtui.app import SCREENS, PvtuiApp

    classes = [PvtuiApp, *(getattr(importlib.import_module(module), name)
                           for module, name in (target.split(":") for target in SCREENS.values()))]
    parts = {base for cls in classes for base in cls.__mro__ if not issubclass(base, DOMNode)} - {object, Generic}
    assert {"StyledOnMount", "InstantModeSwitch", "UserFiles", "VariableSearching"} <= {part.__name__ for part in parts}
    for part in parts:
        assert not {"BINDINGS", "DEFAULT_CSS", "CSS", "CSS_PATH", "COMPONENT_CLASSES"} & set(vars(part)), part
        assert not [name for name, value in vars(part).items() if hasattr(value, "_textual_on")], part


@pytest.mark.parametrize("css", ["border-left: vkey $panel; background: $surface;",
                                 "border-top: hkey $panel; border-left: tall red;",
                                 "border: round $accent; background: $boost; padding: 0 2;",
                                 "border: heavy green; padding: 1 1;",  # padding above: drawn as Textual draws it
                                 "border-title-align: center; border: solid blue;"])
@pytest.mark.parametrize("scrolls", [False, True])
async def test_a_containers_rows_drawn_once_each_kind_are_the_rows_textual_draws(css, scrolls):
    """AlikeRows: a container's own rows, as Textual draws them one by one, are alike but for a top and a bottom
    border's (and its border title's), with any CSS of borders, background and side padding; scrolled too."""
    from textual.containers import Vertical, VerticalScroll
    from textual.geometry import Region
    from textual.widget import Widget
    from textual.widgets import Static

    from pvtui.ui.textual_private import AlikeRows

    class Pane(AlikeRows, VerticalScroll if scrolls else Vertical):
        DEFAULT_CSS = f"Pane {{ height: 12; {css} }}"

    class Panes(App):
        def compose(self):
            with Pane() as pane:
                pane.border_title = "tiles"
                yield Static("over the pane\n" * (30 if scrolls else 1))

    async with Panes().run_test(size=(40, 16)) as pilot:
        await pilot.pause()
        pane = pilot.app.query_one(Pane)
        pane.scroll_to(y=5, animate=False)
        await pilot.pause()
        crops = [Region(0, 0, 40, 12), Region(3, 2, 20, 10), Region(0, 11, 40, 1)]
        for crop in crops:
            alike = pane.render_lines(crop)
            pane._styles_cache.clear()
            assert alike == Widget.render_lines(pane, crop)
