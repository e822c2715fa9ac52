"""The entry session: the plants one operator takes, sends to the target of the moment, and
deals with when they did not go through.

A front end drives it (through the send service) and shows what it reports. `submit` commits a
plant to the ledger before the front end lets go of the form, and puts it in line behind the
plants taken before it (they wait for the connection if it is not made yet); every change of a
plant is written to the ledger first, then reported to `on_change`. The plants of this session
that may still change are held here and nowhere else in memory; needs attention and the
history are views of the ledger.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from plantstore_tui.core.plant.form import FormErrors, parse_id
from plantstore_tui.core.plant.id_range import range_warning
from plantstore_tui.core.plant.models import parse_new_plant
from plantstore_tui.core.plant.text import visible
from plantstore_tui.core.sending.counted import CountingLedger, Counts
from plantstore_tui.core.sending.events import UNREAD, NextFree, OfferTaken, PlantView
from plantstore_tui.core.sending.next_id import OfferCheck, reserve_next_free_id, taken_since
from plantstore_tui.core.sending.queue import Confirm, PlantSender, QueuedPlant, SendQueue
from plantstore_tui.core.sending.session_ledger import LazyLedger, LedgerNews
from plantstore_tui.core.sending.state import (
    Asking,
    QueueChange,
    QueueState,
    Running,
    StateNews,
    TokenRefused,
)
from plantstore_tui.core.sending.submitted import (
    Dismissed,
    FormBusy,
    FromAttention,
    FromFile,
    FromHistory,
    Invalid,
    Loaded,
    Loading,
    NeedsConfirmation,
    NotTaken,
    Protection,
    Submitted,
    Taken,
    ToLoad,
    aimed_elsewhere,
)
from plantstore_tui.core.sending.verify import Agreed, KeyAgain, Verification
from plantstore_tui.core.store.database import StoreError
from plantstore_tui.core.store.records import PlantState
from plantstore_tui.core.store.rows import KEYING_WHEN_ENDED, NewRow
from plantstore_tui.core.store.settings import duplicate_warning

if TYPE_CHECKING:
    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.plant.form import FormTexts
    from plantstore_tui.core.plant.id_range import IdRange
    from plantstore_tui.core.plant.models import NewPlant
    from plantstore_tui.core.plant.outcome import Outcome
    from plantstore_tui.core.store import HistoryEntry, Ledger
    from plantstore_tui.core.store.settings import HistorySettings

Clock = Callable[[], datetime]
# A plant moved on; the words say what the operator did about it, if they did.
OnChange = Callable[[QueuedPlant, str | None], None]
# The queue stopped, or runs again.
OnState = Callable[[QueueChange], None]


class EntrySession:
    """Plants taken into the ledger, sent in order to the target of the moment, and dealt with.

    `chosen` False means no target yet (a first run): a front end sends nothing until `choose`
    names one. Between `choose` and `connected` (or `cannot_connect`) plants wait in line for
    the connection.
    """

    def __init__(
        self,
        on_change: OnChange,
        clock: Clock,
        *,
        base_url: str,
        profile: str | None = None,
        chosen: bool = True,
        on_state: OnState | None = None,
        on_problem: Callable[[str], None] | None = None,
    ) -> None:
        self._on_change = on_change
        self._on_state = on_state
        self._on_problem = on_problem
        self._news = StateNews()
        self._clock = clock
        self._base_url, self._profile, self._chosen = base_url, profile, chosen
        self._target: Target | None = None
        self._problem: str | None = None
        self._settings: HistorySettings | None = None
        self._queue: SendQueue | None = None
        self._stopped: SendQueue | None = None
        # Plants taken before the connection is made: they join its queue when it is.
        self._early: list[QueuedPlant] = []
        # The plants of this session whose fate or entry may still change, by ledger entry.
        self._plants: dict[int, QueuedPlant] = {}
        self._store = LazyLedger()
        # Plants taken whose take is not yet durable against a power cut: reported once it is
        # (the ledger's group commit says so), or once their durable `sending` is written.
        self._unsynced: dict[int, QueuedPlant] = {}
        self._durable = 0
        self._quiet = asyncio.Event()
        # Plants needing attention, as last counted (None: count when next asked).
        self._attention: int | None = None
        # Questions about the queue open on screen; a refusal carried to the next connection.
        self._questions = 0
        self._refused: int | None = None
        self.protection = Protection()
        """The sends to protected targets confirmed for the whole session."""

    # The ledger -------------------------------------------------------------------------------

    def ledger(self) -> Ledger:
        """The ledger, opened now if it is not yet (a file that cannot be used gives one in
        memory, and says so); safe from any thread."""
        return self._store.open()

    @property
    def _ledger(self) -> Ledger | None:
        return self._store.opened

    @property
    def ledger_in_memory(self) -> bool:
        """True when the ledger's file could not be used: plants live as long as this run."""
        return self._store.in_memory

    def ledger_news(self) -> LedgerNews | None:
        """What to tell the operator about the ledger, once it is open; None after the first
        call (or before it is open)."""
        news = self._store.news()
        if news is not None:
            self._attention = news.waiting
            self._update_quiet()
        return news

    def next_id(self, target: Target | None = None) -> NextFree:
        """The id the form offers next on the target (or on `target`, the one being connected
        to): the next free id, if the ledger knows a plant of it, reserved for this instance so
        that no other hands it out (`reserve_next_free_id`: writes the ledger, call it off the UI
        thread)."""
        ledger, target = self._ledger, target or self._target
        if ledger is None or target is None:
            return None
        return self._next_free_id(ledger, target.base_url, target.ids)

    def offer_check(self, target: Target, offered: int, seen: int | None) -> OfferCheck:
        """Whether another process took the id offered on `target` since the ledger's version
        `seen`, and if so the next free id, reserved in its place (reads the ledger, and writes
        it when the offer moves: call it off the UI thread; touches nothing of the session)."""
        ledger = self._ledger
        if ledger is None:
            return OfferCheck(seen, None)
        try:
            version = ledger.db.version()
            if version == seen or not taken_since(ledger, target.base_url, offered):
                return OfferCheck(version, None)
        except StoreError:
            return OfferCheck(seen, None)  # a convenience: the send itself will say what is wrong
        moved = self._next_free_id(ledger, target.base_url, target.ids)
        return OfferCheck(version, None if moved is UNREAD else OfferTaken(offered, moved))

    @staticmethod
    def _next_free_id(ledger: Ledger, base_url: str, ids: IdRange | None) -> NextFree:
        try:
            return reserve_next_free_id(ledger, base_url, ids=ids)
        except StoreError:
            return UNREAD  # a convenience: the operator types the id

    def duplicate_warning(self, id_text: str, target: Target | None = None) -> str | None:
        """Words saying the ledger shows this id created (or maybe created) on the target (or
        on `target`, as read on the event loop) already (reads the ledger: call it off the UI
        thread)."""
        ledger, target = self._ledger, target or self._target
        plant_id = parse_id(id_text)
        if ledger is None or target is None or not isinstance(plant_id, int):
            return None
        return duplicate_warning(ledger.sent_before(target.base_url, plant_id))

    def id_warning(self, id_text: str, target: Target | None = None) -> str | None:
        """Words of warning about the id typed: created on the target (or on `target`)
        already (`duplicate_warning`), outside the profile's range of ids or among its last ids
        (`range_warning`); None when there is nothing to say (reads the ledger)."""
        target, plant_id = target or self._target, parse_id(id_text)
        said = [self.duplicate_warning(id_text, target)]
        if target is not None and target.ids is not None and isinstance(plant_id, int):
            said.append(range_warning(target.ids, plant_id))
        return " ".join(words for words in said if words) or None

    @property
    def knows_history(self) -> bool:
        """True once the ledger is open and the target known: `next_id` and
        `duplicate_warning` can answer."""
        return self._ledger is not None and self._target is not None

    # The target -------------------------------------------------------------------------------

    @property
    def target(self) -> Target | None:
        """The target plants go to, once connected."""
        return self._target

    @property
    def aim(self) -> tuple[str, str | None] | None:
        """The base URL and profile plants taken now go to (None: no target chosen yet)."""
        return self._aimed_now() if self._target is not None or self._chosen else None

    @property
    def problem(self) -> str | None:
        """Why the chosen target cannot be used (a configuration problem), if it cannot."""
        return self._problem

    @property
    def connecting(self) -> bool:
        """True while the chosen target is being resolved and its client built."""
        return self._chosen and self._target is None and self._problem is None

    def choose(self, base_url: str, profile: str | None, *, carry: bool = False) -> None:
        """Send to another target from now on: the old queue sends what it still holds, then
        closes its client; plants taken meanwhile wait for the new connection. `carry` (the
        same target, connected again, for a token read anew): the plants in line move to the
        new connection, in order, and a refusal stays until `resume`."""
        old, self._queue, self._target = self._queue, None, None
        if old is not None:
            if carry:
                state = old.state
                if isinstance(state, TokenRefused):
                    self._refused = state.status
                self._early[:0] = old.take_waiting()
            old.close_when_empty()
        if not carry:
            self._news.forget()
        self._base_url, self._profile, self._chosen = base_url, profile, True
        self._problem = None
        self._update_quiet()

    def connected(
        self, target: Target, sender: PlantSender, settings: HistorySettings | None = None
    ) -> SendQueue:
        """The chosen target is resolved: its queue, which `run` then sends from; the plants
        that waited for it join it, in the order taken."""
        self._target = target
        ledger = self.ledger()
        if settings is not None:
            self._settings = settings
            ledger.limit = settings.limit
        queue = SendQueue(
            sender,
            self._changed,
            CountingLedger(
                ledger.for_target(target.token), self._counted, asyncio.get_running_loop()
            ),
            clock=self._clock,
        )
        queue.set_asking(self._questions > 0)
        if self._refused is not None:
            queue.refuse(self._refused)
            self._refused = None
        self._queue = queue
        early, self._early = self._early, []
        if early:
            numbers = [plant.number for plant in early]
            with contextlib.suppress(StoreError):  # the queue's own writes say so
                ledger.retarget(numbers, target.base_url, target.profile)
                ledger.keep_settled(numbers, self._keep)
        for plant in early:
            plant.base_url, plant.profile = target.base_url, target.profile
            queue.put(plant)
        self._update_quiet()
        return queue

    def cannot_connect(self, problem: str) -> None:
        """The chosen target cannot be used: the plants that waited for it are held."""
        self._problem = problem
        early, self._early = self._early, []
        note = f"Not sent: {problem}"
        with contextlib.suppress(StoreError):  # the entries still say why
            self.ledger().hold([plant.number for plant in early], note)
        self._attention = None
        for plant in early:
            plant.held, plant.note = True, note
            self._changed(plant)
        self._update_quiet()

    async def run(self, queue: SendQueue, confirm: Confirm | None = None) -> None:
        """Send from `queue` until cancelled, or until it is left behind by `choose` and empty
        (its client is closed then)."""
        try:
            await queue.run(confirm)
        finally:
            if queue is not self._queue:
                await queue.sender.aclose()

    # Plants -----------------------------------------------------------------------------------

    @property
    def _keep(self) -> bool:
        return self._settings is None or self._settings.enabled

    def submit(
        self,
        texts: FormTexts,
        *,
        confirmed: bool = False,
        typed: bool = False,
        verification: Verification | None = None,
        verified: int | None = None,
    ) -> Submitted:
        """Take the plant the texts make into the ledger and put it in line, or say why not:
        invalid, no target to send to, or a protected target to confirm first (`confirmed`:
        it was). Before the connection is made nobody knows whether the target is protected:
        such a plant is confirmed, if it must be, when its turn to be sent comes. `typed`: the
        operator typed it in the form (not loaded it from needs attention or the history): the
        next id goes on from it. With a `verification`, a valid plant is a keying to compare
        (`verify.py`): taken only once a second keying agrees; `verified`: it was keyed twice,
        and this many of its fields were corrected."""
        # The plant first: what is wrong with the fields is said before the target's problem.
        plant = parse_new_plant(name=texts.name, id=texts.id, tag=texts.tag)
        if isinstance(plant, FormErrors):
            return Invalid(plant)
        if self._problem is not None:
            return NotTaken("Cannot send", self._problem)
        if not self._chosen:
            return NotTaken("Not sent", "No target yet: press F2 to choose or create a profile.")
        if verification is not None:
            keyed = verification.keyed(texts, plant)
            if isinstance(keyed, KeyAgain):
                return self._keep_keying(verification, texts, plant)
            if not isinstance(keyed, Agreed):
                return keyed
            verified = 0
        target = self._target
        if target is not None and not confirmed and self.protection.needs_asking(target):
            return NeedsConfirmation(target, plant, verified)
        try:
            # Committed before the front end lets go of the plant: a killed process keeps it.
            queued = self._take(
                texts,
                plant,
                confirmed=confirmed or target is not None,
                typed=typed,
                verified=verified,
            )
        except StoreError as exc:
            return NotTaken(
                "Not sent",
                f"Not taken: the ledger cannot be written: {visible(str(exc))}. "
                "The plant is still in the form.",
            )
        self._enqueue(queued)
        ids = None if target is None else target.ids
        return Taken(queued.view(), self._next_free_id(self.ledger(), queued.base_url, ids))

    def _keep_keying(
        self, verification: Verification, texts: FormTexts, plant: NewPlant
    ) -> KeyAgain | NotTaken:
        # A first keying is a plant the screen took: kept in the ledger (held, if this instance
        # ends before its second keying) before the form clears for the second.
        base_url, profile = self._aimed_now()
        row = NewRow(
            source="tui",
            texts=texts,
            plant=plant,
            base_url=base_url,
            profile=profile,
            keep=self._keep,
            held=True,
            note=KEYING_WHEN_ENDED,
            typed=True,
        )
        try:
            self.ledger().keep_keying(row)
        except StoreError as exc:
            verification.forget()
            return NotTaken(
                "Not taken",
                f"The ledger cannot be written: {visible(str(exc))}. The plant is still in "
                "the form.",
            )
        return KeyAgain(texts)

    def drop_keying(self) -> None:
        """Forget a first keying kept in the ledger (turned off, or nothing was taken of it)."""
        ledger = self._ledger
        if ledger is not None:
            with contextlib.suppress(StoreError):  # left, it is offered once as held
                ledger.drop_keying()

    def _aimed_now(self) -> tuple[str, str | None]:
        target = self._target
        if target is None:
            return self._base_url, self._profile
        return target.base_url, target.profile

    def _take(
        self,
        texts: FormTexts,
        plant: NewPlant,
        *,
        confirmed: bool,
        typed: bool = False,
        verified: int | None = None,
    ) -> QueuedPlant:
        # Committed to the ledger as queued (a killed process keeps it once this returns; it is
        # reported once a power cut cannot lose it either); `StoreError` if it cannot be
        # written. `confirmed` False asks `run`'s confirm before it is sent.
        base_url, profile = self._aimed_now()
        ledger = self.ledger()
        if ledger.on_synced is None:
            loop = asyncio.get_running_loop()

            def synced(upto: int, problem: str | None) -> None:
                # In the group commit's thread: told on the event loop (unless it has ended).
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(self._synced, upto, problem)

            ledger.on_synced = synced
        number = ledger.take(
            NewRow(
                source="tui",
                texts=texts,
                plant=plant,
                base_url=base_url,
                profile=profile,
                state=PlantState.QUEUED,
                keep=self._keep,
                typed=typed,
                verified=verified,
            )
        )
        return QueuedPlant(
            number=number,
            texts=texts,
            plant=plant,
            base_url=base_url,
            profile=profile,
            queued_at=self._clock(),
            confirmed=confirmed,
        )

    def _synced(self, upto: int, problem: str | None = None) -> None:
        # On the event loop: every take up to `upto` is durable; report the plants that waited.
        self._durable = max(self._durable, upto)
        if problem is not None and self._on_problem is not None:
            self._on_problem(
                "The plants just taken are in the ledger, but it could not be synced to the "
                f"disk: {visible(problem)}. A power cut could lose them."
            )
        for number in [number for number in self._unsynced if number <= upto]:
            self._report(self._unsynced.pop(number))
        self._update_quiet()

    def _enqueue(self, plant: QueuedPlant) -> None:
        if self._queue is not None:
            self._queue.put(plant)
        else:
            self._early.append(plant)
            self._changed(plant)

    def _changed(self, plant: QueuedPlant) -> None:
        if plant.state is PlantState.CREATED:
            self._plants.pop(plant.number, None)
        else:
            self._plants[plant.number] = plant
        if plant.number > self._durable:
            self._unsynced[plant.number] = plant
            if plant.state is PlantState.SENDING:
                # Its `sending` was written durably: every take up to it is on disk for good,
                # and reported in the order taken.
                self._synced(plant.number)
            else:
                self._update_quiet()
            return
        self._report(plant)
        self._update_quiet()

    def _report(self, plant: QueuedPlant) -> None:
        self._on_change(plant, None)
        answered = not plant.held and plant.state not in (PlantState.QUEUED, PlantState.SENDING)
        self._tell_state(plant.outcome if answered else None)

    def open_plants(self) -> tuple[PlantView, ...]:
        """This session's plants whose entry may still change (not created, not dealt with), as
        they stand now."""
        return tuple(plant.view() for plant in self._plants.values())

    def in_line(self) -> int:
        """How many plants the current queue still has to send, the one in flight included."""
        queue = self._queue
        return 0 if queue is None else len(queue.waiting) + (queue.current is not None)

    def hold_queued(self, note: str) -> None:
        """Take the plants not yet sent off the queue: they wait in needs attention."""
        if self._queue is not None:
            self._queue.hold_waiting(note)

    def cancel_send(self) -> int | None:
        """Cancel the send in flight (its fate becomes unknown); how many plants wait behind
        it. None when nothing is in line. Ask about those behind it first (`question_opened`):
        the queue sends nothing more while the question is open."""
        queue = self._queue
        if queue is None or queue.idle:
            return None
        queue.cancel_current()
        return len(queue.waiting)

    # The queue's state ------------------------------------------------------------------------

    def question_opened(self) -> None:
        """A question about the queue is on screen: nothing more leaves until it is answered
        (a send in flight settles)."""
        self._questions += 1
        if self._queue is not None:
            self._queue.set_asking(True)
        self._tell_state()

    def question_closed(self) -> None:
        """A question about the queue was answered."""
        self._questions = max(0, self._questions - 1)
        if self._queue is not None and not self._questions:
            self._queue.set_asking(False)
        self._tell_state()

    @property
    def queue_state(self) -> QueueState:
        """Running, or why nothing leaves now (a question, a refused token, a deployment that
        cannot be reached)."""
        if self._queue is not None:
            return self._queue.state
        if self._refused is not None:
            return TokenRefused(self._refused)
        return Asking() if self._questions else Running()

    def resume(self) -> None:
        """Go on after a refused token (the refused plant first), or try an unreachable
        deployment now."""
        self._refused = None
        self._news.resumed()
        if self._queue is not None:
            self._queue.resume()
        self._update_quiet()

    def _tell_state(self, answer: Outcome | None = None) -> None:
        """Report a change of the queue's state, once (`answer`: a send just ended with it)."""
        in_line = bool(self._early) or self.in_line() > 0
        change = self._news.seen(self.queue_state, self._clock(), in_line=in_line, answer=answer)
        if change is not None and self._on_state is not None:
            self._on_state(change)

    def load(self, chosen: ToLoad, *, form_busy: bool, anywhere: bool = False) -> Loading:
        """The operator chose a plant to load into the form: from needs attention (it leaves
        it), the history, or a file being imported. Not over a plant being typed (`form_busy`);
        a plant meant for another target only once confirmed (`anywhere`)."""
        if form_busy:
            return FormBusy()
        match chosen:
            case FromFile(texts=texts, may_exist=may_exist):
                return Loaded(texts, may_exist)
            case FromHistory(entry=entry):
                elsewhere = None if anywhere else aimed_elsewhere(entry, self.aim)
                return elsewhere or Loaded(entry.typed, plant_id=entry.plant_id)
            case FromAttention(number=number):
                found = self._attending(number)
                if not isinstance(found, NotTaken):
                    elsewhere = None if anywhere else aimed_elsewhere(found, self.aim)
                    if elsewhere is not None:
                        return elsewhere
                    found = self._released(found, "Loaded into the form")
                if isinstance(found, NotTaken):
                    return found
                may_exist = found.state in (PlantState.UNKNOWN, PlantState.SENDING)
                return Loaded(found.typed, may_exist, found.plant_id)

    def dismiss(self, number: int) -> Dismissed | NotTaken:
        """The operator dismissed a plant of needs attention: it leaves it, forgotten."""
        found = self._attending(number)
        if not isinstance(found, NotTaken):
            found = self._released(found, "Dismissed")
        return found if isinstance(found, NotTaken) else Dismissed(found)

    def _attending(self, number: int) -> HistoryEntry | NotTaken:
        try:
            found = self.ledger().get(number)
        except StoreError as exc:
            return NotTaken("Ledger not read", visible(str(exc)))
        if found is None:
            return NotTaken("Not found", f"Plant #{number} is no longer in the ledger.")
        return found

    def _released(self, found: HistoryEntry, done: str) -> HistoryEntry | NotTaken:
        at = self._clock().strftime("%H:%M:%S")
        try:
            released = self.release(found.entry, f"{done} at {at}.")
        except StoreError as exc:
            return NotTaken("Ledger not written", visible(str(exc)))
        if not released:
            return NotTaken(
                "Not loaded", "Another plantstore-tui has already dealt with this plant."
            )
        return found

    def release(self, number: int, note: str) -> bool:
        """The operator dealt with a plant that needed attention (loaded it into the form or
        dismissed it); False if another instance already had. `StoreError` if not written."""
        released = self.ledger().release(number, note)
        self.released(number, note, released=released)
        return released

    def released(self, number: int, note: str, *, released: bool) -> None:
        """The ledger's row of a plant needing attention was dealt with (`released`), or found
        dealt with already: its entry says `note`, and needs attention is counted afresh."""
        self._attention = None
        plant = self._plants.pop(number, None) if released else None
        if plant is not None:
            self._on_change(plant, note)

    # Counting, waiting, quitting --------------------------------------------------------------

    def counts(self) -> Counts:
        """How many of this session's plants are queued, in flight, and need attention."""
        queue = self._queue
        queued = len(self._early) + (0 if queue is None else len(queue.waiting))
        current = None if queue is None else queue.current
        # In flight once its `sending` is on disk: till then it is queued (a kill -9 finds it so).
        sending = int(current is not None and current.state is PlantState.SENDING)
        queued += int(current is not None and not sending)
        attention = self._attention
        if attention is None and self._ledger is not None:
            with contextlib.suppress(StoreError):  # counted as none, and again next time
                attention = self._attention = self._ledger.attention_count()
        return Counts(queued, sending, attention or 0)

    def _counted(self, attention: int | None) -> None:
        # Told by the queue's ledger after each of its writes, on the event loop.
        self._attention = attention

    def _update_quiet(self) -> None:
        queue = self._queue
        # A queue stopped by a refused token or a deployment out of reach, nothing in flight,
        # waits for the operator or the deployment: quiet.
        stopped = (
            queue is not None
            and queue.current is None
            and not isinstance(queue.state, Running | Asking)
        )
        busy = bool(self._early or self._unsynced) or (
            queue is not None and not queue.idle and not stopped
        )
        if self.connecting or busy or not self._store.told:
            self._quiet.clear()
        else:
            self._quiet.set()

    async def wait_until_quiet(self) -> None:
        """Wait until the ledger's news is told, the connection made (or failed), no plant is
        in flight, and none is queued unless the queue is stopped (a refused token, a
        deployment that cannot be reached)."""
        await self._quiet.wait()

    def unsettled(self) -> list[int]:
        """The ledger entries of plants not yet done with: queued, in flight, or needing
        attention."""
        numbers = [plant.number for plant in self._early]
        queue = self._queue
        if queue is not None:
            numbers += [plant.number for plant in queue.waiting]
            if queue.current is not None:
                numbers.append(queue.current.number)
        if self._ledger is not None:
            with contextlib.suppress(StoreError):  # nothing more to count
                numbers += [entry.entry for entry in self._ledger.attention()]
        return numbers

    def drop_unsettled(self) -> None:
        """The operator quits and gives up every plant not yet done with: none is offered again
        (a plant in flight still goes, or is cancelled)."""
        at = self._clock().strftime("%H:%M:%S")
        if self._queue is not None:
            self._queue.hold_waiting(f"Dropped when plantstore-tui was quit at {at}.")
        with contextlib.suppress(StoreError):  # they are offered again, not lost
            self.ledger().release_all(self.unsettled(), f"Dropped at quit, {at}.")
        self._attention = None

    async def close(self) -> None:
        """Close the current target's client and the ledger (ending this instance's session);
        cancel the task running the queue first."""
        if self._queue is not None:
            await self._queue.sender.aclose()
        self._store.close()
