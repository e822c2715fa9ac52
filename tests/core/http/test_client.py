"""The client against misbehaving servers: every send ends in an Outcome, in words; none raise."""

from __future__ import annotations

import asyncio
import errno
import gzip
import io
import json
import socket
import ssl
import time
import traceback
import tracemalloc
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from misbehaving import (
    ESCAPES,
    MARKUP,
    Action,
    Close,
    Hang,
    MisbehavingServer,
    ReceivedRequest,
    Reset,
    Script,
    Send,
    empty_200,
    error_with_wrong_types,
    gzip_bomb,
    html_502,
    json_response,
    markup_and_escapes,
    oversized,
    redirect_to,
    reset_mid_body,
    response,
    slow_drip,
    spec_like,
    status_413,
    status_429,
    status_500,
    wrong_shape_200,
)
from pydantic import SecretStr

from plantstore_tui import __version__
from plantstore_tui.core.http.client import PlantStoreClient
from plantstore_tui.core.http.failures import explain
from plantstore_tui.core.http.target import Limits
from plantstore_tui.core.http.urls import InvalidBaseURL, normalize_base_url, plants_url
from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.core.plant.outcome import (
    Created,
    Failed,
    FailureKind,
    Outcome,
    PlantFate,
    Rejected,
    cancelled,
    fate_sentence,
    outcome_name,
    outcome_to_json,
)
from plantstore_tui.core.plant.text import visible

CANARY = "CANARY-TOKEN-7d1f0c9e2b4a6f83"
TOKEN = SecretStr(CANARY)
PLANT = NewPlant(id=7, name="Fern")
MOCK_URL = "http://plants.test"


async def send(
    base_url: str,
    plant: NewPlant = PLANT,
    *,
    limits: Limits | None = None,
    token: SecretStr = TOKEN,
) -> Outcome:
    async with PlantStoreClient(base_url, token, limits=limits) as client:
        return await client.create_plant(plant)


async def answer(
    script: Script, *, limits: Limits | None = None, plant: NewPlant = PLANT
) -> tuple[Outcome, MisbehavingServer]:
    """The outcome of one send to a server playing `script`, and the server (stopped)."""
    async with MisbehavingServer(script) as server:
        outcome = await send(server.base_url, plant, limits=limits)
    return outcome, server


def mock_client(handler: Callable[[httpx.Request], Any], **kwargs: Any) -> PlantStoreClient:
    return PlantStoreClient(MOCK_URL, TOKEN, transport=httpx.MockTransport(handler), **kwargs)


def assert_unknown_fate_is_said(outcome: Outcome) -> None:
    assert outcome.fate is PlantFate.UNKNOWN
    assert fate_sentence(outcome.fate) == "The plant may or may not have been created."
    assert "again" in outcome.advice


# What a well-behaved server sees.


async def test_created_from_an_answer_as_the_spec_shows() -> None:
    outcome, server = await answer(spec_like)
    assert isinstance(outcome, Created)
    assert (outcome.status, outcome.plant.name, outcome.plant.tag) == (200, "Fern", None)
    assert outcome.fate is PlantFate.CREATED
    assert outcome.headline == "Created plant 7 (Fern)"
    assert outcome.url == f"{server.base_url}/plants"
    assert outcome.elapsed_ms > 0


async def test_the_request_is_a_post_of_the_new_plant_with_bearer_and_user_agent() -> None:
    _, server = await answer(spec_like, plant=NewPlant(id=-3, name="Aloe", tag="succulent"))
    [request] = server.requests
    assert (request.method, request.target) == ("POST", "/plants")
    assert request.headers["authorization"] == f"Bearer {CANARY}"
    assert request.headers["user-agent"] == f"plantstore-tui/{__version__}"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["accept-encoding"] == "identity"
    assert request.json() == {"id": -3, "name": "Aloe", "tag": "succulent"}


async def test_the_request_carries_these_headers_and_no_others() -> None:
    # What a deployment sees, and what an answer that echoes the request shows (cut to 200
    # characters, the token redacted): no header of httpx's own.
    _, server = await answer(spec_like)
    assert list(server.requests[0].headers) == [
        "host",
        "user-agent",
        "accept",
        "accept-encoding",
        "content-type",
        "authorization",
        "content-length",
    ]


async def test_an_absent_tag_is_not_in_the_body() -> None:
    _, server = await answer(spec_like)
    assert server.requests[0].json() == {"id": 7, "name": "Fern"}


async def test_a_base_url_with_a_path_keeps_it() -> None:
    async with MisbehavingServer(spec_like) as server:
        outcome = await send(f"{server.base_url}/api/v1/")
    assert isinstance(outcome, Created)
    assert server.requests[0].target == "/api/v1/plants"


