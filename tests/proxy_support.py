"""A small HTTP proxy on 127.0.0.1 for the proxy tests: absolute-form requests and CONNECT.

It knows host names nobody else does (`hosts` maps each to a loopback port), so a test can name a
deployment that only the proxy can reach: the client must never resolve it itself, and nothing
leaves loopback. It can ask for a login (407) and records every request line and header it got.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Self

# A name no resolver knows (.test is reserved): only the proxy maps it to a port.
HIDDEN_HOST = "plants.proxied.test"


@dataclass(frozen=True, slots=True)
class Seen:
    """One request the proxy received: its request line and headers (names in lower case)."""

    method: str
    target: str
    headers: dict[str, str]


@dataclass
class TestProxy:
    """The proxy; `hosts` maps a host name to the loopback port it stands for."""

    hosts: dict[str, int] = field(default_factory=dict)
    # "user:password" the proxy asks for (407 without it); None: anyone may use it.
    login: str | None = None
    seen: list[Seen] = field(default_factory=list)
    port: int = 0
    _server: asyncio.Server | None = None
    _open: set[asyncio.StreamWriter] = field(default_factory=set)

    __test__ = False  # not a test class, whatever pytest thinks of its name

    @property
    def url(self) -> str:
        """The proxy's URL."""
        return f"http://127.0.0.1:{self.port}"

    async def __aenter__(self) -> Self:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        # Tunnels still open hold their handlers: close them rather than wait.
        for writer in list(self._open):
            writer.close()
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._open.add(writer)
        try:
            while await self._one(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._open.discard(writer)
            writer.close()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Handle one request; False when the client's connection is done."""
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        self.seen.append(Seen(method, target, headers))
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        if self.login is not None:
            expected = "Basic " + base64.b64encode(self.login.encode()).decode()
            if headers.get("proxy-authorization") != expected:
                writer.write(
                    b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                    b'Proxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n'
                )
                await writer.drain()
                return True
        if method == "CONNECT":
            await self._tunnel(target, reader, writer)
            return False
        await self._forward(method, target, lines[1:], body, writer)
        return True

    def _upstream(self, authority: str) -> int | None:
        host, _, _port = authority.rpartition(":")
        return self.hosts.get(host)

    async def _tunnel(
        self, authority: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        port = self._upstream(authority)
        if port is None:
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
            return
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        await writer.drain()
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    async def _forward(
        self,
        method: str,
        target: str,
        header_lines: list[str],
        body: bytes,
        writer: asyncio.StreamWriter,
    ) -> None:
        # Absolute form: http://host:port/path. One upstream connection per request.
        rest = target.removeprefix("http://")
        authority, _, path = rest.partition("/")
        port = self._upstream(authority)
        if port is None:
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            await writer.drain()
            return
        kept = [
            line
            for line in header_lines
            if line and not line.lower().startswith(("proxy-", "connection:"))
        ]
        request = "\r\n".join([f"{method} /{path} HTTP/1.1", *kept, "Connection: close", "", ""])
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
        up_writer.write(request.encode("latin-1") + body)
        await up_writer.drain()
        answer = await up_reader.read()
        up_writer.close()
        writer.write(answer)
        await writer.drain()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


@contextlib.contextmanager
def background_proxy(hosts: dict[str, int], *, login: str | None = None) -> Iterator[TestProxy]:
    """The proxy on its own event loop in a thread, for tests that block (CLI, subprocesses)."""
    proxy = TestProxy(hosts, login)
    loop = asyncio.new_event_loop()
    started = threading.Event()
    stop = asyncio.Event()

    async def run() -> None:
        async with proxy:
            started.set()
            await stop.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(run(),), daemon=True)
    thread.start()
    started.wait()
    try:
        yield proxy
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join()
        loop.close()
