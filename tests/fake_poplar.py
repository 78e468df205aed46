"""A stand-in "Poplar program" for the capture tests: it reads POPLAR_ENGINE_OPTIONS as Poplar does and
writes, for each of its engines, the report files those options ask for (taken from a synthetic report),
a chunk at a time, slowly enough to be seen while it writes.

    python tests/fake_poplar.py [--engines training,inference] [--delay S] [--sleep S] [--exit N]
                                [--die-before-writing] [--echo-stdin] [--source DIR]

It prints the options it ran with as one line, `fake_poplar options: {...}`, on stderr; it says
`fake_poplar: got SIGINT` (or SIGTERM) for each such signal, and half a second after the first exits
130 (143), as Python programs do.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

CHUNK = 1 << 20


def on(options: dict, key: str) -> bool:
    """An autoReport.output* option, as Poplar resolves it: set, else what autoReport.all says."""
    value = options.get(key, options.get("autoReport.all", "false"))
    return value == "true"


def wanted_files(options: dict) -> list[str]:
    execution = on(options, "autoReport.outputExecutionProfile") and options.get("debug.instrument") != "false"
    files = []
    if on(options, "autoReport.outputGraphProfile") or execution:
        files.append("profile.pvtui")  # the synthetic stand-in for profile.pop
    if on(options, "autoReport.outputArchive"):
        files.append("archive.a")
    if on(options, "autoReport.outputDebugInfo"):
        files.append("debug.cbor")
    return files


def copy_slowly(source: Path, dest: Path, delay: float) -> None:
    """SOURCE to DEST a chunk at a time; a bundle directory's meta.json last, as it would be finished."""
    if source.is_dir():
        dest.mkdir(parents=True, exist_ok=True)
        for path in sorted(source.iterdir(), key=lambda p: p.name == "meta.json"):
            copy_slowly(path, dest / path.name, 0)
            time.sleep(delay / 10)
        return
    with source.open("rb") as src, dest.open("wb") as out:
        while chunk := src.read(CHUNK):
            out.write(chunk)
            out.flush()
            time.sleep(delay)


class Stop(Exception):
    pass


def stop(signum, frame) -> None:
    if not Stop.__dict__.get("signum"):
        Stop.signum = signum
        raise Stop()


def say_signals(delivered: int) -> None:
    """Each signal delivered (Python runs its handler once for several pending: the wakeup fd counts them)."""
    os.set_blocking(delivered, False)
    try:
        numbers = os.read(delivered, 1024)
    except BlockingIOError:
        numbers = b""
    for number in numbers:
        print(f"fake_poplar: got {signal.Signals(number).name}", file=sys.stderr, flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--engines", default="training,inference", help="comma separated; empty: no name")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds between chunks written")
    parser.add_argument("--sleep", type=float, default=0.0, help="seconds to wait before writing")
    parser.add_argument("--exit", type=int, default=0)
    parser.add_argument("--die-before-writing", action="store_true")
    parser.add_argument("--echo-stdin", action="store_true")
    parser.add_argument("--source", type=Path, help="a synthetic report to copy (default: one made now)")
    args = parser.parse_args()
    delivered, wakeup = os.pipe()
    os.set_blocking(wakeup, False)
    signal.set_wakeup_fd(wakeup, warn_on_full_buffer=False)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        return run(args)
    except Stop:
        time.sleep(0.5)  # a second signal would arrive in this time
        say_signals(delivered)
        return 128 + Stop.signum


def run(args: argparse.Namespace) -> int:
    options = json.loads(os.environ.get("POPLAR_ENGINE_OPTIONS", "{}"))
    print(f"fake_poplar options: {json.dumps(options)}", file=sys.stderr, flush=True)
    print(f"fake_poplar log level: {os.environ.get('POPLAR_PROFILER_LOG_LEVEL', '')}", file=sys.stderr, flush=True)
    if args.echo_stdin:
        print(f"fake_poplar stdin: {sys.stdin.readline().strip()}", flush=True)
    deadline = time.monotonic() + args.sleep
    while time.monotonic() < deadline:
        time.sleep(0.05)
    if args.die_before_writing:
        os.kill(os.getpid(), signal.SIGKILL)
    files = wanted_files(options)
    directory = Path(options.get("autoReport.directory", "."))
    with tempfile.TemporaryDirectory() as scratch:
        source = args.source
        if source is None and files:
            from pvtui.synth import write_report

            source = write_report(Path(scratch) / "synth", scale="tiny")
        for engine in [e for e in args.engines.split(",") if e] or [""]:
            out = directory / engine
            out.mkdir(parents=True, exist_ok=True)
            for name in files:
                print(f"fake_poplar: writing {out / name}", flush=True)
                copy_slowly(source / name, out / name, args.delay)
    print("fake_poplar: done", flush=True)
    return args.exit


if __name__ == "__main__":
    sys.exit(main())