async def test_two_sends_reuse_one_kept_alive_connection() -> None:
    async with (
        MisbehavingServer(spec_like) as server,
        PlantStoreClient(server.base_url, TOKEN) as client,
    ):
        first = await client.create_plant(PLANT)
        second = await client.create_plant(NewPlant(id=8, name="Ivy"))
    assert isinstance(first, Created)
    assert isinstance(second, Created)
    assert len(server.requests) == 2
    assert server.connections == 1


async def test_sends_in_flight_at_once_each_keep_their_own_connection() -> None:
    plants = [NewPlant(id=number, name=f"P{number}") for number in range(12)]
    async with (
        MisbehavingServer(spec_like) as server,
        PlantStoreClient(server.base_url, TOKEN) as client,
    ):
        outcomes = []
        for start in (0, 4, 8):
            outcomes += await asyncio.gather(
                *(client.create_plant(plant) for plant in plants[start : start + 4])
            )
    assert all(isinstance(outcome, Created) for outcome in outcomes)
    assert sorted(request.json()["id"] for request in server.requests) == list(range(12))
    # Four at once open four connections; the rounds after them reuse those four.
    assert server.connections == 4


async def test_sends_started_together_each_take_a_connection_at_the_first_try(
    connection_retries: list[int],
) -> None:
    # As the import's workers start when a group of rows is written: a request handed a
    # connection another one took first is retried, and each retry polls every idle connection
    # (0.6 ms more a send, benchmarks/README.md).
    plants = [NewPlant(id=number, name=f"P{number}") for number in range(24)]
    async with (
        MisbehavingServer(spec_like) as server,
        PlantStoreClient(server.base_url, TOKEN) as client,
    ):
        outcomes = []
        for start in (0, 8, 16):
            outcomes += await asyncio.gather(
                *(client.create_plant(plant) for plant in plants[start : start + 8])
            )
    assert all(isinstance(outcome, Created) for outcome in outcomes)
    assert server.connections == 8
    assert connection_retries == [0]


async def test_a_cookie_the_server_sets_is_never_sent_back() -> None:
    def with_cookie(request: ReceivedRequest) -> list[Action]:
        plant = {"name": request.json()["name"]}
        return [Send(json_response(200, plant, headers=[("Set-Cookie", "session=abc; Path=/")]))]

    async with (
        MisbehavingServer(with_cookie) as server,
        PlantStoreClient(server.base_url, TOKEN) as client,
    ):
        first = await client.create_plant(PLANT)
        second = await client.create_plant(NewPlant(id=8, name="Ivy"))
    assert isinstance(first, Created)
    assert isinstance(second, Created)
    assert [("cookie" in request.headers) for request in server.requests] == [False, False]


def test_the_client_repr_names_the_target_only() -> None:
    client = PlantStoreClient("http://plants.test", TOKEN)
    assert repr(client) == "PlantStoreClient(base_url='http://plants.test')"


# Redirects are reported, never followed.


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
async def test_a_redirect_is_reported_and_the_token_never_travels(status: int) -> None:
    async with MisbehavingServer(spec_like) as elsewhere:
        target = f"{elsewhere.base_url}/plants"
        outcome, server = await answer(redirect_to(target, status))
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.REDIRECT
    assert outcome.location == target
    assert target in outcome.message
    assert outcome.fate is (PlantFate.UNKNOWN if status == 303 else PlantFate.NOT_CREATED)
    assert len(server.requests) == 1
    assert elsewhere.connections == 0
    assert elsewhere.requests == []


@pytest.mark.parametrize(
    ("status", "location"),
    [
        (303, "http://plants.test:port/plants"),
        (301, "mailto:plants@example.test"),
        (307, "https://[::1/plants"),
        (308, "ftp://plants.test/plants"),
    ],
)
async def test_a_redirect_to_an_unusable_location_is_still_a_redirect(
    status: int, location: str
) -> None:
    # Not followed, so where it points is only reported: what it means for the plant is the
    # status's, and nothing blames the base URL.
    outcome, server = await answer(redirect_to(location, status))
    assert isinstance(outcome, Failed)
    assert (outcome.kind, outcome.status, outcome.location) == (
        FailureKind.REDIRECT,
        status,
        location,
    )
    assert outcome.fate is (PlantFate.UNKNOWN if status == 303 else PlantFate.NOT_CREATED)
    assert "base URL cannot be used" not in outcome.message
    assert len(server.requests) == 1


