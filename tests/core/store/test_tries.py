"""A plant's tries: one row however many times its request went out, each try counted in it."""

from __future__ import annotations

from ledger_support import as_before, created, failed, new_row, opened, take_settled

from plantstore_tui.core.store import PlantState


def test_each_try_is_counted_in_the_plants_one_row() -> None:
    with opened() as ledger:
        row = new_row("Ivy", "43")
        entry = ledger.take(row)
        ledger.settle(entry, failed(row.plant))
        ledger.sending(entry)
        ledger.settle(entry, failed(row.plant))
        ledger.sending(entry)
        ledger.settle(entry, created(row.plant))
        [found] = ledger.query()
    assert (found.entry, found.state, found.tries) == (entry, PlantState.CREATED, 3)
    assert found.to_json()["tries"] == 3


def test_a_plant_held_before_its_request_went_has_no_try() -> None:
    with opened() as ledger:
        entry = ledger.take(new_row("Moss", "44"))
        ledger.hold([entry], "held before it went")
        queued = ledger.take(new_row("Fern", "45", state=PlantState.QUEUED))
        found = {one.entry: one.tries for one in ledger.query()}
    assert found == {entry: 0, queued: 0}


def test_a_file_of_the_schema_before_counts_each_plant_sent_as_one_try() -> None:
    with opened() as ledger:
        sent = take_settled(ledger, new_row("Fern", "1"))
        waiting = ledger.take(new_row("Rose", "2", state=PlantState.QUEUED))
    as_before("plants.tries")
    with opened() as ledger:
        found = {one.entry: one.tries for one in ledger.query()}
    assert found == {sent: 1, waiting: 0}
