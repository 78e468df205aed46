"""One measurement in a fresh process: `python -m bench.child JOB-JSON`.

Each job prints one JSON line (prefixed RESULT) and exits, so that every figure
starts from a clean heap and its peak RSS is its own. Times come from
time.monotonic(), which is system-wide on Linux: `t0` passed by the parent (taken
just before it started this process) makes "from process start" figures.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

RESULT = "RESULT "
SIZE = (200, 50)
QUIET = 0.25  # seconds without a frame (and no worker running) that count as settled
SETTLE_TIMEOUT = 30.0


# --- memory ---------------------------------------------------------------------------


def proc_status(field: str) -> int:
    """A field of /proc/self/status in bytes (VmRSS, VmHWM)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def reset_peak() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0: write 5 to clear_refs)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def measured(run) -> dict[str, Any]:
    """Time RUN and its peak RSS above the RSS it started from."""
    import gc

    gc.collect()
    reset_peak()
    before = proc_status("VmRSS")
    t = time.perf_counter()
    extra = run() or {}
    seconds = time.perf_counter() - t
    peak = proc_status("VmHWM")
    return {"seconds": seconds, "peak_bytes": max(peak - before, 0), "rss_before": before, **extra}


# --- ingest jobs -------------------------------------------------------------------------


def job_ingest(source: str, report: str, tmp: str) -> dict[str, Any]:
    """Cold ingest of one source of REPORT into a new bundle under TMP."""
    from pvtui.model.bundle import BundleWriter
    from pvtui.sources.base import IngestContext
    from pvtui.sources.discovery import discover

    files = discover(Path(report))[0]
    dest = Path(tmp) / f"bundle-{source}"
    extra: dict[str, Any] = {}
    pva = operations = None
    if source == "profile-adapter":
        from pvtui.synth import generate, standin

        meta = json.loads((Path(report) / "profile.pvtui" / "meta.json").read_text())["synthetic"]
        truth = generate(meta["scale"], meta["ipus"], meta["seed"])
        pva, operations = standin.PvaReport(truth), standin.operations(truth)

    read = None if source == "all" else _reader(source, files, pva, operations)

    def run() -> dict[str, Any]:
        if source == "all":  # a cold open: importing what it needs is part of it
            from pvtui.sources import ingest

            ingest.load_report(files, cache=Path(tmp))
            return {}
        with BundleWriter(dest) as writer:
            ctx = IngestContext(writer)
            ctx.meta["parts"] = []
            read(ctx)
            writer.commit()
        return {}

    result = measured(run)
    out = dest if source != "all" else next(p for p in Path(tmp).iterdir() if p.is_dir())
    extra["bundle_bytes"] = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    return {**result, **extra}


def _reader(source: str, files, pva, operations) -> Callable[[Any], None]:
    """SOURCE's reader, imported before the timing starts, as cbor2.load's job imports cbor2 first
    (without written bytecode, importing a reader means compiling it: not the reader's speed)."""
    from pvtui.model.bundle import Bundle

    if source == "profile-link":
        from pvtui.sources import readers

        return lambda ctx: readers.link_profile_parts(Bundle(files.bundle), ctx)
    if source == "profile-adapter":
        from pvtui.sources.libpva import read_pva_report

        return lambda ctx: read_pva_report(pva, ctx, operations)
    if source == "profile-native":
        from pvtui.sources.native import read_native_profile

        return lambda ctx: read_native_profile(files.profile, ctx)
    if source == "archive":
        from pvtui.sources.archive import read_archive

        return lambda ctx: read_archive(files.archive, ctx)
    if source == "debug":
        from pvtui.sources.debug_cbor import read_debug

        return lambda ctx: read_debug(files.debug, ctx)
    if source in ("framework", "app"):
        from pvtui.sources.json_files import read_json

        return lambda ctx: read_json(getattr(files, source), ctx, source)
    raise ValueError(source)


