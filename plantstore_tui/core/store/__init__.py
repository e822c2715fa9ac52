"""The ledger: one SQLite file holding every plant from its submit to its fate, for every front end.

`open_ledger()` opens it (creating it race-free, migrating it, carrying the previous release's
files over); the send queue, needs attention, the history and import batches are views of it.
"""

from plantstore_tui.core.store.database import LEDGER_FILE, StoreError, ledger_path
from plantstore_tui.core.store.ledger import Ledger
from plantstore_tui.core.store.opening import open_for_reading, open_ledger, open_unchanged
from plantstore_tui.core.store.records import (
    ATTENTION_STATES,
    HistoryEntry,
    HistoryFilter,
    PlantState,
    Source,
    state_of,
)

__all__ = [
    "ATTENTION_STATES",
    "LEDGER_FILE",
    "HistoryEntry",
    "HistoryFilter",
    "Ledger",
    "PlantState",
    "Source",
    "StoreError",
    "ledger_path",
    "open_for_reading",
    "open_ledger",
    "open_unchanged",
    "state_of",
]
