"""`Recorder`: how a one-shot front end (`add`, `check --create`) keeps its sends in the ledger
without ever being stopped by it.

A ledger that cannot be opened or written (locked too long, read-only, corrupt) turns recording
off for the rest of the run: the send goes on, and the operator is told once why, with the
file's path. The file is never overwritten or deleted.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.store.database import StoreError
from plantstore_tui.core.store.opening import open_ledger
from plantstore_tui.core.store.records import HistoryEntry, PlantState
from plantstore_tui.core.store.rows import NewRow
from plantstore_tui.core.store.settings import history_settings

if TYPE_CHECKING:
    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.plant.models import NewPlant
    from plantstore_tui.core.plant.outcome import Outcome
    from plantstore_tui.core.store.ledger import Ledger


def off_message(error: StoreError) -> str:
    """The one notice that the history is off for this run, and why."""
    # The reason never says what becomes of the file: said here, once.
    return (
        f"History is off for this run: {error.path}: {error.reason}; the file is left as it "
        "is. Sends go on."
    )


class Recorder:
    """The ledger as a one-shot front end writes it: a failure turns it off, said once."""

    def __init__(
        self, source: str, ledger: Ledger | None, *, keep: bool = True, warn: Callable[[str], None]
    ) -> None:
        self.source = source
        self._ledger = ledger
        self._keep = keep
        self._warn = warn
        self._lock = threading.Lock()

    @classmethod
    def open(cls, source: str, profile: str | None, *, warn: Callable[[str], None]) -> Recorder:
        """The ledger for sends of `source` to `profile`, or an inactive recorder (said why)."""
        settings = history_settings(profile)
        try:
            ledger = open_ledger(source, limit=settings.limit)
        except StoreError as exc:
            warn(off_message(exc))
            return cls(source, None, warn=warn)
        if ledger.carried is not None:
            for problem in ledger.carried.problems:
                warn(f"An earlier file was not read: {problem}")
        return cls(source, ledger, keep=settings.enabled, warn=warn)

    @property
    def active(self) -> bool:
        """True while sends are being recorded."""
        return self._ledger is not None

    @property
    def ledger(self) -> Ledger | None:
        """The ledger while sends are recorded (None once off), for reading it."""
        return self._ledger

    @property
    def keeps(self) -> bool:
        """True when a settled send stays in the history (False: history off for its profile)."""
        return self._keep

    def _turn_off(self, error: StoreError) -> None:
        with self._lock:
            ledger, self._ledger = self._ledger, None
        if ledger is not None:
            ledger.close()
            self._warn(off_message(error))

    def begin(self, target: Target, plant: NewPlant, texts: FormTexts | None = None) -> int | None:
        """Record a send about to go out (committed before it does); its entry, or None."""
        ledger = self._ledger
        if ledger is None:
            return None
        typed = texts or FormTexts(name=plant.name, id=str(plant.id), tag=plant.tag or "")
        row = NewRow(
            source=self.source,
            texts=typed,
            plant=plant,
            base_url=target.base_url,
            profile=target.profile,
            state=PlantState.SENDING,
            keep=self._keep,
        )
        try:
            return ledger.take(row)
        except StoreError as exc:
            self._turn_off(exc)
            return None

    def again(self, entry: int | None) -> None:
        """Record that the send `entry` goes out once more (one more try, in the same row)."""
        ledger = self._ledger
        if ledger is None or entry is None:
            return
        try:
            ledger.sending(entry)
        except StoreError as exc:
            self._turn_off(exc)

    def settle(self, entry: int | None, outcome: Outcome, target: Target) -> None:
        """Record how the send `entry` ended (a server that echoed the token has it taken out)."""
        ledger = self._ledger
        if ledger is None or entry is None:
            return
        try:
            ledger.for_target(target.token).settle(entry, outcome)
        except StoreError as exc:
            self._turn_off(exc)

    def earlier_sends(self, base_url: str, plant_id: int) -> list[HistoryEntry]:
        """Sends of this id to this base URL that created it or may have (empty when off)."""
        ledger = self._ledger
        if ledger is None:
            return []
        try:
            return ledger.sent_before(base_url, plant_id)
        except StoreError as exc:
            self._turn_off(exc)
            return []

    def close(self) -> None:
        """End the session (sends after this are not recorded, and nothing is said)."""
        with self._lock:
            ledger, self._ledger = self._ledger, None
        if ledger is not None:
            ledger.close()
