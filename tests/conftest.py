"""Shared fixtures: a tiny synthetic report, an app over it, snapshots in snapshots/."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import pytest
from hypothesis import settings

# Speed belongs in `python -m bench`: a property test judges what it finds, never how long an example
# took (Hypothesis' 200 ms deadline failed examples on a machine loaded by other jobs).
settings.register_profile("pvtui", deadline=None)
settings.load_profile("pvtui")

# Bytecode caches are written even where PYTHONDONTWRITEBYTECODE is set: otherwise each xdist worker
# rewrites the asserts of every test module again (some 10 s of CPU), and each `pvtui` child process
# compiles pvtui's modules again (0.1 s each). The caches go to __pycache__, which git ignores.
sys.dont_write_bytecode = False

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
# A colour terminal with block glyphs, whatever runs the tests: with TERM=xterm alone Rich
# counts 16 colours, and the views turn plain (pvtui/widgets/look.py). Tests of the plain
# and basic looks set these themselves.
os.environ.update(COLORTERM="truecolor", TERM="xterm-256color")
os.environ.pop("NO_COLOR", None)
# the user's own configuration and state (keymap, defaults, recent reports) never reach a test
_HOME = tempfile.mkdtemp(prefix="pvtui-test-home-")
os.environ.update(XDG_CONFIG_HOME=os.path.join(_HOME, "config"), XDG_STATE_HOME=os.path.join(_HOME, "state"))
os.environ.pop("PVTUI_CONFIG", None)

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = ROOT / "snapshots"


def _keep_snapshots_in_the_repository_root() -> None:
    """pytest-textual-snapshot files SVGs beside the tests; the project keeps them in snapshots/."""
    try:
        import pytest_textual_snapshot as plugin
    except ImportError:
        return

    class RootSnapshots(plugin.SVGImageExtension):
        @classmethod
        def dirname(cls, *, test_location) -> str:
            return str(SNAPSHOTS / test_location.basename)

    plugin.SVGImageExtension = RootSnapshots


_keep_snapshots_in_the_repository_root()

# The modules whose tests take longest (a whole run's --durations), longest first. xdist hands tests out
# in collection order as workers free up: a long test started last leaves the other worker idle.
LONG_FIRST = ("test_every_theme", "test_hostile_explorer", "test_bad_inputs", "test_serve", "test_serve_browser",
              "test_operations", "test_cache", "test_streams", "test_memory_tabs", "test_app", "test_export",
              "test_line_styles", "test_plain_look", "test_hostile_commands", "test_sqlite_pages")


def pytest_xdist_auto_num_workers(config) -> int:
    """`-n auto`: two workers per core. An app test waits for its frames and a child process for its
    output much of its time; with one worker per core the suite kept 2 cores 55% busy (530 s), with two
    per core 85% (356 s)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return 2 * cores


def pytest_collection_modifyitems(items) -> None:
    """The known-long modules first, in LONG_FIRST's order; the others after, as collected."""
    rank = {name: place for place, name in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.stem, len(rank)))


@pytest.fixture(scope="session")
def cache_root(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cache")
    os.environ["PVTUI_CACHE_DIR"] = str(path)
    return path


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory, cache_root) -> Path:
    """The tiny synthetic report directory (seed 0), written once per test session."""
    from pvtui.synth import write_report

    out = tmp_path_factory.mktemp("reports") / "tiny"
    write_report(out, scale="tiny", ipus=None, seed=0)
    return out


@pytest.fixture(scope="session")
def tiny_report(tiny_dir):
    """The tiny report's model, opened the way the app opens it."""
    from pvtui.sources.discovery import discover
    from pvtui.sources.ingest import load_report

    return load_report(discover(tiny_dir)[0])


@pytest.fixture(scope="session")
def empty_bundle(tmp_path_factory) -> Path:
    """A bundle of no part: what each view says where the report cannot fill it."""
    from pvtui.model.bundle import BundleWriter

    path = tmp_path_factory.mktemp("empty") / "empty"
    with BundleWriter(path) as writer:
        writer.meta.update(name="empty", parts=[], target={})
        writer.commit()
    return path


