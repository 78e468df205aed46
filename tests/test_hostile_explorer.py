"""The explorer in a real terminal (a pty) over reports whose every name tries to drive it
(pvtui/synth/hostile.py): every screen, tab, tree, dialog, notification and the palette walked,
and every byte it wrote checked. Textual's own escape sequences are there; none of the planted ones
is, nor a hyperlink made of a name's markup; and the names are shown, made visible."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import select
import shutil
import signal
import struct
import sys
import termios
import time
from pathlib import Path

import pytest

from pvtui.synth import write_report
from pvtui.synth.hostile import DIRECTORY, planted_in

pytestmark = pytest.mark.slow

KEYS = {"escape": b"\x1b", "enter": b"\r", "tab": b"\t", "space": b" ", "up": b"\x1b[A", "down": b"\x1b[B",
        "right": b"\x1b[C", "left": b"\x1b[D", "ctrl+p": b"\x10", "pagedown": b"\x1b[6~"}
SHOWN = "␛".encode()  # in every hostile name, made visible (nothing else draws it)
# Textual brackets each frame in synchronized output where the terminal says it has it: asked
# (DECRQM), the terminal here says so, and a key's effect is drawn when a frame has ended and
# nothing more comes for QUIET seconds (a frame that follows at once, a screen's second layout, is
# taken in too).
SYNC_QUERY, SYNC_SUPPORTED = b"\x1b[?2026$p", b"\x1b[?2026;2$y"
FRAME_START, FRAME_END = b"\x1b[?2026h", b"\x1b[?2026l"
QUIET = 0.1  # seconds without output after a frame's end
FIRST = 2.0  # seconds a key may take to start drawing


class Terminal:
    """pvtui running in a pseudo-terminal of SIZE; every byte it writes is kept in `output`."""

    def __init__(self, args: list, cwd: Path, size: tuple[int, int] = (120, 40)) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE")}
        env.update(TERM="xterm-256color", COLORTERM="truecolor", TEXTUAL_ANIMATIONS="none")
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the pty is its terminal
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
            os.chdir(cwd)
            os.execve(sys.executable, [sys.executable, "-m", "pvtui.cli", *map(str, args)], env)
        self.poll = select.poll()
        self.poll.register(self.fd, select.POLLIN)
        self.output = bytearray()
        self.marks: dict[str, int] = {}  # where in the output each step of the walk began
        self.typed = 0  # where in the output the last keys were typed
        self.synchronized = False  # whether pvtui has asked for synchronized output and been told yes
        self.ended = False  # whether pvtui has closed the terminal

    def ready(self, seconds: float) -> bool:
        """Whether output arrives within SECONDS (poll, not select: the suite opens many files)."""
        return bool(self.poll.poll(max(seconds, 0) * 1000))

    def read(self, seconds: float) -> bytes:
        """What arrives within SECONDS."""
        got = bytearray()
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0 and self.ready(left):
            try:
                chunk = os.read(self.fd, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self.ended = True
                break
            got += chunk
        self.output += got
        if not self.synchronized and SYNC_QUERY in self.output:
            os.write(self.fd, SYNC_SUPPORTED)
            self.synchronized = True
        return bytes(got)

    def drawn(self, since: int) -> bool:
        """Whether a frame ended in the output after SINCE, and no frame is being written."""
        return self.output.rfind(FRAME_END, since) > self.output.rfind(FRAME_START, since) >= since

    def settle(self, most: float = 15.0, first: float = 0.0, since: int | None = None) -> None:
        """Read until a frame has ended since SINCE (the last keys typed) and nothing more comes for
        QUIET seconds (or MOST seconds pass), having waited up to FIRST seconds for anything at all (on
        a busy machine a key takes a while to be drawn)."""
        end = time.monotonic() + most
        if first and not self.ready(first):
            return
        since = self.typed if since is None else since
        while time.monotonic() < end and not self.ended:
            if self.drawn(since) and not self.ready(QUIET):
                return
            self.read(0.02)

    def wait_for(self, text: bytes, most: float = 60.0) -> None:
        """Read until TEXT is drawn (since the last keys were typed)."""
        start = self.typed
        end = time.monotonic() + most
        while text not in self.output[start:] and time.monotonic() < end:
            self.read(0.05)
        assert text in self.output[start:], f"{text!r} never came; the last bytes: {bytes(self.output[-2000:])!r}"
        self.settle()

    def wait_watching(self, most: float = 60.0) -> None:
        """Read until pvtui watches the report's files (an inotify descriptor among its files): the report
        is read whole. Shown while it is read, a file changed then is read again, not offered."""
        end = time.monotonic() + most
        while not self._has_inotify() and time.monotonic() < end:
            self.read(0.05)
        assert self._has_inotify(), "pvtui never began to watch the report's files"

    def _has_inotify(self) -> bool:
        descriptors = Path(f"/proc/{self.pid}/fd")
        with contextlib.suppress(OSError):
            return any("inotify" in os.readlink(fd) for fd in descriptors.iterdir())
        return False

    def press(self, *keys: str, label: str | None = None) -> None:
        """Type KEYS, one at a time, each drawn before the next."""
        self.typed = len(self.output)
        if label is not None:
            self.marks[label] = self.typed
        for key in keys:
            typed = len(self.output)
            os.write(self.fd, KEYS.get(key, key.encode()))
            self.settle(first=FIRST, since=typed)

    def close(self) -> int:
        """Quit with q (or end it), and return its exit status."""
        try:
            for key in (b"\x1b", b"q", b"q"):  # each given a second to end it
                os.write(self.fd, key)
                end = time.monotonic() + 1.0
                while time.monotonic() < end:
                    self.read(0.05)
                    finished, status = os.waitpid(self.pid, os.WNOHANG)
                    if finished:
                        self.read(0.5)
                        return os.waitstatus_to_exitcode(status)
            os.kill(self.pid, signal.SIGTERM)
            return os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        finally:
            os.close(self.fd)

    def steps(self) -> dict[str, bytes]:
        """What was written during each step of the walk, by its label."""
        starts = sorted(self.marks.items(), key=lambda item: item[1])
        ends = [start for _, start in starts[1:]] + [len(self.output)]
        return {label: bytes(self.output[start:end]) for (label, start), end in zip(starts, ends)}




@pytest.fixture(scope="module")
def two_hostile_reports(tmp_path_factory, cache_root) -> Path:
    """A tree of two hostile reports (engines), so that the explorer starts with its picker."""
    root = tmp_path_factory.mktemp("walk")
    write_report(root / "training", scale="tiny", names="hostile")
    write_report(root / "inference", scale="tiny", ipus=1, seed=1, names="hostile")
    return root


SCREENS = [  # (label, the keys of one step of the walk)
    ("summary", ["s", "f", "down", "space", "down", "down", "space", "pagedown", "f", "down", "space"]),
    ("memory", ["m", "w", "]", "]", "]", "]", "[", "[", "v", "c", "c", "/", "l", "a", "y", "e", "r", "enter",
                "escape"]),
    ("liveness", ["l", "k", "v", "v", "b", "right", "right", "v"]),
    ("programs", ["p", "e", "down", "right", "down", "right", "down", "down", "L", "L", "L", "/", "C", "o", "n", "v",
                  "enter", "n", "escape"]),
    ("trace", ["t", "right", "right", "f", "down", "b", "n", "S", "r", "r", "c", "P"]),
    ("operations", ["o", "down", "L", "L", "/", "l", "a", "y", "enter", "down", "T", "o", "escape", "P"]),
    ("hotspots", ["H", "down", "g", "S", "/", "l", "a", "y", "enter", "g", "g", "y", "escape", "T", "H", "L", "H",
                  "enter"]),
    ("insights", ["i", "n", "n", "n", "n", "n", "N", "+"]),  # to each section: the vertices, the live variables
    ("help", ["?", "pagedown", "escape"]),
    ("palette", ["ctrl+p", "e", "x", "p", "escape"]),
    ("export", ["x", "escape"]),
    ("units", ["m", "u"]),
    ("picker", ["E", "down", "enter"]),
]
NAMELESS = {"help", "palette", "units"}  # steps that draw no name: what they show is pvtui's own


def test_every_screen_over_hostile_names_writes_only_textuals_own_sequences(two_hostile_reports, tmp_path):
    terminal = Terminal([two_hostile_reports], cwd=tmp_path)
    try:
        terminal.wait_for(b"Reports")  # the picker: both reports are named after their hostile directories
        assert terminal.synchronized, "pvtui asked for no synchronized output: no frame's end to wait for"
        terminal.marks["start"] = 0
        terminal.press("enter", label="open")
        terminal.wait_for(b"Architecture")  # a fact of the Summary
        for label, keys in SCREENS:
            terminal.press(*keys, label=label)
        terminal.press("x", "down", "down", "enter", label="svg")  # the screen as SVG, in the current directory
        terminal.wait_for(b"Wrote the screen")  # taken after the dialog's frame, then said
    finally:
        status = terminal.close()
    output = bytes(terminal.output)
    assert status == 0, output[-3000:]
    steps = terminal.steps()
    leaks = {label: found for label, written in steps.items() if (found := planted_in(written))}
    assert leaks == {} and planted_in(output) == []
    assert b"\x1b[?1049h" in output  # Textual's own sequences (the alternate screen) are there
    # each step drew hostile names, made visible: the walk looked where they are
    assert [label for label, written in steps.items() if SHOWN not in written and label not in NAMELESS] == []
    svgs = list(tmp_path.glob("*.svg"))
    assert len(svgs) == 1, "the SVG export wrote nothing"
    svg = svgs[0].read_text("utf-8")
    assert planted_in(svg.encode()) == [] and "␛" in svg


def walk(terminal: Terminal, ready: bytes, steps: list[tuple[str, list[str]]]) -> dict[str, bytes]:
    """Wait for READY, take STEPS, quit; what each step wrote (the quitting too)."""
    try:
        terminal.wait_for(ready)
        terminal.marks["start"] = 0
        for label, keys in steps:
            terminal.press(*keys, label=label)
        terminal.press(label="quit")
    finally:
        status = terminal.close()
    assert status in (0, 2), bytes(terminal.output[-3000:])
    return terminal.steps()


def assert_walk_safe(steps: dict[str, bytes], nameless: set[str] = frozenset()) -> None:
    leaks = {label: found for label, written in steps.items() if (found := planted_in(written))}
    assert leaks == {} and planted_in(b"".join(steps.values())) == []
    unshown = [label for label, written in steps.items() if SHOWN not in written and label not in nameless]
    assert unshown in ([], ["quit"])  # quitting draws nothing new


def test_compare_and_its_reports_over_hostile_names(two_hostile_reports, tmp_path):
    a, b = (next((two_hostile_reports / engine).iterdir()) for engine in ("training", "inference"))
    steps = walk(Terminal(["compare", a, b], cwd=tmp_path), b"Quantity", [
        ("tiles", ["2", "w"]), ("liveness", ["3", "right"]), ("programs", ["4", "down"]),
        ("operations", ["5", "down"]), ("switch", ["s", "B"]), ("programs of B", ["p", "e", "down"]),
    ])
    assert_walk_safe(steps, nameless={"tiles", "liveness"})


def test_loading_reloading_and_failing_to_open_over_hostile_names(hostile_dir, tmp_path):
    """The loading dialog, the reload prompt and its notification, and the dialog of a report that
    does not open, each naming a hostile directory."""
    unbundled = tmp_path / "reports" / DIRECTORY  # no bundle of its own: the files are read, with progress
    shutil.copytree(hostile_dir, unbundled, ignore=shutil.ignore_patterns("profile.pvtui"))
    terminal = Terminal([unbundled], cwd=tmp_path)
    try:
        terminal.wait_for(b"Architecture")
        terminal.wait_watching()
        terminal.marks["opened"] = 0
        app_json = unbundled / "app.json"
        app_json.write_bytes(app_json.read_bytes() + b" ")
        terminal.typed = len(terminal.output)
        terminal.wait_for(b"changed on disk")
        terminal.press("r", label="reloaded")
        terminal.wait_for(b"Reloaded")
    finally:
        status = terminal.close()
    assert status == 0
    assert_walk_safe(terminal.steps())
    broken = tmp_path / "broken" / DIRECTORY
    broken.mkdir(parents=True)
    (broken / "archive.a").write_bytes(b"!<arch>\n" + b"\x1b]0;junk" * 10)
    steps = walk(Terminal([broken], cwd=tmp_path), b"Cannot open", [("findings", ["down"])])
    assert_walk_safe(steps, nameless={"findings"})


def test_capture_live_shows_the_programs_output_and_paths_made_visible(hostile_dir, tmp_path):
    """The waiting screen names the directory and tails the program's output (which quotes hostile
    paths: a program's colours and cursor moves are shown, not done over the explorer); then the report."""
    fake = Path(__file__).with_name("fake_poplar.py")
    terminal = Terminal(["capture", "--live", "--dir", tmp_path / DIRECTORY, "--", sys.executable, fake,
                         "--engines", "training", "--source", hostile_dir, "--delay", "0.3"], cwd=tmp_path)
    try:
        terminal.wait_for(b"fake_poplar: writing")  # its output, quoting the paths it writes
        terminal.wait_for(b"Architecture")  # then the report
        terminal.marks["capture"] = 0
    finally:
        status = terminal.close()
    assert status == 0
    assert_walk_safe(terminal.steps())
