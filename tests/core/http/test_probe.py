"""`send_probe`: one request exactly as given, read by the spec's rules, against the reference
server and against an independent server that answers what a test tells it."""

from __future__ import annotations

import json

import pytest
from misbehaving import MisbehavingServer, Send, html_502, json_response, response, spec_like
from pydantic import SecretStr

from plantstore_tui.core.http.probe import (
    WRONG_TOKEN,
    ProbeRequest,
    Shape,
    TokenChoice,
    parse_header,
    send_probe,
)
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.plant.outcome import PlantFate
from plantstore_tui.server.runner import BackgroundServer

CANARY = "canary-token-0123456789-DO-NOT-PRINT"


def _target(base_url: str, token: str = CANARY) -> Target:
    return Target(base_url=base_url, token=SecretStr(token), token_source="test")


async def test_an_id_given_as_a_string_is_refused_with_the_spec_s_error(
    shared_reference_server: BackgroundServer,
) -> None:
    target = _target(
        shared_reference_server.base_url, shared_reference_server.token.get_secret_value()
    )
    answer = await send_probe(target, ProbeRequest(b'{"id": "7", "name": "Fern"}'))
    assert answer.status == 400
    assert answer.reading.shape is Shape.ERROR
    assert answer.reading.listed
    assert answer.reading.fate is PlantFate.NOT_CREATED
    assert json.loads(answer.body)["error"] > 0
    assert ("content-type", "application/json") in [
        (name.lower(), value) for name, value in answer.headers
    ]
    assert answer.elapsed_ms is not None
    assert answer.elapsed_ms > 0


async def test_a_valid_body_creates_a_plant_read_as_a_plant(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    target = _target(
        shared_reference_server.base_url, shared_reference_server.token.get_secret_value()
    )
    body = json.dumps({"id": plant_id, "name": "Fern"}).encode()
    answer = await send_probe(target, ProbeRequest(body))
    assert answer.status == 200
    assert answer.reading.shape is Shape.PLANT
    assert answer.reading.fate is PlantFate.CREATED
    # The placeholder the client builds is not what was sent: no mark compares with it.
    assert answer.reading.off_spec == ()
    assert "The plant was created." in answer.reading.words


@pytest.mark.parametrize(
    ("token", "authorization"),
    [
        (TokenChoice.PROFILE, f"Bearer {CANARY}"),
        (TokenChoice.NONE, None),
        (TokenChoice.WRONG, f"Bearer {WRONG_TOKEN}"),
    ],
)
async def test_the_body_goes_byte_for_byte_with_the_token_chosen(
    token: TokenChoice, authorization: str | None
) -> None:
    raw = b'{"id": 7,'
    async with MisbehavingServer(html_502()) as server:
        answer = await send_probe(_target(server.base_url), ProbeRequest(raw, token=token))
    (received,) = server.requests
    assert received.body == raw
    assert received.headers.get("authorization") == authorization
    assert answer.status == 502
    assert answer.reading.shape is Shape.NEITHER
    assert not answer.reading.listed
    assert CANARY not in json.dumps(answer.to_json())
    shown = dict(answer.sent_headers).get("Authorization")
    if token is TokenChoice.PROFILE:
        assert shown == f"Bearer …{CANARY[-4:]}"
    elif token is TokenChoice.NONE:
        assert shown is None


async def test_a_header_given_replaces_the_client_s_of_that_name() -> None:
    async with MisbehavingServer(spec_like) as server:
        request = ProbeRequest(
            b"name=Fern", headers=(("Content-Type", "text/plain"), ("X-Trace", "abc"))
        )
        answer = await send_probe(_target(server.base_url), request)
    (received,) = server.requests
    assert received.headers["content-type"] == "text/plain"
    assert received.headers["x-trace"] == "abc"
    assert ("Content-Type", "text/plain") in answer.sent_headers
    assert answer.status is not None


async def test_a_token_the_server_echoes_is_not_in_the_answer() -> None:
    echo = response(401, json.dumps({"error": 401, "message": f"bad {CANARY}"}).encode())
    async with MisbehavingServer([Send(echo)]) as server:
        answer = await send_probe(_target(server.base_url), ProbeRequest(b"{}"))
    assert answer.status == 401
    # The spec leaves a refused token's answer open (no departure), but does not list 401.
    assert not answer.reading.listed
    assert answer.reading.off_spec == ()
    assert "401 Unauthorized is not in the spec" in answer.reading.words
    assert CANARY not in json.dumps(answer.to_json())


@pytest.mark.parametrize("padding", range(0, 64, 8))
async def test_a_malformed_line_quoting_the_token_leaves_no_piece_of_it_when_cut(
    padding: int,
) -> None:
    # The words for a line that is not HTTP quote it, cut to 60 characters: wherever the cut
    # falls, no piece of the token is left in them.
    line = b"x" * padding + CANARY.encode()
    malformed = b"HTTP/1.1 200 OK\r\n" + line + b"\r\nContent-Length: 0\r\n\r\n"
    async with MisbehavingServer([Send(malformed)]) as server:
        answer = await send_probe(_target(server.base_url), ProbeRequest(b"{}"))
    assert not answer.answered
    words = json.dumps(answer.to_json()) + answer.outcome.headline
    assert "a header line reads 'x" in words or "a header line reads '[token]" in words
    assert CANARY[:8] not in words


async def test_no_answer_is_told_in_words(closed_port: int) -> None:
    answer = await send_probe(_target(f"http://127.0.0.1:{closed_port}"), ProbeRequest(b"{}"))
    assert not answer.answered
    assert answer.reading.shape is None
    assert answer.to_json()["message"]
    assert "No answer came" in answer.reading.words


async def test_an_error_answered_200_is_read_as_an_error_and_its_status_as_listed() -> None:
    async with MisbehavingServer(
        [Send(json_response(200, {"error": 3, "message": "no"}))]
    ) as server:
        answer = await send_probe(_target(server.base_url), ProbeRequest(b"{}"))
    assert answer.reading.shape is Shape.ERROR
    assert answer.reading.listed


@pytest.mark.parametrize(
    "text", ["NoColon", ": value", "Bad Name: x", "Host: example", "X-Name: caf\u00e9\u2603"]
)
def test_a_header_that_cannot_be_sent_is_refused_in_words(text: str) -> None:
    with pytest.raises(ValueError, match=r"\S"):
        parse_header(text)


def test_a_header_is_a_name_and_a_value() -> None:
    assert parse_header("X-Trace:  abc ") == ("X-Trace", "abc")
