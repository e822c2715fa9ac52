"""Where a probe's time went (`Timings`, from httpcore's trace of the exchange) and what went on
the wire (`Wire`, the request as the probe transport rewrote it and the answer as it came), against
the reference server, a scripted one and one behind TLS; a kept connection says so instead of a
connect time, and a probe that got no answer says where it stopped."""

from __future__ import annotations

import trustme
from misbehaving import MisbehavingServer, Send, response
from pydantic import SecretStr
from tls_support import TOKEN, TLSServer, plant_store

from plantstore_tui.core.http.client import PlantStoreClient, one_connection
from plantstore_tui.core.http.probe import ProbeRequest, send_probe
from plantstore_tui.core.http.probe_transport import ProbeTransport
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.http.timings import Phase
from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.server.runner import BackgroundServer

CANARY = "canary-token-0123456789-DO-NOT-PRINT"


def _target(base_url: str, token: str = CANARY, ca_bundle: str | None = None) -> Target:
    return Target(
        base_url=base_url, token=SecretStr(token), token_source="test", ca_bundle=ca_bundle
    )


async def test_each_phase_of_an_answered_probe_is_timed_and_adds_up(
    shared_reference_server: BackgroundServer,
) -> None:
    target = _target(
        shared_reference_server.base_url, shared_reference_server.token.get_secret_value()
    )
    answer = await send_probe(target, ProbeRequest(b'{"id": "7", "name": "Fern"}'))
    timings = answer.timings
    assert timings is not None
    assert not timings.reused
    assert timings.stopped is None
    # Plain http: no TLS; every other phase happened, each taking some time.
    assert timings.tls_ms is None
    spent = [timings.connect_ms, timings.request_ms, timings.first_byte_ms, timings.body_ms]
    assert all(ms is not None and ms > 0 for ms in spent), timings
    assert timings.total_ms is not None
    assert sum(ms for ms in spent if ms is not None) <= timings.total_ms
    # The client's own clock runs around the transport's.
    assert answer.elapsed_ms is not None
    assert timings.total_ms <= answer.elapsed_ms
    assert [phase for phase, _ in timings.phases()] == [
        Phase.CONNECT,
        Phase.TLS,
        Phase.REQUEST,
        Phase.FIRST_BYTE,
        Phase.BODY,
    ]


async def test_a_second_send_over_the_kept_connection_says_so_instead_of_a_connect_time(
    shared_reference_server: BackgroundServer,
) -> None:
    target = _target(
        shared_reference_server.base_url, shared_reference_server.token.get_secret_value()
    )
    probe = ProbeTransport(one_connection(target))
    probe.body = b'{"id": "7", "name": "Fern"}'
    seen = []
    async with PlantStoreClient.for_target(target, transport=probe) as client:
        for _ in range(2):
            outcome = await client.create_plant(NewPlant(id=0, name="placeholder"))
            assert outcome.status == 400
            seen.append(probe.seen.timings())
    first, second = seen
    assert first is not None
    assert second is not None
    assert (first.reused, second.reused) == (False, True)
    assert first.connect_ms is not None
    assert second.connect_ms is None
    assert second.request_ms is not None
    assert second.first_byte_ms is not None
    assert second.stopped is None


async def test_a_refused_connection_says_the_probe_stopped_at_connect(closed_port: int) -> None:
    answer = await send_probe(_target(f"http://127.0.0.1:{closed_port}"), ProbeRequest(b"{}"))
    assert answer.status is None
    timings = answer.timings
    assert timings is not None
    assert timings.stopped is Phase.CONNECT
    assert timings.connect_ms is not None
    assert (timings.request_ms, timings.first_byte_ms, timings.body_ms) == (None, None, None)
    assert not timings.reused
    # Nothing was answered: the wire has the request that was to go, and no status line.
    assert answer.wire is not None
    assert answer.wire.status_line is None


async def test_over_tls_the_handshake_is_a_phase_of_its_own(ca: trustme.CA, ca_file: str) -> None:
    async with TLSServer(plant_store, certificate=ca.issue_cert("127.0.0.1")) as server:
        target = _target(server.base_url, TOKEN, ca_bundle=ca_file)
        answer = await send_probe(target, ProbeRequest(b'{"id": 1, "name": "Fern"}'))
    assert answer.status == 200
    assert answer.timings is not None
    assert answer.timings.tls_ms is not None
    assert answer.timings.tls_ms > 0


async def test_the_wire_is_what_went_out_and_what_came_in_order_redacted() -> None:
    echoed = f"seen {CANARY} here".encode()
    headers = [("Content-Type", "application/json"), ("X-Echo", f"Bearer {CANARY}")]
    async with MisbehavingServer([Send(response(418, echoed, headers=headers))]) as server:
        target = _target(server.base_url)
        request = ProbeRequest(b'{"id": 7, "name": "\xff"}', headers=(("X-Given", CANARY),))
        answer = await send_probe(target, request)
    [received] = server.requests
    wire = answer.wire
    assert wire is not None
    assert wire.request_line == "POST /plants HTTP/1.1"
    # In the order the server received them, each as sent but the token.
    head = received.raw.decode("latin-1").partition("\r\n\r\n")[0]
    names = [line.split(":")[0] for line in head.split("\r\n")[1:]]
    assert [name for name, _ in wire.request_headers] == names
    sent = dict(wire.request_headers)
    assert sent["Authorization"] == f"Bearer …{CANARY[-4:]}"
    assert sent["X-Given"] == "[token]"
    assert sent["Content-Length"] == str(len(request.body))
    assert wire.request_body == request.body
    assert wire.status_line == "HTTP/1.1 418 I'm a Teapot"
    # As received: the names' case kept, the token taken out of every value.
    assert ("X-Echo", "Bearer [token]") in wire.answer_headers
    assert wire.answer_body == b"seen [token] here"
    assert wire.answer_size == len(echoed)
    assert CANARY not in repr(answer)


async def test_a_token_in_the_path_is_taken_out_of_the_request_line() -> None:
    async with MisbehavingServer([Send(response(404))]) as server:
        answer = await send_probe(_target(f"{server.base_url}/{CANARY}"), ProbeRequest(b"{}"))
    [received] = server.requests
    assert received.target == f"/{CANARY}/plants"
    assert answer.wire is not None
    assert answer.wire.request_line == "POST /[token]/plants HTTP/1.1"


async def test_a_refused_certificate_says_the_probe_stopped_at_tls(ca: trustme.CA) -> None:
    async with TLSServer(plant_store, certificate=ca.issue_cert("127.0.0.1")) as server:
        answer = await send_probe(_target(server.base_url, TOKEN), ProbeRequest(b"{}"))
    assert answer.status is None
    timings = answer.timings
    assert timings is not None
    assert timings.stopped is Phase.TLS
    assert timings.connect_ms is not None
    assert timings.tls_ms is not None
    assert timings.request_ms is None
