"""Properties of the reference server, in process: whatever arrives, the answer is never a 500 and
every refusal is the spec's Error shape; schemathesis holds it to its own OpenAPI document."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic import SecretStr, ValidationError
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ignored_auth,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)
from starlette.applications import Starlette

from plantstore_tui.core.plant.form import INT64_MAX, INT64_MIN, find_forbidden_char
from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.server.app import create_app

TOKEN = SecretStr("property-test-token")
AUTH = {"Authorization": f"Bearer {TOKEN.get_secret_value()}"}
JSON_TYPE = {"Content-Type": "application/json"}
FAST = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@dataclass
class StoreUnderTest:
    """An app on its own database, and the ids it has accepted so far."""

    app: Starlette
    stored: set[int] = field(default_factory=set)


@pytest.fixture
def store(tmp_path: Path) -> StoreUnderTest:
    """A fresh store for one test, shared by all its examples."""
    return StoreUnderTest(create_app(db_path=tmp_path / "plants.sqlite3", token=TOKEN))


async def post(app: Starlette, content: bytes, headers: dict[str, Any]) -> httpx.Response:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://plantstore.test"
    ) as http:
        return await http.post("/plants", content=content, headers=headers)


def assert_error_shape(response: httpx.Response) -> int:
    """A refusal: a 4xx with exactly `error` (an int32) and a printable `message`; its code."""
    assert 400 <= response.status_code < 500, response.text
    body = response.json()
    assert set(body) == {"error", "message"}
    assert isinstance(body["error"], int)
    assert -(2**31) <= body["error"] < 2**31
    assert isinstance(body["message"], str)
    assert body["message"]
    assert find_forbidden_char(body["message"]) is None
    return int(body["error"])


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
# Mostly valid, with a small id range so that duplicates come up too.
new_plants = st.fixed_dictionaries(
    {"id": st.integers(-5, 5) | st.integers(INT64_MIN, INT64_MAX), "name": st.text(min_size=1)},
    optional={"tag": st.text()},
)
# Close to a NewPlant, so most examples get past the JSON and into the shape checks.
plant_like = st.fixed_dictionaries(
    {"id": st.integers() | json_values, "name": st.text() | json_values},
    optional={
        "tag": st.text() | json_values,
        "extra": json_values,
        "": json_values,
    },
)


@FAST
@given(data=new_plants | plant_like | json_values)
async def test_any_json_is_stored_or_refused_as_the_core_says(
    store: StoreUnderTest, data: Any
) -> None:
    response = await post(store.app, json.dumps(data).encode(), {**AUTH, **JSON_TYPE})
    event(f"answered {response.status_code} {response.json().get('error', '')}")
    try:
        plant = NewPlant.model_validate(data) if isinstance(data, dict) else None
    except ValidationError:
        plant = None
    # The server refuses a null or blank tag where the core's model reads "no tag": it stores
    # and answers a plant as it was sent, or not at all.
    if isinstance(data, dict) and "tag" in data:
        tag = data["tag"]
        if tag is None or (isinstance(tag, str) and not tag.strip()):
            plant = None
    if plant is None:
        assert assert_error_shape(response) in (1001, 1002)
    elif plant.id in store.stored:
        assert assert_error_shape(response) == 1003
    else:
        assert response.status_code == 200, response.text
        assert response.json() == {key: data[key] for key in ("name", "tag") if key in data}
        store.stored.add(plant.id)


@FAST
@given(body=st.binary(max_size=256) | st.text().map(str.encode))
async def test_any_bytes_are_refused_in_the_error_shape(store: StoreUnderTest, body: bytes) -> None:
    response = await post(store.app, body, {**AUTH, **JSON_TYPE})
    if response.status_code != 200:
        assert assert_error_shape(response) in (1001, 1002, 1003)


@FAST
@given(authorization=st.binary(max_size=80))
async def test_any_authorization_header_but_the_token_is_refused(
    store: StoreUnderTest, authorization: bytes
) -> None:
    response = await post(
        store.app, b'{"id": 1, "name": "x"}', {"Authorization": authorization, **JSON_TYPE}
    )
    assert assert_error_shape(response) == 1401
    assert response.headers["www-authenticate"].startswith("Bearer ")


@FAST
@given(content_type=st.binary(max_size=60), content_length=st.binary(max_size=24))
async def test_any_content_type_or_length_header_is_answered(
    store: StoreUnderTest, content_type: bytes, content_length: bytes
) -> None:
    headers = {**AUTH, "Content-Type": content_type, "Content-Length": content_length}
    response = await post(store.app, b'{"id": -1, "name": "x"}', headers)
    if response.status_code != 200:
        assert assert_error_shape(response) in (1001, 1003, 1004, 1005)


async def test_a_content_length_that_understates_the_body_does_not_lift_the_limit(
    store: StoreUnderTest,
) -> None:
    response = await post(store.app, b" " * 100_000, {**AUTH, **JSON_TYPE, "Content-Length": "10"})
    assert assert_error_shape(response) == 1004


async def test_leading_zeros_in_content_length_are_read_as_a_number(
    store: StoreUnderTest,
) -> None:
    body = b'{"id": 1, "name": "x"}'
    headers = {**AUTH, **JSON_TYPE, "Content-Length": "0" * 30 + str(len(body))}
    response = await post(store.app, body, headers)
    assert response.status_code == 200, response.text


@pytest.fixture(scope="module")
def openapi_schema(tmp_path_factory: pytest.TempPathFactory) -> schemathesis.BaseSchema:
    """The server's own /openapi.json, loaded by schemathesis from the app."""
    db_path = tmp_path_factory.mktemp("schemathesis") / "plants.sqlite3"
    return schemathesis.openapi.from_asgi("/openapi.json", create_app(db_path=db_path, token=TOKEN))


schema = schemathesis.pytest.from_fixture("openapi_schema")


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_server_keeps_to_its_openapi_document(case: schemathesis.Case[Any]) -> None:
    case.call_and_validate(
        headers=AUTH,
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
            negative_data_rejection,
            ignored_auth,
        ],
    )
