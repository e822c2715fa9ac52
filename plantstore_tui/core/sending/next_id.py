"""Next id: the id the form offers for the next plant typed on a target.

It goes on from the last plant typed in the form there (a plant loaded from needs attention or
the history, or sent from the command line, does not move it), to the first id after it that the
ledger does not know as taken there (`core/store/taken_ids.py`). A profile's range of ids
(`ids`) bounds it: it starts at the range's first id, goes on from the last plant typed in the
range, and never proposes past the range's last id.

Across processes, the id is handed out once: `reserve_next_free_id` reads the free ids and
reserves the one found for this instance in one transaction (`core/store/reservations.py`), and
skips the ids other running instances hold.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from plantstore_tui.core.plant.form import INT64_MAX
from plantstore_tui.core.sending.events import OfferTaken
from plantstore_tui.core.store import reservations
from plantstore_tui.core.store.taken_ids import taken_ids

if TYPE_CHECKING:
    from plantstore_tui.core.plant.id_range import IdRange
    from plantstore_tui.core.store import Ledger


class OfferCheck(NamedTuple):
    """A look at whether another process took the id offered."""

    # The ledger's version read (`Database.version`): nothing to look at while it stays.
    version: int | None
    # The offer moved on, or None.
    taken: OfferTaken | None


def reserve_next_free_id(
    ledger: Ledger, base_url: str, after: int | None = None, *, ids: IdRange | None = None
) -> int | None:
    """`next_free_id`, skipping the ids other running instances hold, and held for this
    instance (in place of the one it held) in the same transaction (writes the ledger:
    `StoreError`)."""
    # Not durable: a power cut that loses the reservation ends its instance too.
    with ledger.db.write(durable=False) as connection:
        held = reservations.held_by_others(ledger.db, connection, base_url, ledger.session_id)
        found = next_free_id(ledger, base_url, after, ids=ids, held=held)
        reservations.hold(connection, ledger.session_id, base_url, found)
    return found


def taken_since(ledger: Ledger, base_url: str, offered: int) -> bool:
    """True when the ledger now knows `offered` as taken on this target (reads the ledger)."""
    return next(iter(taken_ids(ledger, base_url, above=offered - 1)), None) == offered


def next_free_id(
    ledger: Ledger,
    base_url: str,
    after: int | None = None,
    *,
    ids: IdRange | None = None,
    held: Iterable[int] = (),
) -> int | None:
    """The first id after `after` not taken on this target; `after` by default the last plant
    typed in the form for it, or with none, the last plant created on it. With a range `ids`,
    only ids of the range count: `after` is the last plant typed in it, or with none, the id
    before its first. The ids `held` (by other instances) count as taken. None when the ledger
    knows no plant of this target (and there is no range), or no id is left above (reads the
    ledger: `StoreError`)."""
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
    reserved = sorted(plant_id for plant_id in set(held) if plant_id > after)
    for taken in heapq.merge(taken_ids(ledger, base_url, above=after), reserved):
        if taken < candidate:
            continue  # taken by a plant and reserved too
        if taken != candidate or candidate > last:
            break
        candidate += 1
    return candidate if candidate <= last else None
