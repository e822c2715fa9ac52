"""Next id: the id the form offers for the next plant typed on a target.

It goes on from the last plant typed in the form there (a plant loaded from needs attention or
the history, or sent from the command line, does not move it), to the first id after it that the
ledger does not know as taken there (`core/store/taken_ids.py`). A profile's range of ids
(`ids`) bounds it: it starts at the range's first id, goes on from the last plant typed in the
range, and never proposes past the range's last id.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Literal, TypeAlias

from plantstore_tui.core.plant.form import INT64_MAX
from plantstore_tui.core.store.taken_ids import taken_ids

if TYPE_CHECKING:
    from plantstore_tui.core.plant.id_range import IdRange
    from plantstore_tui.core.store import Ledger


class Unread(Enum):
    """The ledger could not be read: nobody knows the next free id (not that none is left)."""

    UNREAD = "unread"


UNREAD = Unread.UNREAD
# What the form is offered: an id, None (no id to offer: the range is used up, or the ledger
# knows no plant of the target), or UNREAD.
NextFree: TypeAlias = int | Literal[Unread.UNREAD] | None


def next_free_id(
    ledger: Ledger, base_url: str, after: int | None = None, *, ids: IdRange | None = None
) -> int | None:
    """The first id after `after` not taken on this target; `after` by default the last plant
    typed in the form for it, or with none, the last plant created on it. With a range `ids`,
    only ids of the range count: `after` is the last plant typed in it, or with none, the id
    before its first. None when the ledger knows no plant of this target (and there is no
    range), or no id is left above (reads the ledger: `StoreError`)."""
    if after is None:
        after = ledger.last_typed_id(base_url, within=ids)
    if ids is not None:
        after = ids.first - 1 if after is None else max(after, ids.first - 1)
    if after is None:
        after = ledger.last_created_id(base_url)
    if after is None:
        return None
    last = INT64_MAX if ids is None else ids.last
    candidate = after + 1
    for taken in taken_ids(ledger, base_url, above=after):
        if taken != candidate or candidate > last:
            break
        candidate += 1
    return candidate if candidate <= last else None
