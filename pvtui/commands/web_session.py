"""The web server behind `pvtui serve`: textual-serve's sessions behind a token, a cap and an origin check.

textual-serve gives the relay of a websocket's messages to an app process, textual.js with its
stylesheet and font, and the download handler. This builds its own aiohttp application around them:
every route under /TOKEN/; a middleware that answers 403 to a request without the token or sent by
another site's page; headers that keep the page to itself (it loads nothing from elsewhere, cannot be
framed, sends no referrer); pvtui's own page, which needs no inline script or style; a count of the
sessions running; and an app process sure to end with its session (asked to quit, then SIGTERM, then
SIGKILL), whose error, where it stops by itself, is shown in the page and in the server's output.

It relies on private parts of textual-serve 1.x: `Server._process_messages` (the relay), and
`AppService._open_app_process`, `_process` and `_task` (the process it starts and the task that reads
it); tests/test_serve.py fails if any of them changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import logging
import re
from pathlib import Path
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import hdrs, web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from pvtui.commands.common import say
from pvtui.safe_text import visible
from pvtui.process.streams import OutputLost

FULL = ("pvtui serve: {n} sessions are open, the most this server allows (--max-sessions {n}); "
        "close one (its browser tab) and reload this page.\n")
NO_TOKEN = "pvtui serve: this address needs its token; open the URL that `pvtui serve` printed.\n"
FOREIGN = "pvtui serve: refused: the request came from a page of another site (its Origin is not this server's).\n"
BAD_HOST = "pvtui serve: refused: the request names no host this server can be reached by.\n"
OTHER_HOST = ("pvtui serve: refused: the request names a host this server does not listen as (a page of another "
              "site may have pointed its name here); open the URL that `pvtui serve` printed.\n")
PAGE = Path(__file__).resolve().parent.parent / "web"  # page.html and PAGE_FILES
PAGE_FILES = ("page.css", "page.js", "favicon.svg")  # served as they are, beside the page
QUIT_GRACE = 3.0  # seconds an app has to quit once its session ends, before SIGTERM
KILL_GRACE = 2.0  # seconds after SIGTERM before SIGKILL
ERRORS_KEPT = 64 * 1024  # the last bytes of an app's stderr: a traceback's end says what went wrong
ERROR_LINES = 20  # of them, the lines shown
# what a Host header may be: a name or an IPv4 address, or an IPv6 one in brackets, and a port
HOST = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(:[0-9]{1,5})?")
SECURITY_HEADERS = {
    "Referrer-Policy": "no-referrer",  # the token is in every URL of the page
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
}
log = logging.getLogger("textual-serve")


class EndingAppService(AppService):
    """textual-serve's app process, ended for certain when its session ends, its stderr kept."""

    _errors: bytearray
    _reading_errors: asyncio.Task | None = None

    async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
        process = await super()._open_app_process(width, height)
        self._errors = bytearray()
        self._reading_errors = asyncio.ensure_future(self._keep_errors(process.stderr))
        # textual-serve's own reader gets an ended stream: it would print the app's stderr raw, twice
        process.stderr = ended = asyncio.StreamReader()
        ended.feed_eof()
        return process

    async def _keep_errors(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(65536):
            self._errors += chunk
            del self._errors[:-ERRORS_KEPT]

    async def failure(self) -> list[str]:
        """Once the app has ended: where it failed (a status other than 0), a line saying how and the
        last lines of its stderr, control characters made visible; else nothing."""
        status = await self._process.wait()
        if status == 0:
            return []
        if self._reading_errors is not None:  # the rest of stderr, unless a process it started holds it open
            await asyncio.wait({self._reading_errors}, timeout=KILL_GRACE)
        how = f"ended by signal {-status}" if status < 0 else f"exit status {status}"
        lines = self._errors.decode("utf-8", "replace").splitlines()[-ERROR_LINES:]
        return [f"the explorer stopped ({how})" + (":" if lines else ""),
                *(f"  {visible(line)}" for line in lines)]

    async def stop(self) -> None:
        quitting = asyncio.ensure_future(super().stop())  # asks the app to quit, reads its output to the end
        done, _ = await asyncio.wait({quitting}, timeout=QUIT_GRACE)
        if not done and self._process is not None:
            await end_process(self._process)
            if self._task is not None:
                self._task.cancel()  # a process it started may still hold its output open
        await asyncio.wait({quitting})
        if self._reading_errors is not None:
            self._reading_errors.cancel()
        if not quitting.cancelled():  # cancelled with the reader above: ended all the same
            quitting.result()


async def end_process(process: asyncio.subprocess.Process) -> None:
    """SIGTERM, then SIGKILL after KILL_GRACE seconds; returns once PROCESS has ended."""
    for send in (process.terminate, process.kill):
        with contextlib.suppress(ProcessLookupError):
            send()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(process.wait(), KILL_GRACE)
            return


def own_origin(request: web.Request) -> str | None:
    """The origin the browser sees this server at: the scheme, and the host and port the browser
    asked for (through an SSH port forward, the forwarded one: the Host header says which); None
    where the Host header is no host name or address."""
    if not HOST.fullmatch(request.host):
        return None
    return f"{request.scheme}://{request.host}".lower()


def names_this_server(request: web.Request, names: frozenset[str], any_address: bool) -> bool:
    """Whether the request's Host is one of NAMES (serve.host_names), on any port (an SSH port forward
    changes it), or where ANY_ADDRESS (listening on every interface), any address. A page whose own name was made to point here (DNS rebinding) sends its
    own name: refused, on the page and on the websocket alike."""
    match = HOST.fullmatch(request.host)
    if match is None:
        return False
    name = match.group(1).strip("[]").lower()
    if name in names:
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return any_address


# The two inline styles textual.js applies, allowed by their hashes alone (any other inline style is
# refused): an empty style element, then xterm's rule. tests/test_serve.py's Chromium test fails with the
# hash Chromium asks for when a textual-serve release changes them.
TEXTUAL_JS_STYLES = ("'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='",
                     "'sha256-03EiY9OLVCaCQVNKUgCYxdI11BJ8pKsqSKUlTlszVsE='")


def content_security_policy(origin: str | None) -> str:
    """The page may load scripts, styles, fonts and images from this server alone, and talk to its
    own websocket alone; no inline script, no inline style but textual.js's own, no plugin, no frame, no
    form."""
    websocket = f" ws{origin[4:]}" if origin else ""  # http://host:port -> ws://host:port, https -> wss
    return (f"default-src 'none'; script-src 'self'; style-src 'self' {' '.join(TEXTUAL_JS_STYLES)}; "
            "font-src 'self'; img-src 'self'; "
            f"connect-src 'self'{websocket}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


class SessionServer(Server):
    def __init__(self, command: str, *, title: str, host: str, port: int, token: str, max_sessions: int,
                 names: frozenset[str], any_address: bool) -> None:
        super().__init__(command, host=host, port=port, title=title)
        self.token = token
        self.names, self.any_address = names, any_address  # the Host names accepted (names_this_server)
        self.max_sessions = max_sessions
        self.sessions: set[asyncio.Task] = set()  # the websocket handlers running, one per app process
        self._runner: web.AppRunner | None = None
        log.addHandler(logging.StreamHandler())  # its errors, on stderr

    def url(self, host: str, port: int) -> str:
        if ":" in host:  # an IPv6 address
            host = f"[{host}]"
        return f"http://{host}:{port}/{self.token}/"

    def make_app(self) -> web.Application:
        app = web.Application(middlewares=[self.guard])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(PAGE), autoescape=True)
        root = f"/{self.token}"
        app.add_routes([
            web.get(root, self.handle_bare_root),
            web.get(f"{root}/", self.handle_page),
            *(web.get(f"{root}/{name}", self.handle_page_file) for name in PAGE_FILES),
            web.get(f"{root}/ws", self.handle_session),
            web.get(f"{root}/download/{{key}}", self.handle_download),
            web.static(f"{root}/static", self.statics_path, name="static"),  # textual.js, xterm.css, the font
        ])
        app.on_response_prepare.append(self.add_security_headers)
        app.on_shutdown.append(self.end_sessions)
        return app

    async def start(self) -> int:
        """Listen; the port listened on (the one asked for, or the one the system chose for 0)."""
        self._runner = web.AppRunner(self.make_app(), access_log=None)  # the log would print the token
        await self._runner.setup()
        await web.TCPSite(self._runner, self.host, self.port).start()
        return self._runner.addresses[0][1]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    @web.middleware
    async def guard(self, request: web.Request, handler) -> web.StreamResponse:
        """403 without the token; 403 where the Host is a name this server does not listen as; 403 where a browser says the request comes from another origin than
        this server's (a page of another site opening the websocket, or fetching the page); a request
        without an Origin header (a navigation, or a program) passes on its token alone."""
        first = request.path.lstrip("/").split("/", 1)[0]
        if not hmac.compare_digest(first.encode(), self.token.encode()):
            raise web.HTTPForbidden(text=NO_TOKEN)
        origin = own_origin(request)
        if origin is None:
            raise web.HTTPBadRequest(text=BAD_HOST)
        if not names_this_server(request, self.names, self.any_address):
            raise web.HTTPForbidden(text=OTHER_HOST)
        if hdrs.ORIGIN in request.headers and request.headers[hdrs.ORIGIN].lower() != origin:
            raise web.HTTPForbidden(text=FOREIGN)
        return await handler(request)

    async def add_security_headers(self, request: web.Request, response: web.StreamResponse) -> None:
        response.headers.update(SECURITY_HEADERS)
        response.headers["Content-Security-Policy"] = content_security_policy(own_origin(request))

    async def handle_bare_root(self, request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound(f"/{self.token}/")

    def refuse_when_full(self) -> None:
        if len(self.sessions) >= self.max_sessions:
            raise web.HTTPServiceUnavailable(text=FULL.format(n=self.max_sessions))

    async def handle_page(self, request: web.Request) -> web.StreamResponse:
        """The page that opens a session. Its websocket URL names the host the browser asked for, so
        that a port forward to another local port works."""
        self.refuse_when_full()
        try:
            font_size = int(request.query.get("fontsize", "16"))
        except ValueError:
            font_size = 16
        context: dict[str, Any] = {
            "title": self.title,
            "font_size": font_size,
            "websocket_url": f"ws{own_origin(request)[4:]}/{self.token}/ws",
        }
        return aiohttp_jinja2.render_template("page.html", request, context)

    async def handle_page_file(self, request: web.Request) -> web.StreamResponse:
        """page.css, page.js (the terminal focused on load) or the favicon: pvtui's own, beside page.html."""
        return web.FileResponse(PAGE / request.path.rsplit("/", 1)[1])

    async def handle_session(self, request: web.Request) -> web.StreamResponse:
        """One browser session: an app process for as long as its websocket stays open."""
        self.refuse_when_full()
        task = asyncio.current_task()
        self.sessions.add(task)
        self.note(f"session opened from {request.remote} ({len(self.sessions)} of {self.max_sessions})")
        websocket = web.WebSocketResponse(heartbeat=15)
        app = EndingAppService(self.command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                               close=websocket.close, download_manager=self.download_manager, debug=self.debug)
        try:
            await websocket.prepare(request)
            await app.start(_cells(request, "width", 80), _cells(request, "height", 24))
            await self.relay(websocket, app)
        except asyncio.CancelledError:  # the server is stopping
            await websocket.close()
        except Exception as error:  # the session's own trouble: the server carries on
            log.exception(error)
        finally:
            await app.stop()
            self.sessions.discard(task)
            self.note(f"session ended ({len(self.sessions)} of {self.max_sessions} open)")
        return websocket

    async def relay(self, websocket: web.WebSocketResponse, app: EndingAppService) -> None:
        """The browser's keys and resizes to the app until the websocket closes. Where the app ends
        first (it quit, or failed at start), its error, if any, goes to the page and to the server's
        output, and the websocket is closed: the page says the session ended instead of staying blank."""
        messages = asyncio.ensure_future(self._process_messages(websocket, app))
        try:
            await asyncio.wait({messages, app._task}, return_when=asyncio.FIRST_COMPLETED)
            if not messages.done():
                if failure := await app.failure():
                    for line in failure:
                        say(f"pvtui serve: {line}")
                    # shown by the page's terminal: attributes reset, the screen cleared, from its top
                    text = "\x1b[0m\x1b[2J\x1b[Hpvtui serve: " + "\r\n".join(failure)
                    await websocket.send_bytes(f"{text}\r\n".encode())
                await websocket.close()
            await messages
        finally:
            messages.cancel()

    async def end_sessions(self, app: web.Application) -> None:
        """On shutdown: each session closes its websocket and quits its app process."""
        for task in list(self.sessions):
            task.cancel()
        if self.sessions:
            await asyncio.wait(list(self.sessions), timeout=10)

    def note(self, line: str) -> None:
        # stdout may have gone with the SSH session that started the server, or fail
        with contextlib.suppress(OSError, OutputLost):
            print(visible(f"pvtui serve: {line}"), flush=True)  # a line may quote the report's path


def _cells(request: web.Request, name: str, default: int) -> int:
    try:
        return max(1, int(request.query.get(name, default)))
    except ValueError:
        return default
