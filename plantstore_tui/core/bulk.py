"""Sending a validated file of plants: at most N requests in flight, journaled, never twice.

Each row is journaled as sending before its request goes out and settled after (see
`import_journal`). Nothing is retried, except a 429 or 503 answer with a Retry-After the server
gave (it says it did not process the request), after that wait, a bounded number of times. After
K transport failures in a row the deployment is taken to be down and the import stops, instead of
burning through the file. `stop` (Ctrl+C) stops taking rows at once; what is in flight settles
or, cancelled by the caller, is journaled as unknown.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from plantstore_tui.core.form import FormErrors
from plantstore_tui.core.import_journal import Batch, ImportJournal, RowState
from plantstore_tui.core.importing.files import SourceRow
from plantstore_tui.core.send_queue import PlantSender

if TYPE_CHECKING:
    from plantstore_tui.core.journal import TargetJournal
    from plantstore_tui.core.models import NewPlant
    from plantstore_tui.core.outcome import Outcome

_TRANSPORT_KINDS = frozenset({"cannot_connect", "tls", "timeout", "connection_dropped"})
_RETRY_STATUSES = frozenset({429, 503})


@dataclass(frozen=True, slots=True)
class ImportSettings:
    """How politely to send."""

    concurrency: int = 8
    rate: float | None = None
    """Requests started per second at most; None for as fast as the deployment answers."""
    stop_after_failures: int = 5
    """Transport failures in a row that stop the import (the deployment is down)."""
    max_retry_wait: float = 60.0
    """The longest Retry-After honoured, in seconds."""
    max_retries: int = 5


class StopReason(StrEnum):
    """Why sending ended."""

    DONE = "done"
    TRANSPORT = "transport failures"
    STOPPED = "stopped"


@dataclass(frozen=True, slots=True)
class RowResult:
    """What became of one row."""

    line: int
    plant_id: int
    state: RowState
    status: int | None
    error: int | None
    message: str
    retries: int = 0

    def to_json(self) -> dict[str, Any]:
        """One line of `--report`."""
        return {
            "line": self.line,
            "id": self.plant_id,
            "outcome": self.state.value,
            "status": self.status,
            "error": self.error,
            "message": self.message,
        }


@dataclass(slots=True)
class ImportProgress:
    """Counts as the rows settle, for a progress bar and the summary."""

    to_send: int
    created: int = 0
    rejected: int = 0
    failed: int = 0
    unknown: int = 0
    retries: int = 0
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None

    @property
    def settled(self) -> int:
        """Rows with an answer (or a failure) so far."""
        return self.created + self.rejected + self.failed + self.unknown

    @property
    def seconds(self) -> float:
        """Time since sending started (until it ended)."""
        return (self.ended or time.monotonic()) - self.started

    @property
    def rate(self) -> float:
        """Rows settled per second."""
        return self.settled / self.seconds if self.seconds > 0 else 0.0

    def count(self, result: RowResult) -> None:
        """Count one settled row."""
        match result.state:
            case RowState.CREATED:
                self.created += 1
            case RowState.REJECTED:
                self.rejected += 1
            case RowState.FAILED:
                self.failed += 1
            case _:
                self.unknown += 1
        self.retries += result.retries


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds a Retry-After header asks to wait (a number or an HTTP date); None if unusable."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


class _Pacer:
    """At most `rate` starts a second, spread evenly."""

    def __init__(self, rate: float | None) -> None:
        self._interval = 0.0 if not rate else 1.0 / rate
        self._next = time.monotonic()

    async def wait(self) -> None:
        if not self._interval:
            return
        now = time.monotonic()
        start = max(now, self._next)
        self._next = start + self._interval
        if start > now:
            await asyncio.sleep(start - now)


def result_of(line: int, outcome: Outcome, retries: int) -> RowResult:
    """The journal's view of an outcome."""
    from plantstore_tui.core.outcome import Created, PlantFate, Rejected

    plant_id = outcome.sent.id
    if isinstance(outcome, Created):
        return RowResult(line, plant_id, RowState.CREATED, outcome.status, None, "", retries)
    if isinstance(outcome, Rejected):
        waited_out = outcome.status in _RETRY_STATUSES and outcome.retry_after is not None
        if outcome.fate is PlantFate.NOT_CREATED or waited_out:
            # A 429/503 with Retry-After: the server says it did not process the request.
            state = RowState.REJECTED if outcome.status < 500 else RowState.FAILED
        else:
            state = RowState.UNKNOWN
        code = None if outcome.error is None else outcome.error.error
        return RowResult(line, plant_id, state, outcome.status, code, outcome.headline, retries)
    state = RowState.FAILED if outcome.fate is PlantFate.NOT_CREATED else RowState.UNKNOWN
    return RowResult(line, plant_id, state, outcome.status, None, outcome.headline, retries)