def job_cbor2_load(path: str) -> dict[str, Any]:
    import cbor2

    def run() -> dict[str, Any]:
        with open(path, "rb") as f:
            document = cbor2.load(f)
        contexts = document.get("contexts", document) if isinstance(document, dict) else document
        return {"items": len(contexts)}

    return measured(run)


# --- app jobs ------------------------------------------------------------------------------

SCREEN_CLASSES = {
    "summary": "SummaryScreen", "memory": "MemoryScreen", "liveness": "LivenessScreen",
    "programs": "ProgramsScreen", "trace": "TraceScreen", "insights": "InsightsScreen",
    "operations": "OperationsScreen", "hotspots": "HotspotsScreen", "compare": "CompareScreen",
}
SCREEN_KEYS = {"summary": "s", "memory": "m", "liveness": "l", "programs": "p", "trace": "t", "insights": "i",
               "operations": "o", "hotspots": "H", "compare": "d"}
KEY_CHARS = {"plus": "+", "minus": "-", "full_stop": ".", "comma": ",", "space": " ", "equals_sign": "=",
             "slash": "/"}


class Frames:
    """Every frame the app paints: (monotonic time, screen). Hooks App._display.

    Headless, Textual composes each frame (the compositor renders every changed
    line of every widget) but skips turning it into terminal output; the hook does
    that too (`render_segments`), so a frame costs what it would in a terminal.
    """

    def __init__(self, app) -> None:
        self.app = app
        self.log: list[tuple[float, Any]] = []
        self.cpu: list[float] = []  # the process's CPU time at each frame of `log`: figures a loaded machine skews less
        self.showing: dict[int, float] = {}  # per screen (id): its first frame with the report shown
        original = app._display
        console = app.console

        def display(screen, renderable) -> None:
            original(screen, renderable)
            if renderable is None or app._batch_count:
                return
            render = getattr(renderable, "render_segments", None)
            if render is not None:
                render(console)
            now = time.monotonic()
            self.log.append((now, screen))
            self.cpu.append(time.process_time())
            if not getattr(screen, "opening", False):
                self.showing.setdefault(id(screen), now)

        app._display = display

    def after(self, t: float) -> list[tuple[float, Any]]:
        return [entry for entry in self.log if entry[0] >= t]

    def busy(self) -> bool:
        app = self.app
        if any(not w.is_finished for w in app.workers):
            return True
        from textual.app import ScreenStackError

        try:
            screen = app.screen
        except ScreenStackError:
            return False
        return bool(screen._dirty_widgets or screen._layout_required or screen._repaint_required)

    async def settle(self, since: float, quiet: float = QUIET, timeout: float = SETTLE_TIMEOUT) -> None:
        """Wait until no frame was painted for QUIET seconds and no worker runs."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            await asyncio.sleep(0.01)
            last = self.log[-1][0] if self.log else since
            if time.monotonic() - max(last, since) >= quiet and not self.busy():
                return

    async def wait_for_screen(self, name: str, since: float = 0.0, timeout: float = 120.0) -> tuple[float, Any]:
        """The first frame painted by a screen of NAME's class (at or after SINCE)."""
        cls = SCREEN_CLASSES[name]
        deadline = time.monotonic() + timeout
        seen = 0
        while time.monotonic() < deadline:
            for entry in self.log[seen:]:
                if type(entry[1]).__name__ == cls and entry[0] >= since:
                    return entry
            seen = len(self.log)
            await asyncio.sleep(0.002)
        raise TimeoutError(f"no frame of {cls} within {timeout} s")

    def last_of(self, screen) -> float:
        return max(t for t, s in self.log if s is screen)


def send_key(app, key: str) -> None:
    """What the terminal driver does when a key arrives."""
    from textual import events

    char = KEY_CHARS.get(key, key if len(key) == 1 else None)
    event = events.Key(key, char)
    event.set_sender(app)
    app._driver.send_message(event)


def bare_app():
    from textual.app import App, ComposeResult
    from textual.widgets import Label

    class Bare(App):
        def compose(self) -> ComposeResult:
            yield Label("pvtui benchmark: the bare Textual app")

    return Bare()


