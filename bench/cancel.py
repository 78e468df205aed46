"""Cold ingest shows progress and can be cancelled, leaving no bundle behind.

On the command line: `pvtui summary REPORT` with an empty cache, its stderr on a
pseudo-terminal so that Rich draws its bar; once run to the end (the bar must have
been drawn), once interrupted with SIGINT (Ctrl+C) a second in. In the app: the
loading screen's progress updates are counted and Escape is pressed a second in.
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

PROMPT = 1.0  # seconds from the interrupt to the exit that count as prompt
BAR_MARKS = ("━", "%")


def _as_from_a_terminal() -> None:
    """Ctrl+C as a terminal delivers it: a benchmark started in the background (`cmd &`,
    nohup) has SIGINT ignored, its children inherit that, and Python then keeps it ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _leftovers(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.iterdir()) if cache.exists() else []


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
        say("  CLI: cold `pvtui summary`, SIGINT after 1 s")
        cut = _cli(report, cache, 1.0)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    results.add(Row(
        section, "CLI cold `pvtui summary` (whole run, on a pty)", seconds(full["seconds"]),
        target="a Rich progress bar is drawn", met=bool(full["bar"]) and full["rc"] == 0,
        note=f"exit {full['rc']}, progress bar drawn: {full['bar']}",
    ))
    finished_first = cut["exit_after_signal"] is None or cut["rc"] == 0
    prompt = not finished_first and cut["exit_after_signal"] <= PROMPT
    clean = not cut["left"]
    results.add(Row(
        section, "CLI Ctrl+C (SIGINT 1 s into a cold ingest): exit, and bundles left",
        "—" if cut["exit_after_signal"] is None else f"{seconds(cut['exit_after_signal'])}, {len(cut['left'])} left",
        target=f"exits within {seconds(PROMPT)}, nothing left", met=prompt and clean and cut["rc"] == 130,
        note=f"exit {cut['rc']}, 'cancelled' said: {cut['cancel_message']}, left in the cache: {cut['left'] or 'nothing'}"
        + ("; the ingest had finished before the signal" if finished_first else ""),
    ))

    cache = Path(tempfile.mkdtemp(prefix="cancel-app-", dir=workdir))
    try:
        say("  app: cold open, Escape after 1 s")
        app = run_child("app_cancel", report=str(report), cache=str(cache), after=1.0)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    ok = app["loading_when_cancelled"] and app["progress_updates"] > 0 and not app["left"] \
        and app["worker_done_seconds"] <= PROMPT
    results.add(Row(
        section, "app Escape (1 s into a cold open): progress shown, exit, bundles left",
        f"{seconds(app['worker_done_seconds'])}, {len(app['left'])} left",
        target=f"progress bar updated, ingest stopped within {seconds(PROMPT)}, nothing left", met=ok,
        note=("the ingest had finished before Escape; " if not app["loading_when_cancelled"] else "")
        + f"{app['progress_updates']} progress updates ({', '.join(app['stages'])}); still loading when"
        f" Escape was pressed: {app['loading_when_cancelled']}; app exited after {seconds(app['exit_seconds'])};"
        f" left in the cache: {app['left'] or 'nothing'}",
    ))
