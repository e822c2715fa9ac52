"""The one import runner, for the CLI and the TUI: a batch's rows sent N at a time, each in the
ledger as `sending` before its request goes out, only a group ahead of the requests.

A group is a row per request slot (`ImportSettings.group_size`; with a rate, half a second of it
at most). One transaction (`Batches.advance`) settles the rows whose answers came back and marks
the next rows `sending`; it is committed in the ledger's writer thread before any request of
them goes out, while the requests before them go on: the commit overlaps the requests, and the
event loop never waits for the disk. No more rows are marked than the requests in flight and one
group (`ImportSettings.most_unsettled`: 2 x N), so a process killed at any moment leaves at most
that many rows `sending` (unknown to the next instance, never sent again by a resume). The next
rows are marked once there is room for half a group: the other half is still ready for the
requests that end while that commit runs: a request waits for the disk only when a commit takes
longer than half a group of answers.
Answers are written with the next group, or within `flush_seconds` when none comes. At the end,
however it ends, the answers not yet written are, the rows marked sending that never went out
(the import was stopped) are taken back out, and a row cancelled in flight is settled as unknown.

Store and forward: a row the deployment did not take (`not_processed`: it could not be reached,
or answered 429 or 503) is held, settled as failed, and sent again, marked sending again first,
once the deployment answers; the rows marked to go after it are taken back until then, so the
held rows go first, in the order of the file. While the deployment does not answer, the import
waits (`waiting`): one try at a time, when `DeploymentWait` says, for `give_up_after` seconds.
A row of unknown fate is never sent again. Failures of unknown fate in a row (a deployment that
takes requests and never answers, or answers each with a server error) stop the import.

A refused token (401, 403) stops it at once, as it pauses the TUI's queue: the token, not the
row, is at fault, and every row after would be refused too. The rows it refused are settled as
failed (not sent, as far as the plants go: a resume sends them), the rows not yet sent are taken
back. `stop()` (Ctrl+C, Esc) stops taking rows at once, waiting or not; what is in flight
settles.
"""

from __future__ import annotations

import asyncio
import bisect
import itertools
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from plantstore_tui.core.http.conformance import token_refused
from plantstore_tui.core.importing.results import (
    ImportSettings,
    RowResult,
    StopReason,
    refused_result,
    result_of,
)
from plantstore_tui.core.importing.rows import FileProblem
from plantstore_tui.core.plant.outcome import PlantFate, Rejected, cancelled, not_processed
from plantstore_tui.core.plant.text import visible
from plantstore_tui.core.sending.state import Unreachable
from plantstore_tui.core.sending.waiting import DeploymentWait
from plantstore_tui.core.store.batches import Batches
from plantstore_tui.core.store.database import StoreError
from plantstore_tui.core.store.records import PlantState, Source, state_of
from plantstore_tui.core.store.rows import NewRow

if TYPE_CHECKING:
    from plantstore_tui.core.importing.plan import ImportPlan, ImportRow
    from plantstore_tui.core.plant.outcome import Outcome
    from plantstore_tui.core.sending.queue import PlantSender
    from plantstore_tui.core.store.ledger import TargetLedger

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
    """A row the ledger holds as sending: its entry, the row, the times it went before."""

    entry: int
    row: ImportRow
    retries: int = 0


@dataclass(slots=True, order=True)
class _Held:
    """A row to send before the file's next rows, in line order: not taken (`outcome`; its
    entry settled as failed, marked sending again when it goes), or marked sending and taken
    back while the deployment was waited for (no outcome, no entry: written anew)."""

    line: int
    row: ImportRow = field(compare=False)
    entry: int | None = field(compare=False)
    retries: int = field(compare=False)
    outcome: Outcome | None = field(compare=False, default=None)


@dataclass(slots=True)
class _Commit:
    """A commit under way in the writer thread: the entries of the rows it marks sending, and
    the answers it settles."""

    future: Future[list[int]]
    answered: Answered