def pvtui_app(report: str, cache: str, first_screen: str = "summary", reader: str | None = None,
              compare_with: str = ""):
    """The app on REPORT, shown first on FIRST_SCREEN, profile.pop read by READER; in a comparison with
    COMPARE_WITH where given (which the app would show on Compare first: FIRST_SCREEN still is)."""
    from pvtui.process.collector import hold

    hold()  # as the commands that start the app do, before it is imported
    from pvtui.app import PvtuiApp, start_lightly

    start_lightly()  # as run_app starts it
    from pvtui.sources.discovery import discover

    app = PvtuiApp(discover(Path(report)), path=Path(report), watch=False, cache=Path(cache),
                   first_screen=first_screen, reader=reader)
    if compare_with:  # as PvtuiApp(compare_with=...) sets it, which would start on Compare
        from pvtui.ui.slots import ReportSlot, Slot

        app.b = ReportSlot(Slot.B, discover(Path(compare_with))[0])
    return app


def job_usable(report: str, cache: str, reader: str, shown: bool = True, standin: str = "") -> dict:
    """A cold open of REPORT (CACHE empty) on the Memory screen, profile.pop read by READER: seconds from the
    app's start to the Memory screen usable (its body shown over a model with the tiles' memory), and to every
    screen usable (the whole report in). SHOWN false: no part shown before the whole, as pvtui opened a report
    before it showed parts as read. STANDIN: a synthetic report whose generator's stand-in is libpva's report."""
    from pvtui.sources import ingest

    if not shown:
        load_report = ingest.load_report
        ingest.load_report = lambda files, **given: load_report(files, **{**given, "shown": None})
    if standin:
        _stand_in_for_libpva(Path(standin))

    async def main() -> dict:
        app = pvtui_app(report, cache, "memory", reader)
        memory = every = None
        async with app.run_test(headless=True, size=SIZE):
            start = time.monotonic()
            while every is None and time.monotonic() - start < 1800 and not app._exit:
                report_now = app.report
                body = not getattr(app.screen, "opening", True) and app.screen.SCREEN_NAME == "Memory"
                if memory is None and body and report_now is not None and report_now.memory is not None:
                    memory = time.monotonic() - start
                if memory is not None and not app.load_running and not report_now.being_read:
                    every = time.monotonic() - start
                await asyncio.sleep(0.02)
        return {"memory_usable": memory, "every_usable": every}

    return asyncio.run(main())


def _stand_in_for_libpva(report: Path) -> None:
    """A module `pva` whose report is the generator's stand-in for the synthetic REPORT (made before the
    timing starts: libpva's own decoding is not what is measured)."""
    import types

    from pvtui.synth import generate, standin

    meta = json.loads((report / "profile.pvtui" / "meta.json").read_text())["synthetic"]
    truth = generate(meta["scale"], meta["ipus"], meta["seed"])
    pva = types.ModuleType("pva")
    pva.openReport = lambda *paths: standin.PvaReport(truth)
    pva.OperationAnalysis = lambda report: types.SimpleNamespace(operations=standin.operations(truth))
    sys.modules["pva"] = pva


def job_first_paint(kind: str, t0: float, report: str = "", cache: str = "", screen: str = "summary") -> dict:
    """From process start (t0) to the first frame, and to the frame after which it settles."""

    async def main() -> dict:
        app = bare_app() if kind == "bare" else pvtui_app(report, cache, screen)
        frames = Frames(app)
        async with app.run_test(headless=True, size=SIZE):
            if kind == "bare":
                while not frames.log:
                    await asyncio.sleep(0.002)
                first, shown = frames.log[0]
            else:
                first, shown = await frames.wait_for_screen(screen)
            await frames.settle(first)
            settled = frames.last_of(shown)
            showing = frames.showing.get(id(shown))
            if showing is None:
                raise RuntimeError(f"{screen}: the report was never shown")
            cpu = dict(zip((t for t, _ in frames.log), frames.cpu))
            return {"first": first - t0, "showing": showing - t0, "settled": settled - t0,
                    "cpu_first": cpu[first], "cpu_showing": cpu[showing], "rss": proc_status("VmHWM")}

    return asyncio.run(main())