async def test_a_redirect_without_location_is_still_a_redirect() -> None:
    outcome, _ = await answer([Send(response(302))])
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.REDIRECT
    assert outcome.location is None
    assert "no Location given" in outcome.message


@pytest.mark.parametrize("status", [300, 304])
async def test_other_3xx_are_unexpected(status: int) -> None:
    outcome, _ = await answer([Send(response(status))])
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.INVALID_RESPONSE
    assert f"unexpected status {status}" in outcome.message


# Answers that are not what the spec shows.


async def test_a_200_of_the_wrong_shape_names_the_field_and_guesses_nothing() -> None:
    outcome, _ = await answer(wrong_shape_200())
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.INVALID_RESPONSE
    assert outcome.status == 200
    assert outcome.message.endswith("the body is not a Plant: name: Field required")
    assert outcome.body == '{"nom": "Fern", "tag": "indoor"}'
    assert_unknown_fate_is_said(outcome)


async def test_an_empty_200_is_not_a_plant() -> None:
    outcome, _ = await answer(empty_200())
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.INVALID_RESPONSE
    assert "body: Invalid JSON" in outcome.message


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"error": "12", "message": "m"}, "error: Input should be a valid integer"),
        ({"error": 2**40, "message": "m"}, "error: Input should be less than or equal to"),
        ({"error": 12}, "message: Field required"),
        ({"error": 12, "message": None}, "message: Input should be a valid string"),
        ([1, 2], "body: Input should be an object"),
    ],
)
async def test_an_error_with_wrong_types_is_a_rejection_without_an_error(
    value: Any, problem: str
) -> None:
    outcome, _ = await answer(error_with_wrong_types(value))
    assert isinstance(outcome, Rejected)
    assert outcome.status == 400
    assert outcome.error is None
    assert outcome.body_problem is not None
    assert outcome.body_problem.startswith(problem)
    assert outcome.body == json.dumps(value)
    assert outcome.fate is PlantFate.NOT_CREATED


async def test_an_error_as_the_spec_shows() -> None:
    outcome, _ = await answer([Send(json_response(400, {"error": 3, "message": "id taken"}))])
    assert isinstance(outcome, Rejected)
    assert outcome.error is not None
    assert (outcome.error.error, outcome.error.message) == (3, "id taken")
    assert outcome.headline == "Rejected with 400: error 3: id taken"
    assert outcome.advice == "Correct the plant and send it again."


async def test_a_502_html_page_is_an_unknown_rejection() -> None:
    outcome, _ = await answer(html_502())
    assert isinstance(outcome, Rejected)
    assert (outcome.status, outcome.error, outcome.body_problem) == (
        502,
        None,
        "the body is not JSON",
    )
    assert outcome.body.startswith("<html>")
    assert_unknown_fate_is_said(outcome)


async def test_a_500_is_an_unknown_rejection() -> None:
    outcome, _ = await answer(status_500())
    assert isinstance(outcome, Rejected)
    assert outcome.status == 500
    assert_unknown_fate_is_said(outcome)
    assert "server failed" in outcome.advice


async def test_an_empty_400_says_the_body_is_empty() -> None:
    outcome, _ = await answer([Send(response(400))])
    assert isinstance(outcome, Rejected)
    assert outcome.body_problem == "the body is empty"
    assert outcome.fate is PlantFate.NOT_CREATED


async def test_a_413_says_the_request_was_too_large() -> None:
    outcome, _ = await answer(status_413())
    assert isinstance(outcome, Rejected)
    assert outcome.fate is PlantFate.NOT_CREATED
    assert "too large" in outcome.advice


async def test_a_429_passes_on_retry_after() -> None:
    outcome, _ = await answer(status_429("7"))
    assert isinstance(outcome, Rejected)
    assert outcome.retry_after == "7"
    assert outcome.fate is PlantFate.NOT_CREATED
    assert outcome.advice.endswith("(Retry-After: 7)")


async def test_a_401_points_at_the_token() -> None:
    outcome, _ = await answer([Send(json_response(401, {"error": 401, "message": "no"}))])
    assert isinstance(outcome, Rejected)
    assert "token" in outcome.advice


@pytest.mark.parametrize("status", [200, 400])
async def test_markup_and_escape_sequences_are_kept_as_literal_data(status: int) -> None:
    outcome, _ = await answer(markup_and_escapes(status))
    text = f"{MARKUP} {ESCAPES}"
    if status == 200:
        assert isinstance(outcome, Created)
        assert outcome.plant.name == text
    else:
        assert isinstance(outcome, Rejected)
        assert outcome.error is not None
        assert outcome.error.message == text
    shown = visible(outcome.headline)
    assert MARKUP in shown
    assert not any(char in shown for char in "\x1b\x07\x9b\u202e")
    assert "\\e]52;c;" in shown