class ImportRunner:
    """Sends the rows of one planned batch, writing them to the ledger; `run` says why it ended.

    `problem` holds the words when it ended on one (the file changed, the ledger unwritable);
    `finished` is True when every line of the batch is done (the batch is then marked so);
    `waiting` says when the deployment is waited for (`on_wait` is told each change).
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
        on_wait: Callable[[Unreachable | None], None] | None = None,
    ) -> None:
        self._sender = sender
        self._batches = Batches(ledger.ledger)
        self._redact = ledger.redact
        self._batch = plan.batch
        self._settings = settings
        self._on_result = on_result
        self._keep = keep
        self._slots = max(1, settings.concurrency)
        self._pacer = _Pacer(settings.rate)
        self._unknown_in_a_row = 0
        self._wait = DeploymentWait(settings.give_up_after, on_wait)
        self.reason = StopReason.DONE
        self.problem: str | None = None
        self.finished = False
        self.unrecorded: list[PlantState] = []
        """What came of the rows whose fate the ledger could not be told at the end (its disk
        full, say): it holds them as sending, of unknown fate; QUEUED for a row never sent."""
        self._stopping = False
        self._source_done = False
        self._ready: deque[_Taken] = deque()
        self._held: list[_Held] = []
        self._withdrawn: list[int] = []
        self._answered: Answered = []
        self._refused: set[int] = set()
        """Entries answered by a refused token: failed in the ledger, not rejected."""
        self._commit: _Commit | None = None
        self._out = 0
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
    def waiting(self) -> Unreachable | None:
        """What the import waits for, if it does."""
        return self._wait.waiting

    @property
    def stopping(self) -> bool:
        """True once no more rows are taken."""
        return self._stopping

    def stop(self) -> None:
        """Take no more rows (Ctrl+C, Esc), and wait no more; the rows in flight go on."""
        self._stopping = True
        self._rows_ready.set()
        self._wake_writer.set()

    async def run(self, rows: Iterable[ImportRow]) -> StopReason:
        """Send every row until stopped or cancelled; the ledger is up to date when this ends."""
        self._workers = self._slots
        tasks = [asyncio.ensure_future(self._write_groups(iter(rows)))]
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

    def _group(self) -> int:
        """Rows in the next group."""
        return self._settings.group_size()

    def _refill(self) -> int:
        """Room enough to mark the next rows: half a group, so that the other half is still
        ready for the requests that end while the commit runs."""
        return max(1, self._group() // 2)

    def _room(self) -> int:
        """Rows that may be marked sending now: a row per request and a group, less those
        out and ready."""
        if self._stopping:
            return 0
        if self.waiting is not None:
            # One try at a time, once its time has come.
            return 0 if self._out or self._ready or self._wait.seconds_left() else 1
        return self._slots + self._group() - self._out - len(self._ready)

    async def _write_groups(self, rows: Iterator[ImportRow]) -> None:
        try:
            while True:
                room = self._room()
                more = bool(self._held) or not self._source_done
                # A whole group, or what there is room for once the requests run out of rows
                # (the group before is going out meanwhile: the commit is not waited for).
                if more and room > 0 and (room >= self._refill() or not self._ready):
                    await self._write_group(rows, room)
                    continue
                if not self._workers:
                    return
                if self._withdrawn:
                    await self._write([], [])
                    continue
                timeout = self._settings.flush_seconds
                if left := self._wait.seconds_left():
                    timeout = min(timeout, left)
                self._wake_writer.clear()
                try:
                    await asyncio.wait_for(self._wake_writer.wait(), timeout)
                except TimeoutError:
                    if self._answered:
                        await self._write([], [])
        except (FileProblem, StoreError, OSError) as exc:
            self._fail(exc)
        finally:
            self._source_done = True
            self._rows_ready.set()

    async def _write_group(self, rows: Iterator[ImportRow], room: int) -> None:
        """Mark the next `room` rows sending: held rows first, then the file's."""
        trying = self.waiting is not None
        again, self._held = self._held[:room], self._held[room:]
        new = [held.row for held in again if held.entry is None]
        from_file: list[ImportRow] = []
        wanted = 0 if self._source_done else room - len(again)
        if wanted > 0:
            from_file = list(itertools.islice(rows, wanted))
        marks = [held.entry for held in again if held.entry is not None]
        entries = iter(await self._write(new + from_file, marks))
        # Only now: a worker that finds no row ready and the source done ends.
        self._source_done = self._source_done or len(from_file) < wanted
        taken = [
            _Taken(next(entries) if held.entry is None else held.entry, held.row, held.retries)
            for held in again
        ]
        taken += [_Taken(next(entries), row) for row in from_file]
        if self.waiting is not None and not trying:
            # The deployment stopped taking plants while this group was written.
            self._take_back(taken)
        else:
            self._ready.extend(taken)
        self._rows_ready.set()

    async def _write(self, new: list[ImportRow], again: list[int]) -> list[int]:
        """One commit in the writer thread: the answers so far, the rows taken back, and `new`
        and `again` marked sending; the entries of `new`."""
        answered, self._answered = self._answered, []
        withdrawn, self._withdrawn = self._withdrawn, []
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
            for row in new
        ]
        future = self._executor.submit(
            self._batches.advance,
            answered,
            new_rows,
            self._redact,
            again=again,
            withdrawn=withdrawn,
            refused=frozenset(self._refused),
        )
        self._commit = _Commit(future, answered)
        # Cancelled here, the commit still runs and ends in its thread (shielded: a cancelled
        # wait would otherwise cancel a commit the thread had not started yet, and
        # `_write_the_rest`, which waits for it, would find it never ran).
        entries = await asyncio.shield(asyncio.wrap_future(future))
        self._commit = None
        return entries

    def _write_the_rest(self) -> None:
        """Bring the ledger up to date (blocking: once, at the end, whatever ended the run)."""
        withdrawn = [taken.entry for taken in self._ready] + self._withdrawn
        self._ready.clear()
        self._withdrawn = []
        commit, self._commit = self._commit, None
        if commit is not None:
            try:
                withdrawn += commit.future.result()
            except StoreError:
                self._answered[:0] = commit.answered  # rolled back: written again below
        answered, self._answered = self._answered, []
        try:
            self._batches.advance(
                answered, [], self._redact, withdrawn=withdrawn, refused=frozenset(self._refused)
            )
        except StoreError as exc:
            self.unrecorded = [
                PlantState.FAILED if entry in self._refused else state_of(outcome)
                for entry, outcome in answered
            ]
            self.unrecorded += [PlantState.QUEUED] * len(withdrawn)
            self._fail(exc)
        else:
            try:
                self.finished = self._batches.finish(self._batch)
            except StoreError as exc:
                self._fail(exc)
        finally:
            self._executor.shutdown(wait=False)
        # Held after the deployment did not take them: settled as failed, never sent again here.
        for held in self._held:
            if held.outcome is not None:
                self._on_result(
                    result_of(held.line, held.row.texts, held.outcome, max(0, held.retries - 1))
                )
        self._held = []
        self._wait.end()

    def _fail(self, exc: FileProblem | StoreError | OSError) -> None:
        if self.problem is None:
            name = visible(self._batch.file_name)
            if isinstance(exc, FileProblem):
                self.problem = exc.where(name)
            elif isinstance(exc, StoreError):
                self.problem = f"the ledger, which could not be written: {exc}"
            else:
                self.problem = f"{name}: {exc.strerror or exc}"
        self.reason = StopReason.PROBLEM
        self.stop()

    # Sending ----------------------------------------------------------------------------------

    def _no_more_rows(self) -> bool:
        """Nothing is left to send, and nothing in flight can come back to be sent again."""
        return self._source_done and not self._held and not self._out

    async def _worker(self) -> None:
        try:
            while not self._stopping:
                if not self._ready:
                    if self._no_more_rows():
                        return
                    self._rows_ready.clear()
                    await self._rows_ready.wait()
                    continue
                taken = self._ready.popleft()
                self._out += 1
                if not self._ready:
                    # The next group is written while this row and the others in flight go.
                    self._wake_writer.set()
                try:
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
                    self._out -= 1
                    if self._room() >= self._refill() or self._stopping or self.waiting:
                        self._wake_writer.set()
                    if self._no_more_rows():
                        self._rows_ready.set()
        finally:
            self._workers -= 1
            self._wake_writer.set()

    async def _send(self, taken: _Taken) -> None:
        row = taken.row
        trying = self.waiting is not None
        self._in_flight += 1
        started = time.perf_counter()
        try:
            outcome = await self._sender.create_plant(row.plant)
        except asyncio.CancelledError:
            elapsed = (time.perf_counter() - started) * 1000
            self._settle(taken, cancelled(self._sender.url, row.plant, elapsed))
            raise
        finally:
            self._in_flight -= 1
        if isinstance(outcome, Rejected) and token_refused(outcome.status):
            self._refuse(taken, outcome)
            return
        if not_processed(outcome):
            self._hold(taken, outcome)
            if not self._wait.not_taken(outcome, tried=trying):
                self.reason = StopReason.TRANSPORT
                self.stop()
            self._wake_writer.set()
            return
        if trying:
            self._wait.answered()
            self._wake_writer.set()
        self._settle(taken, outcome)

    def _settle(self, taken: _Taken, outcome: Outcome) -> None:
        self._answered.append((taken.entry, outcome))
        self._on_result(result_of(taken.row.line, taken.row.texts, outcome, taken.retries))
        # A server error (5xx but 503) leaves the plant's fate unknown, as a dropped connection
        # does: a deployment failing on every request is stopped as one that never answers.
        unknown = outcome.fate is PlantFate.UNKNOWN
        self._unknown_in_a_row = self._unknown_in_a_row + 1 if unknown else 0
        # The requests in flight may all fail of one cause (the deployment went away).
        settings = self._settings
        if self._unknown_in_a_row >= settings.stop_after_failures + settings.concurrency - 1:
            server = isinstance(outcome, Rejected)
            self._stop_for(StopReason.SERVER_ERRORS if server else StopReason.TRANSPORT)

    def _refuse(self, taken: _Taken, outcome: Rejected) -> None:
        """The token was refused: the row is not sent (failed, so a resume sends it), and no
        row goes after it."""
        self._refused.add(taken.entry)
        self._answered.append((taken.entry, outcome))
        self._on_result(refused_result(taken.row.line, taken.row.texts, outcome, taken.retries))
        self._stop_for(StopReason.REFUSED)
        self._wake_writer.set()

    def _stop_for(self, reason: StopReason) -> None:
        """Stop taking rows, for the first reason found."""
        if self.reason is StopReason.DONE:
            self.reason = reason
        self.stop()

    def _hold(self, taken: _Taken, outcome: Outcome) -> None:
        """The deployment did not take the row: settled as failed, it goes again once the
        deployment answers, before the rows marked to go after it (taken back until then)."""
        self._answered.append((taken.entry, outcome))
        bisect.insort(
            self._held, _Held(taken.row.line, taken.row, taken.entry, taken.retries + 1, outcome)
        )
        self._take_back(self._ready)
        self._ready.clear()

    def _take_back(self, taken: Iterable[_Taken]) -> None:
        """Rows marked sending that will not go before the held ones: out of the ledger until
        the deployment answers (written anew then)."""
        for one in taken:
            self._withdrawn.append(one.entry)
            bisect.insort(self._held, _Held(one.row.line, one.row, None, one.retries))
        self._wake_writer.set()
