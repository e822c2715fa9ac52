"""The one import runner, for the CLI and the TUI: a batch's rows sent N at a time, each in the
ledger as `sending` before its request goes out, the ledger written a window at a time.

Rows are taken from the file a window at a time. One transaction (`Batches.advance`) settles the
rows whose answers came back and marks the next window `sending`; it is committed in the
ledger's writer thread before any request of that window goes out, while the requests of the
window before go on: two windows are buffered, so the commit of one overlaps the requests of the
other and the event loop never waits for the disk. Answers are written with the next window, or
within `flush_seconds` when none comes. At the end, however it ends, the answers not yet written
are, the rows marked sending that never went out (the import was stopped) are taken back out,
and a row cancelled in flight is settled as unknown. A process killed at any moment leaves every
row it sent in the ledger (`sending`: unknown to the next instance, never sent again by a resume).

Nothing is retried, except a 429 or 503 answer with a Retry-After (the server says it did not
process the request), after that wait, a bounded number of times. After K transport failures in
a row the deployment is taken to be down and the import stops, instead of burning through the
file. `stop()` (Ctrl+C, Esc) stops taking rows at once; what is in flight settles.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from plantstore_tui.core.importing.files import FileProblem
from plantstore_tui.core.importing.results import (
    ImportSettings,
    RowResult,
    StopReason,
    result_of,
)
from plantstore_tui.core.plant.outcome import Failed, asked_wait, cancelled
from plantstore_tui.core.plant.text import visible
from plantstore_tui.core.store.database import StoreError
from plantstore_tui.core.store.records import PlantState, Source
from plantstore_tui.core.store.rows import NewRow

if TYPE_CHECKING:
    from plantstore_tui.core.importing.plan import ImportPlan, ImportRow
    from plantstore_tui.core.plant.models import NewPlant
    from plantstore_tui.core.plant.outcome import Outcome
    from plantstore_tui.core.sending.queue import PlantSender
    from plantstore_tui.core.store.ledger import TargetLedger

_TRANSPORT_KINDS = frozenset({"cannot_connect", "tls", "timeout", "connection_dropped"})
Answered = list[tuple[int, "Outcome"]]


class _Pacer:
    """At most `rate` starts a second, spread evenly."""

    def __init__(self, rate: float | None) -> None:
        self.interval = 0.0 if not rate else 1.0 / rate
        self._next = time.monotonic()

    async def wait(self) -> None:
        now = time.monotonic()
        start = max(now, self._next)
        self._next = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)


@dataclass(slots=True)
class _Taken:
    """A row the ledger holds as sending: its entry, and the row."""

    entry: int
    row: ImportRow


@dataclass(slots=True)
class _Commit:
    """A commit under way in the writer thread: the entries of the rows it marks sending, and
    the answers it settles."""

    future: Future[list[int]]
    answered: Answered


class ImportRunner:
    """Sends the rows of one planned batch, writing them to the ledger; `run` says why it ended.

    `problem` holds the words when it ended on one (the file changed, the ledger unwritable);
    `finished` is True when every line of the batch is done (the batch is then marked so).
    """

    def __init__(
        self,
        sender: PlantSender,
        ledger: TargetLedger,
        plan: ImportPlan,
        settings: ImportSettings,
        on_result: Callable[[RowResult], None],
        *,
        keep: bool = True,
    ) -> None:
        self._sender = sender
        self._batches = ledger.ledger.batches
        self._redact = ledger.redact
        self._batch = plan.batch
        self._settings = settings
        self._on_result = on_result
        self._keep = keep
        self._window = settings.window_size()
        self._started: float | None = None
        self._answers = 0
        self._pacer = _Pacer(settings.rate)
        self._failures_in_a_row = 0
        self.reason = StopReason.DONE
        self.problem: str | None = None
        self.finished = False
        self._stopping = False
        self._source_done = False
        self._ready: deque[_Taken] = deque()
        self._answered: Answered = []
        self._commit: _Commit | None = None
        self._in_flight = 0
        self._workers = 0
        self._rows_ready = asyncio.Event()
        self._wake_writer = asyncio.Event()
        self._executor = ThreadPoolExecutor(1, thread_name_prefix="ledger-writer")

    @property
    def in_flight(self) -> int:
        """Requests on their way now."""
        return self._in_flight

    @property
    def stopping(self) -> bool:
        """True once no more rows are taken."""
        return self._stopping

    def stop(self) -> None:
        """Take no more rows (Ctrl+C, Esc); the rows in flight go on."""
        self._stopping = True
        self._rows_ready.set()
        self._wake_writer.set()

    async def run(self, rows: Iterable[ImportRow]) -> StopReason:
        """Send every row until stopped or cancelled; the ledger is up to date when this ends."""
        self._workers = max(1, self._settings.concurrency)
        tasks = [asyncio.ensure_future(self._write_windows(iter(rows)))]
        tasks += [asyncio.ensure_future(self._worker()) for _ in range(self._workers)]
        try:
            await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        finally:
            self._write_the_rest()
        return self.reason

    # Writing the ledger -----------------------------------------------------------------------

    async def _write_windows(self, rows: Iterator[ImportRow]) -> None:
        try:
            while True:
                if not (self._stopping or self._source_done) and len(self._ready) <= self._window:
                    size = self._settings.window_size(self._rate())
                    window = list(itertools.islice(rows, size))
                    if window:
                        entries = await self._write(window)
                        self._ready.extend(map(_Taken, entries, window))
                    # Only now: a worker that finds no row ready and the source done ends.
                    self._source_done = len(window) < size
                    self._window = size
                    self._rows_ready.set()
                    continue
                if not self._workers:
                    return
                self._wake_writer.clear()
                try:
                    await asyncio.wait_for(self._wake_writer.wait(), self._settings.flush_seconds)
                except TimeoutError:
                    if self._answered:
                        await self._write([])
        except (FileProblem, StoreError, OSError) as exc:
            self._fail(exc)
        finally:
            self._source_done = True
            self._rows_ready.set()

    def _rate(self) -> float | None:
        """Rows answered per second so far (None before the first answer)."""
        if self._started is None or not self._answers:
            return None
        return self._answers / max(time.monotonic() - self._started, 1e-3)

    async def _write(self, window: list[ImportRow]) -> list[int]:
        """One commit in the writer thread: the answers so far, and `window` marked sending."""
        answered, self._answered = self._answered, []
        batch, keep = self._batch, self._keep
        new_rows = [
            NewRow(
                source=Source.IMPORT,
                texts=row.texts,
                plant=row.plant,
                base_url=batch.base_url,
                profile=batch.profile,
                state=PlantState.SENDING,
                keep=keep,
                batch=batch.id,
                line=row.line,
            )
            for row in window
        ]
        future = self._executor.submit(self._batches.advance, answered, new_rows, self._redact)
        self._commit = _Commit(future, answered)
        # Cancelled here, the commit still runs and ends in its thread (shielded: a cancelled
        # wait would otherwise cancel a commit the thread had not started yet, and
        # `_write_the_rest`, which waits for it, would find it never ran).
        entries = await asyncio.shield(asyncio.wrap_future(future))
        self._commit = None
        return entries

    def _write_the_rest(self) -> None:
        """Bring the ledger up to date (blocking: once, at the end, whatever ended the run)."""
        withdrawn = [taken.entry for taken in self._ready]
        self._ready.clear()
        commit, self._commit = self._commit, None
        if commit is not None:
            try:
                withdrawn += commit.future.result()
            except StoreError:
                self._answered[:0] = commit.answered  # rolled back: written again below
        answered, self._answered = self._answered, []
        try:
            self._batches.advance(answered, [], self._redact, withdrawn=withdrawn)
            self.finished = self._batches.finish(self._batch)
        except StoreError as exc:
            self._fail(exc)
        finally:
            self._executor.shutdown(wait=False)

    def _fail(self, exc: FileProblem | StoreError | OSError) -> None:
        if self.problem is None:
            name = visible(self._batch.file_name)
            if isinstance(exc, FileProblem):
                self.problem = exc.where(name)
            elif isinstance(exc, StoreError):
                self.problem = f"the ledger: {exc}"
            else:
                self.problem = f"{name}: {exc.strerror or exc}"
        self.reason = StopReason.PROBLEM
        self.stop()

    # Sending ----------------------------------------------------------------------------------

    async def _worker(self) -> None:
        try:
            while not self._stopping:
                if not self._ready:
                    if self._source_done:
                        return
                    self._rows_ready.clear()
                    await self._rows_ready.wait()
                    continue
                taken = self._ready.popleft()
                if len(self._ready) <= self._window:
                    self._wake_writer.set()
                if self._pacer.interval:
                    try:
                        await self._pacer.wait()
                    except asyncio.CancelledError:
                        self._ready.appendleft(taken)
                        raise
                    if self._stopping:
                        self._ready.appendleft(taken)
                        return
                await self._send(taken)
        finally:
            self._workers -= 1
            self._wake_writer.set()

    async def _send(self, taken: _Taken) -> None:
        row = taken.row
        self._in_flight += 1
        started = time.perf_counter()
        if self._started is None:
            self._started = time.monotonic()
        try:
            outcome, retries = await self._attempts(row.plant)
        except asyncio.CancelledError:
            elapsed = (time.perf_counter() - started) * 1000
            self._settle(taken, cancelled(self._sender.url, row.plant, elapsed), 0)
            raise
        finally:
            self._in_flight -= 1
        self._settle(taken, outcome, retries)

    def _settle(self, taken: _Taken, outcome: Outcome, retries: int) -> None:
        self._answered.append((taken.entry, outcome))
        self._answers += 1
        self._on_result(result_of(taken.row.line, taken.row.texts, outcome, retries))

    async def _attempts(self, plant: NewPlant) -> tuple[Outcome, int]:
        """Send, and again after a Retry-After the server gave; the outcome and the retries."""
        retries = 0
        while True:
            outcome = await self._sender.create_plant(plant)
            wait = asked_wait(outcome)
            if (
                wait is not None
                and wait <= self._settings.max_retry_wait
                and retries < self._settings.max_retries
                and not self._stopping
            ):
                retries += 1
                await asyncio.sleep(wait)
                continue
            if isinstance(outcome, Failed) and outcome.kind.value in _TRANSPORT_KINDS:
                self._failures_in_a_row += 1
                if self._failures_in_a_row >= self._settings.stop_after_failures:
                    self.reason = StopReason.TRANSPORT
                    self.stop()
            else:
                self._failures_in_a_row = 0
            return outcome, retries