# Bodies are capped, compressed or not.


async def test_a_declared_length_past_the_cap_is_not_read() -> None:
    outcome, _ = await answer(oversized(2 * 1024 * 1024))
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.TOO_LARGE
    assert "2,097,152 bytes declared" in outcome.message


async def test_a_chunked_body_past_the_cap_is_cut_off() -> None:
    outcome, _ = await answer(oversized(2 * 1024 * 1024, chunked=True))
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.TOO_LARGE
    assert "more than 1,048,576 bytes" in outcome.message


async def test_the_cap_is_inclusive() -> None:
    body = json.dumps({"name": "x" * 100}).encode()
    outcome, _ = await answer([Send(response(200, body))], limits=Limits(max_body=len(body)))
    assert isinstance(outcome, Created)
    outcome, _ = await answer([Send(response(200, body))], limits=Limits(max_body=len(body) - 1))
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.TOO_LARGE


async def test_a_gzip_bomb_does_not_blow_up_memory() -> None:
    async with (
        MisbehavingServer(gzip_bomb(10 * 1024 * 1024)) as server,
        PlantStoreClient(server.base_url, TOKEN) as client,
    ):
        tracemalloc.start()
        try:
            outcome = await client.create_plant(PLANT)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.TOO_LARGE
    assert "once decompressed" in outcome.message
    # The cap is 1 MiB; reading the whole bomb would take 10.
    assert peak < 4 * 1024 * 1024


async def test_an_honest_gzipped_plant_is_read() -> None:
    packed = gzip.compress(json.dumps({"name": "Fern"}).encode())
    outcome, _ = await answer([Send(response(200, packed, headers=[("Content-Encoding", "gzip")]))])
    assert isinstance(outcome, Created)
    assert outcome.plant.name == "Fern"


async def test_a_gzipped_body_cut_short_is_invalid() -> None:
    packed = gzip.compress(json.dumps({"name": "Fern" * 100}).encode())[:-12]
    outcome, _ = await answer([Send(response(200, packed, headers=[("Content-Encoding", "gzip")]))])
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.INVALID_RESPONSE
    assert "does not decompress" in outcome.message


async def test_an_unknown_content_encoding_is_named() -> None:
    outcome, _ = await answer([Send(response(200, b"\x0b", headers=[("Content-Encoding", "br")]))])
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.INVALID_RESPONSE
    assert outcome.message.endswith("does not read: br")


# Time and the network.


async def test_a_slow_drip_ends_at_the_deadline() -> None:
    started = time.perf_counter()
    outcome, _ = await answer(slow_drip(0.2), limits=Limits(deadline=1.0))
    took = time.perf_counter() - started
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.TIMEOUT
    assert outcome.status == 200
    assert "1 s deadline" in outcome.message
    assert_unknown_fate_is_said(outcome)
    assert 0.9 < took < 1.5


async def test_silence_after_the_request_is_a_read_timeout() -> None:
    outcome, server = await answer([Hang()], limits=Limits(read=0.2))
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.TIMEOUT
    assert outcome.status is None
    assert_unknown_fate_is_said(outcome)
    assert len(server.requests) == 1


async def test_a_reset_mid_body_is_a_dropped_connection_and_is_not_retried() -> None:
    outcome, server = await answer(reset_mid_body())
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.CONNECTION_DROPPED
    assert "dropped" in outcome.message
    assert_unknown_fate_is_said(outcome)
    assert len(server.requests) == 1
    assert server.connections == 1


async def test_a_close_without_an_answer_is_a_dropped_connection_and_is_not_retried() -> None:
    outcome, server = await answer([Close()])
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.CONNECTION_DROPPED
    assert_unknown_fate_is_said(outcome)
    assert len(server.requests) == 1


async def test_an_answer_that_is_not_http_says_so() -> None:
    outcome, _ = await answer([Send(b"SSH-2.0-OpenSSH_9.6\r\n\r\n"), Close()])
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.INVALID_RESPONSE
    assert outcome.message.startswith("The answer is not valid HTTP")
    assert outcome.fate is PlantFate.UNKNOWN


