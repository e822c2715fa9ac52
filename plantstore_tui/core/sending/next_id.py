"""Next id: the id the form offers for the next plant typed on a target.

It goes on from the last plant typed in the form there (a plant loaded from needs attention or
the history, or sent from the command line, does not move it), to the first id after it that the
ledger does not know as taken there (`core/store/taken_ids.py`). One function, so that a
profile's range of ids can bound it later.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from plantstore_tui.core.plant.form import INT64_MAX
from plantstore_tui.core.store.taken_ids import taken_ids

if TYPE_CHECKING:
    from plantstore_tui.core.store import Ledger


def next_free_id(ledger: Ledger, base_url: str, after: int | None = None) -> int | None:
    """The first id after `after` not taken on this target; `after` by default the last plant
    typed in the form for it, or with none, the last plant created on it. None when the ledger
    knows no plant of this target, or no id is left above (reads the ledger: `StoreError`)."""
    if after is None:
        after = ledger.last_typed_id(base_url)
    if after is None:
        after = ledger.last_created_id(base_url)
    if after is None:
        return None
    candidate = after + 1
    for taken in taken_ids(ledger, base_url, above=after):
        if taken != candidate:
            break
        candidate += 1
    return candidate if candidate <= INT64_MAX else None
