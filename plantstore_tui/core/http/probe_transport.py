"""The check's transport: sends the body and Authorization a probe sets, and notes the answer.

The client builds every request from a NewPlant; a probe needs a body no NewPlant makes (`{}`, a
missing name, an id that is not an integer) and, at times, another Authorization or none. This
transport rewrites the request on its way out, so the probes still go through the client and get
its Outcome, its words and its limits.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass(slots=True)
class Seen:
    """What the transport saw of the last answer that the Outcome does not keep."""

    content_type: str | None = None
    # Every header of the answer, in its order, as (name, value) text.
    headers: tuple[tuple[str, str], ...] = ()
    tls_version: str | None = None
    certificate: Mapping[str, Any] | None = None


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
        rewritten = httpx.Request(
            self.method or request.method,
            self.url or request.url,
            headers=headers,
            content=content,
            extensions=request.extensions,
        )
        self.seen = Seen()
        response = await self._inner.handle_async_request(rewritten)
        self.seen.content_type = response.headers.get("Content-Type")
        self.seen.headers = tuple(response.headers.multi_items())
        stream = response.extensions.get("network_stream")
        ssl_object = stream.get_extra_info("ssl_object") if stream is not None else None
        if isinstance(ssl_object, ssl.SSLObject | ssl.SSLSocket):
            self.seen.tls_version = ssl_object.version()
            self.seen.certificate = ssl_object.getpeercert() or None
        return response

    async def aclose(self) -> None:
        """Close the wrapped transport."""
        await self._inner.aclose()
