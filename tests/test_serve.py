"""`pvtui serve`: the token, the session cap and the app processes, through HTTP and websockets (in a real
browser: test_serve_browser.py).

Each test runs its own server on 127.0.0.1 (a port the system picks) and stops it.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import re
import selectors
import signal
import stat
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import polled

pytestmark = pytest.mark.slow

WAIT = 60  # seconds any one wait may take before the test fails: the machine may be loaded


class Served:
    def __init__(self, process: subprocess.Popen, url: str) -> None:
        self.process = process
        self.url = url
        parts = urlsplit(url)
        self.host, self.port, self.token = parts.hostname, parts.port, parts.path.strip("/")

    def app_processes(self) -> list[int]:
        """The explorer processes the server runs: its descendants running pvtui.cli's `open`."""
        children: dict[int, list[int]] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                children.setdefault(ppid, []).append(int(entry.name))
        found, todo = [], [self.process.pid]
        while todo:
            for pid in children.get(todo.pop(), []):
                todo.append(pid)
                try:
                    argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                except OSError:
                    continue
                if argv[1:2] == [b"-c"] and b"pvtui.cli" in argv[2] and argv[3:4] == [b"open"]:
                    found.append(pid)
        return found

    def wait_for_app_processes(self, count: int) -> list[int]:
        found = polled(lambda: [pids for pids in [self.app_processes()] if len(pids) == count], WAIT, every=0.1)
        if not found:
            raise AssertionError(f"{len(self.app_processes())} app processes, not {count}")
        return found[0]

    def status(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
        """A plain HTTP GET of PATH: the status and the body."""
        status, _, body = self.get(path, headers)
        return status, body

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, http.client.HTTPMessage, str]:
        """A plain HTTP GET of PATH: the status, the headers and the body."""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=WAIT)
        try:
            connection.request("GET", path, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.headers, response.read().decode("utf-8", "replace")
        finally:
            connection.close()


WEBSOCKET_UPGRADE = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                     "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}


def printed_url(process: subprocess.Popen) -> str:
    """The URL the server prints once it listens."""
    deadline = time.monotonic() + WAIT
    line = ""
    with selectors.DefaultSelector() as selector:  # not select(): a full test run may hold over 1024 files
        selector.register(process.stdout, selectors.EVENT_READ)
        while "http://" not in line and time.monotonic() < deadline and process.poll() is None:
            if selector.select(timeout=1):
                line = process.stdout.readline()
    assert "http://" in line, f"no URL printed: {line!r} {process.stderr.read() if process.poll() else ''}"
    return line.split()[-1]


@contextmanager
def serve(report: Path, *options: str):
    """`pvtui serve REPORT --port 0 OPTIONS` running, until the block ends."""
    process = subprocess.Popen(
        [sys.executable, "-m", "pvtui.cli", "serve", str(report), "--port", "0", *options],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy(),
    )
    try:
        yield Served(process, printed_url(process))
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise


def test_a_request_without_the_token_gets_403_and_starts_no_process(tiny_dir):
    with serve(tiny_dir) as served:
        assert served.url.startswith("http://127.0.0.1:")
        wrong = served.token[:-1] + ("A" if served.token[-1] != "A" else "B")
        for path in ("/", "/ws", f"/{wrong}/", f"/{wrong}/ws", "/static/js/textual.js",
                     f"/{served.token[:8]}/ws", f"/ws/{served.token}", f"/?token={served.token}"):
            status, body = served.status(path, WEBSOCKET_UPGRADE if path.endswith("ws") else None)
            assert status == 403, path
            assert "open the URL that `pvtui serve` printed" in body
        assert served.app_processes() == []
        status, body = served.status(f"/{served.token}/")
        assert status == 200 and f"ws://127.0.0.1:{served.port}/{served.token}/ws" in body
        assert served.app_processes() == []  # the page alone starts nothing: its websocket does
        # through a port forward to another local port, the page's websocket goes where the page came from
        status, body = served.status(f"/{served.token}/", {"Host": "127.0.0.1:9000"})
        assert status == 200 and f"ws://127.0.0.1:9000/{served.token}/ws" in body
        status, body = served.status(f"/{served.token}/", {"Host": 'x"><script>alert(1)</script>'})
        assert status == 400 and "<script>alert(1)" not in body


def policy(header: str) -> dict[str, list[str]]:
    """A Content-Security-Policy header as {directive: [sources]}."""
    return {name: values for name, *values in (part.split() for part in header.split(";") if part.strip())}


def test_every_response_keeps_the_page_to_itself(tiny_dir):
    """No referrer (the token is in every URL), no framing, and a page that may load from its own server
    alone, and talk to its own websocket alone: whatever the response, a refusal too."""
    with serve(tiny_dir) as served:
        root = f"/{served.token}"
        for path, expected in ((f"{root}/", 200), (f"{root}/page.css", 200), (f"{root}/page.js", 200),
                               (f"{root}/favicon.svg", 200), (f"{root}/static/js/textual.js", 200),
                               (f"{root}/static/fonts/RobotoMono-VariableFont_wght.ttf", 200), ("/", 403),
                               (f"{root}/nothing", 404)):
            status, headers, _ = served.get(path)
            assert status == expected, path
            assert headers["Referrer-Policy"] == "no-referrer" and headers["X-Frame-Options"] == "DENY", path
            directives = policy(headers["Content-Security-Policy"])
            assert directives.pop("connect-src") == ["'self'", f"ws://127.0.0.1:{served.port}"], path
            assert directives.pop("default-src") == ["'none'"] and directives.pop("frame-ancestors") == ["'none'"]
            styles = directives.pop("style-src")  # its own, and textual.js's two inline styles by their hashes
            assert styles[0] == "'self'" and len(styles) == 3 and all(s.startswith("'sha256-") for s in styles[1:])
            assert all(sources in (["'self'"], ["'none'"]) for sources in directives.values()), directives
        # through an SSH port forward to local port 9000, the page's own websocket is the forwarded one
        _, headers, _ = served.get(f"{root}/", {"Host": "127.0.0.1:9000"})
        assert "ws://127.0.0.1:9000" in policy(headers["Content-Security-Policy"])["connect-src"]
        page = served.status(f"{root}/")[1]
        assert "http" not in page  # every address in the page is relative: its own server's


async def connect(served: Served, origin: str | None = None, host: str | None = None):
    """A websocket to the server, sent as a browser would from a page at ORIGIN (Host: HOST)."""
    import aiohttp

    session = aiohttp.ClientSession()
    try:
        return session, await session.ws_connect(f"http://{served.host}:{served.port}/{served.token}/ws",
                                                 origin=origin, headers={"Host": host} if host else None)
    except BaseException:
        await session.close()
        raise


async def a_session_starts_and_ends(served: Served, origin: str | None, host: str | None) -> None:
    """A websocket from ORIGIN (Host: HOST) starts an app process, which ends when it closes."""
    session, websocket = await connect(served, origin, host)
    await asyncio.to_thread(served.wait_for_app_processes, 1)
    await websocket.close()
    await session.close()
    await asyncio.to_thread(served.wait_for_app_processes, 0)


def test_a_page_of_another_origin_is_refused_and_a_port_forward_is_not(tiny_dir):
    import aiohttp

    async def scenario(served: Served) -> None:
        own = f"127.0.0.1:{served.port}"
        # another site's page, a sandboxed or file page ("null"), the same host on another port: refused
        for origin, host in (("http://evil.example", None), ("null", None), ("http://127.0.0.1:9000", None),
                             (f"https://{own}", None)):
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await connect(served, origin, host)
            assert refused.value.status == 403, origin
            status, body = served.status(f"/{served.token}/", {"Origin": origin, **({"Host": host} if host else {})})
            assert status == 403 and "another site" in body, origin
        assert served.app_processes() == []
        # the server's own origin, directly or through `ssh -L 9000:127.0.0.1:PORT` (the browser's Host and
        # Origin both name 127.0.0.1:9000); a program that sends no Origin passes on its token alone
        for origin, host in ((f"http://{own}", None), ("http://127.0.0.1:9000", "127.0.0.1:9000"),
                             ("http://LOCALHOST:9000", "localhost:9000"), (None, None)):
            await a_session_starts_and_ends(served, origin, host)

    with serve(tiny_dir) as served:
        asyncio.run(scenario(served))


def test_a_host_name_the_server_does_not_listen_as_is_refused_on_the_page_and_the_websocket(tiny_dir):
    """DNS rebinding: a page at evil.example whose name now points at 127.0.0.1 sends Host: evil.example, and
    its own origin, with the token it was given. Refused before any page or process, the token not echoed."""
    import aiohttp

    async def scenario(served: Served) -> None:
        for host in (f"evil.example:{served.port}", "evil.example", "127.0.0.1.evil.example:9000",
                     f"localhost.:{served.port}", "[::2]:9000", f"10.0.0.1:{served.port}"):
            origin = f"http://{host}"
            for headers in ({"Host": host}, {"Host": host, "Origin": origin}):
                status, body = served.status(f"/{served.token}/", headers)
                assert status == 403 and "a host this server does not listen as" in body, headers
                assert served.token not in body
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await connect(served, origin, host)
            assert refused.value.status == 403, host
        assert served.app_processes() == []
        for host in (f"127.0.0.1:{served.port}", f"LocalHost:{served.port}", f"[::1]:{served.port}",
                     "127.0.0.1:9000", "localhost"):  # any port: an SSH forward to another local port
            status, body = served.status(f"/{served.token}/", {"Host": host})
            assert status == 200 and f"ws://{host.lower()}/{served.token}/ws" in body, host
        await a_session_starts_and_ends(served, f"http://localhost:{served.port}", f"localhost:{served.port}")

    with serve(tiny_dir) as served:
        asyncio.run(scenario(served))


@pytest.mark.parametrize("listening, accepted, refused", [
    ("127.0.0.2", ["127.0.0.2:8000", "127.0.0.1:8000", "localhost:9000", "[::1]:8000"],
     ["evil.example:8000", "127.0.0.3:8000", "ipu-host:8000"]),
    ("ipu-host.example", ["IPU-HOST.example:8000", "localhost:8000"], ["evil.example:8000", "ipu-host:8000"]),
    ("0.0.0.0", ["{hostname}:8000", "10.1.2.3:8000", "[fe80::1]:8000", "127.0.0.1"], ["evil.example:8000"]),
    ("::", ["{hostname}", "[2001:db8::1]:8000"], ["evil.example:8000", "evil.example"]),
])
def test_the_host_names_accepted_are_those_the_server_listens_as(listening, accepted, refused):
    """The --host given, loopback's names, and on every interface this machine's name (the printed URL's)
    and any address: a name that is none of these can only be another site's."""
    import socket

    from aiohttp.test_utils import make_mocked_request

    from pvtui.commands.serve import host_names, is_every_interface
    from pvtui.commands.web_session import names_this_server

    def passes(host: str) -> bool:
        request = make_mocked_request("GET", "/", headers={"Host": host.format(hostname=socket.gethostname())})
        return names_this_server(request, host_names(listening), is_every_interface(listening))

    assert [host for host in accepted if not passes(host)] == []
    assert [host for host in refused if passes(host)] == []


async def open_session(served: Served):
    import aiohttp

    session = aiohttp.ClientSession()
    try:
        return session, await session.ws_connect(f"http://{served.host}:{served.port}/{served.token}/ws"
                                                 "?width=80&height=24")
    except BaseException:
        await session.close()
        raise


def test_sessions_over_the_cap_are_refused_and_a_closed_session_ends_its_process(tiny_dir):
    import aiohttp

    async def scenario(served: Served) -> None:
        opened = [await open_session(served) for _ in range(2)]
        first_pids = await asyncio.to_thread(served.wait_for_app_processes, 2)
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await open_session(served)
        assert refused.value.status == 503
        status, body = served.status(f"/{served.token}/")
        assert status == 503 and "2 sessions are open" in body and "--max-sessions 2" in body
        assert sorted(served.app_processes()) == sorted(first_pids)

        session, websocket = opened.pop(0)
        await websocket.close()
        await session.close()
        await asyncio.to_thread(served.wait_for_app_processes, 1)
        opened.append(await open_session(served))  # room again
        await asyncio.to_thread(served.wait_for_app_processes, 2)
        for session, websocket in opened:
            await websocket.close()
            await session.close()
        await asyncio.to_thread(served.wait_for_app_processes, 0)

    with serve(tiny_dir, "--max-sessions", "2") as served:
        asyncio.run(scenario(served))


# An app that says it is a Textual app, then ignores the quit, SIGTERM and its stdin closing: hung.
HUNG_APP = """
import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
open(sys.argv[1], "w").write(str(os.getpid()))
print("__GANGLION__", flush=True)
while True:
    time.sleep(60)
"""


def test_a_hung_app_is_ended_when_its_websocket_closes_and_its_place_freed(tmp_path, monkeypatch):
    import shlex

    import aiohttp

    from pvtui.commands import web_session
    from pvtui.commands.serve import host_names
    from pvtui.commands.web_session import SessionServer

    monkeypatch.setattr(web_session, "QUIT_GRACE", 0.5)  # quicker; the order of signals is what is tested
    monkeypatch.setattr(web_session, "KILL_GRACE", 0.5)
    pid_file = tmp_path / "pid"
    command = "exec " + shlex.join([sys.executable, "-c", HUNG_APP, str(pid_file)])
    server = SessionServer(command, title="hung", host="127.0.0.1", port=0, token="t0ken", max_sessions=1,
                           names=host_names("127.0.0.1"), any_address=False)

    async def until(condition) -> None:
        for _ in range(WAIT * 10):
            if condition():
                return
            await asyncio.sleep(0.1)
        raise AssertionError("never happened")

    async def scenario() -> None:
        port = await server.start()
        url = f"http://127.0.0.1:{port}/t0ken/ws"
        pid = None
        try:
            async with aiohttp.ClientSession() as client:
                websocket = await client.ws_connect(url)
                await until(lambda: pid_file.exists() and pid_file.read_text())
                pid = int(pid_file.read_text())
                await websocket.close()
                await until(lambda: not server.sessions)
                assert not Path(f"/proc/{pid}").exists()  # killed, and reaped
                pid_file.unlink()
                websocket = await client.ws_connect(url)  # its place among --max-sessions 1 is free
                await until(lambda: pid_file.exists() and pid_file.read_text())
                await websocket.close()
                await until(lambda: not server.sessions)
        finally:
            await server.stop()
            if pid is not None and Path(f"/proc/{pid}").exists():  # the fix failed: end it here
                os.kill(pid, signal.SIGKILL)

    asyncio.run(scenario())


# An app that fails at start, as `pvtui open` on a report gone since the server started, with a
# control sequence (the window's title) in what it says.
FAILING_APP = """
import sys
sys.stderr.write("pvtui: /reports/\\x1b]0;owned\\x07r1: no such file or directory\\n")
sys.exit(2)
"""


def plain(text: str) -> str:
    """TEXT without its escape sequences (colours, cursor moves, window titles)."""
    return re.sub(r"\x1b(\[[0-9;?$]*[A-Za-z]|\][^\x07]*\x07)", "", text)


async def received(websocket, until: str | None = None) -> str:
    """What the app process sends over WEBSOCKET, as text, until it holds UNTIL (escape sequences aside)
    or the server closes it."""
    import aiohttp

    text = ""

    async def read() -> None:
        nonlocal text
        async for message in websocket:
            if message.type == aiohttp.WSMsgType.BINARY:
                text += message.data.decode("utf-8", "replace")
                if until is not None and until in plain(text):
                    return

    await asyncio.wait_for(read(), WAIT)
    return text


def test_an_app_that_fails_at_start_says_why_in_the_page_and_in_the_servers_output(capfd):
    import shlex

    import aiohttp

    from pvtui.commands.serve import host_names
    from pvtui.commands.web_session import SessionServer

    command = "exec " + shlex.join([sys.executable, "-c", FAILING_APP])
    server = SessionServer(command, title="failing", host="127.0.0.1", port=0, token="t0ken", max_sessions=1,
                           names=host_names("127.0.0.1"), any_address=False)

    async def scenario() -> str:
        port = await server.start()
        try:
            async with aiohttp.ClientSession() as client:
                websocket = await client.ws_connect(f"http://127.0.0.1:{port}/t0ken/ws")
                text = await received(websocket)  # until the server closes it
                assert websocket.closed
        finally:
            await server.stop()
        return text

    page = asyncio.run(scenario())
    said = capfd.readouterr().err.splitlines()
    assert "pvtui serve: the explorer stopped (exit status 2):" in page
    assert "pvtui: /reports/␛]0;owned␇r1: no such file or directory" in page and "\x1b]" not in page
    assert said[-2:] == ["pvtui serve: the explorer stopped (exit status 2):",
                         "pvtui serve:   pvtui: /reports/␛]0;owned␇r1: no such file or directory"]


def serve_in_process(tiny_dir, monkeypatch, opener) -> tuple[int, list[str], list[str]]:
    """`pvtui serve --open-browser` in this process, with OPENER as webbrowser.open, stopped (by SIGINT, as
    Ctrl+C) once the browser has been opened or pvtui has said to open the URL by hand; (exit status,
    URLs opened, lines said)."""
    import webbrowser

    from pvtui import cli
    from pvtui.commands import serve as serve_command

    opened, said = [], []

    def stop() -> None:
        os.kill(os.getpid(), signal.SIGINT)

    def open_browser(url: str) -> bool:
        opened.append(url)
        answer = opener(url)
        if answer:
            stop()
        return answer

    def say(line: str) -> None:
        said.append(line)
        if "open the URL above by hand" in line:
            stop()

    monkeypatch.setattr(webbrowser, "open", open_browser)
    monkeypatch.setattr(serve_command, "say", say)
    return cli.main(["serve", str(tiny_dir), "--port", "0", "--open-browser"]), opened, said


def test_open_browser_opens_a_private_page_that_goes_on_to_the_tokenised_url(tiny_dir, monkeypatch, capsys):
    monkeypatch.setenv("DISPLAY", ":0")
    pages = []

    def opener(url: str) -> bool:
        page = Path(urlsplit(url).path)
        pages.append((page, page.read_text(), page.stat().st_mode, page.parent.stat().st_mode))
        return True

    status, opened, said = serve_in_process(tiny_dir, monkeypatch, opener)
    printed = capsys.readouterr().out.splitlines()[0]
    assert status == 0 and printed.startswith("pvtui serve: open ")
    url = printed.split()[-1]
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/[\w-]{32}/", url)
    ((page, text, mode, folder_mode),) = pages
    assert opened == [page.as_uri()] and urlsplit(url).path.strip("/") not in opened[0]
    assert f'content="0; url={url}"' in text
    assert stat.S_IMODE(mode) == 0o600 and stat.S_IMODE(folder_mode) == 0o700
    assert not page.parent.exists()  # removed when the server stopped
    assert not any("by hand" in line for line in said)


# Run as the web browser: records its arguments and its environment, and the page it was given.
FAKE_BROWSER = """
import json, os, sys
from urllib.parse import urlsplit
page = urlsplit(sys.argv[1]).path
record = {"argv": sys.argv, "environ": dict(os.environ), "page": open(page).read()}
json.dump(record, open(os.environ["FAKE_BROWSER_RECORD"], "w"))
"""


def test_the_token_is_on_no_command_line_and_in_no_environment(tiny_dir, tmp_path):
    """Every local user can read each process's command line in /proc: the browser's, the server's and the
    sessions' hold no token, nor their environments (readable by the same user, and inherited)."""
    script = tmp_path / "browser"
    script.write_text(f"#!{sys.executable}\n{FAKE_BROWSER}")
    script.chmod(0o700)
    record = tmp_path / "record.json"
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(BROWSER=f"{script} %s", FAKE_BROWSER_RECORD=str(record))
    process = subprocess.Popen([sys.executable, "-m", "pvtui.cli", "serve", str(tiny_dir), "--port", "0",
                                "--open-browser"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env)
    served = Served(process, printed_url(process))

    async def a_session() -> list[int]:
        session, websocket = await open_session(served)
        pids = await asyncio.to_thread(served.wait_for_app_processes, 1)
        for pid in [process.pid, *pids]:
            for name in ("cmdline", "environ"):
                assert served.token.encode() not in Path(f"/proc/{pid}/{name}").read_bytes(), (pid, name)
        await websocket.close()
        await session.close()
        return pids

    try:
        polled(lambda: record.exists() and record.stat().st_size, WAIT, every=0.1)
        browser = json.loads(record.read_text())
        asyncio.run(a_session())
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=WAIT)
    assert served.token not in " ".join(browser["argv"])
    assert not [name for name, value in browser["environ"].items() if served.token in value]
    page = Path(urlsplit(browser["argv"][1]).path)
    assert browser["argv"][1] == page.as_uri() and served.url in browser["page"]
    assert not page.exists()


def _no_browser(url: str) -> bool:
    return False


def _browser_fails(url: str) -> bool:
    import webbrowser

    raise webbrowser.Error("could not locate runnable browser")


@pytest.mark.parametrize("opener, display, says", [
    (_no_browser, ":0", "no web browser found here"),
    (_browser_fails, ":0", "could not be started (could not locate runnable browser)"),
    (None, None, "no display here for a web browser"),  # a text browser would take the terminal: none is tried
])
def test_open_browser_without_a_browser_says_so_and_serves_on(tiny_dir, monkeypatch, capsys, opener, display, says):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
        monkeypatch.delenv(name, raising=False)
    if display:
        monkeypatch.setenv("DISPLAY", display)
    status, opened, said = serve_in_process(tiny_dir, monkeypatch, opener)
    assert status == 0 and "pvtui serve: open http://127.0.0.1:" in capsys.readouterr().out
    assert len(opened) == (1 if opener else 0)
    assert [line for line in said if "by hand" in line] == [line for line in said if says in line] and \
        len([line for line in said if says in line]) == 1


def test_stopping_the_server_ends_its_sessions(tiny_dir):
    async def scenario(served: Served) -> list[int]:
        session, _ = await open_session(served)
        pids = await asyncio.to_thread(served.wait_for_app_processes, 1)
        served.process.send_signal(signal.SIGINT)
        await asyncio.to_thread(served.process.wait, WAIT)
        await session.close()
        return pids

    with serve(tiny_dir) as served:
        pids = asyncio.run(scenario(served))
    assert polled(lambda: not any(Path(f"/proc/{pid}").exists() for pid in pids), WAIT, every=0.1)


def test_the_server_stops_when_its_ssh_session_closes(tiny_dir):
    """`ssh host pvtui serve` without -t: no hangup signal; sshd closes the pipes of stdin, stdout and stderr."""
    process = subprocess.Popen([sys.executable, "-m", "pvtui.cli", "serve", str(tiny_dir), "--port", "0"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert printed_url(process).startswith("http://127.0.0.1:")
        for stream in (process.stdin, process.stdout, process.stderr):
            stream.close()
        assert process.wait(timeout=WAIT) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def run_serve(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pvtui.cli", "serve", *args], capture_output=True, text=True,
                          timeout=WAIT, env=os.environ.copy())


def test_another_address_than_loopback_warns_who_can_reach_it(tiny_dir):
    # 192.0.2.1 (TEST-NET-1) is no address of this machine: the warning comes, then the refusal to listen
    done = run_serve(str(tiny_dir), "--host", "192.0.2.1", "--port", "0")
    assert done.returncode == 2
    warning, refusal = done.stderr.strip().splitlines()
    assert warning.startswith("warning: listening on 192.0.2.1, port 0: anyone who can reach it")
    assert refusal.startswith("pvtui serve: cannot listen on 192.0.2.1 port 0")
    assert done.stdout == ""


def test_who_can_reach_names_every_interface_for_0000():
    from pvtui.commands.serve import is_loopback, who_can_reach

    assert "every network interface" in who_can_reach("0.0.0.0", 8000)
    assert "every network interface" in who_can_reach("::", 8000)
    assert all(is_loopback(host) for host in ("127.0.0.1", "127.0.0.2", "::1", "localhost"))
    assert not any(is_loopback(host) for host in ("0.0.0.0", "::", "10.0.0.1", "ipu-host"))


def test_bad_input_is_one_line_before_listening(tmp_path):
    done = run_serve(str(tmp_path / "nothing"), "--port", "0")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and done.stdout == ""
    done = run_serve(str(tmp_path), "--max-sessions", "0")
    assert done.returncode == 2 and "--max-sessions must be 1 or more" in done.stderr


def test_an_unknown_theme_is_one_line_before_listening(tiny_dir):
    done = run_serve(str(tiny_dir), "--port", "0", "--theme", "no-such-theme")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [done.stderr.strip()] and "no theme named 'no-such-theme'" in done.stderr
