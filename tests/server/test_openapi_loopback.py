"""Schemathesis against `serve` on a loopback port, reading the document the server itself
serves: a body the document calls a valid NewPlant is stored (or refused only for an id taken
already, which no schema can state), and one it calls invalid is refused. Before the document
stated the blank name and tag as a pattern, a name of spaces was valid by the document and
refused by the server."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import negative_data_rejection

from plantstore_tui.server.errors import DUPLICATE_ID
from plantstore_tui.server.runner import BackgroundServer

# Each request's own bound; with max_examples, the whole test's.
REQUEST_SECONDS = 10


@pytest.fixture
def served_document(reference_server: BackgroundServer) -> schemathesis.BaseSchema:
    """The document at GET /openapi.json of a reference server on 127.0.0.1."""
    return schemathesis.openapi.from_url(
        f"{reference_server.base_url}/openapi.json", timeout=REQUEST_SECONDS
    )


@pytest.fixture
def auth(reference_server: BackgroundServer) -> dict[str, str]:
    return {"Authorization": f"Bearer {reference_server.token.get_secret_value()}"}


def valid_bodies_are_stored(ctx: Any, response: Any, case: schemathesis.Case[Any]) -> None:
    """A body generated as valid by the document gets a 200, or a 400 for a duplicate id."""
    del ctx
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return
    if response.status_code == 200:
        return
    body = response.json() if response.status_code == 400 else {}
    assert body.get("error") == DUPLICATE_ID.code, (
        f"the document calls {case.body!r} a valid NewPlant; the server answered "
        f"{response.status_code}: {response.text[:300]}"
    )


served = schemathesis.pytest.from_fixture("served_document")


@served.parametrize()
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_served_document_and_the_server_agree_on_every_body(
    case: schemathesis.Case[Any], auth: dict[str, str]
) -> None:
    case.call_and_validate(
        headers=auth,
        checks=[valid_bodies_are_stored, negative_data_rejection, not_a_server_error],
        timeout=REQUEST_SECONDS,
    )
