"""A scripted HTTP/1.1 server on raw asyncio sockets: it answers whatever a test tells it to.

A well-behaved server never sends a gzip bomb, drips a byte at a time or resets mid-body; this one
does, on 127.0.0.1 and a free port, and records every request it received. `ServerThread` runs
one on an event loop of its own, for a test that is not async and a client in another process.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import socket
import struct
import threading
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from types import TracebackType
from typing import Any, Self, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Send:
    """Write these bytes at once."""

    data: bytes


@dataclass(frozen=True, slots=True)
class Drip:
    """Write these bytes one at a time, `interval` seconds apart."""

    data: bytes
    interval: float


@dataclass(frozen=True, slots=True)
class Reset:
    """Abort the connection with a TCP RST (SO_LINGER 0), whatever is in flight."""


@dataclass(frozen=True, slots=True)
class Close:
    """Close the connection cleanly (FIN)."""


@dataclass(frozen=True, slots=True)
class Hang:
    """Keep the connection open and say nothing more, until the server stops."""


@dataclass(frozen=True, slots=True)
class Await:
    """Say nothing until the test sets `event` (an answer held for as long as a test needs)."""

    event: asyncio.Event


Action = Send | Drip | Reset | Close | Hang | Await


@dataclass(frozen=True, slots=True)
class ReceivedRequest:
    """One request as it arrived: the raw bytes and their parts."""

    raw: bytes
    method: str
    target: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body)


# What to answer: the same actions for every request, or a function of the request.
Script = Sequence[Action] | Callable[[ReceivedRequest], Sequence[Action]]


@dataclass(repr=False)
class MisbehavingServer:
    """An async context manager serving `script` on 127.0.0.1; cleans up every socket on exit."""

    script: Script
    # Sent as soon as a connection is accepted, as a server speaking some other protocol would.
    greeting: bytes = b""
    requests: list[ReceivedRequest] = field(default_factory=list)
    connections: int = 0
    port: int = 0
    _server: asyncio.Server | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    _writers: set[asyncio.StreamWriter] = field(default_factory=set)
    _problems: list[BaseException] = field(default_factory=list)
    _arrived: asyncio.Condition = field(default_factory=asyncio.Condition)

    def __repr__(self) -> str:
        # Short, and without the recorded requests: they hold the token the client sent.
        return (
            f"MisbehavingServer(port={self.port}, connections={self.connections}, "
            f"requests={len(self.requests)})"
        )

    @property
    def base_url(self) -> str:
        """The base URL a client is given (plants go to `{base_url}/plants`)."""
        return f"http://127.0.0.1:{self.port}"

    async def wait_for_requests(self, count: int = 1) -> None:
        """Return once `count` requests have arrived."""
        async with self._arrived:
            await self._arrived.wait_for(lambda: len(self.requests) >= count)

    async def __aenter__(self) -> Self:
        # `port` 0 picks a free one; a test may name one it reserved (a deployment coming back).
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._server is not None
        self._server.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()
        if self._problems and exc is None:
            raise self._problems[0]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self.connections += 1
        try:
            if self.greeting:
                writer.write(self.greeting)
                await writer.drain()
            while await self._exchange(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client went away: that is its right
        except asyncio.CancelledError:
            pass  # the server is stopping; ending quietly keeps asyncio from logging the task
        except Exception as exc:
            self._problems.append(exc)
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, asyncio.CancelledError):
                await writer.wait_closed()

    async def _exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Read one request and play the script; False when the connection is done."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            return False
        request_line, *header_lines = head.decode("latin-1").split("\r\n")[:-2]
        method, target, _version = request_line.split(" ", 2)
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        request = ReceivedRequest(head + body, method, target, headers, body)
        async with self._arrived:
            self.requests.append(request)
            self._arrived.notify_all()
        actions = self.script(request) if callable(self.script) else self.script
        for action in actions:
            match action:
                case Send(data):
                    writer.write(data)
                    await writer.drain()
                case Drip(data, interval):
                    for index in range(len(data)):
                        writer.write(data[index : index + 1])
                        await writer.drain()
                        await asyncio.sleep(interval)
                case Reset():
                    sock = writer.get_extra_info("socket")
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    writer.transport.abort()
                    return False
                case Close():
                    return False
                case Hang():
                    await asyncio.Event().wait()
                case Await(event):
                    await event.wait()
        return True


class ServerThread:
    """A `MisbehavingServer` serving on an event loop in a thread of its own, from the moment it
    is made; a context manager that stops it.

    For a test that waits without an event loop of its own, on a client in another process (the
    real TUI in a pseudo-terminal). `Await` events in its script are set with `release`.
    """

    def __init__(self, script: Script, *, port: int = 0) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="misbehaving-server", daemon=True
        )
        self._thread.start()
        self.server = MisbehavingServer(script, port=port)
        try:
            self._run(self.server.__aenter__())
        except BaseException:
            self._stop_loop()
            raise

    @property
    def base_url(self) -> str:
        """The base URL a client is given."""
        return self.server.base_url

    @property
    def requests(self) -> list[ReceivedRequest]:
        """The requests received so far, in the order they arrived (also once stopped)."""
        # Copied in one step under the GIL, while the server's thread may append.
        return list(self.server.requests)

    def wait_for_requests(self, count: int, timeout: float) -> list[ReceivedRequest]:
        """Wait until `count` requests have arrived; every request received so far (a test sees
        any beyond `count` too). TimeoutError at the deadline, saying how many did."""
        try:
            self._run(asyncio.wait_for(self.server.wait_for_requests(count), timeout))
        except TimeoutError:
            got = len(self.requests)
            raise TimeoutError(f"{got} of {count} requests after {timeout:g} s") from None
        return self.requests

    def release(self, event: asyncio.Event) -> None:
        """Set `event` (an `Await` in the script) on the server's loop: its answers go."""
        self._loop.call_soon_threadsafe(event.set)

    def close(self) -> None:
        """Stop the server (held answers are dropped with their connections) and its loop;
        raise what went wrong in the server, if anything did."""
        self.__exit__(None, None, None)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._loop.is_closed():
            return
        try:
            # A test that failed keeps its own failure: the server's problems are not raised.
            self._run(self.server.__aexit__(exc_type, exc, tb))
        finally:
            self._stop_loop()

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()


