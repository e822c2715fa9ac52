"""How a row's outcome is put in words: the outcome, and the plant's fate only where the outcome
does not say it already (the history said "created; the plant: created")."""

from __future__ import annotations

from ledger_support import created, failed, new_row, opened, rejected, take_settled

from plantstore_tui.core.plant.outcome import FailureKind, PlantFate
from plantstore_tui.core.store import PlantState
from plantstore_tui.core.store.records import outcome_and_fate


def test_each_outcome_says_the_plants_fate_once() -> None:
    row = new_row()
    with opened() as ledger:
        entries = {
            "made": take_settled(ledger, row, created(row.plant)),
            "refused": take_settled(ledger, row, rejected(row.plant)),
            "lost": take_settled(
                ledger, row, failed(row.plant, FailureKind.TIMEOUT, fate=PlantFate.UNKNOWN)
            ),
            "never": take_settled(ledger, row, failed(row.plant)),
            "waiting": ledger.take(new_row(state=PlantState.QUEUED)),
        }
        said = {name: outcome_and_fate(ledger.get(entry)) for name, entry in entries.items()}
    assert said["made"] == "created"
    assert said["refused"] == "rejected (not created)"
    assert said["lost"].endswith("(fate unknown)")
    assert said["lost"].count("unknown") == 1
    assert said["never"].endswith("(not created)")
    assert said["never"].count("not created") == 1
    assert said["waiting"] == "queued"