@pytest.fixture(scope="session")
def other_dir(tmp_path_factory, cache_root):
    """A second tiny report of another shape: one IPU instead of two, another seed."""
    from pvtui.synth import write_report

    out = tmp_path_factory.mktemp("reports") / "other"
    write_report(out, scale="tiny", ipus=1, seed=1)
    return out


@pytest.fixture(scope="session")
def other_report(other_dir):
    from pvtui.sources.discovery import discover
    from pvtui.sources.ingest import load_report

    return load_report(discover(other_dir)[0])


@pytest.fixture
def make_app(tiny_dir, cache_root):
    """An app over a report directory (the tiny one by default), without file watching."""
    from pvtui.app import PvtuiApp
    from pvtui.sources.discovery import discover

    def make(path: Path | None = None, theme: str | None = None, watch: bool = False) -> "PvtuiApp":
        path = path or tiny_dir
        return PvtuiApp(discover(path), path=path, theme=theme, watch=watch, cache=cache_root)

    return make


async def wait_for(pilot, condition: Callable[[], object], timeout: float = 20.0) -> None:
    """Let the app run until CONDITION holds; fail if it does not within TIMEOUT seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not so after {timeout} s: {condition.__doc__ or condition} ({pilot.app.screen!r})")
        await pilot.pause(0.02)


def polled(answer: Callable[[], object], seconds: float, every: float = 0.05):
    """ANSWER's first true answer, asked every EVERY seconds for up to SECONDS; its last (false) answer if
    none came (for waits outside an app: a process, a file, a thread)."""
    deadline = time.monotonic() + seconds
    while not (got := answer()) and time.monotonic() < deadline:
        time.sleep(every)
    return got


def watching(app) -> bool:
    """Whether the app watches its report's files: its watch worker runs, and so has set its
    watches (watchfiles sets them before its first wait, in the worker's first step)."""
    from textual.worker import WorkerState

    return any(worker.group == "watch" and worker.state == WorkerState.RUNNING for worker in app.workers)


async def wait_until_loaded(pilot) -> None:
    """Wait for the load worker and for the first screen to show the report."""
    app = pilot.app

    def loaded() -> bool:
        """the report is open and the screen in front shows it"""
        return app.report is not None and bool(getattr(app.screen, "SCREEN_NAME", "")) and not app.screen.opening

    await wait_for(pilot, loaded, timeout=30)
    await pilot.pause()
    await panes_built(pilot)


async def panes_built(pilot) -> None:
    """Wait for what the screen in front builds after its first frame: the Memory screen's detail tabs, mounted,
    filled and laid out (the underline under the active tab, which Textual draws a few frames after the mount)."""
    from textual.widgets import Tabs

    from pvtui.widgets.detail_pane import DetailPane

    def underlined() -> bool:
        """each pane's tabs mounted, the active tab's underline where the tab is"""
        for pane in pilot.app.screen.query(DetailPane):
            if pane.details is None:
                return False
            if not pane.region:  # not shown (the report has no memory): nothing laid out to wait for
                continue
            tab, underline = pane.details.query_one(Tabs).active_tab, pane.details.query_one("Underline")
            span = tab.virtual_region.shrink(tab.styles.gutter).column_span if tab is not None else None
            if not (tab and tab.size.width) or (underline.highlight_start, underline.highlight_end) != span:
                return False
        return True

    await wait_for(pilot, underlined)
    await pilot.pause()  # the screen fills them when told they are built
    await wait_for(pilot, underlined)


def at_first_body_frame(app, shows: Callable[[object], object], seen: Callable[[object], object]) -> list:
    """Watch APP's frames: the list returned gets SEEN(screen) at the first frame painted by a screen SHOWS
    accepts, with its body (its opening line gone); it is empty until then."""
    painted, found = app._display, []

    def display(screen, update) -> None:
        painted(screen, update)
        if update is not None and not found and shows(screen) and not screen.opening:
            found.append(seen(screen))

    app._display = display
    return found


async def frames_of_key(pilot, key: str, seen: Callable[[], object]) -> list:
    """Press KEY and let the app settle: SEEN() at each frame painted meanwhile, one entry a frame."""
    painted, frames = pilot.app._display, []

    def display(screen, update) -> None:
        painted(screen, update)
        if update is not None:
            frames.append(seen())

    pilot.app._display = display
    await pilot.press(key)
    await pilot.pause(0.3)
    pilot.app._display = painted
    return frames


async def resize(pilot, width: int, height: int) -> None:
    """Resize the terminal to WIDTH x HEIGHT, as one app session's next size, and let the screen in
    front be laid out in it."""
    await pilot.resize_terminal(width, height)
    await wait_for(pilot, lambda: pilot.app.screen.size == (width, height))
    await pilot.pause()


def said(app) -> str:
    """The message on the status line (where the app and its screens say things), or ""."""
    return "" if app.status.said is None else app.status.said.text


async def open_screen(pilot, key: str, screen_type: type):
    """Wait for the report, press KEY and return the screen it shows (of SCREEN_TYPE)."""
    await wait_until_loaded(pilot)
    await pilot.press(key)
    await pilot.pause()
    await panes_built(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, screen_type)
    return screen


@pytest.fixture(scope="session")
def hostile_dir(tmp_path_factory, cache_root) -> Path:
    """A tiny synthetic report whose every name carries escape sequences and markup, in a directory
    whose own name does too (pvtui/synth/hostile.py)."""
    from pvtui.synth import write_report

    return write_report(tmp_path_factory.mktemp("hostile"), scale="tiny", names="hostile")


@pytest.fixture(scope="session")
def hostile_truth():
    """The truth the hostile report was written from: its exact names."""
    from pvtui.synth import generate

    return generate("tiny", names="hostile")


@pytest.fixture
def no_libpva(tmp_path, monkeypatch):
    """A module `pva` on the path that cannot be imported, as on a machine without the Poplar SDK."""
    from pvtui.sources import readers

    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "pva.py").write_text("raise ImportError('libpva is not here (a test blocks it)')\n")
    monkeypatch.syspath_prepend(str(blocker))
    monkeypatch.delitem(sys.modules, "pva", raising=False)
    readers.libpva.cache_clear()
    yield
    readers.libpva.cache_clear()


