"""An entry session's counts, and the ledger as its send queue writes it, with the plants
needing attention counted after each settle, in the thread that settled it: a front end's status
line shows the count without a query of its own at each state a plant passes through (three a
send, on the UI thread, where a query waits for any write of this process in flight)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from plantstore_tui.core.store import StoreError
from plantstore_tui.core.store.records import PlantState

if TYPE_CHECKING:
    from plantstore_tui.core.plant.outcome import Outcome
    from plantstore_tui.core.store.ledger import TargetLedger


class Counts(NamedTuple):
    """An entry session's plants queued, in flight, and needing attention."""

    queued: int
    sending: int
    attention: int


# Told how many plants need attention now; None: it may have changed, count again when asked.
Counted = Callable[[int | None], None]


class CountingLedger:
    """`TargetLedger`'s writes for the queue (`QueueLedger`), each telling `counted` after it."""

    def __init__(self, ledger: TargetLedger, counted: Counted) -> None:
        self._ledger = ledger
        self._counted = counted

    def sending(self, entry: int) -> None:
        """Its request is about to go out (no plant needs attention more or less)."""
        self._ledger.sending(entry)

    def settle(self, entry: int, outcome: Outcome) -> PlantState:
        """`TargetLedger.settle`, then the count of plants needing attention (None if it cannot
        be read)."""
        ledger = self._ledger.ledger
        # Counted and told before any other write of this process: a hold after this one tells
        # its None after ours, never before.
        with ledger.db.read():
            settled = self._ledger.settle(entry, outcome)
            try:
                self._counted(ledger.attention_count())
            except StoreError:
                self._counted(None)
        return settled

    def hold(self, entries: list[int], note: str) -> None:
        """`TargetLedger.hold`: the plants held need attention (counted when next asked)."""
        try:
            self._ledger.hold(entries, note)
        finally:
            self._counted(None)

    def requeue(self, entry: int) -> None:
        """`TargetLedger.requeue` (no plant needs attention more or less)."""
        self._ledger.requeue(entry)
