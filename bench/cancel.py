"""Cold ingest shows progress and can be cancelled, leaving no bundle behind.

On the command line: `pvtui summary REPORT` with an empty cache, its stderr on a
pseudo-terminal so that Rich draws its bar; once run to the end (the bar must have
been drawn), once interrupted with SIGINT (Ctrl+C) halfway through that run's time. In the app: the
loading screen's progress updates are counted and Escape is pressed as far in. A fixed second in
landed after the bundle was committed on a fast run; halfway lands within the ingest on any machine.
Either way, what is left must be nothing, or a bundle committed whole (the ingest won the race);
anything half built is a failure.
"""

from __future__ import annotations

import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.figures import Results, Row, seconds
from bench.runner import ROOT, child_env, run_child
from pvtui.model.bundle import is_bundle
from pvtui.sources.cache import KEPT_FOLDERS, LOCK_SUFFIX

PROMPT = 1.0  # seconds from the interrupt to the exit that count as prompt
INTERRUPT_SHARE = 0.5  # of the whole cold run's time: when the interrupt comes
BAR_MARKS = ("━", "%")


def _as_from_a_terminal() -> None:
    """Ctrl+C as a terminal delivers it: a benchmark started in the background (`cmd &`,
    nohup) has SIGINT ignored, its children inherit that, and Python then keeps it ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _leftovers(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir()) if cache.exists() else []


def left_whole(cache: Path) -> bool:
    """Whether what an interrupted ingest left in CACHE is all right: nothing (locks, and the app's stylesheets
    parsed, aside), or bundles committed whole before the interrupt came. A build's temporary directory, or an
    entry without its meta.json, is half a bundle."""
    entries = [name for name in _leftovers(cache) if not name.endswith(LOCK_SUFFIX) and name not in KEPT_FOLDERS]
    return all(not name.startswith(".") and is_bundle(cache / name) for name in entries)


def _cli(report: Path, cache: Path, interrupt_after: float | None) -> dict:
    """Run `pvtui summary` on a pty; interrupt it after INTERRUPT_AFTER seconds (None: let it finish)."""
    master, slave = pty.openpty()
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pvtui.cli", "summary", str(report)],
        cwd=ROOT, env={**child_env(cache), "COLUMNS": "100", "TERM": "xterm-256color"},
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave, close_fds=True,
        preexec_fn=_as_from_a_terminal,
    )
    os.close(slave)
    output = bytearray()
    signalled = ended = None
    open_ = True
    while True:
        if interrupt_after is not None and signalled is None and time.monotonic() - t0 >= interrupt_after:
            proc.send_signal(signal.SIGINT)
            signalled = time.monotonic()
        if ended is None and proc.poll() is not None:
            ended = time.monotonic()
        ready = select.select([master], [], [], 0.005)[0] if open_ else []
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the other side closed
                chunk = b""
            output += chunk
            open_ = bool(chunk)
        if ended is not None and not ready:
            break
    os.close(master)
    text = output.decode("utf-8", "replace")
    return {
        "rc": proc.returncode,
        "seconds": ended - t0,
        "exit_after_signal": None if signalled is None else ended - signalled,
        "bar": any(mark in text for mark in BAR_MARKS),
        "cancel_message": "cancelled" in text,
        "left": _leftovers(cache),
    }


def measure_cancel(report: Path, workdir: Path, results: Results, say: Callable[[str], None]) -> None:
    section = "cancel"
    cache = Path(tempfile.mkdtemp(prefix="cancel-cli-", dir=workdir))
    try:
        say("  CLI: cold `pvtui summary` to the end, with its progress bar")
        full = _cli(report, cache, None)
        shutil.rmtree(cache)
        cache.mkdir()
        after = INTERRUPT_SHARE * full["seconds"]
        say(f"  CLI: cold `pvtui summary`, SIGINT after {seconds(after)}")
        cut = _cli(report, cache, after)
        cut["whole"] = left_whole(cache)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    results.add(Row(
        section, "CLI cold `pvtui summary` (whole run, on a pty)", seconds(full["seconds"]),
        target="a Rich progress bar is drawn", met=bool(full["bar"]) and full["rc"] == 0,
        note=f"exit {full['rc']}, progress bar drawn: {full['bar']}",
    ))
    finished_first = cut["exit_after_signal"] is None or cut["rc"] == 0
    prompt = finished_first or cut["exit_after_signal"] <= PROMPT
    results.add(Row(
        section, "CLI Ctrl+C (SIGINT halfway into a cold run): exit, and what is left",
        "—" if cut["exit_after_signal"] is None else f"{seconds(cut['exit_after_signal'])}, {len(cut['left'])} left",
        target=f"exits within {seconds(PROMPT)}; nothing left, or the bundle whole",
        met=prompt and cut["whole"] and cut["rc"] in (0, 130),
        note=f"SIGINT {seconds(after)} in; exit {cut['rc']}, 'cancelled' said: {cut['cancel_message']}, left in the"
        f" cache: {cut['left'] or 'nothing'}" + ("; the ingest had finished before the signal" if finished_first else "")
        + ("" if cut["whole"] else "; a bundle was left half built"),
    ))

    cache = Path(tempfile.mkdtemp(prefix="cancel-app-", dir=workdir))
    try:
        say(f"  app: cold open, Escape after {seconds(after)}")
        app = run_child("app_cancel", report=str(report), cache=str(cache), after=after)
        whole = left_whole(cache)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    stopped = not app["loading_when_cancelled"] or (app["progress_updates"] > 0 and app["worker_done_seconds"] <= PROMPT)
    results.add(Row(
        section, "app Escape (halfway into a cold open): progress shown, exit, what is left",
        f"{seconds(app['worker_done_seconds'])}, {len(app['left'])} left",
        target=f"progress bar updated, ingest stopped within {seconds(PROMPT)}; nothing left, or the bundle whole",
        met=stopped and whole,
        note=("the ingest had finished before Escape; " if not app["loading_when_cancelled"] else "")
        + f"{app['progress_updates']} progress updates ({', '.join(app['stages'])}); still loading when"
        f" Escape was pressed: {app['loading_when_cancelled']}; app exited after {seconds(app['exit_seconds'])};"
        f" left in the cache: {app['left'] or 'nothing'}" + ("" if whole else "; a bundle was left half built"),
    ))
