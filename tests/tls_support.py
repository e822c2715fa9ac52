"""A scripted server behind TLS on loopback, and a spec-following deployment that checks the
token first, for the TLS tests of every front end."""

from __future__ import annotations

import asyncio
import datetime
import ssl
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Self

import trustme
from misbehaving import Action, MisbehavingServer, ReceivedRequest, Send, json_response

TOKEN = "tls-test-token-0123456789"
NOW = datetime.datetime.now(datetime.UTC)


@dataclass(repr=False)
class TLSServer(MisbehavingServer):
    """The scripted server behind TLS, with the certificate a test gives it."""

    certificate: trustme.LeafCert | None = None

    @property
    def base_url(self) -> str:
        """An https:// base URL on loopback."""
        return f"https://127.0.0.1:{self.port}"

    async def __aenter__(self) -> Self:
        assert self.certificate is not None
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.certificate.configure_cert(context)
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=context)
        self.port = self._server.sockets[0].getsockname()[1]
        return self


def plant_store(request: ReceivedRequest) -> Sequence[Action]:
    """Answers as a spec-following deployment that checks the token first."""
    if request.headers.get("authorization") != f"Bearer {TOKEN}":
        return [Send(json_response(401, {"error": 401, "message": "bad token"}))]
    try:
        sent = request.json()
    except ValueError:
        sent = None
    if isinstance(sent, dict) and isinstance(sent.get("name"), str) and type(sent.get("id")) is int:
        return [Send(json_response(200, {"name": sent["name"], "tag": sent.get("tag")}))]
    return [Send(json_response(400, {"error": 1, "message": "not a NewPlant"}))]
