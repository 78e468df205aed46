"""Running the user's program in pvtui's place: its exit status, with SIGINT and SIGTERM passed on."""

from __future__ import annotations

import signal
import subprocess

WATCHED = {signal.SIGINT, signal.SIGTERM, signal.SIGCHLD}
SI_KERNEL = 0x80  # si_code of a signal the kernel sent, as the terminal's Ctrl+C (Linux)
EXIT_CANNOT_RUN = 127


def exit_status(returncode: int) -> int:
    """A shell's exit status: 128 + N for a program killed by signal N."""
    return 128 - returncode if returncode < 0 else returncode


def ending(status: int) -> str:
    """How a program ended, from its exit status: `ended with exit status 3`, `was ended by SIGINT (...)`."""
    if status > 128 and status - 128 in signal.valid_signals():
        return f"was ended by {signal.Signals(status - 128).name} (exit status {status})"
    return f"ended with exit status {status}"


def start(argv: list[str], env: dict[str, str], **popen) -> tuple[subprocess.Popen, object]:
    """Start ARGV with SIGINT, SIGTERM and SIGCHLD held for `wait` (the program itself gets them as usual).

    Returns the process and the signal mask to give back; OSError when it cannot be started.
    """
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, WATCHED)
    try:
        child = subprocess.Popen(argv, env=env, preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_SETMASK,
                                                                                          old_mask), **popen)
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        raise
    return child, old_mask


def forward_until_exit(child: subprocess.Popen, shares_terminal: bool = True, on_signal=None) -> int:
    """Wait for CHILD to end, passing SIGINT and SIGTERM on; its exit status. Any thread may run it
    while the signals are held in every thread (as `start` holds them in the threads started after it).

    A Ctrl+C at the terminal reaches every process of the foreground group, the program among them:
    where it shares pvtui's terminal, such a signal is not sent to it a second time. ON_SIGNAL(signum)
    is told of each signal passed on.
    """
    while child.poll() is None:
        info = signal.sigtimedwait(WATCHED, 0.5)
        if info is None or info.si_signo == signal.SIGCHLD:
            continue
        if shares_terminal and info.si_code == SI_KERNEL:
            continue
        child.send_signal(info.si_signo)
        if on_signal is not None:
            on_signal(info.si_signo)
    return exit_status(child.returncode)


def release(old_mask) -> None:
    """Give the signals back (to the calling thread), dropping those held, so that none is raised now."""
    while signal.sigtimedwait(WATCHED, 0) is not None:
        pass
    signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)


def wait(child: subprocess.Popen, old_mask, shares_terminal: bool = True) -> int:
    """`forward_until_exit`, then `release`."""
    try:
        return forward_until_exit(child, shares_terminal)
    finally:
        release(old_mask)
