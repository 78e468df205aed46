"""`pvtui serve [PATH]`: the explorer in a browser, an app process per connection, safe by default.

textual-serve runs `pvtui open PATH` once per browser connection and relays its screen over a
websocket. Around it: every route sits under a random token (a request without it gets 403 before
any route runs, so it never starts a process), the server listens on loopback unless --host says
otherwise, and at most --max-sessions app processes run at once.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import html
import ipaddress
import os
import secrets
import shlex
import shutil
import signal
import socket
import stat
import sys
import tempfile
import threading
import webbrowser
from pathlib import Path

from pvtui.commands.common import EXIT_BAD_INPUT, find_report, load, say
from pvtui.commands.open import add_arguments as add_open_arguments

LOOPBACK = "127.0.0.1"
LOOPBACK_NAMES = (LOOPBACK, "::1", "localhost")
# What a session's Python runs: `pvtui.cli` as `-m` would, but with the current directory taken off the
# path first (-m and -c put it first, so that a `pvtui/` there, such as the project's own checkout,
# would be imported instead of the installed pvtui). Python 3.11's -P does this; 3.10 has no -P.
SESSION_MAIN = "import sys; sys.path[:1] = filter(None, sys.path[:1]); from pvtui.cli import main; sys.exit(main())"
# The page --open-browser opens: it sends the browser on to the URL with the token
REDIRECT = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url={url}">
<title>pvtui serve</title></head>
<body><p><a href="{url}">Open pvtui</a></p></body></html>
"""
GRAPHICAL = ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")  # a display for a browser, or a browser named by the user


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_open_arguments(parser)  # each session runs `pvtui open` with these
    parser.set_defaults(path=Path("."), screen="summary", reader="auto")  # every session alike, whatever was left
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000; 0: any free port)")
    parser.add_argument("--host", default=LOOPBACK,
                        help="address to listen on (default 127.0.0.1, this machine only; another address "
                             "lets whoever reaches it on the network open the explorer with the printed URL)")
    parser.add_argument("--max-sessions", type=int, default=4,
                        help="browser sessions (app processes) that may run at once (default 4)")
    parser.add_argument("--open-browser", action="store_true", help="open the URL in this machine's browser")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to any interface
        return False


def is_every_interface(host: str) -> bool:
    """Whether HOST (0.0.0.0, ::) means every address of this machine."""
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def host_names(host: str) -> frozenset[str]:
    """The host names a browser may call a server listening on HOST by (the Host header's name, which
    DNS rebinding makes another site's): loopback's, HOST itself, and where HOST is every interface
    (0.0.0.0, ::) this machine's name, which the URL printed gives."""
    names = {*LOOPBACK_NAMES, host}
    if is_every_interface(host):
        names.add(socket.gethostname())
    return frozenset(name.lower() for name in names)


def who_can_reach(host: str, port: int) -> str:
    """The warning for a non-loopback HOST: who can reach the explorer."""
    where = f"every network interface of {socket.gethostname()}" if is_every_interface(host) else host
    return (f"warning: listening on {where}, port {port}: anyone who can reach it on the network and has the "
            f"URL below (its token) can open this report; traffic is plain HTTP, not encrypted. "
            f"Use the default ({LOOPBACK}) with an SSH port forward to keep it to yourself.")


def app_command(args: argparse.Namespace) -> str:
    """The shell command that runs one session's explorer: this Python, the installed pvtui, on the same
    report (`exec`: the app is the process started, so that ending it ends the app, not a shell above it)."""
    argv = [sys.executable, "-c", SESSION_MAIN, "open", str(args.path.resolve()), "--screen", args.screen]
    if args.engine:
        argv += ["--engine", args.engine]
    if args.theme:
        argv += ["--theme", args.theme]
    argv += ["--reader", args.reader]
    if args.debug:  # a session's stderr is shown in its page and the server's output where the app fails
        argv.append("--debug")
    return "exec " + shlex.join(argv)


