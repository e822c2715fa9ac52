"""What the send service tells its front end, as typed values: each is told once, on the event
loop, in the order it happened. A front end renders them (the TUI turns each into a Message);
it decides nothing from them that the service has not decided already."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from datetime import datetime

    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.sending.next_id import NextFree
    from plantstore_tui.core.sending.queue import QueuedPlant
    from plantstore_tui.core.sending.session_ledger import LedgerNews
    from plantstore_tui.core.sending.state import QueueChange


class PlantMoved(NamedTuple):
    """A plant is taken (on disk for good), sent, answered, held or dealt with; `after` says
    what the operator did about it, if they did."""

    plant: QueuedPlant
    after: str | None = None


class QueueMoved(NamedTuple):
    """The queue stopped, or runs again: said once, with its time."""

    change: QueueChange


class LedgerOpened(NamedTuple):
    """The ledger is open: what it holds for the operator."""

    news: LedgerNews


class Connected(NamedTuple):
    """The target is resolved and its client built; plants go there from now on."""

    target: Target


class CannotConnect(NamedTuple):
    """The chosen target cannot be used: the words say why (the plants waiting are held)."""

    problem: str


class NextId(NamedTuple):
    """The id the form offers for the next plant typed, now that the ledger and target are
    known: told once a connection is made, after `Connected`. None: nothing to offer (with a
    range of ids, `Target.ids`, every id of it is taken; without one, the ledger knows no plant
    of the target); UNREAD: the ledger could not be read, nobody knows."""

    value: NextFree


class OfferTaken(NamedTuple):
    """Another instance took the id the form offers (`taken`): the next free one is `value`
    (None: every id of the range is taken)."""

    taken: int
    value: int | None


class SentBefore(NamedTuple):
    """Words of warning about the id typed: the ledger shows it created (or maybe created) on
    the target, or it is outside the profile's range of ids, or among the range's last ids."""

    id_text: str
    words: str


class Note(NamedTuple):
    """Words for the log, with their time (a problem no plant's entry explains)."""

    words: str
    at: datetime


class Problem(NamedTuple):
    """Something went wrong that the operator must see at once."""

    title: str
    words: str


Event = (
    PlantMoved
    | QueueMoved
    | LedgerOpened
    | Connected
    | CannotConnect
    | NextId
    | OfferTaken
    | SentBefore
    | Note
    | Problem
)
Tell = Callable[[Event], None]