class BatchSender:
    """Sends the rows of one batch; `run` returns why it ended."""

    def __init__(
        self,
        sender: PlantSender,
        journal: ImportJournal,
        batch: Batch,
        settings: ImportSettings,
        on_result: Callable[[RowResult], None],
    ) -> None:
        self._sender = sender
        self._journal = journal
        self._batch = batch
        self._settings = settings
        self._on_result = on_result
        self._pacer = _Pacer(settings.rate)
        self._failures_in_a_row = 0
        self.reason = StopReason.DONE
        self.stop = asyncio.Event()
        """Set to take no more rows (Ctrl+C); rows in flight go on."""
        self.in_flight: dict[int, SourceRow] = {}

    async def run(self, rows: Iterable[SourceRow]) -> StopReason:
        """Send every row (until stopped); cancel to give up on the rows in flight too."""
        source = iter(rows)
        workers = [
            asyncio.ensure_future(self._worker(source))
            for _ in range(max(1, self._settings.concurrency))
        ]
        try:
            await asyncio.gather(*workers)
        except BaseException:
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            raise
        return self.reason

    def _take(self, source: Iterator[SourceRow]) -> SourceRow | None:
        if self.stop.is_set():
            return None
        return next(source, None)

    async def _worker(self, source: Iterator[SourceRow]) -> None:
        from plantstore_tui.core.models import parse_new_plant

        while (row := self._take(source)) is not None:
            plant = parse_new_plant(name=row.texts.name, id=row.texts.id, tag=row.texts.tag)
            # The file was validated whole before sending began.
            assert not isinstance(plant, FormErrors), f"line {row.line} was not validated"
            await self._pacer.wait()
            if self.stop.is_set():
                return
            self._journal.sending(self._batch, row.line, plant.id)
            self.in_flight[row.line] = row
            try:
                result = await self._send(row.line, plant)
            except asyncio.CancelledError:
                self._settle(
                    RowResult(
                        row.line,
                        plant.id,
                        RowState.UNKNOWN,
                        None,
                        None,
                        "Cancelled before the server answered",
                    )
                )
                raise
            finally:
                self.in_flight.pop(row.line, None)
            self._settle(result)

    async def _send(self, line: int, plant: NewPlant) -> RowResult:
        from plantstore_tui.core.outcome import Failed, Rejected

        retries = 0
        while True:
            outcome = await self._sender.create_plant(plant)
            wait = (
                retry_after_seconds(outcome.retry_after)
                if isinstance(outcome, Rejected) and outcome.status in _RETRY_STATUSES
                else None
            )
            if (
                wait is not None
                and wait <= self._settings.max_retry_wait
                and retries < self._settings.max_retries
                and not self.stop.is_set()
            ):
                retries += 1
                await asyncio.sleep(wait)
                continue
            if isinstance(outcome, Failed) and outcome.kind.value in _TRANSPORT_KINDS:
                self._failures_in_a_row += 1
                if self._failures_in_a_row >= self._settings.stop_after_failures:
                    self.reason = StopReason.TRANSPORT
                    self.stop.set()
            else:
                self._failures_in_a_row = 0
            return result_of(line, outcome, retries)

    def _settle(self, result: RowResult) -> None:
        self._journal.settle(self._batch, result.line, result.state, result.status, result.message)
        self._on_result(result)


class HistorySender:
    """A sender whose every request is also kept in the history (begun before it goes out)."""

    def __init__(self, sender: PlantSender, history: TargetJournal) -> None:
        self._sender = sender
        self._history = history
        self.url = sender.url

    async def create_plant(self, plant: NewPlant) -> Outcome:
        """Send through the wrapped sender, recording the send and how it ended."""
        from plantstore_tui.core.outcome import cancelled

        entry = self._history.begin(plant)
        started = time.perf_counter()
        try:
            outcome = await self._sender.create_plant(plant)
        except asyncio.CancelledError:
            elapsed = (time.perf_counter() - started) * 1000
            self._history.settle(entry, cancelled(self.url, plant, elapsed))
            raise
        self._history.settle(entry, outcome)
        return outcome

    async def aclose(self) -> None:
        """Close the wrapped sender."""
        await self._sender.aclose()
