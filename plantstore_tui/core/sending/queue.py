"""The send queue: plants taken one after another, sent in that order, one at a time.

An operator submits a plant and types the next one at once; the plant is in the ledger as
queued before the form clears, and waits here until the client has sent the ones before it.
The queue writes `sending` to the ledger before each request goes out and settles the row
after. A POST is not idempotent: a plant that may have reached the deployment is never sent
again by itself, it waits in needs attention (a view of the ledger) until the operator deals
with it. A plant that certainly never left (the deployment could not be reached, or said with a
429 or 503 that it did not take it) goes back to the head of the line, and the queue tries again
by itself with backoff. A refused token (401, 403) stops the queue, the refused plant at its
head, until the operator resumes; so does an open question about the queue, until its answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

from plantstore_tui.core.http.conformance import token_refused
from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.plant.outcome import Rejected, cancelled, not_processed
from plantstore_tui.core.sending.events import PlantView
from plantstore_tui.core.sending.state import (
    Asking,
    QueueState,
    Running,
    TokenRefused,
)
from plantstore_tui.core.sending.waiting import DeploymentWait
from plantstore_tui.core.store.records import PlantState, state_of

if TYPE_CHECKING:
    from plantstore_tui.core.plant.models import NewPlant
    from plantstore_tui.core.plant.outcome import Outcome


class PlantSender(Protocol):
    """The part of `PlantStoreClient` a front end sends through (tests substitute canned
    answers)."""

    url: str

    async def create_plant(self, plant: NewPlant) -> Outcome:
        """Send one plant; never raises except `CancelledError`."""
        ...

    async def aclose(self) -> None:
        """Close the kept-alive connections."""
        ...


class QueueLedger(Protocol):
    """What the queue writes to the ledger around each send (each call commits)."""

    def sending(self, entry: int) -> None:
        """Its request is about to go out."""
        ...

    def settle(self, entry: int, outcome: Outcome) -> object:
        """How its send ended."""
        ...

    def hold(self, entries: list[int], note: str) -> None:
        """Put plants that did not go out aside."""
        ...

    def requeue(self, entry: int) -> None:
        """A plant recorded as sending that certainly never left waits in line again."""
        ...


@dataclass(eq=False, slots=True)
class QueuedPlant:
    """One plant an entry session took, as it stands; `number` is its entry in the ledger."""

    number: int
    texts: FormTexts
    plant: NewPlant
    base_url: str
    profile: str | None
    queued_at: datetime
    # When its last send was answered (or ended without an answer), local time.
    answered_at: datetime | None = None
    # False when it was queued before its target was known to be protected or not.
    confirmed: bool = True
    state: PlantState = PlantState.QUEUED
    held: bool = False
    outcome: Outcome | None = None
    # Words for a state no outcome explains (held by the operator, a bug in the sender).
    note: str = ""
    started: float | None = field(default=None, repr=False)

    def view(self) -> PlantView:
        """A copy of it as it stands now, for a front end to keep."""
        return PlantView(
            number=self.number,
            texts=self.texts,
            plant=self.plant,
            base_url=self.base_url,
            profile=self.profile,
            queued_at=self.queued_at,
            answered_at=self.answered_at,
            state=self.state,
            held=self.held,
            outcome=self.outcome,
            note=self.note,
            confirmed=self.confirmed,
        )

    def elapsed_ms(self) -> float | None:
        """How long its send has taken so far, if it started."""
        return None if self.started is None else (time.perf_counter() - self.started) * 1000


Changed = Callable[[QueuedPlant], None]
# Asked before sending a plant queued unconfirmed; False holds it instead of sending it.
Confirm = Callable[[QueuedPlant], Awaitable[bool]]
NOT_CONFIRMED = "Not sent: the send was not confirmed."
LEFT_BEHIND = "Not sent: the target was switched while it could not take plants."


class SendQueue:
    """Plants for one target, sent in the order put, one at a time, over one client.

    `run()` is the only task that sends. Every change of a plant's state is written to the
    ledger first, then reported to `on_change`, so a front end shows only what is on disk.
    """

    def __init__(
        self,
        sender: PlantSender,
        on_change: Changed,
        ledger: QueueLedger,
        *,
        clock: Callable[[], datetime] = datetime.now,
    ) -> None:
        self.sender = sender
        self._on_change = on_change
        self._clock = clock
        self._ledger = ledger
        # While the deployment does not take plants: when the next try is.
        self._unreachable = DeploymentWait(clock=clock)
        self._waiting: deque[QueuedPlant] = deque()
        self._wake = asyncio.Event()
        self._current: QueuedPlant | None = None
        self._send_task: asyncio.Task[Outcome] | None = None
        self._closing = False
        self._asking = False
        self._refused: int | None = None

    @property
    def current(self) -> QueuedPlant | None:
        """The plant being sent now, if any."""
        return self._current

    @property
    def waiting(self) -> tuple[QueuedPlant, ...]:
        """The plants not yet sent, in the order they will go."""
        return tuple(self._waiting)

    @property
    def idle(self) -> bool:
        """True when nothing is waiting or in flight."""
        return self._current is None and not self._waiting

    @property
    def state(self) -> QueueState:
        """Running, or why nothing leaves now."""
        if self._refused is not None:
            return TokenRefused(self._refused)
        if self._asking:
            return Asking()
        if self._unreachable.waiting is not None:
            return self._unreachable.waiting
        return Running()

    @property
    def _held_back(self) -> bool:
        # Nothing leaves until the operator answers or resumes.
        return self._asking or self._refused is not None

    def put(self, plant: QueuedPlant) -> None:
        """Queue a plant (already in the ledger as queued) behind the others; refused once the
        queue is closing."""
        if self._closing:
            raise RuntimeError("The queue is closing: it takes no more plants")
        plant.state, plant.held = PlantState.QUEUED, False
        self._waiting.append(plant)
        self._on_change(plant)
        self._wake.set()

    def take_waiting(self) -> list[QueuedPlant]:
        """Take every plant not yet sent off this queue, in order, to go on another."""
        taken = list(self._waiting)
        self._waiting.clear()
        return taken

    def hold_waiting(self, note: str) -> None:
        """Take every plant not yet sent off the queue; they are held, never sent. Nothing is
        left to try an unreachable deployment with: the next plant put goes at once."""
        held = list(self._waiting)
        self._waiting.clear()
        if self._current is None:
            self._unreachable.end()
        self._hold(held, note)

    def _hold(self, plants: list[QueuedPlant], note: str) -> None:
        if not plants:
            return
        # Even if the ledger cannot be written, these are not sent: the screen says why.
        try:
            self._ledger.hold([plant.number for plant in plants], note)
        except Exception as exc:  # a StoreError: the words say which file and why
            note = f"{note} (not recorded in the ledger: {exc})"
        for plant in plants:
            plant.held, plant.note = True, note
            self._on_change(plant)

    def set_asking(self, asking: bool) -> None:
        """While a question about the queue is open nothing more leaves (a send in flight goes
        on and settles)."""
        self._asking = asking
        self._wake.set()

    def refuse(self, status: int) -> None:
        """Hold the plants as after a refused token, until `resume`."""
        self._refused = status

    def resume(self) -> None:
        """After a refused token, send the refused plant again and then the rest; while the
        deployment cannot be reached, try it now."""
        self._refused = None
        self.try_now()

    def try_now(self) -> None:
        """While the deployment cannot be reached, try it now instead of at the next try."""
        self._unreachable.try_now()
        self._wake.set()

    def cancel_current(self) -> None:
        """Cancel the send in flight (its fate becomes unknown); the queue goes on unless paused."""
        if self._send_task is not None and not self._send_task.done():
            self._send_task.cancel()

    def close_when_empty(self) -> None:
        """Let `run()` return once the plants already queued are sent."""
        self._closing = True
        self._wake.set()

    async def run(self, confirm: Confirm | None = None) -> None:
        """Send queued plants until cancelled (or, after `close_when_empty`, until empty)."""
        while True:
            unreachable = self._unreachable.waiting
            stuck = self._refused is not None or unreachable is not None
            if self._closing and not self._asking and (stuck or not self._waiting):
                # Left behind by a switch of target: what cannot go now never will from here.
                self.hold_waiting(LEFT_BEHIND)
                return
            if not self._waiting or self._held_back:
                self._wake.clear()
                await self._wake.wait()
                continue
            if unreachable is not None:
                delay = unreachable.next_try - time.monotonic()
                if delay > 0:
                    self._wake.clear()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._wake.wait(), delay)
                    continue
            plant = self._waiting.popleft()
            if not plant.confirmed and confirm is not None:
                if not await confirm(plant):
                    self._hold([plant], NOT_CONFIRMED)
                    continue
                # Asked once: a plant back in line (no deployment, a refused token) is not
                # asked about again.
                plant.confirmed = True
            await self._send(plant)

    async def _send(self, plant: QueuedPlant) -> None:
        self._current = plant
        try:
            # In a thread: a ledger another program holds locked must not hold the screen.
            await asyncio.to_thread(self._ledger.sending, plant.number)
        except asyncio.CancelledError:
            self._current = None
            raise
        except Exception as exc:  # a StoreError: unrecorded, the plant must not go out
            self._current = None
            self._hold([plant], f"Not sent: the ledger could not record the send ({exc}).")
            return
        plant.state, plant.started = PlantState.SENDING, time.perf_counter()
        plant.note, plant.outcome, plant.answered_at = "", None, None
        self._on_change(plant)
        self._send_task = asyncio.ensure_future(self.sender.create_plant(plant.plant))
        try:
            outcome = await self._send_task
        except asyncio.CancelledError:
            outcome = cancelled(self.sender.url, plant.plant, plant.elapsed_ms())
            # Not in a thread: the task may be ending, and this is the last word on the send.
            self._record(plant, outcome)
            self._settle(plant, outcome)
            # Only the one send was cancelled: the queue goes on. A cancel of run() itself
            # (the app is closing) ends the loop here, with this plant's fate said.
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
            return
        except Exception as exc:  # a bug in the sender: say so, and go on with the next plant
            plant.note = f"The send stopped on an unexpected error: {type(exc).__name__}: {exc}"
            plant.state = PlantState.UNKNOWN
            self._current = self._send_task = None
            self._on_change(plant)
            return
        if await self._stopped_by(plant, outcome):
            return
        self._unreachable.answered()
        try:
            # Recorded before it is shown, so a history opened at the sight of it already has it.
            await asyncio.to_thread(self._record, plant, outcome)
        finally:
            self._settle(plant, outcome)

    async def _stopped_by(self, plant: QueuedPlant, outcome: Outcome) -> bool:
        """Whether the outcome stops the queue, the plant back at its head: a refused token, or
        a deployment that did not take it (it certainly never left) and may later."""
        # The token, not the plant, is at fault: every plant behind would get the same answer.
        refused = isinstance(outcome, Rejected) and token_refused(outcome.status)
        if not (refused or not_processed(outcome)):
            return False
        try:
            await asyncio.to_thread(self._ledger.requeue, plant.number)
        except Exception:  # a StoreError: settled as usual, it waits in needs attention
            return False
        if refused:
            self._refused = outcome.status
            plant.note = "Waiting in line, first, until the token is fixed and the queue resumed."
        else:
            self._unreachable.not_taken(outcome, tried=True)
            plant.note = (
                "Waiting in line: it goes again by itself as soon as the deployment answers."
            )
        plant.outcome, plant.answered_at = outcome, self._clock()
        plant.state, plant.started = PlantState.QUEUED, None
        self._waiting.appendleft(plant)
        self._current = self._send_task = None
        self._on_change(plant)
        return True

    def _record(self, plant: QueuedPlant, outcome: Outcome) -> None:
        """Write the outcome; if it cannot be, the plant's note says why."""
        try:
            self._ledger.settle(plant.number, outcome)
        except Exception as exc:  # a StoreError: the outcome is still shown, with why
            plant.note = f"Its outcome could not be recorded in the ledger: {exc}"

    def _settle(self, plant: QueuedPlant, outcome: Outcome) -> None:
        plant.outcome, plant.state = outcome, state_of(outcome)
        plant.answered_at = self._clock()
        self._current = self._send_task = None
        self._on_change(plant)
