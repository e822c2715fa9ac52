"""The ids the ledger knows as taken on a target (created, maybe created, on their way, or
answered as a duplicate).

`core/sending/next_id.py` makes the form's next id of them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

from plantstore_tui.core.plant.form import INT64_MAX, INT64_MIN
from plantstore_tui.core.plant.models import says_id_taken

if TYPE_CHECKING:
    from plantstore_tui.core.store.ledger import Ledger

# Rows read at a time: ids taken in a long run above the form's are read a page at a time, and
# the walk stops at the first gap (usually in the first page).
_PAGE = 256
# A row whose id the deployment holds, may hold, or is about to be asked for; a rejected row
# with an Error is read to see whether it says the id is taken (`says_id_taken`).
_TAKEN = (
    "SELECT plant_id, entry, state, error FROM plants "
    "WHERE base_url = ? AND (plant_id, entry) > (?, ?) "
    "AND (state IN ('queued', 'sending', 'created', 'unknown') "
    "OR (state = 'rejected' AND error IS NOT NULL)) "
    "ORDER BY plant_id, entry LIMIT ?"
)


def taken_ids(ledger: Ledger, base_url: str, *, above: int) -> Iterator[int]:
    """The ids above `above` that are taken on this target, in ascending order, each once: a
    plant created with it, one that may have been (no clear answer, or in flight), one queued
    to be sent, or one the deployment refused because it holds the id already."""
    # Past every row of `above` itself; `above` one below the lowest id (a range from it): from
    # the first row, as SQLite holds no integer below INT64_MIN.
    after = (above, INT64_MAX) if above >= INT64_MIN else (INT64_MIN, 0)
    last: int | None = None
    while True:
        with ledger.db.read() as connection:
            rows = connection.execute(_TAKEN, (base_url, *after, _PAGE)).fetchall()
        for plant_id, entry, state, error in rows:
            if plant_id != last and (state != "rejected" or _says_taken(error)):
                last = plant_id
                yield plant_id
            after = (plant_id, entry)
        if len(rows) < _PAGE:
            return


def _says_taken(error: str) -> bool:
    try:
        answer = json.loads(error)
    except ValueError:
        return False
    return isinstance(answer, dict) and says_id_taken(answer)
