"""What became of a plant a front end handed to the entry session (`EntrySession.submit`), or
chose to load into the form or dismiss (`EntrySession.load`, `dismiss`): one typed result the
front end renders; and the session's memory of sends confirmed to protected targets."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, TypeAlias

from plantstore_tui.core.http.address import same_target, target_words
from plantstore_tui.core.sending.verify import Differs, KeyAgain

if TYPE_CHECKING:
    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.plant.form import FormErrors, FormTexts
    from plantstore_tui.core.plant.models import NewPlant
    from plantstore_tui.core.sending.events import NextFree, PlantView
    from plantstore_tui.core.store.records import HistoryEntry


class Taken(NamedTuple):
    """In the ledger and in line: the form may let go of it, and offer `next_id` for the next
    plant (None: the ledger cannot say)."""

    plant: PlantView
    next_id: NextFree = None


class Invalid(NamedTuple):
    """The texts make no valid plant; nothing was taken."""

    errors: FormErrors


class NeedsConfirmation(NamedTuple):
    """The target is protected: ask, then submit again confirmed (or not at all), with
    `verified` (the fields its verification corrected; None: not keyed twice)."""

    target: Target
    plant: NewPlant
    verified: int | None = None


class NotTaken(NamedTuple):
    """Nothing was taken, and why, in words (no target yet, a configuration problem, a ledger
    that cannot be written): the plant stays where it was typed."""

    title: str
    reason: str


# KeyAgain and Differs: verified entry's (core/sending/verify.py).
Submitted: TypeAlias = Taken | Invalid | NeedsConfirmation | NotTaken | KeyAgain | Differs


class FromAttention(NamedTuple):
    """A plant of needs attention, by its ledger entry: loaded, it leaves needs attention."""

    number: int


class FromHistory(NamedTuple):
    """A send of the history, as read there: loaded, the history keeps it as it was."""

    entry: HistoryEntry


class FromFile(NamedTuple):
    """A row of a file being imported; `may_exist`: its send got no clear answer."""

    texts: FormTexts
    may_exist: bool = False


ToLoad: TypeAlias = FromAttention | FromHistory | FromFile


class Loaded(NamedTuple):
    """For the form to load (`plant_id`: the id it was sent with, if it was); `may_exist`: its
    send got no clear answer, so sending it again may create it twice."""

    texts: FormTexts
    may_exist: bool = False
    plant_id: int | None = None


class FormBusy(NamedTuple):
    """The form holds a plant being typed: nothing was loaded over it."""


class Dismissed(NamedTuple):
    """Out of needs attention, forgotten."""

    entry: HistoryEntry


class AimedElsewhere(NamedTuple):
    """The plant was meant for another target than the form's: ask, then load it anywhere."""

    entry: HistoryEntry
    meant: str
    here: str


Loading: TypeAlias = Loaded | FormBusy | AimedElsewhere | NotTaken


def aimed_elsewhere(
    entry: HistoryEntry, aim: tuple[str, str | None] | None
) -> AimedElsewhere | None:
    """Whether a plant of the ledger was meant for another target than `aim`, the base URL and
    profile plants taken now go to (never, while no target is chosen: `aim` None)."""
    if aim is None or same_target(entry.base_url, entry.profile, *aim):
        return None
    return AimedElsewhere(entry, target_words(entry.base_url, entry.profile), target_words(*aim))


class SentAgain(NamedTuple):
    """Held plants sent again from needs attention, in order: `sent` taken as new sends (their
    held rows dealt with), `skipped` dealt with meanwhile by another plantstore-tui; `stopped`:
    what became of the plant that was not taken (typed as `stopped_texts`), the ones after it
    left held."""

    sent: int
    skipped: int
    stopped: Submitted | None = None
    stopped_texts: FormTexts | None = None


@dataclass(slots=True)
class Protection:
    """This session's confirmations of sends to protected targets: each send is confirmed,
    unless the operator said "don't ask again" for that target, until the program ends."""

    _trusted: set[tuple[str, str]] = field(default_factory=set)

    def needs_asking(self, target: Target) -> bool:
        """Whether a send to `target` must be confirmed first."""
        return target.protected and self._key(target) not in self._trusted

    def trust(self, target: Target) -> None:
        """Send to `target` without asking from now on."""
        self._trusted.add(self._key(target))

    @staticmethod
    def _key(target: Target) -> tuple[str, str]:
        # Keyed by URL too: a profile edited to point elsewhere is asked about afresh.
        return (target.profile or "", target.base_url)
