"""An entry session's counts, and the ledger as its send queue writes it, with the plants
needing attention counted after each settle, in the thread that settled it: a front end's status
line shows the count without a query of its own at each state a plant passes through (three a
send, on the UI thread, where a query waits for any write of this process in flight). The count
is told on the event loop: the thread touches nothing of the session."""

from __future__ import annotations

import asyncio
import contextlib
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
    """`TargetLedger`'s writes for the queue (`QueueLedger`), each telling `counted` after it,
    on `loop` (the one the queue runs on)."""

    def __init__(
        self, ledger: TargetLedger, counted: Counted, loop: asyncio.AbstractEventLoop
    ) -> None:
        self._ledger = ledger
        self._counted = counted
        self._loop = loop
        # Written on the loop at each hold: a count made in a thread before it is stale.
        self._holds = 0

    def sending(self, entry: int) -> None:
        """Its request is about to go out (no plant needs attention more or less)."""
        self._ledger.sending(entry)

    def settle(self, entry: int, outcome: Outcome) -> PlantState:
        """`TargetLedger.settle`, then the count of plants needing attention (None if it cannot
        be read)."""
        ledger = self._ledger.ledger
        holds = self._holds
        # Counted before any other write of this process: nothing else changes what it counts.
        with ledger.db.read():
            settled = self._ledger.settle(entry, outcome)
            try:
                attention: int | None = ledger.attention_count()
            except StoreError:
                attention = None
        if _running_loop() is self._loop:
            self._tell(holds, attention)  # a settle on the loop (a send cancelled)
        else:
            # Told before the queue, awaiting this settle, goes on: its report shows the count.
            with contextlib.suppress(RuntimeError):  # the loop has ended: nobody is shown it
                self._loop.call_soon_threadsafe(self._tell, holds, attention)
        return settled

    def _tell(self, holds: int, attention: int | None) -> None:
        self._counted(attention if holds == self._holds else None)

    def hold(self, entries: list[int], note: str) -> None:
        """`TargetLedger.hold`: the plants held need attention (counted when next asked)."""
        try:
            self._ledger.hold(entries, note)
        finally:
            self._holds += 1
            self._counted(None)

    def requeue(self, entry: int) -> None:
        """`TargetLedger.requeue` (no plant needs attention more or less)."""
        self._ledger.requeue(entry)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # a worker thread
        return None