@pytest.mark.parametrize(
    ("sent", "words"),
    [
        (b"SPROING 999 whatever\r\n\r\n", "its status line reads 'SPROING 999 whatever'"),
        (b"HTTP/1.1 200 OK\r\nX: a\x00\x1bz\r\n\r\n", "a header line reads 'X: a\\x00\\ez'"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", "its Content-Length is not a number"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "its Transfer-Encoding is not"),
    ],
)
async def test_what_is_wrong_with_an_answer_is_said_without_python_notation(
    sent: bytes, words: str
) -> None:
    outcome, _ = await answer([Send(sent), Close()])
    assert isinstance(outcome, Failed)
    assert outcome.message.startswith(f"The answer is not valid HTTP: {words}")
    assert "bytearray" not in outcome.message
    assert "b'" not in outcome.message


@pytest.mark.parametrize(
    "exc",
    [OSError(errno.EIO, "Input/output error"), httpx.DecodingError("bad gzip"), UnicodeError("x")],
)
def test_any_other_failure_is_said_in_words_not_by_its_class(exc: Exception) -> None:
    failure = explain(exc, 200, Limits(), "127.0.0.1")
    assert type(exc).__name__ not in failure.message
    assert failure.message.startswith("The answer (200) cannot be decoded") or (
        failure.message == "The exchange with the server failed before a usable answer came"
    )
    assert failure.fate is PlantFate.UNKNOWN


async def test_a_refused_connection_was_not_created(closed_port: int) -> None:
    outcome = await send(f"http://127.0.0.1:{closed_port}")
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.CANNOT_CONNECT
    assert outcome.fate is PlantFate.NOT_CREATED
    assert "refused" in outcome.message


async def test_https_to_a_server_that_does_not_speak_tls_is_a_tls_failure() -> None:
    async with MisbehavingServer(spec_like, greeting=b"HTTP/1.1 400 Bad\r\n\r\n") as server:
        outcome = await send(f"https://127.0.0.1:{server.port}")
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.TLS
    assert outcome.message.startswith("The TLS handshake failed (")
    assert outcome.fate is PlantFate.NOT_CREATED
    assert server.requests == []


def refused_certificate() -> ssl.SSLCertVerificationError:
    failure = ssl.SSLCertVerificationError(1, "certificate verify failed")
    failure.verify_message = "self-signed certificate"
    return failure


@pytest.mark.parametrize(
    ("cause", "kind", "message"),
    [
        (
            refused_certificate(),
            FailureKind.TLS,
            "The server's TLS certificate was not accepted: self-signed certificate",
        ),
        (
            socket.gaierror(-2, "Name or service not known"),
            FailureKind.CANNOT_CONNECT,
            "Cannot connect to plants.test: the host name does not resolve",
        ),
        (
            OSError(errno.ENETUNREACH, "Network is unreachable"),
            FailureKind.CANNOT_CONNECT,
            "Cannot connect to plants.test: the network or host is unreachable",
        ),
        (
            ExceptionGroup("attempts", [ConnectionRefusedError(), ConnectionRefusedError()]),
            FailureKind.CANNOT_CONNECT,
            "Cannot connect to plants.test: the connection was refused (nothing listens there)",
        ),
    ],
)
async def test_a_connect_failure_is_named_by_its_cause(
    cause: Exception, kind: FailureKind, message: str
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("All connection attempts failed") from cause

    async with mock_client(handler) as client:
        outcome = await client.create_plant(PLANT)
    assert isinstance(outcome, Failed)
    assert (outcome.kind, outcome.message) == (kind, message)
    assert outcome.fate is PlantFate.NOT_CREATED


UNUSABLE_BASE_URLS = [
    "",
    "plants.test",
    "ftp://plants.test",
    "http://",
    "http:plants.test",
    "http://u:p@plants.test",
    "http://plants.test/?q=1",
    "http://plants.test?",
    "http://plants.test/#top",
    "http://plants test",
    "http://127.0.0.1:99999",
    "http://127.0.0.1:0",
    "http://256.1.1.1",
    "HTTP://[",
    "http://plants;test",
    "http://plants\x00.test",
]


@pytest.mark.parametrize("base_url", UNUSABLE_BASE_URLS)
async def test_an_unusable_base_url_sends_nothing(base_url: str) -> None:
    with pytest.raises(InvalidBaseURL):
        normalize_base_url(base_url)
    outcome = await send(base_url)
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.INVALID_URL
    assert outcome.fate is PlantFate.NOT_CREATED


@pytest.mark.parametrize(
    ("base_url", "normalized"),
    [
        (" http://plants.test/ ", "http://plants.test"),
        ("HTTPS://Plants.Test:8443/api/", "https://plants.test:8443/api"),
        ("http://[::1]:8000", "http://[::1]:8000"),
        ("http://plänts.test", "http://xn--plnts-hra.test"),
    ],
)
def test_a_usable_base_url_is_normalized(base_url: str, normalized: str) -> None:
    assert normalize_base_url(base_url) == normalized
    assert plants_url(normalized) == f"{normalized}/plants"


@given(
    st.one_of(
        st.text(max_size=40),
        st.builds(
            "{}://{}{}".format,
            st.sampled_from(["http", "https", "HTTP", "ftp"]),
            st.text(max_size=20),
            st.text(max_size=20),
        ),
    )
)
def test_any_text_is_a_base_url_or_says_why_not(text: str) -> None:
    try:
        base_url = normalize_base_url(text)
    except InvalidBaseURL as exc:
        refusal = str(exc)
    else:
        refusal = ""
    if refusal:
        assert refusal.startswith("The base URL")
        return
    url = httpx.URL(plants_url(base_url))
    assert url.scheme in ("http", "https")
    assert url.path.endswith("/plants")
    assert (url.query, url.fragment) == (b"", "")


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=30).map(lambda text: f"http://{text}"))
async def test_any_base_url_becomes_an_outcome(base_url: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"name": "Fern"})

    async with PlantStoreClient(base_url, TOKEN, transport=httpx.MockTransport(handler)) as client:
        outcome = await client.create_plant(PLANT)
    assert outcome_name(outcome) in ("created", "failed")


