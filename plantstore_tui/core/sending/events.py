"""What the send service tells its front end, as typed values: each is told once, on the event
loop, in the order it happened. A front end renders them (the TUI turns each into a Message);
it decides nothing from them that the service has not decided already."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import TYPE_CHECKING, Literal, NamedTuple, TypeAlias

# Carried by `LedgerOpened`: named here too, so that a front end needs only this module and the
# service's (the import contract "The UI enters core/sending through the service").
from plantstore_tui.core.sending.session_ledger import LedgerNews as LedgerNews
from plantstore_tui.core.store.records import ATTENTION_STATES, OPEN_STATES, PlantState

if TYPE_CHECKING:
    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.plant.form import FormTexts
    from plantstore_tui.core.plant.models import NewPlant
    from plantstore_tui.core.plant.outcome import Outcome
    from plantstore_tui.core.sending.state import QueueChange


class Unread(Enum):
    """The ledger could not be read: nobody knows the next free id (not that none is left)."""

    UNREAD = "unread"


UNREAD = Unread.UNREAD
# What the form is offered (`NextId`): an id, None (no id to offer: the range is used up, or the
# ledger knows no plant of the target), or UNREAD.
NextFree: TypeAlias = int | Literal[Unread.UNREAD] | None


@dataclass(frozen=True, slots=True)
class PlantView:
    """One plant of the session as it stood when told: a copy, which nothing changes after."""

    number: int
    """Its entry in the ledger."""
    texts: FormTexts
    plant: NewPlant
    base_url: str
    profile: str | None
    queued_at: datetime
    answered_at: datetime | None
    """When its last send was answered (or ended without an answer), local time."""
    state: PlantState
    held: bool
    outcome: Outcome | None
    note: str
    """Words for a state no outcome explains (held by the operator, a bug in the sender)."""
    confirmed: bool
    """False when it was queued before its target was known to be protected or not."""

    @property
    def needs_attention(self) -> bool:
        """True when the plant did not go through (or may not have), or was held back."""
        return self.held or self.state in ATTENTION_STATES

    @property
    def fate_unknown(self) -> bool:
        """True when the plant may or may not be in the store (it may exist already)."""
        return self.state in (PlantState.SENDING, PlantState.UNKNOWN)

    @property
    def settled(self) -> bool:
        """True once it is neither waiting nor in flight."""
        return self.held or self.state not in OPEN_STATES


class PlantMoved(NamedTuple):
    """A plant is taken (on disk for good), sent, answered, held or dealt with; `after` says
    what the operator did about it, if they did."""

    plant: PlantView
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