def job_until_shown(kind: str, report: str = "", cache: str = "", screen: str = "summary") -> dict:
    """Run to the first frame with the report shown (the bare app: its first frame) and leave at once, there:
    what bench.instructions counts. The worker's wait for the first frame is lifted: under valgrind, 50 times
    slower, it would end before the frame and read the report ahead of it."""

    async def main() -> dict:
        app = bare_app() if kind == "bare" else pvtui_app(report, cache, screen)
        if kind != "bare":
            import pvtui.app

            pvtui.app.FIRST_FRAME_WAIT = 3600.0
        frames = Frames(app)
        painted = app._display

        def display(shown, update) -> None:
            painted(shown, update)
            if frames.showing:
                os._exit(0)

        app._display = display
        async with app.run_test(headless=True, size=SIZE):
            await asyncio.sleep(SETTLE_TIMEOUT * 100)
        raise RuntimeError(f"{screen}: the report was never shown")

    return asyncio.run(main())


def job_rss(kind: str, report: str = "", cache: str = "") -> dict:
    """Peak RSS after the bare app painted, or after pvtui visited all five screens (twice).

    pvtui's visits also time each key to the first frame of its screen: the first visit
    builds the screen, the second shows the one built.
    """

    async def main() -> dict:
        app = bare_app() if kind == "bare" else pvtui_app(report, cache)
        frames = Frames(app)
        switches: dict[str, list[float]] = {"new": [], "built": []}
        async with app.run_test(headless=True, size=SIZE):
            if kind == "bare":
                while not frames.log:
                    await asyncio.sleep(0.002)
                await frames.settle(frames.log[0][0])
            else:
                await frames.wait_for_screen("summary")
                await frames.settle(time.monotonic())
                for visit in ("new", "built"):
                    for name in ("memory", "liveness", "programs", "trace", "summary"):
                        t = time.monotonic()
                        send_key(app, SCREEN_KEYS[name])
                        shown, _ = await frames.wait_for_screen(name, since=t)
                        await frames.settle(t)
                        if type(app.screen).__name__ != SCREEN_CLASSES[name]:
                            raise RuntimeError(f"{name}: the screen shown is {type(app.screen).__name__}")
                        if visit == "built" or name != "summary":  # summary was built before the first round
                            switches[visit].append(shown - t)
            return {"peak_rss": proc_status("VmHWM"), "rss": proc_status("VmRSS"), "switches": switches}

    return asyncio.run(main())


def job_first_showings(report: str, cache: str, first: str, visits: list[str], compare_with: str = "") -> dict:
    """From FIRST with the report shown, each screen of VISITS in turn: seconds from its key to its first
    frame (a screen not shown before), and to its last frame once it settled."""

    async def main() -> dict:
        app = pvtui_app(report, cache, first, compare_with=compare_with)
        frames = Frames(app)
        out: dict[str, dict[str, float]] = {}
        async with app.run_test(headless=True, size=SIZE):
            start, _ = await frames.wait_for_screen(first)
            deadline = time.monotonic() + SETTLE_TIMEOUT
            while not app.report_shown:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the report was not shown within {SETTLE_TIMEOUT} s")
                await asyncio.sleep(0.01)
            await frames.settle(start)
            for name in visits:
                t, cpu = time.monotonic(), time.process_time()
                send_key(app, SCREEN_KEYS[name])
                entry = await frames.wait_for_screen(name, since=t)
                shown, screen = entry
                await frames.settle(t)
                out[name] = {"first": shown - t, "settled": frames.last_of(screen) - t,
                             "cpu": frames.cpu[frames.log.index(entry)] - cpu}
        return out

    return asyncio.run(main())