@pytest.mark.parametrize("token", ["", "has space", "tab\there", "ünïcode", "new\nline"])
async def test_a_token_that_cannot_be_a_header_sends_nothing(token: str) -> None:
    async with MisbehavingServer(spec_like) as server:
        outcome = await send(server.base_url, token=SecretStr(token))
    assert isinstance(outcome, Failed)
    assert outcome.kind is FailureKind.INVALID_TOKEN
    assert server.connections == 0
    assert not token or token not in outcome.message


async def test_cancelling_a_send_propagates_and_the_client_still_works() -> None:
    def hang_first(request: ReceivedRequest) -> list[Action]:
        return [Hang()] if request.json()["id"] == 1 else spec_like(request)

    async with (
        MisbehavingServer(hang_first) as server,
        PlantStoreClient(server.base_url, TOKEN) as client,
    ):
        sending = asyncio.create_task(client.create_plant(NewPlant(id=1, name="Fern")))
        await server.wait_for_requests(1)
        sending.cancel()
        with pytest.raises(asyncio.CancelledError):
            await sending
        outcome = await client.create_plant(NewPlant(id=2, name="Ivy"))
    assert isinstance(outcome, Created)
    assert len(server.requests) == 2


# Nothing from httpx (or below it) ever reaches the caller.


def every_httpx_exception() -> list[Exception]:
    request = httpx.Request("POST", f"{MOCK_URL}/plants")
    made: list[Exception] = []
    for name in sorted(httpx.__all__):
        kind = getattr(httpx, name)
        if not (isinstance(kind, type) and issubclass(kind, Exception)):
            continue
        if kind is httpx.HTTPStatusError:
            made.append(kind("boom", request=request, response=httpx.Response(500)))
        else:
            try:
                made.append(kind("boom"))
            except TypeError:
                made.append(kind())
    return made


LOWER_FAILURES: list[Exception] = [
    *every_httpx_exception(),
    UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
    UnicodeEncodeError("ascii", "é", 0, 1, "ordinal not in range"),
    ConnectionResetError(104, "Connection reset by peer"),
    OSError(5, "Input/output error"),
    ssl.SSLError(1, "[SSL] record layer failure"),
    TimeoutError(),
]


def test_every_httpx_exception_class_is_covered() -> None:
    assert len(every_httpx_exception()) >= 28


@pytest.mark.parametrize("failure", LOWER_FAILURES, ids=lambda failure: type(failure).__name__)
async def test_a_failure_while_sending_becomes_an_outcome(failure: Exception) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise failure

    async with mock_client(handler) as client:
        outcome = await client.create_plant(PLANT)
    assert isinstance(outcome, Failed)
    assert outcome.message
    assert outcome.advice


class BreakingStream(httpx.AsyncByteStream):
    """A body that fails after its first bytes."""

    def __init__(self, failure: Exception) -> None:
        self.failure = failure

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield b'{"name": '
        raise self.failure


@pytest.mark.parametrize("failure", LOWER_FAILURES, ids=lambda failure: type(failure).__name__)
async def test_a_failure_mid_body_becomes_an_outcome(failure: Exception) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=BreakingStream(failure))

    async with mock_client(handler) as client:
        outcome = await client.create_plant(PLANT)
    assert isinstance(outcome, Failed)
    assert outcome.status == 200
    assert outcome.fate is PlantFate.UNKNOWN