def response(
    status: int,
    body: bytes = b"",
    *,
    headers: Sequence[tuple[str, str]] = (("Content-Type", "application/json"),),
    content_length: bool = True,
) -> bytes:
    """A complete HTTP/1.1 response with these parts (Content-Length added unless told not to)."""
    reason = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "Whatever"
    lines = [f"HTTP/1.1 {status} {reason}", *(f"{name}: {value}" for name, value in headers)]
    if content_length:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def json_response(status: int, value: Any, *, headers: Sequence[tuple[str, str]] = ()) -> bytes:
    """A response whose body is `value` as JSON."""
    return response(
        status,
        json.dumps(value).encode(),
        headers=[("Content-Type", "application/json"), *headers],
    )


def spec_like(request: ReceivedRequest) -> list[Action]:
    """Answer as the spec says: 200 with the Plant, or 400 with an Error if the body is not one."""
    try:
        sent = request.json()
        plant = {"name": sent["name"], **({"tag": sent["tag"]} if "tag" in sent else {})}
    except (ValueError, KeyError, TypeError):
        return [Send(json_response(400, {"error": 1, "message": "not a NewPlant"}))]
    return [Send(json_response(200, plant))]


def first_hangs(arrived: asyncio.Event) -> Script:
    """The first request gets no answer at all; every later one is answered as the spec says."""

    def script(request: ReceivedRequest) -> list[Action]:
        if not arrived.is_set():
            arrived.set()
            return [Hang()]
        return spec_like(request)

    return script


