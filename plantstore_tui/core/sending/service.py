"""The send service: one owner of a plant's journey, from the key that takes it to its fate.

A front end hands it the form's texts and the operator's answers, and renders what it reports:
typed events (`events.py`), told through one callback, on the event loop, in order. The service
chooses and connects the target (resolving it in a thread: a token file, a keyring, a TLS
context), carries the plants in line over to the same profile connected again, runs the queue's
task, resumes, cancels and closes. The entry session (`session.py`) keeps the plants and decides
what becomes of each; the ledger's reads that may wait run in threads, which return values and
touch nothing of the service.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from plantstore_tui.core.plant.text import visible
from plantstore_tui.core.sending.connection import Connect as Connect
from plantstore_tui.core.sending.connection import connect_to_profile
from plantstore_tui.core.sending.counted import Counts as Counts
from plantstore_tui.core.sending.events import (
    CannotConnect,
    Connected,
    LedgerOpened,
    NextFree,
    NextId,
    Note,
    PlantMoved,
    PlantView,
    Problem,
    QueueMoved,
    SentBefore,
    Tell,
)
from plantstore_tui.core.sending.session import Clock as Clock
from plantstore_tui.core.sending.session import EntrySession
from plantstore_tui.core.sending.state import QueueState, TokenRefused
from plantstore_tui.core.sending.submitted import NotTaken, SentAgain, Taken
from plantstore_tui.core.sending.verify import Verification
from plantstore_tui.core.store.database import StoreError
from plantstore_tui.core.store.settings import history_settings

if TYPE_CHECKING:
    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.plant.form import FormTexts
    from plantstore_tui.core.sending.connection import Connection
    from plantstore_tui.core.sending.queue import QueuedPlant, SendQueue
    from plantstore_tui.core.sending.submitted import Dismissed, Loading, Submitted, ToLoad
    from plantstore_tui.core.store import HistoryEntry

# How often the id offered is looked at in the ledger, in case another process took it (a look
# reads one number unless another process wrote the ledger since the last).
OFFER_LOOK_SECONDS = 1.0

# Asked, through the front end's one path for questions, before a plant queued before the
# target was known to be protected is sent; False holds it.
ConfirmQueued = Callable[["Target", PlantView], Awaitable[bool]]


class Status(NamedTuple):
    """Where the journey stands, for a status line and for the questions asked about it."""

    state: QueueState
    counts: Counts
    # The chosen target cannot be used (a configuration problem).
    problem: bool
    # The target plants go to, once connected.
    target: Target | None
    # The base URL and profile plants taken now go to (None: no target chosen yet).
    aim: tuple[str, str | None] | None
    # Plants the queue still has to send, the one in flight included.
    in_line: int
    # Verified entry: None when off; else 1 or 2, the keying the form holds.
    keying: int | None
    # The ledger's file could not be used: plants live as long as this run.
    in_memory: bool
    # A send to the target must be confirmed first (a protected target, not trusted this run).
    asks: bool


class SendService:
    """Plants taken, connected, sent and dealt with for one front end; see the module."""

    def __init__(
        self,
        tell: Tell,
        clock: Clock,
        confirm: ConfirmQueued,
        *,
        connect: Connect | None,
        base_url: str,
        profile: str | None = None,
        verify: bool = False,
    ) -> None:
        """`connect` None: no target yet (a first run); nothing is sent until `switch`.
        `verify`: every plant typed is keyed twice (`verify.py`) on any target this run, as on
        a profile that says `verify = true`."""
        self._tell = tell
        self._clock = clock
        self._confirm = confirm
        self._connect = connect
        self._tasks: set[asyncio.Task[None]] = set()
        self._verify_run = verify
        self._verify = verify
        self._verification = Verification()
        self._checking: asyncio.Task[None] | None = None
        # The id the form was last offered on the target, and who watches that nobody takes it.
        self._offered: int | None = None
        self._watching: asyncio.Task[None] | None = None
        # Held rows of plants sent again, being dealt with in the ledger (off the event loop).
        self._releasing: set[asyncio.Task[None]] = set()
        self._closed = False
        self._session = EntrySession(
            lambda plant, after: tell(PlantMoved(plant.view(), after)),
            clock,
            base_url=base_url,
            profile=profile,
            chosen=connect is not None,
            on_state=lambda change: tell(QueueMoved(change)),
            on_problem=lambda words: tell(Problem("Ledger not synced", words)),
        )

    # The journey ------------------------------------------------------------------------------

    def start(self) -> None:
        """Open the ledger and connect to the chosen target, in the background (with no target
        chosen yet, nothing: `switch` starts it)."""
        if self._connect is not None:
            self._spawn(self._connect_with(self._connect))

    def switch(
        self, connect: Connect, base_url: str, profile: str | None, *, asked: bool = False
    ) -> bool:
        """Send to another target from now on; False, and nothing changed, while plants are in
        line for the old one, unless `asked`: the operator was asked where they go (to the old
        target first, or held: `hold_queued`). The profile in use chosen again is connected
        again at once (its token read anew), the plants in line carried over in order."""
        target = self._session.target
        carry = target is not None and profile is not None and target.profile == profile
        if not (carry or asked) and self._session.in_line():
            return False
        self._choose(connect, base_url, profile, carry=carry)
        return True

    def switch_profile(self, name: str, base_url: str, *, asked: bool = False) -> bool:
        """`switch` to the saved profile `name` (its token read off the event loop as it
        connects); `base_url`: what plants taken meanwhile are aimed at until it is known."""
        return self.switch(lambda: connect_to_profile(name), base_url, name, asked=asked)

    def submit(
        self,
        texts: FormTexts,
        *,
        confirmed: bool = False,
        typed: bool = False,
        verified: int | None = None,
    ) -> Submitted:
        """Take the plant the texts make, or say why not (`EntrySession.submit`). With verified
        entry on, a plant typed is a keying: kept until keyed again (`KeyAgain`), then taken if
        both agree, else `Differs`; the plant the operator settled comes back with `verified`,
        the number of fields corrected."""
        keying = self._verify and typed and not confirmed and verified is None
        submitted = self._session.submit(
            texts,
            confirmed=confirmed,
            typed=typed,
            verification=self._verification if keying else None,
            verified=verified,
        )
        if isinstance(submitted, Taken):
            self._offer(submitted.next_id)
        return submitted

    def set_verify(self, on: bool) -> None:
        """Turn verified entry on or off for the target of the moment. A first keying waiting
        is dropped, here and in the ledger: the plant starts afresh (also how nothing is taken
        of a plant whose keyings differed, left with Esc: `set_verify(True)` again)."""
        self._verify = on
        self._verification.forget()
        self._session.drop_keying()

    def resume(self) -> None:
        """After a refused token: the profile's token read again (it may have been fixed), the
        refused plant sent again, then the rest. While the deployment cannot be reached: try
        it now."""
        session = self._session
        target = session.target
        if isinstance(session.queue_state, TokenRefused) and target is not None:
            name = target.profile
            if name is not None:
                self._choose(lambda: connect_to_profile(name), target.base_url, name, carry=True)
        session.resume()

    def cancel_send(self) -> int | None:
        """Cancel the send in flight; how many plants wait behind it (None: none in line)."""
        return self._session.cancel_send()

    def hold_queued(self, note: str) -> None:
        """Take the plants not yet sent off the queue: they wait in needs attention."""
        self._session.hold_queued(note)

    def asking(self, open_: bool) -> None:
        """A question about the queue opened (nothing more leaves until it is answered), or
        was answered."""
        if open_:
            self._session.question_opened()
        else:
            self._session.question_closed()

    def trust_target(self) -> None:
        """The operator said yes for the whole session to sends to the protected target."""
        target = self._session.target
        if target is not None:
            self._session.protection.trust(target)

    def check_id(self, id_text: str) -> None:
        """Look the id up in the ledger (in a thread); told `SentBefore` if it was created on
        the target already, or is outside the target's range of ids or among its last."""
        if self._session.knows_history:
            if self._checking is not None:
                self._checking.cancel()  # the id typed since is the one to look up
            self._checking = self._spawn(self._check_id(id_text))

    def status(self) -> Status:
        """Where the journey stands now."""
        session = self._session
        return Status(
            state=session.queue_state,
            counts=session.counts(),
            problem=session.problem is not None,
            target=session.target,
            aim=session.aim,
            in_line=session.in_line(),
            in_memory=session.ledger_in_memory,
            asks=session.target is not None and session.protection.needs_asking(session.target),
            keying=(1 if self._verification.first is None else 2) if self._verify else None,
        )

    def load(self, chosen: ToLoad, *, form_busy: bool, anywhere: bool = False) -> Loading:
        """The operator chose a plant to load into the form (`EntrySession.load`): the form
        loads what is `Loaded`, and nothing else."""
        return self._session.load(chosen, form_busy=form_busy, anywhere=anywhere)

    def dismiss(self, number: int) -> Dismissed | NotTaken:
        """The operator dismissed a plant of needs attention (`EntrySession.dismiss`)."""
        return self._session.dismiss(number)

    def open_plants(self) -> tuple[PlantView, ...]:
        """This session's plants whose entry may still change (queued, in flight, needing
        attention and not dealt with), as they stand now: what a log cleared shows again."""
        return self._session.open_plants()

    async def attention(self) -> list[HistoryEntry]:
        """The plants that need attention, oldest first (read in a thread; `StoreError` if the
        ledger cannot be read)."""
        ledger = await asyncio.to_thread(self._session.ledger)
        return await asyncio.to_thread(ledger.attention)

    def send_again(self, held: Sequence[HistoryEntry]) -> SentAgain:
        """Send held plants again, in order, each as a new send of what was typed (a plant
        loaded and sent), once the operator said yes to them all: the answer confirms them for
        a protected target once it is known; before, each is asked about at its turn. A plant
        another plantstore-tui dealt with since the list was read is skipped; the first one not
        taken stops the rest, which stay held. The held rows of the plants taken are dealt with
        in the background (a problem is told)."""
        session = self._session
        confirmed = session.target is not None
        # (held row, the row of its new send)
        sent: list[tuple[int, int]] = []
        skipped = 0
        stopped: Submitted | None = None
        stopped_texts: FormTexts | None = None
        for plant in held:
            try:
                # A read: the ledger's readers never wait for a writer.
                found = session.ledger().get(plant.entry)
            except StoreError as exc:
                stopped = NotTaken("Ledger not read", visible(str(exc)))
                stopped_texts = plant.typed
                break
            if found is None or not (found.never_sent and found.needs_attention):
                skipped += 1
                continue
            outcome = self.submit(found.typed, confirmed=confirmed)
            if not isinstance(outcome, Taken):
                stopped, stopped_texts = outcome, found.typed
                break
            sent.append((found.entry, outcome.plant.number))
        if sent:
            note = f"Sent again from needs attention at {self._clock():%H:%M:%S}."
            task = self._spawn(self._release(sent, note))
            if task is not None:
                self._releasing.add(task)
                task.add_done_callback(self._releasing.discard)
        return SentAgain(len(sent), skipped, stopped, stopped_texts)

    def drop_unsettled(self) -> None:
        """The operator quits and gives up every plant not yet done with: none is offered again
        (a plant in flight still goes, or is cancelled)."""
        self._session.drop_unsettled()

    async def wait_until_quiet(self) -> None:
        """Wait until connected (or failed), with nothing in flight or in line unless stopped,
        and the plants sent again dealt with in needs attention."""
        while self._releasing:
            await asyncio.gather(*self._releasing, return_exceptions=True)
        await self._session.wait_until_quiet()

    async def close(self) -> None:
        """Deal with the rows of plants sent again, let the send in flight say its fate, close
        the connections, end the session."""
        self._closed = True
        # Not cancelled: a held row left would be offered next time beside its new send.
        await asyncio.gather(*self._releasing, return_exceptions=True)
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._session.close()

    # Inside -----------------------------------------------------------------------------------

    def _spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None] | None:
        if self._closed:
            work.close()
            return None
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _choose(self, connect: Connect, base_url: str, profile: str | None, *, carry: bool) -> None:
        self._connect = connect
        self._offered = None
        self._session.choose(base_url, profile, carry=carry)
        self._spawn(self._connect_with(connect))

    async def _connect_with(self, connect: Connect) -> None:
        # The ledger first (opened once; its news told once), then the target. A target
        # switched away from meanwhile is dropped, its client closed.
        session = self._session
        await asyncio.to_thread(session.ledger)
        news = session.ledger_news()
        if news is not None:
            # Before any target is connected: the next id comes with the connection.
            self._tell(LedgerOpened(news))
        try:
            connection: Connection = await asyncio.to_thread(connect)
        except Exception as exc:  # `Connect` raises with words for the operator
            if connect is self._connect:
                problem = visible(str(exc))
                self._tell(Note(f"Configuration problem: {problem}", self._clock()))
                session.cannot_connect(problem)
                self._tell(CannotConnect(problem))
            return
        target = connection.target
        settings = await asyncio.to_thread(history_settings, target.profile)
        next_id = await asyncio.to_thread(session.next_id, target)
        if connect is not self._connect or self._closed:
            await connection.client.aclose()
            return
        queue = session.connected(target, connection.client, settings)
        self.set_verify(self._verify_run or target.verify)
        self._spawn(self._run(queue))
        self._tell(Connected(target))
        if target.token_note is not None:
            self._tell(Note(target.token_note, self._clock()))
        # Told even with nothing to offer: a front end waiting for the offer goes on.
        self._tell(NextId(next_id))
        self._offer(next_id)
        if self._watching is not None:
            self._watching.cancel()
        self._watching = self._spawn(self._watch_offer(target))

    def _offer(self, next_id: NextFree) -> None:
        self._offered = next_id if isinstance(next_id, int) else None

    async def _watch_offer(self, target: Target) -> None:
        """Tell `OfferTaken` when another process takes the id offered (`add --id`, an import,
        another operator typing it): the form moves on, and says so."""
        seen: int | None = None
        while True:
            await asyncio.sleep(OFFER_LOOK_SECONDS)
            offered = self._offered
            if offered is None:
                continue
            seen, taken = await asyncio.to_thread(self._session.offer_check, target, offered, seen)
            if taken is not None and self._offered == offered:
                self._offer(taken.value)
                self._tell(taken)

    async def _run(self, queue: SendQueue) -> None:
        try:
            await self._session.run(queue, self._confirm_queued)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug: a server's faults are outcomes
            words = f"Sending stopped on an unexpected error: {type(exc).__name__}: {exc}"
            self._tell(Note(words, self._clock()))

    async def _confirm_queued(self, plant: QueuedPlant) -> bool:
        # Only for plants queued before the connection told whether the target is protected.
        target = self._session.target
        if target is None or not self._session.protection.needs_asking(target):
            return True
        return await self._confirm(target, plant.view())

    async def _release(self, sent: list[tuple[int, int]], note: str) -> None:
        ledger = self._session.ledger()
        for number, again in sent:
            try:
                released = await asyncio.to_thread(ledger.release, number, note, again=again)
            except StoreError as exc:
                self._tell(
                    Problem(
                        "Ledger not written",
                        f"Plant #{number} was sent again but is still listed in needs attention: "
                        f"the ledger could not be written: {visible(str(exc))}.",
                    )
                )
                continue
            self._session.released(number, note, released=released)

    async def _check_id(self, id_text: str) -> None:
        # The target as it is now, read here: the thread touches nothing of the service.
        target = self._session.target
        with contextlib.suppress(StoreError):  # a convenience: nothing to say if unread
            words = await asyncio.to_thread(self._session.id_warning, id_text, target)
            if words is not None:
                self._tell(SentBefore(id_text, words))
