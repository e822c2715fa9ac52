"""textual-serve's server with the access key and the page's origin checked in front of every
route: one TUI process a tab, and no page in another page's frame.

textual-serve starts a tab's app process in its websocket handler; the gates are aiohttp
middlewares, so a request without the key, or a tab's connection from another page, is refused
before any handler, and no process starts.
Its page gets one script of ours (keys.js): the terminal takes the keys as the tab opens, and
holds what is typed until the tab's connection is open.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import ssl
from collections.abc import Callable, Sequence
from importlib.resources import files

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.typedefs import Handler, Middleware
from textual_serve.server import Server

from plantstore_tui.web.origin import forbid_frames

# On Ctrl+C every tab's connection is dropped, which ends its app as a closed tab does; the
# server waits this long for them to end, then for any other request, before it stops.
SHUTDOWN_SECONDS = 3.0

# Inline, first in the page: it takes keys before textual-serve's own script has loaded.
_KEYS_SCRIPT = f"<script>{files(__package__).joinpath('keys.js').read_text()}</script>"


class GatedServer(Server):
    """textual-serve's `Server`, every route behind `gates` (first to last), every answer
    forbidding frames, printing nothing of its own."""

    def __init__(
        self, command: str, *, public_url: str, title: str, gates: Sequence[Middleware]
    ) -> None:
        super().__init__(command, public_url=public_url, title=title)
        self._gates = list(gates)
        # The connections of the requests being handled (a tab's websocket, while it is open).
        self._open: set[asyncio.BaseTransport] = set()
        self._all_closed = asyncio.Event()
        self._all_closed.set()

    async def gated_app(self) -> web.Application:
        """textual-serve's aiohttp application, the gates first in its middlewares."""
        # textual-serve's one private name here: it builds the routes (page, websocket,
        # downloads, static files) that its page and handlers refer to by name.
        # tests/web/test_serving.py fails loudly if an upgrade moves it.
        app = await self._make_app()
        app.middlewares.extend([*self._gates, self._tracked])
        app.on_response_prepare.append(forbid_frames)
        return app

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        """textual-serve's page, with the script that gives its terminal the keys."""
        page = await super().handle_index(request)
        assert isinstance(page, web.Response)
        assert page.text is not None
        page.text = page.text.replace("<head>", f"<head>{_KEYS_SCRIPT}", 1)
        return page

    @web.middleware
    async def _tracked(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        transport = request.transport
        if transport is None:  # the client is gone already
            return await handler(request)
        self._open.add(transport)
        self._all_closed.clear()
        try:
            return await handler(request)
        finally:
            self._open.discard(transport)
            if not self._open:
                self._all_closed.set()

    async def on_startup(self, app: web.Application) -> None:
        """Nothing: the command prints the one URL to open, and textual-serve's banner names
        the command every tab runs."""

    async def end_tabs(self) -> None:
        """Drop every open connection (a tab's websocket never ends by itself), and wait up to
        `SHUTDOWN_SECONDS` for their handlers: each tab's app is told to quit by textual-serve,
        as when its tab closes, and the handler returns once the app has ended."""
        for transport in list(self._open):
            transport.close()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(SHUTDOWN_SECONDS):
                await self._all_closed.wait()


class _InWords(logging.Handler):
    """What aiohttp and textual-serve log, told in one line of words: the exceptions they log
    quote the request's bytes (a malformed URL with its key, a cookie), so only their kind is
    said, never their text nor a traceback."""

    def __init__(self, say: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self._say = say

    def emit(self, record: logging.LogRecord) -> None:
        """Say `record` in words."""
        problem = record.exc_info[1] if record.exc_info else None
        if isinstance(problem, HttpProcessingError):
            remote = record.args[0] if isinstance(record.args, tuple) and record.args else None
            self._say(
                f"Refused a request from {remote or 'a client'} that is not valid HTTP "
                f"({problem.code})."
            )
        elif problem is not None:
            self._say(f"A request failed: {type(problem).__name__}.")
        else:
            self._say(f"A request failed: {record.levelname.lower()} from {record.name}.")


def _log_in_words(say: Callable[[str], None]) -> None:
    handler = _InWords(say)
    for name in ("aiohttp", "textual-serve"):
        logger = logging.getLogger(name)
        logger.handlers = [handler]
        logger.propagate = False


def tls_context(cert: str, key: str) -> ssl.SSLContext:
    """A server TLS context with this certificate chain and private key (ssl.SSLError or
    OSError when they cannot be used)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


def serve(
    server: GatedServer,
    sock: socket.socket,
    tls: ssl.SSLContext | None,
    on_ready: Callable[[], None],
    say: Callable[[str], None],
) -> None:
    """Serve on `sock` until SIGINT or SIGTERM; `on_ready` once requests are taken; what goes
    wrong with a request told to `say` in words."""
    _log_in_words(say)
    asyncio.run(_serve(server, sock, tls, on_ready))


async def _serve(
    server: GatedServer,
    sock: socket.socket,
    tls: ssl.SSLContext | None,
    on_ready: Callable[[], None],
) -> None:
    # No access log: its lines hold the URL, and a URL may hold the key.
    runner = web.AppRunner(
        await server.gated_app(),
        access_log=None,
        handle_signals=False,
        shutdown_timeout=SHUTDOWN_SECONDS,
    )
    await runner.setup()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await web.SockSite(runner, sock, ssl_context=tls).start()
        on_ready()
        await stop.wait()
        await server.end_tabs()
    finally:
        await runner.cleanup()
