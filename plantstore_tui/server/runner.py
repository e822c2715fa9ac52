"""Running the app with uvicorn: in the foreground (`serve`), or in a thread (`demo`, tests)."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import socket
import sys
import threading
from pathlib import Path
from typing import Self

import uvicorn
from pydantic import SecretStr
from starlette.applications import Starlette

from plantstore_tui.core.errors import PlantStoreError
from plantstore_tui.core.plant.text import visible
from plantstore_tui.server.app import create_app

# Longest wait for the server to start.
_WAIT_SECONDS = 10
# Longest wait, once a background server is told to stop, for a connection still open to close
# before what runs on it is cancelled (from Python 3.12, asyncio waits for every connection).
_STOP_SECONDS = 1
# The demo runs the TUI in the same terminal: the server's log must write nowhere unless the
# host program configured logging (pytest does, and keeps the records of a failing test).
logging.getLogger("uvicorn").addHandler(logging.NullHandler())


def _listen(host: str, port: int) -> socket.socket:
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        if sys.platform != "win32":
            # Lets `serve` restart on its port while the last run's connections sit in TIME_WAIT.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen()
    except OSError:
        sock.close()
        raise
    return sock


class CannotListen(PlantStoreError):
    """The server cannot listen where it was asked; the text says why and what to try."""


# Ports below this need privileges on most systems.
_FIRST_FREE_PORT = 1024


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to `host` and `port` and listening (port 0: a free one); `CannotListen`
    in one sentence when that is impossible."""
    shown = visible(host)
    try:
        return _listen(host, port)
    except socket.gaierror:
        raise CannotListen(
            f"Cannot listen on {shown}: it is not an address of this machine or a host name that "
            "resolves to one (127.0.0.1 is this machine alone, 0.0.0.0 every network)."
        ) from None
    except OSError as exc:
        raise CannotListen(_listen_words(exc, shown, port)) from None


def _listen_words(exc: OSError, host: str, port: int) -> str:
    match exc.errno:
        case errno.EADDRINUSE:
            return (
                f"Port {port} on {host} is in use: stop what listens there, or choose another "
                "--port."
            )
        case errno.EADDRNOTAVAIL:
            return (
                f"Cannot listen on {host}: it is not an address of this machine (127.0.0.1 is "
                "this machine alone, 0.0.0.0 every network)."
            )
        case errno.EACCES | errno.EPERM if 0 < port < _FIRST_FREE_PORT:
            return (
                f"Port {port} needs privileges this user does not have: choose a --port of "
                f"{_FIRST_FREE_PORT} or above."
            )
        case errno.EACCES | errno.EPERM:
            return f"Listening on {host} port {port} is not allowed here: choose another --port."
    reason = (exc.strerror or "the system refused").rstrip(".").lower()
    return f"Cannot listen on {host} port {port}: {reason}."


def _url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def run_server(app: Starlette, sock: socket.socket) -> None:
    """Serve `app` on `sock` (from `listen`) until Ctrl+C, logging each request; closes `sock`."""
    # Bound and listening before the URL is printed: a client that reads it can connect at once.
    try:
        print(f"Plant Store listening on {_url_of(sock)}", flush=True)
        print("Press Ctrl+C to stop", flush=True)
        config = uvicorn.Config(app, log_level="info", lifespan="off", ws="none")
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        # uvicorn has already shut down gracefully and re-raises Ctrl+C for its caller; or
        # Ctrl+C came as soon as it was asked for (even before the line asking for it was
        # done), before uvicorn took the signal: either way the server stops as asked.
        pass
    finally:
        sock.close()
    print("Plant Store stopped", flush=True)


class _StartedServer(uvicorn.Server):
    """A uvicorn server that sets an event once it serves, and stops as soon as it is told to:
    nobody polls or sleeps, at either end."""

    def __init__(self, config: uvicorn.Config, started: threading.Event) -> None:
        super().__init__(config)
        self._started_event = started
        self._loop: asyncio.AbstractEventLoop | None = None
        self._woken = asyncio.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self._started_event.set()

    async def main_loop(self) -> None:
        # uvicorn's loop, woken by `wake` as well as by its tick of a tenth of a second.
        self._loop = asyncio.get_running_loop()
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 1) % 864_000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._woken.wait(), 0.1)

    def wake(self) -> None:
        """Have the server look at `should_exit` now; from any thread."""
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # its loop has closed: it has ended already
                loop.call_soon_threadsafe(self._woken.set)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self.server_state.connections or self.server_state.tasks:
            await super().shutdown(sockets)
            return
        # Nothing open: uvicorn would still give connections a tenth of a second to close.
        for server in self.servers:
            server.close()
        for server in self.servers:
            await server.wait_closed()


class BackgroundServer:
    """The reference server on a loopback port, in a daemon thread; a context manager.

    `delay` seconds pass before each POST /plants is handled (see `create_app`).
    """

    def __init__(
        self,
        *,
        token: SecretStr,
        db_path: Path,
        host: str = "127.0.0.1",
        port: int = 0,
        delay: float = 0.0,
    ) -> None:
        self.token = token
        self.db_path = db_path
        self.host = host
        self.port = port
        self.delay = delay
        self._base_url: str | None = None
        self._server: _StartedServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """`http://HOST:PORT` of the running server."""
        if self._base_url is None:
            raise RuntimeError("The server has not been started")
        return self._base_url

    def start(self) -> None:
        """Start serving; returns once the server accepts connections."""
        if self._thread is not None:
            raise RuntimeError("The server is already started")
        app = create_app(db_path=self.db_path, token=self.token, delay=self.delay)
        sock = _listen(self.host, self.port)
        config = uvicorn.Config(
            app,
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="off",
            ws="none",
            timeout_graceful_shutdown=_STOP_SECONDS,
        )
        started = threading.Event()
        server = _StartedServer(config, started)

        def serve() -> None:
            try:
                server.run(sockets=[sock])
            finally:
                # Also when uvicorn fails before serving, so start() does not wait in vain.
                started.set()
                sock.close()

        base_url = _url_of(sock)
        self._server = server
        self._thread = threading.Thread(target=serve, name="plantstore-server", daemon=True)
        self._thread.start()
        started.wait(_WAIT_SECONDS)
        if not server.started:
            self.stop()
            raise RuntimeError("The reference server did not start")
        self._base_url = base_url

    def stop(self) -> None:
        """Stop serving and join the thread; does nothing if not started.

        Requests still running are not waited for: the demo throws its database away as soon
        as the server stops, and whoever stops a server has stopped sending to it (a plant whose
        answer never left has an unknown fate either way). A slow server would otherwise make
        every stop as slow as its delay, and a client's open connection hold it for seconds.
        """
        if self._server is None or self._thread is None:
            return
        self._server.should_exit = True
        self._server.force_exit = True
        self._server.wake()
        self._thread.join(_WAIT_SECONDS)
        if self._thread.is_alive():
            raise RuntimeError("The reference server did not stop")
        self._server = None
        self._thread = None
        self._base_url = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
