"""`next_free_id` on a real ledger: where it goes on from, and which ids it skips."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from ledger_support import BASE_URL, as_before, failed, new_row, opened, take_settled

from plantstore_tui.core.plant.form import INT64_MAX, INT64_MIN
from plantstore_tui.core.plant.id_range import IdRange
from plantstore_tui.core.plant.models import ApiError, says_id_taken
from plantstore_tui.core.plant.outcome import FailureKind, PlantFate, Rejected
from plantstore_tui.core.sending.next_id import next_free_id, reserve_next_free_id
from plantstore_tui.core.store import Ledger, PlantState
from plantstore_tui.core.store.rows import NewRow


def typed_row(plant_id: int, *, base_url: str = BASE_URL) -> NewRow:
    return replace(new_row(id=str(plant_id), source="tui", base_url=base_url), typed=True)


def refused(row: NewRow, code: int, message: str, status: int = 400) -> Rejected:
    error = ApiError(error=code, message=message)
    return Rejected(
        url=f"{row.base_url}/plants",
        sent=row.plant,
        status=status,
        elapsed_ms=1.0,
        error=error,
        body=json.dumps(error.as_received()),
    )


def created_by_add(ledger: Ledger, *ids: int, base_url: str = BASE_URL) -> None:
    for plant_id in ids:
        take_settled(ledger, new_row(id=str(plant_id), base_url=base_url))


def test_a_ledger_that_knows_no_plant_of_the_target_offers_none() -> None:
    with opened() as ledger:
        created_by_add(ledger, 7, base_url="http://127.0.0.1:8")
        assert next_free_id(ledger, BASE_URL) is None


def test_with_nothing_typed_it_goes_on_from_the_last_created_skipping_every_id_created() -> None:
    with opened() as ledger:
        created_by_add(ledger, 5, 3, 4)
        assert next_free_id(ledger, BASE_URL) == 6


def test_it_goes_on_from_the_last_plant_typed_not_the_largest_id_nor_the_last_created() -> None:
    with opened() as ledger:
        take_settled(ledger, typed_row(10))
        take_settled(ledger, typed_row(11))
        created_by_add(ledger, 12, 40)
        # Loaded from needs attention or the history and sent: not typed.
        take_settled(ledger, new_row(id="30", source="tui"))
        assert next_free_id(ledger, BASE_URL) == 13


def test_ids_in_flight_queued_or_of_unknown_fate_are_skipped_as_the_form_warns_of_them() -> None:
    with opened() as ledger:
        take_settled(ledger, typed_row(1))
        ledger.take(new_row(id="2", state=PlantState.SENDING))
        ledger.take(new_row(id="3", state=PlantState.QUEUED))
        row = new_row(id="4")
        take_settled(ledger, row, failed(row.plant, FailureKind.TIMEOUT, PlantFate.UNKNOWN))
        assert next_free_id(ledger, BASE_URL) == 5


@pytest.mark.parametrize(
    ("code", "message", "skipped"),
    [
        (1003, "A plant with id 2 already exists", True),  # the reference server
        (1003, "no words at all", True),
        (17, "Plant already exists", True),
        (409, "Duplicate ID: 2", True),
        (9, "id 2 is taken", True),
        (1002, "name: Field required", False),
        (1001, "Not JSON: a duplicate key", False),
    ],
)
def test_an_id_answered_as_a_duplicate_is_skipped_another_refusal_is_not(
    code: int, message: str, skipped: bool
) -> None:
    with opened() as ledger:
        take_settled(ledger, typed_row(1))
        row = new_row(id="2")
        take_settled(ledger, row, refused(row, code, message))
        assert next_free_id(ledger, BASE_URL) == (3 if skipped else 2)
        assert says_id_taken({"error": code, "message": message}) is skipped


def test_the_walk_goes_past_many_pages_of_taken_ids_and_rows_of_one_id() -> None:
    with opened() as ledger:
        take_settled(ledger, typed_row(0))
        for plant_id in range(1, 601):
            row = new_row(id=str(plant_id))
            if plant_id % 2:
                # Refused for another reason first, then created: two rows of one id.
                take_settled(ledger, row, refused(row, 1002, "name: too long"))
            take_settled(ledger, row)
        assert next_free_id(ledger, BASE_URL) == 601
        assert next_free_id(ledger, BASE_URL, after=300) == 601
        assert next_free_id(ledger, BASE_URL, after=700) == 701


def test_other_targets_and_the_largest_id_are_kept_apart() -> None:
    with opened() as ledger:
        take_settled(ledger, typed_row(5))
        created_by_add(ledger, 6, base_url="http://127.0.0.1:8")
        assert next_free_id(ledger, BASE_URL) == 6
        take_settled(ledger, typed_row(2**63 - 1))
        assert next_free_id(ledger, BASE_URL) is None


def test_a_ledger_from_before_takes_its_tui_plants_as_typed() -> None:
    with opened() as ledger:
        take_settled(ledger, new_row(id="8", source="tui"))
        created_by_add(ledger, 9, 20)
    as_before("plants.typed")
    with opened() as ledger:
        assert next_free_id(ledger, BASE_URL) == 10


# --- a profile's range of ids (profiles.toml `ids`) ---------------------------------------------

RANGE = IdRange(70000, 70999)


def test_with_a_range_and_an_empty_ledger_it_offers_the_range_start() -> None:
    with opened() as ledger:
        assert next_free_id(ledger, BASE_URL, ids=RANGE) == 70000


def test_with_a_range_it_skips_ids_taken_in_it_and_ignores_plants_typed_outside_it() -> None:
    with opened() as ledger:
        created_by_add(ledger, 70000, 70001, 70003)
        # Another operator's range, typed last here: it does not move this range's next id.
        take_settled(ledger, typed_row(71500))
        assert next_free_id(ledger, BASE_URL, ids=RANGE) == 70002


def test_with_a_range_it_goes_on_from_the_last_plant_typed_in_it() -> None:
    with opened() as ledger:
        take_settled(ledger, typed_row(70010))
        created_by_add(ledger, 70011)
        assert next_free_id(ledger, BASE_URL, ids=RANGE) == 70012


def test_it_never_proposes_past_the_range_end() -> None:
    with opened() as ledger:
        take_settled(ledger, typed_row(70998))
        created_by_add(ledger, 70999)
        assert next_free_id(ledger, BASE_URL, ids=RANGE) is None
        assert next_free_id(ledger, BASE_URL, ids=IdRange(5, 5)) == 5


def test_a_range_at_the_ends_of_int64_is_walked_without_overflow() -> None:
    with opened() as ledger:
        assert next_free_id(ledger, BASE_URL, ids=IdRange(INT64_MIN, INT64_MIN + 1)) == INT64_MIN
        take_settled(ledger, typed_row(INT64_MAX))
        assert next_free_id(ledger, BASE_URL, ids=IdRange(INT64_MAX - 1, INT64_MAX)) is None


# Reserved across instances -------------------------------------------------------------------


def test_an_id_reserved_by_one_instance_is_not_offered_to_another_until_it_ends() -> None:
    block = IdRange(70000, 70009)
    with opened("tui") as first, opened("add") as second:
        assert reserve_next_free_id(first, BASE_URL, ids=block) == 70000
        assert reserve_next_free_id(second, BASE_URL, ids=block) == 70001
        # An instance's new offer replaces its own reservation: never two at once.
        assert reserve_next_free_id(first, BASE_URL, ids=block) == 70000
        assert reserve_next_free_id(first, BASE_URL, after=70001, ids=block) == 70002
        with opened("tui") as third:
            assert reserve_next_free_id(third, BASE_URL, ids=block) == 70000
        second.close()
        with opened("tui") as fourth:
            assert reserve_next_free_id(fourth, BASE_URL, ids=block) == 70000
            # The second's 70001 went with it; the first still holds 70002.
            assert reserve_next_free_id(fourth, BASE_URL, after=70000, ids=block) == 70001
            assert reserve_next_free_id(fourth, BASE_URL, after=70001, ids=block) == 70003


def test_the_reservation_of_an_instance_that_died_is_dropped_by_the_next_to_reserve() -> None:
    block = IdRange(70000, 70001)
    with opened("tui") as living, opened("add") as dying:
        assert reserve_next_free_id(dying, BASE_URL, ids=block) == 70000
        assert reserve_next_free_id(living, BASE_URL, ids=block) == 70001
        assert dying.session is not None
        dying.session.release()  # its lock let go, as kill -9 does; its row still there
        assert reserve_next_free_id(living, BASE_URL, ids=block) == 70000
