"""The shift at a glance, counted from a ledger of known rows: taken, created, rejected by code,
needing attention, of unknown fate, per hour of local time, the time to the answer, per operator."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from ledger_support import (
    failed,
    new_row,
    opened,
    take_settled,
)

from plantstore_tui.core.plant.models import ApiError
from plantstore_tui.core.plant.outcome import FailureKind, PlantFate, Rejected
from plantstore_tui.core.store import PlantState, rows
from plantstore_tui.core.store.operator import Operator
from plantstore_tui.core.store.records import utc_now
from plantstore_tui.core.store.summary import Hour, Rejections, local_hour, summarize

OTHER = "http://127.0.0.1:10"


def rejected_with(row: rows.NewRow, code: int | None) -> Rejected:
    """A 400 with an Error of `code` (None: a 409 whose body is not an Error)."""
    error = None if code is None else ApiError(error=code, message="refused")
    return Rejected(
        url=f"{row.base_url}/plants",
        sent=row.plant,
        status=400 if error else 409,
        elapsed_ms=2.0,
        error=error,
        body="no Error" if error is None else json.dumps(error.as_received()),
    )


def test_an_empty_period_counts_nothing() -> None:
    with opened() as ledger:
        found = summarize(ledger, utc_now() - timedelta(hours=8))
    assert (found.counts.taken, found.by_hour, found.by_operator) == (0, (), ())
    assert (found.counts.median_ms, found.counts.p95_ms) == (None, None)


def test_each_fate_is_counted_once_and_the_rejected_by_their_code() -> None:
    now = utc_now()
    since = now - timedelta(hours=3)
    with opened() as ledger:
        take_settled(ledger, new_row("Old", "1", at=since - timedelta(minutes=1)))
        for number in range(2, 6):
            take_settled(ledger, new_row("Fern", str(number), at=now))
        for number, code in ((6, 1003), (7, 1003), (8, 1004)):
            row = new_row("Rose", str(number), at=now)
            take_settled(ledger, row, rejected_with(row, code))
        row = new_row("Ivy", "9", at=now)
        take_settled(ledger, row, rejected_with(row, None))
        unknown = new_row("Moss", "10", source="tui", at=now)
        take_settled(ledger, unknown, failed(unknown.plant, FailureKind.TIMEOUT, PlantFate.UNKNOWN))
        held = ledger.take(new_row("Oak", "11", source="tui", state=PlantState.QUEUED, at=now))
        ledger.hold([held], "Put aside.")
        take_settled(ledger, new_row("Elm", "12", base_url=OTHER, at=now))
        everything = summarize(ledger, since)
        one_target = summarize(ledger, since, OTHER)

    counts = everything.counts
    assert (counts.taken, counts.created, counts.rejected) == (11, 5, 4)
    # Needs attention counts the TUI's plants: the unknown one and the held one.
    assert (counts.attention, counts.unknown) == (2, 1)
    assert counts.rejected_by_code == (
        Rejections(1003, 2),
        Rejections(1004, 1),
        Rejections(None, 1),
    )
    assert (one_target.counts.taken, one_target.counts.created) == (1, 1)


def test_the_hours_are_local_with_their_offset_an_hour_without_plants_included() -> None:
    first = local_hour(utc_now()) - timedelta(hours=2)
    with opened() as ledger:
        take_settled(ledger, new_row("Fern", "1", at=first + timedelta(minutes=5)))
        take_settled(ledger, new_row("Rose", "2", at=first + timedelta(minutes=59)))
        row = new_row("Ivy", "3", at=first + timedelta(hours=2, minutes=1))
        take_settled(ledger, row, rejected_with(row, 1003))
        found = summarize(ledger, first)

    start = first.astimezone()
    assert found.by_hour == (
        Hour(start, 2, 0),
        Hour(local_hour(start + timedelta(hours=1)), 0, 0),
        Hour(local_hour(start + timedelta(hours=2)), 0, 1),
    )
    assert all(hour.start.utcoffset() is not None for hour in found.by_hour)
    assert found.by_hour[0].start.isoformat() == start.isoformat()


def test_the_time_to_the_answer_is_the_median_and_the_95th_percentile_of_the_answered() -> None:
    now = utc_now()
    with opened() as ledger:
        # Taken 1 to 20 seconds before their answers (settled now).
        for seconds in range(1, 21):
            take_settled(ledger, new_row("Fern", str(seconds), at=now - timedelta(seconds=seconds)))
        # No answer: no time.
        lost = new_row("Moss", "99", at=now - timedelta(hours=1))
        take_settled(ledger, lost, failed(lost.plant))
        counts = summarize(ledger, now - timedelta(hours=2)).counts
    assert counts.answered == 20
    assert counts.median_ms is not None
    assert counts.p95_ms is not None
    # The median of 1..20 s is 10.5 s, the 95th percentile (nearest rank) 19 s; each answer
    # came a little later than `now`.
    assert 10_500 <= counts.median_ms < 10_500 + 5_000
    assert 19_000 <= counts.p95_ms < 19_000 + 5_000


def test_each_operator_is_counted_apart_and_a_plant_from_before_as_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = utc_now()
    with opened() as ledger:
        for number, (user, host, name) in enumerate(
            (("ana", "desk-1", "Fern"), ("ana", "desk-1", "Rose"), ("ben", "desk-2", "Ivy"))
        ):
            monkeypatch.setattr(rows, "this_operator", lambda u=user, h=host: Operator(u, h))
            take_settled(ledger, new_row(name, str(number), at=now))
        with ledger.db.write() as connection:
            connection.execute("UPDATE plants SET operator = NULL, host = NULL WHERE name = 'Ivy'")
        found = summarize(ledger, now - timedelta(hours=1))
    assert [(one.user, one.host, one.counts.created) for one in found.by_operator] == [
        ("ana", "desk-1", 2),
        ("unknown", "unknown", 1),
    ]


def test_a_summary_of_a_period_names_it() -> None:
    since = datetime.now().astimezone() - timedelta(hours=8)
    with opened() as ledger:
        found = summarize(ledger, since, OTHER)
    assert (found.since, found.base_url) == (since, OTHER)
