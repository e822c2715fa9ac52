"""core.sending.waiting: the next try at a deployment that did not take a plant, and when to
give up."""

from __future__ import annotations

import time

from import_support import failed

from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.core.plant.outcome import Rejected
from plantstore_tui.core.sending.backoff import Backoff
from plantstore_tui.core.sending.state import Unreachable
from plantstore_tui.core.sending.waiting import DeploymentWait

PLANT = NewPlant(name="Fern", id=1)


def busy(retry_after: str | None) -> Rejected:
    return Rejected(
        url="http://127.0.0.1:9/plants",
        sent=PLANT,
        status=503,
        elapsed_ms=1.0,
        error=None,
        body="",
        body_problem="empty",
        retry_after=retry_after,
    )


def test_no_time_to_wait_gives_up_at_the_first_row_not_taken() -> None:
    told: list[Unreachable | None] = []
    waits = DeploymentWait(0, told.append)
    assert not waits.not_taken(failed(PLANT), tried=False)
    assert told == []


def test_each_try_waits_longer_and_the_last_comes_at_the_deadline() -> None:
    told: list[Unreachable | None] = []
    waits = DeploymentWait(5, told.append, Backoff(draw=lambda: 1.0))
    started = time.monotonic()
    assert waits.not_taken(failed(PLANT), tried=False)
    first = told[-1]
    assert first is not None
    assert first.why == "unreachable"
    assert 0.9 <= first.next_try - started <= 1.1
    assert "deployment unreachable since " in first.words()
    # Requests that left before the waiting began change nothing.
    assert waits.not_taken(failed(PLANT), tried=False)
    assert len(told) == 1
    assert waits.not_taken(failed(PLANT), tried=True)
    assert waits.not_taken(failed(PLANT), tried=True)
    last = told[-1]
    assert last is not None
    # 1, 2, then 4 s: capped at the deadline, 5 s after the first.
    assert last.next_try <= started + 5.1
    waits.answered()
    assert told[-1] is None
    assert waits.waiting is None


def test_a_retry_after_is_honoured_and_one_past_the_deadline_gives_up() -> None:
    waits = DeploymentWait(60, backoff=Backoff(draw=lambda: 0.0))
    assert waits.not_taken(busy("20"), tried=False)
    assert waits.waiting is not None
    assert waits.waiting.why == "busy (503)"
    assert 19 <= waits.seconds_left() <= 20
    assert not waits.not_taken(busy("120"), tried=True)
