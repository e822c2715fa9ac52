"""Who sends a batch: its owner is taken in one transaction, refused while the owner's session
lives, and taken over once it is gone (two instances here: two sessions, each holding its lock)."""

from __future__ import annotations

import os

import pytest
from import_support import created, rejected
from ledger_support import new_row, opened

from plantstore_tui.core.store.batches import Batches, BatchesChanged, BatchInUse

FILE = {"sha256": "ab" * 32, "base_url": "http://h", "profile": None, "file_name": "a.csv"}


def test_a_batch_whose_import_lives_is_refused_to_another_and_taken_over_once_it_ends() -> None:
    with opened("import") as first, opened("import") as second:
        batch = Batches(first).start(**FILE, rows=3)
        Batches(first).advance([], [new_row("A", "1", source="import", batch=batch.id)])
        theirs = Batches(second)
        for attempt in (
            lambda: theirs.take_over(batch),
            lambda: theirs.start(**FILE, rows=3, replacing=batch.id),
            lambda: theirs.start(**FILE, rows=3),
        ):
            with pytest.raises(BatchInUse) as refused:
                attempt()
            owner = refused.value.owner
            assert (owner.session.pid, owner.session.program) == (os.getpid(), "import")
            # Its row being sent is in flight, not of unknown fate.
            assert (owner.counts.in_flight, owner.counts.unknown) == (1, 0)
            assert "a.csv is being imported to http://h by another process" in str(refused.value)
        first.close()
        taken = theirs.take_over(batch)
        assert taken.id == batch.id
        assert theirs.owner(batch) is None  # its own: nobody else's
        # A decision taken on a batch that is no longer the newest is made again.
        newer = theirs.start(**FILE, rows=3, replacing=batch.id)
        with pytest.raises(BatchesChanged):
            theirs.take_over(batch)
        with pytest.raises(BatchesChanged):
            theirs.start(**FILE, rows=3, replacing=batch.id)
        assert theirs.take_over(newer).id == newer.id


def test_the_ids_known_as_created_are_those_created_on_that_target_only() -> None:
    created_here = set(range(3, 1200, 7))  # past one page of 500 ids
    with opened("import") as ledger:
        batches = Batches(ledger)
        rows = [new_row(f"P{i}", str(i)) for i in range(1, 1201)]
        rows += [new_row(f"Q{i}", str(i), base_url="http://elsewhere") for i in range(1, 1201)]
        entries = batches.advance([], rows)
        outcomes = []
        for entry, row in zip(entries, rows, strict=True):
            here = row.base_url != "http://elsewhere"
            made = here and row.plant.id in created_here
            outcomes.append(
                (entry, created(row.plant) if made or not here else rejected(row.plant))
            )
        batches.advance(outcomes, [])

        found = batches.created_ids(new_row().base_url, range(1, 1201))

    assert found == created_here
