"""Off-spec marks: every answer is checked against the spec, and still shown as it came."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from typing import Any

import pytest
from misbehaving import MisbehavingServer, Send, json_response, response
from pydantic import SecretStr

from plantstore_tui.core.http.client import PlantStoreClient
from plantstore_tui.core.http.conformance import against_sent, off_spec
from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.core.plant.outcome import Created, Failed, Rejected
from plantstore_tui.server.runner import BackgroundServer

TOKEN = SecretStr("conformance-test-token")


def test_answers_the_spec_lists_are_not_marked() -> None:
    assert off_spec(200, "application/json", b'{"name": "Fern", "tag": "x"}') == ()
    assert off_spec(200, "application/json; charset=utf-8", b'{"name": "Fern"}') == ()
    assert off_spec(400, "application/json", b'{"error": 1, "message": "no"}') == ()


@pytest.mark.parametrize(
    ("status", "body"),
    [
        # The spec requires fields; it forbids none beyond them.
        (200, b'{"name": "Fern", "id": 4, "created_at": "2026-11-28"}'),
        (400, b'{"error": 1, "message": "no", "details": [], "request_id": "r-1"}'),
        # The spec leaves the answer to a missing or invalid token open.
        (401, b'{"error": 1401, "message": "The bearer token is not valid"}'),
        (403, b'{"error": 3, "message": "not allowed", "scope": "plants:write"}'),
        (401, b'{"message": "Unauthorized"}'),
    ],
)
def test_answers_the_spec_allows_are_not_marked(status: int, body: bytes) -> None:
    assert off_spec(status, "application/json", body) == ()


@pytest.mark.parametrize(
    ("status", "content_type", "body", "expected"),
    [
        (200, "application/json", b'{"nom": "Fern"}', "the Plant has no 'name'"),
        (200, "application/json", b"[]", "the body is an array, not the spec's Plant object"),
        (200, "application/json", b'{"name": 3}', "the Plant's 'name' is an integer, not a string"),
        (200, "application/json", b'{"name": "F", "tag": 4}', "'tag' is an integer, not a string"),
        (401, "text/plain", b'{"error": 1, "message": "m"}', "the body is JSON but is labelled"),
        (200, "text/html", b"<html></html>", "the 200 body is not JSON"),
        (400, "application/json", b'{"error": 2147483648, "message": "m"}', "outside int32"),
        (400, "application/json", b'{"error": "1", "message": "m"}', "is a string, not an int32"),
        (400, "application/json", b'{"error": true, "message": "m"}', "a boolean, not an int32"),
        (400, "application/json", b'{"error": 1}', "the Error has no 'message'"),
        (400, "text/plain", b'{"error": 1, "message": "m"}', "the body is JSON but is labelled"),
        (400, None, b'{"error": 1, "message": "m"}', "labelled no Content-Type"),
        (400, "application/problem+json", b'{"title": "x"}', "not application/problem+json"),
        (400, "application/json", b"", "the 400 body is empty"),
        (422, "application/json", b'{"detail": []}', "the spec lists only 200 and 400, not 422"),
        (500, "text/plain", b"oops", "not 500"),
    ],
)
def test_each_departure_is_named(
    status: int, content_type: str | None, body: bytes, expected: str
) -> None:
    problems = off_spec(status, content_type, body)
    assert any(expected in problem for problem in problems), problems


async def test_the_client_attaches_the_marks_without_hiding_the_answer() -> None:
    answer = json_response(200, {"name": "Fern", "id": 7, "tag": 3})
    async with (
        MisbehavingServer([Send(answer)]) as server,
        PlantStoreClient(server.base_url, TOKEN) as client,
    ):
        outcome = await client.create_plant(NewPlant(id=7, name="Fern"))
    assert isinstance(outcome, Failed)
    assert outcome.body == '{"name": "Fern", "id": 7, "tag": 3}'
    assert outcome.off_spec == ("the Plant's 'tag' is an integer, not a string",)


async def test_an_error_without_a_json_content_type_is_marked() -> None:
    answer = response(400, b'{"error": 1, "message": "no"}', headers=[("Content-Type", "text/x")])
    async with (
        MisbehavingServer([Send(answer)]) as server,
        PlantStoreClient(server.base_url, TOKEN) as client,
    ):
        outcome = await client.create_plant(NewPlant(id=7, name="Fern"))
    assert isinstance(outcome, Rejected)
    assert outcome.error is not None
    assert outcome.off_spec == ("the body is JSON but is labelled text/x",)


async def test_the_reference_server_is_on_spec(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    server = shared_reference_server
    async with PlantStoreClient(server.base_url, server.token) as client:
        created = await client.create_plant(NewPlant(id=plant_id, name="Fern"))
        refused = await client.create_plant(NewPlant(id=plant_id, name="Fern"))
    assert isinstance(created, Created)
    assert created.off_spec == ()
    assert isinstance(refused, Rejected)
    assert refused.off_spec == ()


def _add(base_url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "plantstore_tui", "add", "--base-url", base_url]
    return subprocess.run(
        [*command, "--name", "Fern", "--id", "5", *extra],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PLANTSTORE_TOKEN": TOKEN.get_secret_value()},
        check=False,
    )


async def test_add_shows_the_marks_in_words_and_in_json() -> None:
    answer = json_response(422, {"detail": [{"msg": "\x1b[2J"}]})
    async with MisbehavingServer([Send(answer)]) as server:
        human = await asyncio.to_thread(_add, server.base_url)
        as_json = await asyncio.to_thread(_add, server.base_url, "--json")
    assert human.returncode == 1
    assert "off spec: the spec lists only 200 and 400, not 422" in human.stdout
    assert "\x1b" not in human.stdout
    assert json.loads(as_json.stdout)["off_spec"] == ["the spec lists only 200 and 400, not 422"]


# The answer held against what was sent ----------------------------------------------------------


@pytest.mark.parametrize(
    ("sent", "answered", "expected"),
    [
        ({"id": 5, "name": "Rose"}, {"name": "Rose"}, ()),
        ({"id": 5, "name": "Rose", "tag": "red"}, {"name": "Rose", "tag": "red"}, ()),
        ({"id": 5, "name": "Rose"}, {"name": "Rose", "tag": None}, ()),
        ({"id": 5, "name": "Rose"}, {"name": "Rose", "id": 5}, ()),
        (
            {"id": 5, "name": "Rose"},
            {"name": "Someone Else"},
            ("the server stored name 'Someone Else', not 'Rose' as sent",),
        ),
        (
            {"id": 5, "name": "Rose", "tag": "red"},
            {"name": "Rose", "tag": "blue"},
            ("the server stored tag 'blue', not tag 'red' as sent",),
        ),
        (
            {"id": 5, "name": "Rose", "tag": "red"},
            {"name": "Rose"},
            ("the server stored no tag, not tag 'red' as sent",),
        ),
        (
            {"id": 5, "name": "Rose"},
            {"name": "Rose", "tag": "weed"},
            ("the server stored tag 'weed', though none was sent",),
        ),
        (
            {"id": 5, "name": "Rose"},
            {"name": "Rose", "id": 6},
            ("the server answered id 6, not 5 as sent",),
        ),
        (
            {"id": 1, "name": "Rose"},
            {"name": "Rose", "id": True},
            ("the server answered id true, not 1 as sent",),
        ),
        # A field of the wrong type is a shape problem (off_spec), not said twice.
        ({"id": 5, "name": "Rose"}, {"name": 3, "tag": 4}, ()),
    ],
)
def test_the_plant_answered_is_held_against_the_plant_sent(
    sent: dict[str, Any], answered: dict[str, Any], expected: tuple[str, ...]
) -> None:
    assert against_sent(sent, answered) == expected


def test_a_long_name_stored_instead_is_quoted_bounded() -> None:
    [mark] = against_sent({"id": 5, "name": "Rose"}, {"name": "S" * 1_048_560})
    assert mark == (
        f"the server stored name '{'S' * 60}…' (1,048,560 characters, first 60 shown), "
        "not 'Rose' as sent"
    )


async def test_a_server_that_stores_another_name_is_marked_off_the_spec() -> None:
    answer = json_response(200, {"name": "Someone Else", "tag": "red"})
    async with (
        MisbehavingServer([Send(answer)]) as server,
        PlantStoreClient(server.base_url, TOKEN) as client,
    ):
        outcome = await client.create_plant(NewPlant(id=5, name="Rose", tag="red"))
    assert isinstance(outcome, Created)
    assert outcome.headline == "Created plant 5 (Someone Else)"
    assert outcome.off_spec == ("the server stored name 'Someone Else', not 'Rose' as sent",)


async def test_add_names_the_name_stored_instead_in_words_and_in_json() -> None:
    answer = json_response(200, {"name": "Someone Else"})
    async with MisbehavingServer([Send(answer)]) as server:
        human = await asyncio.to_thread(_add, server.base_url)
        as_json = await asyncio.to_thread(_add, server.base_url, "--json")
    mark = "the server stored name 'Someone Else', not 'Fern' as sent"
    assert human.returncode == 0
    assert f"off spec: {mark}" in human.stdout
    assert json.loads(as_json.stdout)["off_spec"] == [mark]