header_values = st.one_of(
    st.binary(max_size=30),
    st.sampled_from(
        [
            *(b"gzip", b"deflate", b"br", b"gzip, gzip", b"x-gzip", b"identity", b"0", b"-1"),
            *(b"99999999999999999999999", b"9" * 5000, "²".encode("latin-1"), b"1e3", b" 12 "),
        ]
    ),
)
bodies = st.one_of(
    st.binary(max_size=300),
    st.sampled_from([b'{"name": "Fern"}', b'{"error": 1, "message": "m"}', b"\x1f\x8b\x08"]),
    st.builds(lambda data: gzip.compress(data), st.binary(max_size=100)),
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    status=st.integers(100, 599),
    headers=st.lists(
        st.tuples(
            st.sampled_from(
                [
                    *(b"Content-Length", b"Content-Encoding", b"Content-Type"),
                    *(b"Location", b"Retry-After"),
                ]
            ),
            header_values,
        ),
        max_size=4,
    ),
    body=bodies,
)
async def test_any_answer_through_httpx_becomes_an_outcome(
    status: int, headers: list[tuple[bytes, bytes]], body: bytes
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, headers=headers, content=body)

    async with mock_client(handler) as client:
        outcome = await client.create_plant(PLANT)
    assert outcome_name(outcome) in ("created", "rejected", "failed")
    json.dumps(outcome_to_json(outcome), allow_nan=False)


status_lines = st.one_of(
    st.integers(100, 999).map(lambda status: f"HTTP/1.1 {status} Whatever\r\n".encode()),
    st.sampled_from([b"HTTP/1.0 200 OK\r\n", b"HTTP/2 200\r\n", b"garbage\r\n", b"\r\n"]),
    st.binary(max_size=20),
)
raw_headers = st.lists(
    st.one_of(
        st.sampled_from(
            [
                b"Content-Length: 5\r\n",
                b"Content-Length: 99999999999\r\n",
                b"Content-Length: -1\r\n",
                b"Transfer-Encoding: chunked\r\n",
                b"Content-Encoding: gzip\r\n",
                b"Location: http://elsewhere.test/\r\n",
                b"Connection: close\r\n",
            ]
        ),
        st.binary(max_size=30).map(lambda junk: b"X-Junk: " + junk + b"\r\n"),
    ),
    max_size=4,
)


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    status_line=status_lines,
    headers=raw_headers,
    body=bodies,
    ending=st.sampled_from([Close(), Reset()]),
)
async def test_any_bytes_from_a_socket_become_an_outcome(
    status_line: bytes, headers: list[bytes], body: bytes, ending: Action
) -> None:
    raw = status_line + b"".join(headers) + b"\r\n" + body
    outcome, _ = await answer([Send(raw), ending], limits=Limits(read=2.0, deadline=3.0))
    assert outcome_name(outcome) in ("created", "rejected", "failed")
    json.dumps(outcome_to_json(outcome), allow_nan=False)


# Outcomes as every front end renders them.


async def test_outcome_to_json_follows_the_contract(closed_port: int) -> None:
    created, _ = await answer(spec_like)
    rejected, _ = await answer(status_429())
    failed = await send(f"http://127.0.0.1:{closed_port}")
    keys = {"outcome", "status", "elapsed_ms", "sent", "plant", "error", "kind", "message", "fate"}
    keys |= {"off_spec"}  # additive (issue 10): how the answer departs from the spec
    keys |= {"proxy"}  # additive (issue 17): the proxy the send went through
    for outcome in (created, rejected, failed):
        assert set(outcome_to_json(outcome)) == keys
        json.dumps(outcome_to_json(outcome), allow_nan=False)
    assert outcome_to_json(created) | {"elapsed_ms": None} == {
        "outcome": "created",
        "status": 200,
        "elapsed_ms": None,
        "sent": {"id": 7, "name": "Fern"},
        # What the server sent: it sent no tag, so there is none, not a null.
        "plant": {"name": "Fern"},
        "error": None,
        "kind": None,
        "message": "Created plant 7 (Fern)",
        "fate": "created",
        "off_spec": [],
        "proxy": None,
    }
    assert outcome_to_json(rejected)["error"] == {"error": 429, "message": "slow down"}
    assert outcome_to_json(failed)["kind"] == "cannot_connect"
    assert outcome_to_json(failed)["status"] is None


async def test_outcome_to_json_stays_json_whatever_extra_fields_a_plant_has() -> None:
    body = b'{"name": "Fern", "v": NaN, "w": [Infinity], "big": 123456789012345678901234567890}'
    outcome, _ = await answer([Send(response(200, body))])
    assert isinstance(outcome, Created)
    plant = outcome_to_json(outcome)["plant"]
    assert plant == {
        "name": "Fern",
        "v": None,
        "w": [None],
        "big": 123456789012345678901234567890,
    }
    json.dumps(plant, allow_nan=False)


