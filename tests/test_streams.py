"""Missing and failing standard streams, with real processes: standard output closed (`>&-`) or full
(`>/dev/full`) ends every command with one line and status 2; the explorer without a terminal on
stdin, stdout and stderr says so in one line, before drawing; `pvtui export` onto an existing file
writes nothing.
"""

from __future__ import annotations

import json
import os
import pty
import selectors
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pvtui.process.streams import NEEDS_TERMINAL

WAIT = 120  # seconds a process may take before the test fails: the machine may be loaded
LOST = "pvtui: cannot write to standard output: "


def pvtui(*args: str) -> list[str]:
    return [sys.executable, "-m", "pvtui.cli", *args]


def command_args(command: str, report: Path, out: Path) -> list[str]:
    """COMMAND's arguments for a run that prints on standard output (OUT: a path it may create)."""
    return {
        "compare": [str(report), str(report)],
        "split": [str(report), "--ipus", "2"],
        "export": [str(report), str(out)],
        "synth": [str(out), "--scale", "tiny"],
        "cache": [],
        "options": ['{"autoReport.all": "true"}'],
        "capture": ["--no-open", "--dir", str(out), "--", sys.executable, "-c", "pass"],
        "serve": [str(report), "--port", "0"],
        "--help": [],
        "--version": [],
    }.get(command, [str(report)])


EVERY_COMMAND = ("summary", "memory", "liveness", "programs", "trace", "insights", "operations", "hotspots", "compare",
                 "split", "export", "options", "capture", "check", "synth", "cache", "serve", "--help", "--version")


def close_stdout() -> None:
    os.close(1)


@pytest.mark.parametrize("fault", ["closed", "full"])
@pytest.mark.parametrize("command", EVERY_COMMAND)
def test_standard_output_closed_or_full_is_one_line_and_status_2(tiny_dir, tmp_path, command, fault):
    argv = pvtui(command, *command_args(command, tiny_dir, tmp_path / "out"))
    with open("/dev/full", "w") as full:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=full, stderr=subprocess.PIPE, text=True,
                              timeout=WAIT, preexec_fn=close_stdout if fault == "closed" else None)
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last == LOST + ("it is closed" if fault == "closed" else "No space left on device")
    assert done.returncode == 2


def test_with_stdout_and_stderr_closed_a_command_ends_with_status_2(tiny_dir):
    def close_both() -> None:
        os.close(1)
        os.close(2)

    done = subprocess.run(pvtui("summary", str(tiny_dir)), stdin=subprocess.DEVNULL, timeout=WAIT,
                          preexec_fn=close_both)
    assert done.returncode == 2


def test_with_stderr_closed_a_warning_never_goes_to_stdout():
    """Python's print(file=None) prints on stdout: with stderr closed, `options` would put its warning
    (no POPLAR_ENGINE_OPTIONS) into its JSON."""
    env = {k: v for k, v in os.environ.items() if k != "POPLAR_ENGINE_OPTIONS"}
    done = subprocess.run(pvtui("options", "--json"), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True,
                          timeout=WAIT, env=env, preexec_fn=lambda: os.close(2))
    assert isinstance(json.loads(done.stdout), dict)


# The explorer


def run_explorer(report: Path, terminal: set[int], others: dict[int, object], keys: bytes = b"") -> tuple[int, bytes]:
    """`pvtui REPORT` with the streams in TERMINAL on a pty (80x24) and each other one as OTHERS says
    ("closed", or a file object); its status and what reached the pty."""
    master, slave = pty.openpty()
    os.set_blocking(master, False)
    streams = {fd: (slave if fd in terminal else None if others[fd] == "closed" else others[fd]) for fd in (0, 1, 2)}
    closed = [fd for fd, stream in streams.items() if stream is None]

    def close_the_closed() -> None:
        os.setsid()
        for fd in closed:
            os.close(fd)

    env = {**os.environ, "COLUMNS": "80", "LINES": "24", "TERM": "xterm-256color"}
    env.pop("TEXTUAL_DRIVER", None)
    process = subprocess.Popen(pvtui(str(report)), stdin=streams[0] or subprocess.DEVNULL,
                               stdout=streams[1] or subprocess.DEVNULL, stderr=streams[2] or subprocess.DEVNULL,
                               preexec_fn=close_the_closed, env=env)
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + WAIT
    with selectors.DefaultSelector() as selector:
        selector.register(master, selectors.EVENT_READ)
        while process.poll() is None and time.monotonic() < deadline:
            if selector.select(timeout=0.2):
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
            if keys and b"\x1b[?1049h" in seen:  # the app has drawn: type the keys
                time.sleep(1)
                os.write(master, keys)
                keys = b""
    try:
        status = process.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    return status, seen


@pytest.mark.slow  # a pty
@pytest.mark.parametrize("terminal, others", [
    ({1, 2}, {0: "devnull"}),  # stdin not a terminal: it drew, then ignored q
    ({1, 2}, {0: "closed"}),
    ({0, 2}, {1: "file"}),  # stdout redirected: it drew the app into the file
    ({0, 2}, {1: "closed"}),
    ({0, 1}, {2: "devnull"}),
    ({0, 1}, {2: "closed"}),  # it drew, and neither q nor Ctrl+C stopped it
])
def test_the_explorer_without_a_terminal_says_so_before_drawing(tiny_dir, tmp_path, terminal, others):
    out = tmp_path / "out.txt"
    with open(os.devnull, "r+b") as devnull, open(out, "wb") as file:
        named = {"devnull": devnull, "file": file, "closed": "closed"}
        status, seen = run_explorer(tiny_dir, terminal, {fd: named[kind] for fd, kind in others.items()})
    assert status == 2
    assert b"\x1b" not in seen and out.read_bytes() == b""  # nothing drawn, anywhere
    said = seen.decode().replace("\r\n", "\n").strip()
    assert said == (NEEDS_TERMINAL if 2 in terminal else "")


@pytest.mark.slow  # a pty
def test_the_explorer_on_a_terminal_draws_and_quits_with_q(tiny_dir):
    status, seen = run_explorer(tiny_dir, {0, 1, 2}, {}, keys=b"q")
    assert b"\x1b[?1049h" in seen and NEEDS_TERMINAL.encode() not in seen
    assert status == 0


# pvtui export onto what exists


@pytest.mark.parametrize("kind", ["file", "link to a file", "dangling link", "link to an empty directory"])
def test_export_onto_an_existing_file_or_link_is_one_line_and_writes_nothing(tiny_dir, tmp_path, kind):
    target = tmp_path / "target"
    if kind == "link to an empty directory":
        target.mkdir()
    elif kind != "dangling link":
        target.write_text("keep me")
    out = tmp_path / "out"
    if kind == "file":
        out = target
    else:
        out.symlink_to(target)
    before = sorted(p.name for p in tmp_path.iterdir())
    done = subprocess.run(pvtui("export", str(tiny_dir), str(out)), stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=WAIT)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"pvtui: {out}: ") and "nothing was written" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    if target.is_file():
        assert target.read_text() == "keep me"
    if target.is_dir():
        assert list(target.iterdir()) == []
