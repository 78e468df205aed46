"""A first open shows each part of the report as it is read; and profile.pop's reader, chosen per case."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from bench.cancel import left_whole
from conftest import report_without_bundle, wait_for
from pvtui.model import schema as s
from pvtui.sources import base, native_memory, native_steps, readers
from pvtui.sources.base import IngestContext, ReportFiles
from pvtui.sources.cache import KEPT_FOLDERS
from pvtui.sources.discovery import discover
from pvtui.synth import generate, standin

SIZE = (80, 24)
pytestmark = pytest.mark.anyio


@pytest.fixture
def profile_dir(tiny_dir, tmp_path, no_libpva, monkeypatch) -> Path:
    """The tiny report read from its profile.pop by the native reader, each part shown once read."""
    monkeypatch.setattr(base, "SHOW_EVERY", 0.0)
    return report_without_bundle(tiny_dir, tmp_path / "report")


HOLD_AT_MOST = 60


def _hold(monkeypatch, module, name: str, stage: str):
    """MODULE.NAME (a reading step taking the ProfileTables first) held until the event returned is set (or
    the reading cancelled), for at most HOLD_AT_MOST seconds, saying STAGE at 0% meanwhile as its first batch
    would: a test failing while it holds then fails, where it would wait for ever on the app's reading thread."""
    release = threading.Event()
    step = getattr(module, name)

    def held(profile, *args):
        until = time.monotonic() + HOLD_AT_MOST
        while not release.wait(0.02) and time.monotonic() < until:
            profile.ctx.cancel.check()
            profile.ctx.progress(stage, 0, 1)
        return step(profile, *args)

    monkeypatch.setattr(module, name, held)
    return release


@pytest.fixture
def execution_held(monkeypatch):
    """The execution profile's reading held (_hold)."""
    release = _hold(monkeypatch, native_steps, "read_execution", "profile.pop: steps_by_ipu")
    yield release
    release.set()


@pytest.fixture
def vars_info_held(monkeypatch):
    """vars_info's scan (the memory categories and variables) held (_hold)."""
    release = _hold(monkeypatch, native_memory, "_scan_vars_info", "profile.pop: vars_info")
    yield release
    release.set()


def _context(tmp_path: Path) -> IngestContext:
    from pvtui.model.bundle import BundleWriter

    return IngestContext(BundleWriter(tmp_path / "b"))


def _reader_of(files: ReportFiles, reader: str, tmp_path: Path, **given) -> readers.ProfileReader | None:
    return readers.profile_reader(files, reader, _context(tmp_path), **given)


def test_the_reader_is_chosen_per_case(tiny_dir, tmp_path, no_libpva):
    files = discover(report_without_bundle(tiny_dir, tmp_path / "report"))[0]
    truth = generate("tiny", seed=0)
    assert isinstance(_reader_of(files, "auto", tmp_path, pva_report=standin.PvaReport(truth)), readers.StandIn)
    assert isinstance(_reader_of(files, "auto", tmp_path), readers.Native)  # no libpva here
    assert isinstance(_reader_of(files, "native", tmp_path), readers.Native)
    assert isinstance(_reader_of(discover(tiny_dir)[0], "auto", tmp_path), readers.StandingBundle)
    assert isinstance(_reader_of(discover(tiny_dir)[0], "native", tmp_path), readers.Native)  # asked for
    fifo = tmp_path / "fifo"
    fifo.mkdir()
    os.mkfifo(fifo / "profile.pop")
    chosen = _reader_of(ReportFiles(fifo, "fifo", profile=fifo / "profile.pop"), "native", tmp_path)
    assert isinstance(chosen, readers.Unreadable) and "cannot be read" in chosen.problem
    assert _reader_of(ReportFiles(tmp_path, "none"), "auto", tmp_path) is None


def test_with_libpva_auto_takes_it_and_falls_back_on_the_native_reader(tiny_dir, tmp_path, fake_libpva):
    files = discover(report_without_bundle(tiny_dir, tmp_path / "report"))[0]
    auto, asked = _reader_of(files, "auto", tmp_path), _reader_of(files, "libpva", tmp_path)
    assert isinstance(auto, readers.Libpva) and isinstance(auto.fall_back, readers.Native)
    assert isinstance(asked, readers.Libpva) and asked.fall_back is None