def run(args: argparse.Namespace) -> int:
    if args.max_sessions < 1:
        say(f"pvtui serve: --max-sessions must be 1 or more, not {args.max_sessions}")
        return EXIT_BAD_INPUT
    if not 0 <= args.port <= 65535:
        say(f"pvtui serve: --port must be 0 to 65535, not {args.port}")
        return EXIT_BAD_INPUT
    # Read the report once, here: each session's process then opens the cached bundle at once, and a
    # bad path is one line now rather than in every browser tab.
    report = load(args.path, args.engine, args.reader)
    if args.theme is not None:  # checked here too, or every session would end at once
        from pvtui.app import PvtuiApp, theme_problem

        if problem := theme_problem(PvtuiApp([find_report(args.path, args.engine)], watch=False), args.theme):
            say(problem)
            return EXIT_BAD_INPUT
    if not is_loopback(args.host):
        say(who_can_reach(args.host, args.port))
    from pvtui.commands.web_session import SessionServer

    server = SessionServer(app_command(args), title=f"pvtui {report.name}", host=args.host, port=args.port,
                           token=secrets.token_urlsafe(24), max_sessions=args.max_sessions,
                           names=host_names(args.host), any_address=is_every_interface(args.host))
    try:
        return asyncio.run(_serve(server, args.open_browser))
    except OSError as exc:  # the port is taken, the address is not this machine's...
        say(f"pvtui serve: cannot listen on {args.host} port {args.port}: {exc.strerror or exc}")
        return EXIT_BAD_INPUT


def stop_when_stdin_ends(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> None:
    """Under `ssh host pvtui serve` without a terminal (no -t), no hangup signal comes when the SSH
    session closes: stdin, sshd's pipe or socket, ends instead. The server must not outlive it."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return  # a terminal or /dev/null: nothing to watch
    descriptor = sys.stdin.fileno()

    def read() -> None:
        try:
            ended = not os.read(descriptor, 4096)
        except OSError:
            ended = True
        if ended:
            loop.remove_reader(descriptor)
            stop.set()
            with contextlib.suppress(OSError):  # stderr may have gone with the session too
                say("pvtui serve: standard input closed (the SSH session ended?); stopping")

    loop.add_reader(descriptor, read)


def open_in_browser(url: str, folder: Path) -> bool:
    """Open URL in this machine's web browser, by way of a page in FOLDER that sends the browser on to
    it: every local user can read a browser's command line (in /proc), which must not hold the token.
    Else say (one line) to open it by hand. Without a display, only a text browser could run: it would
    take the server's terminal and cannot run the page."""
    if sys.platform.startswith("linux") and not any(os.environ.get(name) for name in GRAPHICAL):
        say("  no display here for a web browser: open the URL above by hand")
        return False
    try:
        opened = webbrowser.open(redirect_page(url, folder).as_uri())
    except (webbrowser.Error, OSError) as exc:
        say(f"  the web browser could not be started ({exc}): open the URL above by hand")
        return False
    if not opened:
        say("  no web browser found here: open the URL above by hand")
    return opened


def redirect_page(url: str, folder: Path) -> Path:
    """A page in FOLDER that sends the browser on to URL, readable and writable by this user alone
    (FOLDER too: mkdtemp makes it so)."""
    path = folder / "open-pvtui.html"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with open(descriptor, "w", encoding="utf-8") as page:
        page.write(REDIRECT.format(url=html.escape(url)))
    return path


async def _serve(server, open_browser: bool) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # SIGHUP: the terminal closed
        loop.add_signal_handler(signum, stop.set)
    stop_when_stdin_ends(loop, stop)
    port = await server.start()
    folder = None  # where the page that opens the browser is, until the server stops
    try:
        url = server.url(socket.gethostname() if is_every_interface(server.host) else server.host, port)
        with contextlib.suppress(OSError):  # the SSH session that started the server may be gone already
            print(f"pvtui serve: open {url}", flush=True)
            say(f"  {server.max_sessions} sessions at most; Ctrl+C stops the server and every session")
        if open_browser:
            try:
                folder = Path(tempfile.mkdtemp(prefix="pvtui-serve-"))
            except OSError as exc:
                say(f"  no room for the page that opens the web browser ({exc.strerror or exc}): "
                    "open the URL above by hand")
            else:  # in a thread of its own: a browser's command may not return at once
                threading.Thread(target=open_in_browser, args=(url, folder), daemon=True).start()
        await stop.wait()
    finally:
        await server.stop()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    return 0