@pytest.fixture
def fake_libpva(tmp_path, monkeypatch):
    """A module `pva` whose openReport gives the generator's stand-in for the tiny report (seed 0)."""
    from pvtui.sources import readers

    module = tmp_path / "fake"
    module.mkdir()
    (module / "pva.py").write_text(
        "from pvtui.synth import generate, standin\n"
        "opened = []\n"
        "def openReport(profile, debug=None):\n"
        "    opened.append(profile)\n"
        "    return standin.PvaReport(generate('tiny', seed=0))\n"
        "class OperationAnalysis:\n"
        "    def __init__(self, report):\n"
        "        self.operations = standin.operations(generate('tiny', seed=0))\n"
    )
    monkeypatch.syspath_prepend(str(module))
    monkeypatch.delitem(sys.modules, "pva", raising=False)
    readers.libpva.cache_clear()
    yield
    sys.modules.pop("pva", None)  # not through monkeypatch, whose undo would put the fake back
    readers.libpva.cache_clear()


def report_without_bundle(tiny_dir: Path, where: Path) -> Path:
    """The tiny report without profile.pvtui: profile.pop is what gives the profile."""
    shutil.copytree(tiny_dir, where, ignore=shutil.ignore_patterns("profile.pvtui"))
    return where


@pytest.fixture(scope="module")
def truth():
    """The generator's own truth of the tiny report (seed 0)."""
    from pvtui.synth import generate

    return generate("tiny", seed=0)


def truth_host_waits(truth) -> "np.ndarray":
    """Per program of the truth, whether the generator made it a host wait: stream copies and External syncs."""
    import numpy as np

    g = truth.graph
    types = np.array(g.program_type_names)[g.program_type]
    return np.char.startswith(types, "StreamCopy") | (np.array(g.program_name) == "External")
