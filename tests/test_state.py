"""What pvtui remembers between runs: private, written whole, never trusted when read back; and the reports
opened before, offered by the picker."""

from __future__ import annotations

import json
import os
import shutil
import stat

import pytest
from hypothesis import given, settings, strategies as st
from textual.widgets import OptionList

from pvtui.app import PvtuiApp
from pvtui.screens.dialogs import GONE, ReportPicker
from pvtui.sources.discovery import discover
from pvtui.user.state import LOCK_FILE, STATE_FILE, State
from tests.conftest import wait_for

pytestmark = pytest.mark.anyio


def test_the_state_is_private_and_read_back(tmp_path):
    directory = tmp_path / "state" / "pvtui"
    State(directory).opened(tmp_path, "first", 10)
    State(directory).opened(tmp_path / "b", "second", 20)
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert stat.S_IMODE((directory / STATE_FILE).stat().st_mode) == 0o600
    assert sorted(os.listdir(directory)) == [LOCK_FILE, STATE_FILE]  # the temporary file was renamed, not left
    state = State(directory)
    assert [(r.name, r.size) for r in state.recent] == [("second", 20), ("first", 10)] and not state.problems
    assert State(directory, fresh=True).offered == [] and State(directory, fresh=True).recent


def test_two_processes_writing_at_once_keep_each_others_entries(tmp_path):
    directory = tmp_path / "pvtui"
    first, second = State(directory), State(directory)  # both read the file before either wrote
    first.opened(tmp_path / "a", "one", 1)
    second.opened(tmp_path / "b", "two", 2)
    first.left(tmp_path / "a", "one", {"tile": 3})
    second.left(tmp_path / "b", "two", {"step": 5})
    state = State(directory)
    assert {(r.name, tuple(r.place.items())) for r in state.recent} == {("one", (("tile", 3),)), ("two", (("step", 5),))}
    assert [r.name for r in state.recent] == ["two", "one"]  # newest first


def test_a_lock_held_elsewhere_delays_a_write_but_never_hangs_it(tmp_path, monkeypatch):
    import fcntl
    import time

    import pvtui.user.state as state_module

    directory = tmp_path / "pvtui"
    State(directory).opened(tmp_path, "before", 1)
    monkeypatch.setattr(state_module, "LOCK_WAIT", 0.2)
    holder = os.open(directory / LOCK_FILE, os.O_RDWR)
    fcntl.flock(holder, fcntl.LOCK_EX)  # as another pvtui stopped while writing
    try:
        start = time.monotonic()
        State(directory).opened(tmp_path / "b", "after", 2)
        assert 0.2 <= time.monotonic() - start < 5  # waited for it, then wrote
    finally:
        os.close(holder)
    assert [r.name for r in State(directory).recent] == ["after", "before"]


@pytest.mark.parametrize("content", [b"{not json", b"\xff\xfe", b'{"version": 2, "recent": []}', b"[]",
                                     b"[" * 100_000, b" " * (2 << 20)])
def test_a_damaged_state_is_ignored_with_one_line(tmp_path, content):
    directory = tmp_path / "pvtui"
    directory.mkdir(mode=0o700)
    (directory / STATE_FILE).write_bytes(content)
    state = State(directory)
    assert state.recent == [] and len(state.problems) == 1 and str(directory / STATE_FILE) in state.problems[0]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["path", "name", "opened", "size", "x"]),
                                st.one_of(st.text(max_size=20), st.integers(), st.floats(), st.booleans(),
                                          st.none(), st.just("/abs\x1b[2J")))))
def test_entries_not_as_pvtui_writes_them_are_left_out(tmp_path_factory, items):
    directory = tmp_path_factory.mktemp("s")
    os.chmod(directory, 0o700)
    (directory / STATE_FILE).write_text(json.dumps({"version": 1, "recent": items}))
    os.chmod(directory / STATE_FILE, 0o600)
    for recent in State(directory).recent:
        assert recent.path.startswith("/") and recent.size >= 0 and recent.opened >= 0


def test_a_state_file_of_another_kind_is_not_read(tmp_path):
    directory = tmp_path / "pvtui"
    directory.mkdir(mode=0o700)
    os.mkfifo(directory / STATE_FILE)  # would block a plain open
    state = State(directory)
    assert state.recent == [] and len(state.problems) == 1


