"""The client's transport: one kept-alive connection for each send in flight, none shared.

The one transport of our own, for a measured reason (benchmarks/README.md, "AsyncClient in
place of the transports"): httpx's own pool (httpcore's) costs every send time with several in
flight, and more when sends start together, as the import's workers do when a group is
written. Each request it takes polls every idle connection's socket, and requests that arrive
together are all handed the same idle connection, then retried one by one
(httpcore.ConnectionNotAvailable; encode/httpcore#822 and the review of encode/httpcore#1111).
Here each send takes a pool of its own, httpx's AsyncHTTPTransport with the client's TLS and
proxy, which holds one connection and serves one send at a time.
tests/core/http/test_upstream.py shows the shared pool's retries on a bare
httpx.AsyncClient, as a strict xfail: the day httpcore hands out its connections one to a
request, it passes, and this module can go.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx


class ConnectionPerSend(httpx.AsyncBaseTransport):
    """Hands each request a transport no other request is using, made by `make` when none is
    idle; a transport is idle again once its response is closed."""

    def __init__(self, make: Callable[[], httpx.AsyncBaseTransport]) -> None:
        self._make = make
        self._idle: list[httpx.AsyncBaseTransport] = []
        self._made: list[httpx.AsyncBaseTransport] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send `request` on an idle transport (or a new one), which it keeps until its
        response is closed."""
        if self._idle:
            transport = self._idle.pop()
        else:
            transport = self._make()
            self._made.append(transport)
        try:
            response = await transport.handle_async_request(request)
        except BaseException:
            self._idle.append(transport)
            raise
        assert isinstance(response.stream, httpx.AsyncByteStream)
        response.stream = _GivenBack(response.stream, lambda: self._idle.append(transport))
        return response

    async def aclose(self) -> None:
        """Close every transport made, and with them their connections."""
        made, self._made, self._idle = self._made, [], []
        for transport in made:
            await transport.aclose()


class _GivenBack(httpx.AsyncByteStream):
    """A response's body that gives its transport back when it is closed."""

    def __init__(self, stream: httpx.AsyncByteStream, give_back: Callable[[], None]) -> None:
        self._stream = stream
        self._give_back: Callable[[], None] | None = give_back

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._stream:
            yield chunk

    async def aclose(self) -> None:
        try:
            await self._stream.aclose()
        finally:
            give_back, self._give_back = self._give_back, None
            if give_back is not None:
                give_back()