def html_502() -> list[Action]:
    """What a reverse proxy says when the deployment behind it is down."""
    page = b"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
    return [Send(response(502, page, headers=[("Content-Type", "text/html")]))]


def empty_200() -> list[Action]:
    """Success, with no body at all."""
    return [Send(response(200))]


def wrong_shape_200() -> list[Action]:
    """Success, with a JSON body that is not a Plant (no `name`)."""
    return [Send(json_response(200, {"nom": "Fern", "tag": "indoor"}))]


def error_with_wrong_types(value: Any) -> list[Action]:
    """A 400 whose body is `value`, meant to be an Error that is not quite one."""
    return [Send(json_response(400, value))]


def redirect_to(url: str, status: int = 307) -> list[Action]:
    """A redirect to `url`, which a client must not follow."""
    return [Send(response(status, headers=[("Location", url)]))]


def status_413() -> list[Action]:
    """Request too large, as a plain-text body."""
    return [Send(response(413, b"too large", headers=[("Content-Type", "text/plain")]))]


def status_429(retry_after: str = "7") -> list[Action]:
    """Rate limited, saying when to come back."""
    return [
        Send(
            json_response(
                429, {"error": 429, "message": "slow down"}, headers=[("Retry-After", retry_after)]
            )
        )
    ]


def status_500() -> list[Action]:
    """The deployment failed while handling the request."""
    return [Send(response(500, b"Internal Server Error", headers=[("Content-Type", "text/plain")]))]


def oversized(size: int, *, chunked: bool = False) -> list[Action]:
    """A 200 of `size` bytes: declared by Content-Length, or sent chunked with no size declared."""
    if not chunked:
        head = response(200, content_length=False)[:-2] + f"Content-Length: {size}\r\n\r\n".encode()
        return [Send(head), Send(b"x" * min(size, 64 * 1024)), Hang()]
    chunk = b"x" * 64 * 1024
    frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
    head = response(200, headers=[("Transfer-Encoding", "chunked")], content_length=False)
    return [Send(head), *[Send(frame)] * (size // len(chunk) + 1), Send(b"0\r\n\r\n")]


def gzip_bomb(size: int = 10 * 1024 * 1024) -> list[Action]:
    """A 200 of `size` zero bytes gzipped to a few kilobytes, with Content-Encoding: gzip."""
    packed = gzip.compress(b"\0" * size, compresslevel=9)
    return [
        Send(
            response(
                200,
                packed,
                headers=[("Content-Type", "application/json"), ("Content-Encoding", "gzip")],
            )
        )
    ]


def slow_drip(interval: float = 0.2) -> list[Action]:
    """A 200 whose headers come at once and whose body comes a byte every `interval` seconds."""
    body = json.dumps({"name": "Fern"}).encode() * 10
    full = response(200, body)
    head_length = len(full) - len(body)
    return [Send(full[:head_length]), Drip(body, interval)]


def reset_mid_body() -> list[Action]:
    """A 200 that declares 100 bytes of body, sends 10, then resets the connection."""
    head = response(200, content_length=False)[:-2] + b"Content-Length: 100\r\n\r\n"
    return [Send(head + b'{"name": "'), Reset()]


MARKUP = "[bold red]x[/]"
ESCAPES = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x9b31m\u202e"


def markup_and_escapes(status: int = 400) -> list[Action]:
    """An Error (or, for 200, a Plant) whose text holds Rich markup, OSC 52, CSI and bidi."""
    text = f"{MARKUP} {ESCAPES}"
    value = {"name": text} if status == 200 else {"error": 7, "message": text}
    return [Send(json_response(status, value))]


@contextlib.contextmanager
def reserved_port() -> Iterator[socket.socket]:
    """A loopback port bound and not listened on: connections to it are refused until the
    socket is closed and a server takes the port (a deployment that went away and comes back)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock
