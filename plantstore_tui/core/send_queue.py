"""The send queue: plants handed over one after another, sent in that order, one at a time.

An operator submits a plant and types the next one at once; the plant waits here until the
client has sent the ones before it. A POST is not idempotent, so nothing is sent twice and nothing
is retried: a plant that was not created waits in the `Ledger` until the operator deals with it.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from plantstore_tui.core.form import FormTexts

if TYPE_CHECKING:
    from plantstore_tui.core.models import NewPlant
    from plantstore_tui.core.outcome import Outcome
    from plantstore_tui.core.recovery import UnsettledPlant


class PlantSender(Protocol):
    """The part of `PlantStoreClient` the queue uses (tests substitute canned answers)."""

    url: str

    async def create_plant(self, plant: NewPlant) -> Outcome:
        """Send one plant; never raises except `CancelledError`."""
        ...

    async def aclose(self) -> None:
        """Close the kept-alive connections."""
        ...


class SendJournal(Protocol):
    """Where the queue records each send: before the request goes out, and once it ended."""

    def begin(self, plant: NewPlant, log_ref: str | None = None) -> int | None:
        """Record a send about to go out; its history entry, or None. Never raises."""
        ...

    def settle(self, entry: int | None, outcome: Outcome) -> None:
        """Record how it ended. Never raises."""
        ...

    def close(self) -> None:
        """Let go of the file once the queue is done with it. Never raises."""
        ...


class SendState(StrEnum):
    """Where a submitted plant is on its way to the store."""

    QUEUED = "queued"
    SENDING = "sending"
    CREATED = "created"
    REJECTED = "rejected"
    FAILED = "failed"
    UNKNOWN = "unknown"
    HELD = "held"


# A plant in one of these states did not go through (or may not have): it needs the operator.
ATTENTION_STATES = frozenset(
    {SendState.REJECTED, SendState.FAILED, SendState.UNKNOWN, SendState.HELD}
)


@dataclass(eq=False, slots=True)
class QueuedPlant:
    """One submitted plant, from the moment it is queued until the operator is done with it."""

    number: int
    texts: FormTexts
    plant: NewPlant
    base_url: str
    profile: str | None
    queued_at: datetime
    # False when it was queued before its target was known to be protected or not.
    confirmed: bool = True
    state: SendState = SendState.QUEUED
    outcome: Outcome | None = None
    # Words for a state no outcome explains (held by the operator, a bug in the sender).
    note: str = ""
    started: float | None = field(default=None, repr=False)
    # Its row in the history, once recorded there.
    history_entry: int | None = None

    @property
    def needs_attention(self) -> bool:
        """True when the plant did not go through, or may not have."""
        return self.state in ATTENTION_STATES

    @property
    def fate_unknown(self) -> bool:
        """True when the plant may or may not be in the store (it may exist already)."""
        from plantstore_tui.core.outcome import PlantFate

        if self.outcome is not None:
            return self.outcome.fate is PlantFate.UNKNOWN
        return self.state in (SendState.SENDING, SendState.UNKNOWN)

    @property
    def settled(self) -> bool:
        """True once it is neither waiting nor in flight."""
        return self.state not in (SendState.QUEUED, SendState.SENDING)

    @property
    def reason(self) -> str:
        """Why it needs attention, in words (empty when it does not)."""
        if self.outcome is not None and self.needs_attention:
            return self.outcome.headline
        return self.note

    def elapsed_ms(self) -> float | None:
        """How long its send has taken so far, if it started."""
        return None if self.started is None else (time.perf_counter() - self.started) * 1000


def state_of(outcome: Outcome) -> SendState:
    """The state an outcome leaves a plant in."""
    from plantstore_tui.core.outcome import Created, PlantFate, Rejected

    if isinstance(outcome, Created):
        return SendState.CREATED
    if isinstance(outcome, Rejected):
        return SendState.REJECTED
    return SendState.UNKNOWN if outcome.fate is PlantFate.UNKNOWN else SendState.FAILED


Changed = Callable[[QueuedPlant], None]
# Asked before sending a plant queued unconfirmed; False holds it instead of sending it.
Confirm = Callable[[QueuedPlant], Awaitable[bool]]


class SendQueue:
    """Plants for one target, sent in the order put, one at a time, over one client.

    `run()` is the only task that sends. Every change of a plant's state is reported to
    `on_change` at once, so a front end can show each plant from queued to its outcome.
    """

    def __init__(
        self, sender: PlantSender, on_change: Changed, journal: SendJournal | None = None
    ) -> None:
        self.sender = sender
        self._on_change = on_change
        self._journal = journal
        self._waiting: deque[QueuedPlant] = deque()
        self._wake = asyncio.Event()
        self._current: QueuedPlant | None = None
        self._send_task: asyncio.Task[Outcome] | None = None
        self._closing = False
        self._paused = False

    @property
    def journal(self) -> SendJournal | None:
        """Where this queue records its sends, if anywhere."""
        return self._journal

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

    def put(self, plant: QueuedPlant) -> None:
        """Queue a plant behind the others; refused once the queue is closing."""
        if self._closing:
            raise RuntimeError("The queue is closing: it takes no more plants")
        plant.state = SendState.QUEUED
        self._waiting.append(plant)
        self._on_change(plant)
        self._wake.set()

    def hold_waiting(self, note: str) -> list[QueuedPlant]:
        """Take every plant not yet sent off the queue; they are held, never sent."""
        held = list(self._waiting)
        self._waiting.clear()
        for plant in held:
            plant.state, plant.note = SendState.HELD, note
            self._on_change(plant)
        return held

    @property
    def paused(self) -> bool:
        """True while `pause` holds the next plants back."""
        return self._paused

    def pause(self) -> None:
        """Send nothing more until `resume` (a send in flight goes on)."""
        self._paused = True

    def resume(self) -> None:
        """Go on sending the plants that wait."""
        self._paused = False
        self._wake.set()

    def cancel_current(self) -> QueuedPlant | None:
        """Cancel the send in flight (its fate becomes unknown); the queue goes on unless paused."""
        if self._send_task is None or self._send_task.done():
            return None
        self._send_task.cancel()
        return self._current

    def close_when_empty(self) -> None:
        """Let `run()` return once the plants already queued are sent."""
        self._closing = True
        self._wake.set()

    async def run(self, confirm: Confirm | None = None) -> None:
        """Send queued plants until cancelled (or, after `close_when_empty`, until empty)."""
        while True:
            if not self._waiting or (self._paused and not self._closing):
                if self._closing and not self._waiting:
                    return
                self._wake.clear()
                await self._wake.wait()
                continue
            plant = self._waiting.popleft()
            if not plant.confirmed and confirm is not None and not await confirm(plant):
                plant.state, plant.note = SendState.HELD, "Not sent: the send was not confirmed."
                self._on_change(plant)
                continue
            await self._send(plant)

    async def _send(self, plant: QueuedPlant) -> None:
        from plantstore_tui.core.outcome import cancelled

        self._current = plant
        journal = self._journal
        if journal is not None:
            # In a thread: a history file another program holds locked must not hold the screen.
            plant.history_entry = await asyncio.to_thread(
                journal.begin, plant.plant, f"log #{plant.number}"
            )
        plant.state, plant.started = SendState.SENDING, time.perf_counter()
        self._on_change(plant)
        self._send_task = asyncio.ensure_future(self.sender.create_plant(plant.plant))
        try:
            outcome = await self._send_task
        except asyncio.CancelledError:
            outcome = cancelled(self.sender.url, plant.plant, plant.elapsed_ms())
            if journal is not None:
                # Not in a thread: the task may be ending, and this is the last word on the send.
                journal.settle(plant.history_entry, outcome)
            self._settle(plant, outcome)
            # Only the one send was cancelled: the queue goes on. A cancel of run() itself
            # (the app is closing) ends the loop here, with this plant's fate said.
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
            return
        except Exception as exc:  # a bug in the sender: say so, and go on with the next plant
            plant.note = f"The send stopped on an unexpected error: {type(exc).__name__}: {exc}"
            plant.state = SendState.UNKNOWN
            self._current = self._send_task = None
            self._on_change(plant)
            return
        if journal is None:
            self._settle(plant, outcome)
            return
        try:
            # Recorded before it is shown, so a history opened at the sight of it already has it.
            await asyncio.to_thread(journal.settle, plant.history_entry, outcome)
        finally:
            self._settle(plant, outcome)

    def _settle(self, plant: QueuedPlant, outcome: Outcome) -> None:
        plant.outcome, plant.state = outcome, state_of(outcome)
        self._current = self._send_task = None
        self._on_change(plant)


class Ledger:
    """Every plant submitted this session that is not yet done with, in submission order."""

    def __init__(self) -> None:
        self._plants: dict[int, QueuedPlant] = {}
        self._numbers = iter(range(1, 2**63))

    def next_number(self) -> int:
        """A new number naming a plant in this session's log (1, 2, 3...)."""
        return next(self._numbers)

    def track(self, plant: QueuedPlant) -> None:
        """Follow a plant's state from now on (call again on every change)."""
        if plant.state is SendState.CREATED:
            self._plants.pop(plant.number, None)
        else:
            self._plants[plant.number] = plant

    def __iter__(self) -> Iterator[QueuedPlant]:
        return iter(tuple(self._plants.values()))

    def __len__(self) -> int:
        return len(self._plants)

    def get(self, number: int) -> QueuedPlant | None:
        """The unsettled plant with this number, if it is still here."""
        return self._plants.get(number)

    def release(self, number: int) -> QueuedPlant | None:
        """Stop following a plant: dismissed, or loaded back into the form."""
        return self._plants.pop(number, None)

    def attention(self) -> list[QueuedPlant]:
        """The plants that did not go through, oldest first."""
        return [plant for plant in self._plants.values() if plant.needs_attention]

    def counts(self) -> tuple[int, int, int]:
        """How many are queued, in flight, and need attention."""
        queued = sending = attention = 0
        for plant in self._plants.values():
            if plant.state is SendState.QUEUED:
                queued += 1
            elif plant.state is SendState.SENDING:
                sending += 1
            else:
                attention += 1
        return queued, sending, attention


def to_unsettled(plant: QueuedPlant) -> UnsettledPlant:
    """What a recovery file keeps of a plant: its texts as typed, where it stood, and why."""
    from plantstore_tui.core.recovery import PendingState, UnsettledPlant

    return UnsettledPlant(
        name=plant.texts.name,
        id=plant.texts.id,
        tag=plant.texts.tag,
        state=PendingState(plant.state.value),
        reason=plant.reason,
        base_url=plant.base_url,
        profile=plant.profile,
        queued_at=plant.queued_at,
    )


def recovered(unsettled: UnsettledPlant, number: int) -> QueuedPlant | str:
    """A plant from a recovery file, waiting for attention (never queued again by itself); or
    why its texts no longer make a plant."""
    from plantstore_tui.core.form import FormErrors
    from plantstore_tui.core.models import parse_new_plant
    from plantstore_tui.core.recovery import PendingState

    texts = FormTexts(name=unsettled.name, id=unsettled.id, tag=unsettled.tag)
    parsed = parse_new_plant(name=texts.name, id=texts.id, tag=texts.tag)
    if isinstance(parsed, FormErrors):
        return "; ".join(parsed.errors.values())
    match unsettled.state:
        case PendingState.QUEUED:
            state, note = SendState.HELD, "Not sent: it was queued when plantstore-tui ended."
        case PendingState.SENDING:
            state = SendState.UNKNOWN
            note = "It was being sent when plantstore-tui ended: it may exist already."
        case _:
            state, note = SendState(unsettled.state.value), unsettled.reason
    return QueuedPlant(
        number=number,
        texts=texts,
        plant=parsed,
        base_url=unsettled.base_url,
        profile=unsettled.profile,
        queued_at=unsettled.queued_at.astimezone(),
        state=state,
        note=note,
    )
