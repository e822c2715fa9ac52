"""The check's transport: sends the body and Authorization a probe sets, and notes the answer.

The client builds every request from a NewPlant; a probe needs a body no NewPlant makes (`{}`, a
missing name, an id that is not an integer) and, at times, another Authorization or none. This
transport rewrites the request on its way out, so the probes still go through the client and get
its Outcome, its words and its limits. It notes what actually went (the request after its
rewrite), what came back as it came (the status line, the headers as named, the body's first
bytes) and when each phase of the exchange happened (httpcore's `trace`).
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from plantstore_tui.core.http.timings import PhaseTrace, Timings

# The most of an answer's body kept as it came, for the wire view (which shows a few hundred
# characters of it): far more than is shown, so that a token at the cut is never on show.
BODY_KEPT = 16 * 1024


@dataclass(slots=True)
class Seen:
    """What the transport saw of the last exchange that the Outcome does not keep."""

    content_type: str | None = None
    # Every header of the answer, in its order, as (name, value) text.
    headers: tuple[tuple[str, str], ...] = ()
    tls_version: str | None = None
    certificate: Mapping[str, Any] | None = None
    # The request as it went out (its headers' repr hides the Authorization); None: none went.
    request: httpx.Request | None = None
    # The status line's parts and the headers as the server wrote them (names in their case).
    status: int | None = None
    http_version: str | None = None
    reason: str | None = None
    raw_headers: tuple[tuple[str, str], ...] = ()
    # The body's first `BODY_KEPT` bytes as they came (an echo of the token too: never shown
    # but through the wire's redaction), and its whole size.
    body: bytearray = field(default_factory=bytearray, repr=False)
    body_size: int = 0
    trace: PhaseTrace = field(default_factory=PhaseTrace)

    def timings(self) -> Timings | None:
        """Where the exchange's time went, so far (None: no request went)."""
        return self.trace.timings()

    def note_body(self, chunk: bytes) -> None:
        """Keep what fits of a piece of the body, and count it."""
        room = BODY_KEPT - len(self.body)
        if room > 0:
            self.body += chunk[:room]
        self.body_size += len(chunk)


# The `authorization` that sends the client's own header, the profile's token.
KEEP = object()


class ProbeTransport(httpx.AsyncBaseTransport):
    """Sends the next request with the body and Authorization a probe sets, and notes the answer."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self._inner = inner
        # None: the body the client built.
        self.body: bytes | None = None
        # KEEP: the client's own; None: no Authorization at all; a str: this header value.
        self.authorization: object = KEEP
        # Added to the request; a header of the same name (Content-Type) replaces the client's.
        self.headers: tuple[tuple[str, str], ...] = ()
        # The client's headers left out (lower-case names).
        self.dropped: frozenset[bytes] = frozenset()
        # None: the client's (POST to /plants).
        self.method: str | None = None
        self.url: str | None = None
        self.seen = Seen()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Rewrite the request as the probe asks, send it, and note the TLS session and type."""
        given = {name.lower().encode("ascii") for name, _ in self.headers}
        headers = [
            (name, value)
            for name, value in request.headers.raw
            # Made again from the URL sent to (a redirect followed may go to another host).
            if name.lower() not in (b"content-length", b"host")
            and name.lower() not in given
            and name.lower() not in self.dropped
            and not (self.authorization is not KEEP and name.lower() == b"authorization")
        ]
        headers.extend(
            (name.encode("ascii"), value.encode("latin-1")) for name, value in self.headers
        )
        if isinstance(self.authorization, str) and b"authorization" not in given:
            headers.append((b"Authorization", self.authorization.encode("ascii")))
        content = self.body if self.body is not None else request.content
        seen = self.seen = Seen()
        rewritten = httpx.Request(
            self.method or request.method,
            self.url or request.url,
            headers=headers,
            content=content,
            extensions={**request.extensions, "trace": seen.trace},
        )
        seen.request = rewritten
        seen.trace.begin()
        try:
            response = await self._inner.handle_async_request(rewritten)
        except BaseException:
            seen.trace.fail()
            raise
        seen.status = response.status_code
        seen.http_version = response.http_version
        seen.reason = response.reason_phrase
        raw = response.headers.raw
        seen.raw_headers = tuple(
            (name.decode("latin-1"), value.decode("latin-1")) for name, value in raw
        )
        if response.is_stream_consumed:
            # A transport that built the whole answer in memory (a mock): its body is read.
            seen.note_body(response.content)
        elif isinstance(response.stream, httpx.AsyncByteStream):
            response.stream = _Noted(response.stream, seen)
        seen.content_type = response.headers.get("Content-Type")
        seen.headers = tuple(response.headers.multi_items())
        stream = response.extensions.get("network_stream")
        ssl_object = stream.get_extra_info("ssl_object") if stream is not None else None
        if isinstance(ssl_object, ssl.SSLObject | ssl.SSLSocket):
            seen.tls_version = ssl_object.version()
            seen.certificate = ssl_object.getpeercert() or None
        return response

    async def aclose(self) -> None:
        """Close the wrapped transport."""
        await self._inner.aclose()


class _Noted(httpx.AsyncByteStream):
    """An answer's body passed on as the client reads it, its first bytes noted on the way."""

    def __init__(self, inner: httpx.AsyncByteStream, seen: Seen) -> None:
        self._inner = inner
        self._seen = seen

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._seen.note_body(chunk)
            yield chunk

    async def aclose(self) -> None:
        """Close the stream it passes on."""
        await self._inner.aclose()
