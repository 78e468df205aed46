"""`pvtui serve`: the token, the session cap and the app processes, through HTTP and a real browser.

Each test runs its own server on 127.0.0.1 (a port the system picks) and stops it. The browser
tests drive the system's chromium through playwright; where either is missing they are skipped,
saying how to install them.
"""

from __future__ import annotations

import asyncio
import http.client
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
WAIT = 60  # seconds any one wait may take before the test fails: the machine may be loaded
# a footer entry only each screen shows, and the key that opens it
SCREENS = {"m": "Worst tile", "l": "Go to peak", "p": "Expand children", "t": "BSP/details",
           "i": "More IPUs", "o": "Group", "s": "Next JSON tree"}


class Served:
    def __init__(self, process: subprocess.Popen, url: str) -> None:
        self.process = process
        self.url = url
        parts = urlsplit(url)
        self.host, self.port, self.token = parts.hostname, parts.port, parts.path.strip("/")

    def app_processes(self) -> list[int]:
        """The explorer processes the server runs: its descendants running `python -m pvtui.cli open`."""
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
                if argv[1:4] == [b"-m", b"pvtui.cli", b"open"]:
                    found.append(pid)
        return found

    def wait_for_app_processes(self, count: int) -> list[int]:
        for _ in range(WAIT * 10):
            if len(pids := self.app_processes()) == count:
                return pids
            time.sleep(0.1)
        raise AssertionError(f"{len(self.app_processes())} app processes, not {count}")

    def status(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
        """A plain HTTP GET of PATH: the status and the body."""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=WAIT)
        try:
            connection.request("GET", path, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.read().decode("utf-8", "replace")
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
        assert status == 200 and "<script>alert(1)" not in body


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
    from pvtui.commands.web_session import SessionServer

    monkeypatch.setattr(web_session, "QUIT_GRACE", 0.5)  # quicker; the order of signals is what is tested
    monkeypatch.setattr(web_session, "KILL_GRACE", 0.5)
    pid_file = tmp_path / "pid"
    command = "exec " + shlex.join([sys.executable, "-c", HUNG_APP, str(pid_file)])
    server = SessionServer(command, title="hung", host="127.0.0.1", port=0, token="t0ken", max_sessions=1)

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


def test_open_browser_opens_the_tokenised_url(tiny_dir, monkeypatch, capsys):
    monkeypatch.setenv("DISPLAY", ":0")
    status, opened, said = serve_in_process(tiny_dir, monkeypatch, lambda url: True)
    printed = capsys.readouterr().out.splitlines()[0]
    assert status == 0 and printed.startswith("pvtui serve: open ")
    assert opened == [printed.split()[-1]] and re.fullmatch(r"http://127\.0\.0\.1:\d+/[\w-]{32}/", opened[0])
    assert not any("by hand" in line for line in said)


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
    for _ in range(WAIT * 10):
        if not any(Path(f"/proc/{pid}").exists() for pid in pids):
            break
        time.sleep(0.1)
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids)


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


# the browser


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).is_file():
        pytest.skip("chromium is not installed: `apt-get install -y chromium` (Debian) to run the browser tests")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed: `pip install -e '.[test]'` to run the browser tests")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Screen:
    """What the app process sends to one page, as text without escape sequences."""

    def __init__(self, page) -> None:
        self.page = page
        self.frames: list[bytes] = []
        self.url = ""
        page.on("websocket", self._watch)

    def _watch(self, websocket) -> None:
        self.url = websocket.url
        # the terminal's output comes in binary frames; text frames are the protocol's (pong...)
        websocket.on("framereceived", lambda frame: isinstance(frame, bytes) and self.frames.append(frame))

    def text(self) -> str:
        return re.sub(r"\x1b(\[[0-9;?$]*[A-Za-z]|\][^\x07]*\x07)", "", b"".join(self.frames).decode("utf-8", "replace"))

    def wait_for(self, words: str) -> None:
        for _ in range(WAIT * 10):
            if words in self.text():
                return
            self.page.wait_for_timeout(100)
        raise AssertionError(f"{words!r} never appeared on the page")


def open_page(browser, url: str):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    screen = Screen(page)
    page.goto(url)
    screen.wait_for(SCREENS["s"])  # the summary, with the report opened
    return page, screen


def test_the_explorer_in_chromium_by_keys_and_by_mouse(browser, tiny_dir, tmp_path):
    with serve(tiny_dir) as served:
        page, screen = open_page(browser, served.url)
        # the first frame paints every row whole: the top one is the tab bar, from column 0
        columns, rows = map(int, re.search(r"width=(\d+)&height=(\d+)", screen.url).groups())
        tab_bar = next(line for line in screen.text().splitlines() if "Summary" in line and "Liveness" in line)
        assert len(tab_bar) == columns
        page.wait_for_timeout(500)
        before = page.screenshot(path=str(tmp_path / "summary.png"))
        assert before[:8] == b"\x89PNG\r\n\x1a\n"
        page.click("#terminal")  # the terminal takes the keys
        for key, words in SCREENS.items():
            screen.frames.clear()
            page.keyboard.press(key)
            screen.wait_for(words)
            if key == "m":
                page.wait_for_timeout(500)
                assert page.screenshot(path=str(tmp_path / "memory.png")) != before

        # the tabs by mouse: a cell is the terminal's size over its columns and rows
        box = page.locator(".xterm-screen").bounding_box()
        cell_width, cell_height = box["width"] / columns, box["height"] / rows
        for tab, key in (("Memory", "m"), ("Liveness", "l"), ("Programs", "p"), ("Trace", "t"), ("Insights", "i"),
                         ("Operations", "o"), ("Summary", "s")):
            screen.frames.clear()
            page.mouse.click(box["x"] + (tab_bar.index(tab) + 2.5) * cell_width, box["y"] + cell_height / 2)
            screen.wait_for(SCREENS[key])
        page.close()
        served.wait_for_app_processes(0)


def test_closing_the_page_ends_its_process(browser, tiny_dir):
    with serve(tiny_dir) as served:
        page, screen = open_page(browser, served.url)
        (pid,) = served.wait_for_app_processes(1)
        page.close()
        served.wait_for_app_processes(0)
        assert not Path(f"/proc/{pid}").exists()
        assert served.process.poll() is None  # the server carries on
