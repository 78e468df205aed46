"""The standard streams when they are missing or failing: closed at start, full, not a terminal.

`pvtui CMD >&-` starts with no standard output, `>/dev/full` with one every write to which fails.
Either ends the command with one line on stderr (where there is one) and status 2, never a
traceback. The explorer draws on stderr and reads its keys from stdin: without a terminal there it
could be neither seen nor stopped. It also wants one on stdout, so that `pvtui PATH > file` gets the
same one line (naming the commands that print) rather than an app drawn for nobody: one rule for the
three streams, said before anything is drawn.
"""

from __future__ import annotations

import io
import os
import sys

NEEDS_TERMINAL = "pvtui needs a terminal; use `pvtui summary` and the other commands, or `pvtui serve`"


class OutputLost(Exception):
    """Standard output cannot be written: closed when pvtui started, a full disk, an I/O error.

    Not an OSError: a command's handling of its own files' errors must not take it for one of theirs.
    (A reader that closed the pipe stays a BrokenPipeError: that ends a command quietly.)
    """


class _Output(io.FileIO):
    """File descriptor 1, whose failures raise OutputLost; once discarded, writes go nowhere."""

    def __init__(self, closed_at_start: bool) -> None:
        super().__init__(1, "wb", closefd=False)
        self.lost = "it is closed" if closed_at_start else None

    def write(self, data) -> int:
        if self.lost:
            raise OutputLost(self.lost)
        try:
            return super().write(data)
        except (BrokenPipeError, BlockingIOError):
            raise
        except OSError as exc:
            raise OutputLost(exc.strerror or str(exc)) from None

    def discard(self) -> None:
        self.lost = None
        _onto_devnull(1)


def guard_standard_streams() -> None:
    """Give a closed stdin, stdout or stderr /dev/null (so no file pvtui opens takes its number and
    receives what was meant for it, and print(file=sys.stderr) does not print on stdout), and make
    standard output's failures OutputLost.

    A terminal's standard output is left as Python made it, and so is one already replaced (by pytest).
    """
    closed = [fd for fd in (0, 1, 2) if not _is_open(fd)]
    for fd in closed:
        _onto_devnull(fd)
    if sys.stdin is None:
        sys.stdin = open(0, closefd=False)
    if sys.stderr is None:  # else print(file=sys.stderr) would print on standard output
        sys.stderr = open(2, "w", closefd=False)
    if sys.stdout is not sys.__stdout__ or (sys.stdout is not None and sys.stdout.isatty()):
        return
    encoding = sys.stdout.encoding if sys.stdout is not None else "utf-8"
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(_Output(1 in closed)), encoding=encoding,
                                  errors="backslashreplace")


def discard_output() -> None:
    """From now on, what is written to standard output goes nowhere (and Python's flush at exit
    cannot fail): after its reader went away, or after OutputLost was said."""
    raw = getattr(getattr(sys.stdout, "buffer", None), "raw", None)
    if isinstance(raw, _Output):
        raw.discard()
    else:
        _onto_devnull(1)


def on_a_terminal() -> bool:
    """Whether the explorer can run here: stdin, stdout and stderr each a terminal, or a Textual
    driver that is not the terminal's (TEXTUAL_DRIVER: `pvtui serve`'s sessions run the web driver)."""
    if os.environ.get("TEXTUAL_DRIVER"):
        return True
    return all(os.isatty(fd) for fd in (0, 1, 2))


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _onto_devnull(fd: int) -> None:
    devnull = os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY)
    if devnull != fd:
        os.dup2(devnull, fd)
        os.close(devnull)
