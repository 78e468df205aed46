"""The web server behind `pvtui serve`: textual-serve's sessions behind a token and a cap.

textual-serve's Server gives the page template, the relay of a websocket's messages to an app
process, and the download handler. This builds its own aiohttp application around them: every route
under /TOKEN/, a middleware that answers 403 to anything else, a count of the sessions running, and
an app process sure to end with its session (asked to quit, then SIGTERM, then SIGKILL), so that a
hung one never keeps its place among --max-sessions.

It relies on two private parts of textual-serve 1.x: `Server._process_messages` (the relay) and
`AppService._process` (the process it started); tests/test_serve.py fails if either changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from pvtui.safe_text import visible

FULL = ("pvtui serve: {n} sessions are open, the most this server allows (--max-sessions {n}); "
        "close one (its browser tab) and reload this page.\n")
NO_TOKEN = "pvtui serve: this address needs its token; open the URL that `pvtui serve` printed.\n"
QUIT_GRACE = 3.0  # seconds an app has to quit once its session ends, before SIGTERM
KILL_GRACE = 2.0  # seconds after SIGTERM before SIGKILL
log = logging.getLogger("textual-serve")


class EndingAppService(AppService):
    """textual-serve's app process, ended for certain when its session ends."""

    async def stop(self) -> None:
        quitting = asyncio.ensure_future(super().stop())  # asks the app to quit, reads its output to the end
        done, _ = await asyncio.wait({quitting}, timeout=QUIT_GRACE)
        if not done and self._process is not None:
            await end_process(self._process)
            if self._task is not None:
                self._task.cancel()  # a process it started may still hold its output open
        await asyncio.wait({quitting})
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


class SessionServer(Server):
    def __init__(self, command: str, *, title: str, host: str, port: int, token: str, max_sessions: int) -> None:
        super().__init__(command, host=host, port=port, title=title)
        self.token = token
        self.max_sessions = max_sessions
        self.sessions: set[asyncio.Task] = set()  # the websocket handlers running, one per app process
        self._runner: web.AppRunner | None = None
        log.addHandler(logging.StreamHandler())  # its errors, on stderr

    def url(self, host: str, port: int) -> str:
        if ":" in host:  # an IPv6 address
            host = f"[{host}]"
        return f"http://{host}:{port}/{self.token}/"

    def make_app(self) -> web.Application:
        app = web.Application(middlewares=[self.require_token])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        root = f"/{self.token}"
        app.add_routes([
            web.get(root, self.handle_bare_root),
            web.get(f"{root}/", self.handle_page),
            web.get(f"{root}/ws", self.handle_session),
            web.get(f"{root}/download/{{key}}", self.handle_download),
            web.static(f"{root}/static", self.statics_path, name="static"),
        ])
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
    async def require_token(self, request: web.Request, handler) -> web.StreamResponse:
        first = request.path.lstrip("/").split("/", 1)[0]
        if not hmac.compare_digest(first.encode(), self.token.encode()):
            raise web.HTTPForbidden(text=NO_TOKEN)
        return await handler(request)

    async def handle_bare_root(self, request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound(f"/{self.token}/")

    def refuse_when_full(self) -> None:
        if len(self.sessions) >= self.max_sessions:
            raise web.HTTPServiceUnavailable(text=FULL.format(n=self.max_sessions))

    async def handle_page(self, request: web.Request) -> web.StreamResponse:
        """The page that opens a session: textual-serve's template, with URLs under the token.

        The websocket URL names the host the browser asked for, so a port forward to another local
        port works.
        """
        self.refuse_when_full()
        try:
            font_size = int(request.query.get("fontsize", "16"))
        except ValueError:
            font_size = 16
        scheme = "wss" if request.secure else "ws"
        context: dict[str, Any] = {  # what textual-serve's app_index.html reads (the browser tests hold it)
            "font_size": font_size,
            "app_websocket_url": f"{scheme}://{request.host}/{self.token}/ws",
            "config": {"static": {"url": f"/{self.token}/static/"}},
            "application": {"name": self.title},
        }
        return aiohttp_jinja2.render_template("app_index.html", request, context)

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
            await self._process_messages(websocket, app)  # until the websocket closes
        except asyncio.CancelledError:  # the server is stopping
            await websocket.close()
        except Exception as error:  # the session's own trouble: the server carries on
            log.exception(error)
        finally:
            await app.stop()
            self.sessions.discard(task)
            self.note(f"session ended ({len(self.sessions)} of {self.max_sessions} open)")
        return websocket

    async def end_sessions(self, app: web.Application) -> None:
        """On shutdown: each session closes its websocket and quits its app process."""
        for task in list(self.sessions):
            task.cancel()
        if self.sessions:
            await asyncio.wait(list(self.sessions), timeout=10)

    def note(self, line: str) -> None:
        with contextlib.suppress(OSError):  # stdout may have gone with the SSH session that started the server
            print(visible(f"pvtui serve: {line}"), flush=True)  # a line may quote the report's path


def _cells(request: web.Request, name: str, default: int) -> int:
    try:
        return max(1, int(request.query.get(name, default)))
    except ValueError:
        return default
