"""The entry session's ledger: opened when first needed (from any thread), and what the
operator is told about it once it is open.

`session.py` holds the plants; this module holds only the ledger's opening, its news and its
closing.
"""

from __future__ import annotations

import threading
from typing import NamedTuple

from plantstore_tui.core.store import Ledger, open_ledger


class LedgerNews(NamedTuple):
    """What the operator is told once the ledger is open."""

    problem: str | None
    carried_problems: tuple[str, ...]
    waiting: int


class LazyLedger:
    """The session's ledger, opened at the first `open` (a file that cannot be used gives one
    in memory, and says so); its news is told once."""

    def __init__(self) -> None:
        self._ledger: Ledger | None = None
        self._lock = threading.Lock()
        self.told = False
        """True once `news` has been given out."""

    def open(self) -> Ledger:
        """The ledger, opened now if it is not yet; safe from any thread."""
        with self._lock:
            if self._ledger is None:
                self._ledger = open_ledger("tui", memory_if_unusable=True)
            return self._ledger

    @property
    def opened(self) -> Ledger | None:
        """The ledger if it is open, else None (nothing is opened)."""
        return self._ledger

    @property
    def in_memory(self) -> bool:
        """True when the ledger's file could not be used: plants live as long as this run."""
        return self._ledger is not None and self._ledger.problem is not None

    def news(self) -> LedgerNews | None:
        """What to tell the operator about the ledger, once it is open; None after the first
        call (or before it is open)."""
        ledger = self._ledger
        if self.told or ledger is None:
            return None
        self.told = True
        carried = ledger.carried
        return LedgerNews(
            problem=ledger.problem,
            carried_problems=() if carried is None else tuple(carried.problems),
            waiting=ledger.attention_count(),
        )

    def close(self) -> None:
        """Close the ledger if it is open; the next `open` opens it again."""
        with self._lock:
            ledger, self._ledger = self._ledger, None
        if ledger is not None:
            ledger.close()