def test_a_cancelled_send_has_an_unknown_fate() -> None:
    outcome = cancelled("http://plants.test/plants", PLANT, 12.5)
    assert outcome.kind is FailureKind.CANCELLED
    assert_unknown_fate_is_said(outcome)
    assert outcome_to_json(outcome)["kind"] == "cancelled"


# The token appears nowhere but in the Authorization header.


def rendered_traceback(failure: BaseException) -> str:
    """The traceback as Python and as Rich would print it, with every frame's locals."""
    from rich.console import Console
    from rich.traceback import Traceback

    plain = "".join(
        traceback.TracebackException.from_exception(failure, capture_locals=True).format()
    )
    console = Console(file=io.StringIO(), width=200, color_system=None)
    console.print(
        Traceback.from_exception(type(failure), failure, failure.__traceback__, show_locals=True)
    )
    assert isinstance(console.file, io.StringIO)
    return plain + console.file.getvalue()


async def test_the_token_is_in_no_outcome_and_no_repr(closed_port: int) -> None:
    scripts: list[Script] = [
        spec_like,
        html_502(),
        wrong_shape_200(),
        redirect_to("http://elsewhere.test/plants"),
        reset_mid_body(),
        status_429(),
        error_with_wrong_types({"error": "12"}),
        oversized(2 * 1024 * 1024),
        markup_and_escapes(),
    ]
    outcomes: list[Outcome] = []
    for script in scripts:
        outcome, server = await answer(script)
        assert server.requests[0].headers["authorization"] == f"Bearer {CANARY}"
        outcomes.append(outcome)
    outcomes.append(await send(f"http://127.0.0.1:{closed_port}"))
    outcomes.append(cancelled("http://plants.test/plants", PLANT, None))
    for outcome in outcomes:
        for text in (
            repr(outcome),
            str(outcome),
            json.dumps(outcome_to_json(outcome), allow_nan=False),
        ):
            assert CANARY not in text
        assert CANARY not in outcome.headline + outcome.advice
    client = PlantStoreClient("http://plants.test", TOKEN)
    assert CANARY not in repr(client) + str(client) + repr(vars(client))
    await client.aclose()


async def test_the_token_is_in_no_traceback_of_a_bug_inside_a_send() -> None:
    headers_seen: list[bool] = []

    def buggy(request: httpx.Request) -> httpx.Response:
        headers_seen.append(request.headers["authorization"] == f"Bearer {CANARY}")
        raise RuntimeError("a bug below the client")

    async with mock_client(buggy) as client:
        with pytest.raises(RuntimeError) as caught:
            await client.create_plant(PLANT)
    assert headers_seen == [True]
    text = rendered_traceback(caught.value)
    assert "create_plant" in text
    assert "a bug below the client" in text
    assert CANARY not in text


async def test_the_token_is_in_no_traceback_of_a_cancelled_send() -> None:
    async with (
        MisbehavingServer([Hang()]) as server,
        PlantStoreClient(server.base_url, TOKEN) as client,
    ):
        sending = asyncio.create_task(client.create_plant(PLANT))
        await server.wait_for_requests(1)
        sending.cancel()
        with pytest.raises(asyncio.CancelledError) as caught:
            await sending
    assert server.requests[0].headers["authorization"] == f"Bearer {CANARY}"
    text = rendered_traceback(caught.value)
    assert "create_plant" in text
    assert CANARY not in text


async def test_a_transport_that_hands_over_the_whole_body_at_once_is_read() -> None:
    # httpx.Response(json=...) is read into memory on creation: its stream is already consumed.
    plant = mock_client(lambda request: httpx.Response(200, json={"name": "Fern"}))
    error = mock_client(
        lambda request: httpx.Response(400, json={"error": 3, "message": "no"}),
    )
    huge = mock_client(
        lambda request: httpx.Response(200, content=b" " * 2048),
        limits=Limits(max_body=1024),
    )
    async with plant, error, huge:
        created = await plant.create_plant(PLANT)
        rejected = await error.create_plant(PLANT)
        too_large = await huge.create_plant(PLANT)
    assert isinstance(created, Created)
    assert created.plant.name == "Fern"
    assert isinstance(rejected, Rejected)
    assert rejected.error is not None
    assert rejected.error.message == "no"
    assert isinstance(too_large, Failed)
    assert too_large.kind is FailureKind.TOO_LARGE