# Key-to-repaint: per view, keys pressed once before timing (setup) and the timed keys.
LATENCY_PLANS: dict[str, dict[str, Any]] = {
    "memory": {
        "scroll": {"setup": [], "keys": (["down"] * 10 + ["pagedown"] * 10 + ["up"] * 5 + ["pageup"] * 5) * 2},
        "zoom": {"setup": [], "keys": (["minus"] * 4 + ["plus"] * 4) * 4},
        "map": {"setup": ["v"], "keys": (["right"] * 10 + ["down"] * 10 + ["pagedown"] * 2 + ["left"] * 5
                                         + ["up"] * 5 + ["pageup"] * 2 + ["end", "home"]) * 2},
        "switch": {"setup": [], "keys": ["v"] * 10},
        "search": {"setup": ["slash"], "keys": [*"layer1/ffn", *["backspace"] * 4, *"attention"]},
    },
    "liveness": {
        "scroll": {"setup": ["plus"] * 4, "keys": (["right"] * 10 + ["shift+right"] * 5 + ["pagedown"] * 5
                                                   + ["left"] * 5 + ["pageup"] * 5) * 2},
        "zoom": {"setup": ["0"], "keys": (["plus"] * 5 + ["minus"] * 5) * 3},
    },
    "trace": {
        "scroll": {"setup": ["plus"] * 4, "keys": (["full_stop"] * 10 + ["right"] * 10 + ["comma"] * 5
                                                   + ["left"] * 5) * 2},
        "zoom": {"setup": ["0"], "keys": (["plus"] * 6 + ["minus"] * 6) * 3},
        # the flame view, once its nesting is built: along a depth row, across rows, and zoom
        "flame": {"setup": ["0", "f"], "ready": lambda screen: screen.nav.flame is not None, "keys": (["right"] * 10 + ["down"] * 3
                  + ["left"] * 5 + ["up"] * 3 + ["plus", "plus", "minus", "minus"]) * 2},
        # the run merged by model layer (built once, in a worker): the same keys
        "merged": {"setup": ["M"], "ready": lambda screen: screen.nav.merged is not None, "keys": (["right"] * 10
                   + ["down"] * 3 + ["left"] * 5 + ["up"] * 3 + ["plus", "plus", "minus", "minus"]) * 2},
    },
    # the compute sets (read in a worker as the screen opens): each sort, then filters typed and cleared
    "hotspots": {
        "sort": {"setup": [], "ready": lambda screen: screen.nav.ready, "keys": ["S"] * 15},
        "filter": {"setup": [], "keys": ["slash", *"layer1/", "enter", "escape", "slash", *"attention", "enter",
                                         "escape"] * 2},
    },
}


def job_latency(view: str, report: str, cache: str) -> dict:
    """Key-to-repaint samples on VIEW: from sending the key to the last frame it caused."""

    async def main() -> dict:
        app = pvtui_app(report, cache, view)
        frames = Frames(app)
        out: dict[str, Any] = {}
        async with app.run_test(headless=True, size=SIZE):
            first, _ = await frames.wait_for_screen(view)
            await frames.settle(first)
            if view == "programs":
                out["expand"] = await _expand_samples(app, frames)
            else:
                for action, plan in LATENCY_PLANS[view].items():
                    for key in plan["setup"]:
                        t = time.monotonic()
                        send_key(app, key)
                        await frames.settle(t)
                    if plan.get("ready"):  # built in a worker: wait for it, untimed
                        for _ in range(1200):
                            if plan["ready"](app.screen):
                                break
                            await asyncio.sleep(0.05)
                        t = time.monotonic()
                        send_key(app, "down")  # onto the first depth row, now that it exists
                        await frames.settle(t)
                    out[action] = await _samples(app, frames, plan["keys"])
        return out

    return asyncio.run(main())


async def _press_timed(app, frames: Frames, key: str) -> tuple[float, float] | None:
    t = time.monotonic()
    send_key(app, key)
    await frames.settle(t)
    painted = frames.after(t)
    if not painted:
        return None  # the key changed nothing on screen (an edge was reached)
    return painted[0][0] - t, painted[-1][0] - t