async def test_no_report_here_offers_those_opened_before_the_missing_one_marked(tiny_dir, tmp_path, cache_root):
    shutil.copytree(tiny_dir, tmp_path / "kept")
    state = State(tmp_path / "state")
    state.opened(tmp_path / "gone\x1b[2J", "gone", 5)  # a name that would clear the terminal
    state.opened(tmp_path / "kept", "kept", 7)
    app = PvtuiApp([], path=tmp_path, watch=False, cache=cache_root, state=State(tmp_path / "state"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ReportPicker)
        options = app.screen.query_one(OptionList)
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        kept, gone = shown.index(next(s for s in shown if "kept" in s)), next(s for s in shown if "gone" in s)
        assert kept < shown.index(gone)  # newest first
        assert GONE in gone and GONE not in shown[kept] and "opened " in shown[kept]
        assert "\x1b" not in gone and "gone␛[2J" in gone
        options.highlighted = kept
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.report is not None)
        assert app.report.name == "kept"
    assert State(tmp_path / "state").recent[0].name == "kept"


async def test_several_found_are_listed_before_those_opened_before(tiny_dir, tmp_path, cache_root):
    for engine in ("inference", "training"):
        shutil.copytree(tiny_dir, tmp_path / engine)
    State(tmp_path / "state").opened(tmp_path / "elsewhere", "elsewhere", 5)
    app = PvtuiApp(discover(tmp_path), path=tmp_path, watch=False, cache=cache_root, state=State(tmp_path / "state"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert shown[0].startswith("inference") and shown[1].startswith("training")
        assert "Opened before" in shown[2] and "elsewhere" in shown[3] and GONE in shown[3]


async def _leave_a_place(app, pilot, tiny_report) -> dict:
    """Select a tile, move the liveness cursor, search the programs, zoom the trace; the place left."""
    await wait_for(pilot, lambda: app.report is not None and not app.screen.opening)
    await pilot.press("m", "w")  # the worst tile
    await wait_for(pilot, lambda: app.screen.SCREEN_NAME == "Memory" and not app.screen.opening)
    tile = app.screen.selected
    await pilot.press("l")
    await wait_for(pilot, lambda: app.screen.SCREEN_NAME == "Liveness" and not app.screen.opening)
    await pilot.press("home", "right", "right")
    step = app.screen.nav.cursor
    await pilot.press("p")
    await wait_for(pilot, lambda: app.screen.SCREEN_NAME == "Programs" and not app.screen.opening)
    await pilot.press("slash", *"softmax", "enter")
    await pilot.press("home", "down", "right")  # one more program open
    expanded = app.screen.tree.rows.open_programs()
    await pilot.press("t")
    await wait_for(pilot, lambda: app.screen.SCREEN_NAME == "Trace" and app.screen.available)
    await pilot.press("plus", "plus")
    return {"tile": tile, "step": step, "window": app.screen.nav.window, "run": app.screen.nav.run,
            "expanded": expanded}


async def test_reopening_a_report_returns_where_it_was_left_unless_fresh(tiny_dir, tmp_path, cache_root, tiny_report):
    from pvtui.app import left_on

    where = tmp_path / "state"
    app = PvtuiApp(discover(tiny_dir), path=tiny_dir, watch=False, cache=cache_root, state=State(where))
    async with app.run_test(size=(80, 24)) as pilot:
        left = await _leave_a_place(app, pilot, tiny_report)
        await pilot.press("q")
    reports = discover(tiny_dir)
    assert left_on(State(where), reports) == "trace" and left_on(State(where, fresh=True), reports) == "summary"
    app = PvtuiApp(reports, path=tiny_dir, watch=False, cache=cache_root, state=State(where), first_screen="trace")
    async with app.run_test(size=(80, 24)) as pilot:
        # available once the run's lanes are indexed (in a worker), a moment before they are shown over the window
        await wait_for(pilot, lambda: app.screen.SCREEN_NAME == "Trace" and app.screen.available
                       and app.screen.nav.window == left["window"])
        assert app.screen.nav.run == left["run"]
        shown = {}
        for key, screen_name in (("m", "Memory"), ("l", "Liveness"), ("p", "Programs")):
            await pilot.press(key)
            await wait_for(pilot, lambda: app.screen.SCREEN_NAME == screen_name and not app.screen.opening)
            shown[screen_name] = app.screen
        programs = shown["Programs"]
        await wait_for(pilot, lambda: len(programs.nav.finder.matches) > 0)
        assert programs.query_one("#search-input").value == "softmax"
        assert programs.tree.rows.open_programs() == left["expanded"] and len(left["expanded"]) > 1
        assert shown["Memory"].selected == left["tile"] and shown["Liveness"].nav.cursor == left["step"]
    app = PvtuiApp(reports, path=tiny_dir, watch=False, cache=cache_root, state=State(where, fresh=True))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.report is not None and not app.screen.opening)
        await pilot.press("l")
        await wait_for(pilot, lambda: app.screen.SCREEN_NAME == "Liveness" and not app.screen.opening)
        assert app.screen.nav.cursor == tiny_report.liveness.peak_step != left["step"]