def test_the_parts_read_are_shown_memory_first(profile_dir, tmp_path):
    from pvtui.model.report import BeingRead
    from pvtui.sources.ingest import load_report

    shown = []
    whole = load_report(discover(profile_dir)[0], cache=tmp_path / "cache", reader="native", shown=shown.append)
    first = shown[0]  # the tiles' totals, before vars_info is scanned
    assert first.being_read and first.memory is not None and first.archive is not None
    assert first.categories_being_read and first.memory.categories == [] and first.lowered is None
    assert isinstance(first.missing("categories"), BeingRead) and isinstance(first.missing("lowered"), BeingRead)
    assert first.execution is None and isinstance(first.missing("execution"), BeingRead)
    assert first.debug is None and isinstance(first.missing("debug"), BeingRead)  # debug.cbor comes after
    read = [r for r in shown if not r.categories_being_read]  # the categories and variables read
    assert read[0].memory.categories == whole.memory.categories != [] and read[0].lowered is not None
    assert [r.execution is not None for r in read] == [False, False, True]  # memory, programs, execution
    assert (np.asarray(read[0].memory.by_category) == np.asarray(whole.memory.by_category)).all()
    assert not whole.being_read and {"memory", "programs", "execution", "debug"} <= whole.parts
    assert (first.memory.including_gaps == whole.memory.including_gaps).all()  # no jump when the rest arrives
    assert (first.memory.ipu == whole.memory.ipu).all()


def test_the_bundle_read_while_shown_equals_the_one_read_whole(profile_dir, tmp_path):
    from pvtui.sources.ingest import load_report

    files = discover(profile_dir)[0]
    shown = []
    progressive = load_report(files, cache=tmp_path / "shown", reader="native", shown=shown.append)
    whole = load_report(files, cache=tmp_path / "whole", reader="native")
    assert len(shown) > 3  # the totals, the categories, the programs and the execution shown one by one
    stamps = {s.KEPT_OVER: None}  # each build's columns' files, written at their own times
    assert {**progressive.meta, **stamps} == {**whole.meta, **stamps}
    assert progressive.bundle.columns == whole.bundle.columns
    for name in whole.bundle.columns:
        a, b = progressive.bundle.array(name), whole.bundle.array(name)
        assert a.dtype == b.dtype and a.shape == b.shape and (a == b).all(), name
    assert not [p.name for p in (tmp_path / "shown").rglob(".*.npy")]  # no replaced column's file left over


def _app_on_memory(report: Path, cache: Path):
    """The app opening REPORT's profile.pop by the native reader into CACHE, on the Memory screen."""
    from pvtui.app import PvtuiApp

    return PvtuiApp(discover(report), path=report, watch=False, cache=cache, first_screen="memory", reader="native")


async def _memory_shown(pilot) -> None:
    from pvtui.screens.memory import MemoryScreen

    await wait_for(pilot, lambda: isinstance(pilot.app.screen, MemoryScreen) and not pilot.app.screen.opening)


async def test_memory_is_usable_while_execution_is_read_then_trace_fills_in(profile_dir, tmp_path, execution_held):
    from pvtui.screens.base import UnavailableNotice
    from pvtui.screens.trace import TraceScreen

    cache = tmp_path / "cache"
    app = _app_on_memory(profile_dir, cache)
    async with app.run_test(size=SIZE) as pilot:
        await _memory_shown(pilot)
        assert app.report.being_read and app.report.memory is not None and app.report.execution is None
        assert app.report_shown and not app.report_whole  # units apply; export waits for the whole report
        await pilot.press("w")  # the worst tile: the Memory screen's keys work
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, TraceScreen) and not app.screen.opening)

        def waiting() -> str:
            return " ".join(str(w.render()) for w in app.screen.query(UnavailableNotice))

        await wait_for(pilot, lambda: "not read yet" in waiting() and "Reading profile.pop" in waiting())
        execution_held.set()
        await wait_for(pilot, lambda: not app.report.being_read and app.report.execution is not None)
        await wait_for(pilot, lambda: "not read yet" not in waiting())
        assert app.report_whole
        assert isinstance(app.screen, TraceScreen) and not app.screen.query(UnavailableNotice).filter("#opening")
    assert left_whole(cache) and any(entry.is_dir() for entry in cache.iterdir())


