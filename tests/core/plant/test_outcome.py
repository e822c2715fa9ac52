"""Which outcomes say the deployment did not take the plant and may take it later."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from plantstore_tui.core.plant.models import NewPlant, Plant
from plantstore_tui.core.plant.outcome import (
    Created,
    Failed,
    FailureKind,
    PlantFate,
    Rejected,
    asked_wait,
    not_processed,
    retry_after_seconds,
)

URL = "http://127.0.0.1:9/plants"
SENT = NewPlant(id=1, name="Fern")


def failed(kind: FailureKind, fate: PlantFate) -> Failed:
    return Failed(url=URL, sent=SENT, kind=kind, message="m", fate=fate, advice="a")


def rejected(status: int, retry_after: str | None = None) -> Rejected:
    return Rejected(
        url=URL,
        sent=SENT,
        status=status,
        elapsed_ms=1.0,
        error=None,
        body="",
        retry_after=retry_after,
    )


@pytest.mark.parametrize(
    "kind", [FailureKind.CANNOT_CONNECT, FailureKind.TLS, FailureKind.PROXY, FailureKind.TIMEOUT]
)
def test_a_plant_that_never_left_was_not_processed(kind: FailureKind) -> None:
    assert not_processed(failed(kind, PlantFate.NOT_CREATED))


@pytest.mark.parametrize(
    "kind", [FailureKind.TIMEOUT, FailureKind.CONNECTION_DROPPED, FailureKind.CANCELLED]
)
def test_a_plant_that_may_have_left_is_never_taken_as_not_processed(kind: FailureKind) -> None:
    assert not not_processed(failed(kind, PlantFate.UNKNOWN))


@pytest.mark.parametrize("kind", [FailureKind.INVALID_URL, FailureKind.INVALID_TOKEN])
def test_a_failure_no_wait_mends_is_not_taken_as_not_processed(kind: FailureKind) -> None:
    assert not not_processed(failed(kind, PlantFate.NOT_CREATED))


@pytest.mark.parametrize(
    ("status", "expected"),
    [(429, True), (503, True), (500, False), (502, False), (400, False), (401, False)],
)
def test_429_and_503_say_not_processed(status: int, expected: bool) -> None:
    assert not_processed(rejected(status)) is expected


def test_a_503_did_not_store_the_plant() -> None:
    assert rejected(503).fate is PlantFate.NOT_CREATED
    assert rejected(500).fate is PlantFate.UNKNOWN
    assert "did not store" in rejected(503).advice


def test_a_created_plant_was_processed() -> None:
    created = Created(
        url=URL, sent=SENT, status=200, elapsed_ms=1.0, plant=Plant(id=1, name="Fern"), body="{}"
    )
    assert not not_processed(created)


def test_the_wait_asked_comes_from_a_429_or_503_only() -> None:
    assert asked_wait(rejected(503, "7")) == 7.0
    assert asked_wait(rejected(429, " 2 ")) == 2.0
    assert asked_wait(rejected(500, "7")) is None
    assert asked_wait(rejected(503)) is None
    assert asked_wait(rejected(503, "soon")) is None


def test_retry_after_as_a_date() -> None:
    now = datetime(2026, 11, 26, 12, 0, 0, tzinfo=UTC)
    assert retry_after_seconds("Thu, 26 Nov 2026 12:00:30 GMT", now) == 30.0
    assert retry_after_seconds("Thu, 26 Nov 2026 11:00:00 GMT", now) == 0.0