async def _samples(app, frames: Frames, keys: list[str]) -> dict[str, Any]:
    first, last, noop = [], [], 0
    for key in keys:
        timed = await _press_timed(app, frames, key)
        if timed is None:
            noop += 1
            continue
        first.append(timed[0])
        last.append(timed[1])
    return {"first": first, "last": last, "noop": noop}


async def _expand_samples(app, frames: Frames) -> dict[str, Any]:
    """Expand each wide root (10,000 children) for the first time, collapsing the one before."""
    from pvtui.widgets.program_tree import ProgramTree

    tree = app.screen.query_one(ProgramTree)
    rows = tree.rows
    first, last, noop, children = [], [], 0, 0
    roots = rows.program[rows.depth == 0].tolist()[1:]
    for program in roots:
        row = rows.row_of(program)
        tree.move_cursor(row)
        t = time.monotonic()
        await frames.settle(t)
        timed = await _press_timed(app, frames, "space")
        if timed is None or not rows.is_open(row):
            noop += 1
            continue
        first.append(timed[0])
        last.append(timed[1])
        children = rows.end_of(row) - row - 1
        t = time.monotonic()
        send_key(app, "space")  # collapse again, untimed
        await frames.settle(t)
    return {"first": first, "last": last, "noop": noop, "children": children}


def job_hotspots_first(report: str, cache: str) -> dict:
    """From the Summary, the key H to the last frame of the Hotspots screen with its first table shown."""

    async def main() -> dict:
        app = pvtui_app(report, cache, "summary")
        frames = Frames(app)
        async with app.run_test(headless=True, size=SIZE):
            first, _ = await frames.wait_for_screen("summary")
            while app.report is None or app.screen.opening:  # the report shown, untimed
                await asyncio.sleep(0.01)
            await frames.settle(first)
            t = time.monotonic()
            send_key(app, "H")
            while not (type(app.screen).__name__ == "HotspotsScreen" and app.screen.nav.ready):
                await asyncio.sleep(0.002)
            await frames.settle(t)
            painted = [when for when, screen in frames.after(t) if screen is app.screen]
            steps = app.report.execution.num_steps
        return {"seconds": painted[-1] - t, "first_frame": painted[0] - t, "steps": steps}

    return asyncio.run(main())


def job_step_stats(bundle: str) -> dict:
    """Seconds to compute the step statistics of the whole report, from its warm bundle."""
    from pvtui.model.report import Report
    from pvtui.model.step_stats import step_stats

    report = Report(Path(bundle))
    t = time.monotonic()
    stats = step_stats(report)
    return {"seconds": time.monotonic() - t, "runs": len(stats["runs"]) if stats else 0,
            "steps": report.execution.num_steps if report.execution is not None else 0}


SQL_QUERY = "select program, sum(cycles) from steps group by program"  # issue 34's


def job_sql(bundle: str, repeats: int = 3) -> dict:
    """`pvtui sql` over the warm bundle: the first SQL_QUERY (its view filled from the bundle's columns, and the
    peak memory that takes above the RSS before it), then the same query REPEATS times more (warm)."""
    from pvtui.model.report import Report
    from pvtui.sql.engine import Engine

    engine = Engine([(bundle, Report(Path(bundle), exact_text=True))])
    first = measured(lambda: {"groups": len(engine.execute(SQL_QUERY).rows)})
    warm = []
    for _ in range(repeats):
        t = time.perf_counter()
        engine.execute(SQL_QUERY)
        warm.append(time.perf_counter() - t)
    rows = engine.execute("select count(*) from steps").rows[0][0]
    return {"first": first["seconds"], "peak_bytes": first["peak_bytes"], "warm": warm, "rows": rows,
            "groups": first["groups"]}


