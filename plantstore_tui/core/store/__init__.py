"""The ledger: one SQLite file holding every plant from its submit to its fate, for every front end.

`open_ledger()` opens it (creating it race-free, migrating it, carrying the previous release's
files over); the send queue, needs attention, the history and import batches are views of it.

The names below load their module on first use: the TUI's first frame needs `PlantState`, not
SQLite.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from plantstore_tui.core.store.database import LEDGER_FILE, StoreError, ledger_path
    from plantstore_tui.core.store.ledger import Ledger
    from plantstore_tui.core.store.opening import open_for_reading, open_ledger
    from plantstore_tui.core.store.records import (
        ATTENTION_STATES,
        HistoryEntry,
        HistoryFilter,
        PlantState,
        Source,
        state_of,
    )

_HOMES = {
    "LEDGER_FILE": "database",
    "StoreError": "database",
    "ledger_path": "database",
    "Ledger": "ledger",
    "open_for_reading": "opening",
    "open_ledger": "opening",
    "ATTENTION_STATES": "records",
    "HistoryEntry": "records",
    "HistoryFilter": "records",
    "PlantState": "records",
    "Source": "records",
    "state_of": "records",
}

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
    "state_of",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