async def test_the_tiles_totals_are_shown_while_their_categories_are_read(profile_dir, tmp_path, vars_info_held):
    from pvtui.model.metrics import ReportFigures, categories
    from pvtui.model.navigators.memory import NOT_SPLIT_YET
    from pvtui.model.unavailable import Unavailable
    from pvtui.screens.base import UnavailableNotice

    app = _app_on_memory(profile_dir, tmp_path / "cache")
    async with app.run_test(size=SIZE) as pilot:
        await _memory_shown(pilot)
        report = app.report
        assert report.categories_being_read and report.memory.num_tiles > 0 and report.lowered is None

        def notice() -> str:
            return str(app.screen.query_one("#memory-unavailable", UnavailableNotice).render())

        await wait_for(pilot, lambda: "memory categories are not read yet" in notice()
                       and "Reading profile.pop" in notice())
        assert app.screen.query_one("#memory-view").display  # the bars over the tiles' totals, meanwhile
        assert app.screen.nav.memory.categories == (NOT_SPLIT_YET,)
        assert (app.screen.nav.memory.including_gaps == report.memory.including_gaps).all()
        await wait_for(pilot, lambda: app.screen.details is not None)  # its tabs built, after the first frame
        await wait_for(pilot, lambda: NOT_SPLIT_YET in str(app.screen.details.query_one("#detail-categories").render()))
        figure = categories(ReportFigures(report))
        assert isinstance(figure, Unavailable) and "not read yet" in figure.reason and "no " not in figure.reason
        vars_info_held.set()
        await wait_for(pilot, lambda: not app.report.being_read)
        await wait_for(pilot, lambda: not app.screen.query_one("#memory-unavailable").display)
        assert set(app.screen.nav.memory.categories) == set(app.report.memory.categories) != set()
        shown = app.screen.details.query_one("#detail-categories")  # laid out again, taller
        await wait_for(pilot, lambda: shown.size.height == len(app.report.memory.categories) + 1)


async def test_quitting_while_the_rest_is_read_leaves_no_bundle(profile_dir, tmp_path, execution_held):
    cache = tmp_path / "cache"
    app = _app_on_memory(profile_dir, cache)
    async with app.run_test(size=SIZE) as pilot:
        await _memory_shown(pilot)
        assert app.report.being_read
        await pilot.press("q")
        await wait_for(pilot, lambda: all(worker.is_finished for worker in app.workers if worker.group == "load"))
    assert left_whole(cache)
    bundles = [entry for entry in cache.iterdir() if entry.is_dir() and entry.name not in KEPT_FOLDERS]  # (stylesheets, checks)
    assert not bundles  # nothing: the reading was cancelled


def test_with_libpva_the_native_reader_shows_first_and_libpva_fills_in(tiny_dir, tmp_path, fake_libpva, monkeypatch):
    from pvtui.model.report import BeingRead
    from pvtui.sources.ingest import load_report

    monkeypatch.setattr(base, "SHOW_EVERY", 0.0)
    files = discover(report_without_bundle(tiny_dir, tmp_path / "report"))[0]
    shown = []
    whole = load_report(files, cache=tmp_path / "cache", shown=shown.append)
    first, before = shown[0], shown[-1]  # the native reader's first part; its whole, as libpva reads
    assert first.being_read and first.memory is not None and first.readers["memory"] == "native"
    assert before.being_read and before.readers["execution"] == "native" and before.liveness is None
    assert isinstance(before.missing("liveness"), BeingRead)  # not "the native reader has none": libpva reads it
    assert not whole.being_read and set(whole.readers.values()) == {"libpva"} and whole.liveness is not None
    # the figures both give, alike: nothing shown early changes when libpva's take their place
    assert (before.memory.including_gaps == whole.memory.including_gaps).all()
    assert (before.memory.ipu == whole.memory.ipu).all()
    assert list(before.programs.names) == list(whole.programs.names)
    assert (before.execution.cycles == whole.execution.cycles).all()


def test_parts_read_too_soon_to_show_are_shown_by_the_next_call_when_due(tmp_path, monkeypatch):
    """A part read within SHOW_EVERY of the last showing waits, and a long read's `show_due` shows it once due:
    the tiles' totals read just after archive.a are shown during vars_info, not after it."""
    monkeypatch.setattr(base, "SHOW_EVERY", 0.2)
    shown = []
    ctx = _context(tmp_path)
    ctx.shown = shown.append
    ctx.show_parts()  # read just now: too soon
    ctx.show_due()
    assert shown == []
    time.sleep(0.25)
    ctx.show_due()  # as the long read goes on
    ctx.show_due()
    assert len(shown) == 1  # once: nothing new was read since


async def test_what_was_shown_while_read_is_collected_once_the_whole_report_is_in(profile_dir, tmp_path,
                                                                                  execution_held, monkeypatch):
    """The screens built over the parts read (frozen out of the collector's passes then) are let go when the
    whole report replaces them: collected once, not kept frozen for the app's life."""
    import pvtui.app

    let_go = []
    monkeypatch.setattr(pvtui.app, "collect_then_freeze", let_go.append)
    app = _app_on_memory(profile_dir, tmp_path / "cache")
    async with app.run_test(size=SIZE) as pilot:
        await _memory_shown(pilot)
        assert let_go == []
        execution_held.set()
        await wait_for(pilot, lambda: not app.report.being_read)
        await pilot.pause()
        assert let_go == [app]