def job_app_cancel(report: str, cache: str, after: float) -> dict:
    """Open REPORT with an empty cache; press Escape AFTER seconds into the ingest."""
    from pvtui.screens.dialogs import LoadingScreen

    updates = []
    original = LoadingScreen.show_progress

    def counting(self, stage, done, total):
        updates.append((stage, done, total))
        return original(self, stage, done, total)

    LoadingScreen.show_progress = counting

    async def main() -> dict:
        app = pvtui_app(report, cache)
        frames = Frames(app)
        async with app.run_test(headless=True, size=SIZE):
            start = time.monotonic()
            while time.monotonic() - start < after:
                await asyncio.sleep(0.01)
            loading = isinstance(app.screen, LoadingScreen)
            t = time.monotonic()
            send_key(app, "escape")
            while loading and not app._exit and time.monotonic() - t < 60:
                await asyncio.sleep(0.005)
            exited = time.monotonic() - t
            # the loader thread may still be unwinding: wait for it before looking at the cache
            while any(not w.is_finished for w in app.workers) and time.monotonic() - t < 60:
                await asyncio.sleep(0.005)
            finished = time.monotonic() - t
        return {
            "loading_when_cancelled": loading, "exit_seconds": exited, "worker_done_seconds": finished,
            "progress_updates": len(updates), "stages": sorted({u[0] for u in updates}),
            "frames": len(frames.log), "left": sorted(p.name for p in Path(cache).iterdir()),
        }

    return asyncio.run(main())


def job_chart_repaint(steps: int) -> dict:
    """Every line of the liveness chart over STEPS random steps (an envelope, as the model builds), caches empty."""
    import numpy as np
    from textual.app import App, ComposeResult

    from pvtui.model.envelope import Envelope, build_pyramid
    from pvtui.model.navigators.liveness import StepSeries, Window
    from pvtui.ui.theming import DEFAULT_THEME, builtin_themes
    from pvtui.widgets.liveness_chart import LivenessChart

    series = np.random.default_rng(7).integers(0, 10**9, steps)
    step_series = StepSeries("all IPUs", series, 10**8, None, Envelope(series, build_pyramid(series)))

    class ChartApp(App):
        def compose(self) -> ComposeResult:
            yield LivenessChart()

        def on_mount(self) -> None:
            for theme in builtin_themes():
                self.register_theme(theme)
            self.theme = DEFAULT_THEME
            self.query_one(LivenessChart).show(step_series, Window.fit(steps), steps // 8)

    async def main() -> dict:
        app = ChartApp()
        async with app.run_test(headless=True, size=SIZE) as pilot:
            await pilot.pause()
            chart = app.query_one(LivenessChart)
            chart.clear_caches()
            started = time.perf_counter()
            for y in range(chart.size.height):
                chart.render_line(y)
            return {"seconds": time.perf_counter() - started}

    return asyncio.run(main())


def job_synth_tiny(out: str) -> dict:
    """Generate and write the tiny synthetic report to OUT."""
    import shutil

    from pvtui.synth import write_report

    started = time.perf_counter()
    write_report(Path(out), "tiny", None, 0)
    seconds = time.perf_counter() - started
    shutil.rmtree(out, ignore_errors=True)
    return {"seconds": seconds}


def job_long_profile(scale: str, runs: int, path: str) -> dict:
    """Write the profile.pop of SCALE's model over RUNS runs to PATH (its truth takes gigabytes: in a
    process of its own, they are given back when it ends)."""
    from pvtui.synth import generate
    from pvtui.synth.profile_pop import write_profile_pop

    write_profile_pop(generate(scale, seed=0, runs=runs), Path(path))
    return {}


JOBS = {
    "long_profile": job_long_profile,
    "chart_repaint": job_chart_repaint,
    "synth_tiny": job_synth_tiny,
    "ingest": job_ingest,
    "cbor2_load": job_cbor2_load,
    "first_paint": job_first_paint,
    "until_shown": job_until_shown,
    "rss": job_rss,
    "first_showings": job_first_showings,
    "latency": job_latency,
    "step_stats": job_step_stats,
    "hotspots_first": job_hotspots_first,
    "sql": job_sql,
    "app_cancel": job_app_cancel,
    "usable": job_usable,
}


def main() -> None:
    job = json.loads(sys.argv[1])
    name = job.pop("job")
    result = JOBS[name](**job)
    sys.stdout.flush()
    print(RESULT + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
