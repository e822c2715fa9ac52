"""The TUI on canned answers: the real client over `httpx.MockTransport`, with a fixed elapsed
time, so snapshots never change from run to run."""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable

import httpx
from pydantic import SecretStr

from plantstore_tui.core.http.client import PlantStoreClient
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.core.plant.outcome import Outcome
from plantstore_tui.core.sending.connection import Connection
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel

from .support import fixed_clock

BASE_URL = "http://127.0.0.1:8000"
TOKEN = SecretStr("snapshot-token-not-secret-Z9k2")
ELAPSED_MS = 4.2

Handler = Callable[[httpx.Request], httpx.Response]


def _json(status: int, value: object) -> httpx.Response:
    # A stream, as from a socket: a body given as content= counts as already read, and the
    # client reads the raw stream to cap its size.
    body = json.dumps(value).encode()
    headers = {"Content-Type": "application/json", "Content-Length": str(len(body))}
    return httpx.Response(status, headers=headers, stream=httpx.ByteStream(body))


def plant_echo(request: httpx.Request) -> httpx.Response:
    """200 with the Plant: what the spec says a success looks like."""
    sent = json.loads(request.content)
    return _json(200, {key: sent[key] for key in ("name", "tag") if key in sent})


def duplicate_id(request: httpx.Request) -> httpx.Response:
    """400 with the reference server's Error for an id already stored."""
    sent = json.loads(request.content)
    message = f"A plant with id {sent['id']} already exists"
    return _json(400, {"error": 1003, "message": message})


def refused(request: httpx.Request) -> httpx.Response:
    """Nothing listens there."""
    # As httpx raises it: the OS error is the cause.
    error = httpx.ConnectError("[Errno 111] Connection refused", request=request)
    raise error from ConnectionRefusedError(111, "Connection refused")


class _FixedTime:
    """The real client, with its elapsed time pinned for the picture."""

    def __init__(self, handler: Handler) -> None:
        self._client = PlantStoreClient(BASE_URL, TOKEN, transport=httpx.MockTransport(handler))
        self.url = self._client.url

    async def create_plant(self, plant: NewPlant) -> Outcome:
        outcome = await self._client.create_plant(plant)
        return dataclasses.replace(outcome, elapsed_ms=ELAPSED_MS)

    async def aclose(self) -> None:
        await self._client.aclose()


def canned_app(
    handler: Handler = plant_echo, *, protected: bool = False, gate: threading.Event | None = None
) -> PlantStoreApp:
    """The TUI whose every send is answered by `handler`, at a fixed time and speed; `protected`:
    sending to the protected profile "prod"; `gate`: the connection is made once it is set (as
    a slow keyring or token command would hold it)."""
    target = Target(base_url=BASE_URL, token=TOKEN, token_source="$PLANTSTORE_TOKEN")
    if protected:
        target = dataclasses.replace(target, profile="prod", protected=True)

    def connect() -> Connection:
        if gate is not None and not gate.wait(30):
            raise TimeoutError("the test never let the connection be made")
        return Connection(target, _FixedTime(handler))

    return PlantStoreApp(connect, TargetLabel.of(target), clock=fixed_clock)
