"""`pvtui serve` in a real browser: the system's chromium driven through playwright (skipped, saying how
to install them, where either is missing), one chromium for the module's tests on one worker.

A module of their own: playwright's sync API runs an event loop on the thread while the browser lives,
so a test after them in the same module (where the module's browser still lives) could not asyncio.run.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import polled
from test_serve import WAIT, plain, serve

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
# Chromium's own scheduler says so on a loaded machine: a remark on the machine, not an error of the page's
CHROMIUM_LOAD_WARNING = re.compile(r"^task queue exceeded allotted deadline by \d+ms$")
# a footer entry only each screen shows, and the key that opens it
SCREENS = {"m": "Worst tile", "l": "Go to peak", "p": "Expand children", "t": "BSP/details",
           "i": "More IPUs", "o": "Group", "s": "Next JSON tree"}


ONE_BROWSER = pytest.mark.xdist_group("browser")  # the browser tests share one chromium: one worker runs them


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
        self.requests: list[str] = []  # every address the page asked for, the websocket's too
        self.console: list[str] = []  # the page's console errors and warnings (a CSP refusal is one)
        self.refused: list[str] = []  # the addresses answered with an error status
        page.on("request", lambda request: self.requests.append(request.url))
        page.on("websocket", self._watch)
        page.on("console", lambda message: message.type in ("error", "warning") and not
                CHROMIUM_LOAD_WARNING.search(message.text) and self.console.append(message.text))
        page.on("response", lambda response: response.status >= 400 and self.refused.append(response.url))

    def _watch(self, websocket) -> None:
        self.url = websocket.url
        self.requests.append(websocket.url)
        # the terminal's output comes in binary frames; text frames are the protocol's (pong...)
        websocket.on("framereceived", lambda frame: isinstance(frame, bytes) and self.frames.append(frame))

    def text(self) -> str:
        return plain(b"".join(self.frames).decode("utf-8", "replace"))

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


@ONE_BROWSER
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
        # everything the page loaded came from the server, under its token; Roboto Mono too
        own = f"//127.0.0.1:{served.port}/{served.token}/"
        assert screen.requests and all(url.split(":", 1)[1].startswith(own) for url in screen.requests), screen.requests
        assert f"http:{own}static/fonts/RobotoMono-VariableFont_wght.ttf" in screen.requests
        assert page.evaluate("[...document.fonts].some(f => f.family.includes('Roboto Mono') && f.status == 'loaded')")
        # the terminal has the keys from the start: no click on the page first
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
        assert screen.console == [] and screen.refused == []  # a clean console: no CSP error, no 403 favicon
        page.close()
        served.wait_for_app_processes(0)


@ONE_BROWSER
def test_closing_the_page_ends_its_process(browser, tiny_dir):
    with serve(tiny_dir) as served:
        page, screen = open_page(browser, served.url)
        (pid,) = served.wait_for_app_processes(1)
        page.close()
        served.wait_for_app_processes(0)
        # gone from the server's descendants, it may still be a zombie for a moment before the server reaps it
        assert polled(lambda: not Path(f"/proc/{pid}").exists(), WAIT)
        assert served.process.poll() is None  # the server carries on


@ONE_BROWSER
def test_a_session_that_fails_at_start_says_why_in_the_page(browser, tiny_dir, tmp_path):
    report = tmp_path / "report"
    shutil.copytree(tiny_dir, report)
    with serve(report) as served:
        shutil.rmtree(report)  # gone since the server read it: each session's `pvtui open` fails at start
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        screen = Screen(page)
        page.goto(served.url)
        screen.wait_for("the explorer stopped (exit status 2)")
        assert f"pvtui: {report}: no such file or directory" in screen.text()
        page.wait_for_selector("body.-closed")
        assert page.is_visible("text=The session has ended")
        page.close()
    assert f"pvtui serve:   pvtui: {report}: no such file or directory" in served.process.stderr.read()
