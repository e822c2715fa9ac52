"""core.importing.runner: the one import runner, against the real reference server (and a
scripted one where a well-behaved server cannot show it).

The ledger is read from another connection: what a test sees there is committed, so "marked
sending before its request goes out" and "one commit per group" are checked where they matter.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from burst_support import stored_plants
from import_support import expected, ledger_rows, plants, write_csv
from misbehaving import Hang, MisbehavingServer, ReceivedRequest, Reset, Send, json_response
from pydantic import SecretStr

from plantstore_tui.core.http.client import PlantStoreClient
from plantstore_tui.core.importing import (
    ImportFormat,
    ImportPlan,
    ImportRunner,
    ImportSettings,
    RowResult,
    StopReason,
    new_batch,
    resume_batch,
    validate,
)
from plantstore_tui.core.sending.state import Unreachable
from plantstore_tui.core.store import Ledger, PlantState, StoreError, open_ledger
from plantstore_tui.core.store.batches import Batches
from plantstore_tui.server.runner import BackgroundServer

DEADLINE = 30


@dataclass
class Import:
    """A file, the ledger its batch is planned in, and what came back of each row."""

    path: Path
    ledger: Ledger
    plan: ImportPlan
    results: list[RowResult] = field(default_factory=list)

    def resume(self) -> ImportPlan:
        validation = validate(self.open, ImportFormat.CSV)
        self.plan = resume_batch(Batches(self.ledger), self.plan.batch, validation)
        return self.plan

    def open(self) -> Any:
        return self.path.open("rb")


@pytest.fixture
def make_import(tmp_path: Path) -> Iterator[Callable[[int, str], Import]]:
    opened: list[Ledger] = []

    def make(count: int, base_url: str) -> Import:
        path = write_csv(tmp_path / "plants.csv", plants(count))
        ledger = open_ledger("import", path=tmp_path / "ledger.sqlite3")
        opened.append(ledger)
        validation = validate(lambda: path.open("rb"), ImportFormat.CSV)
        plan = new_batch(
            Batches(ledger), validation, base_url=base_url, profile=None, file_name="plants.csv"
        )
        return Import(path, ledger, plan)

    yield make
    for ledger in opened:
        ledger.close()


def runner_for(
    job: Import,
    base_url: str,
    token: SecretStr,
    settings: ImportSettings,
    *,
    keep: bool = True,
    on_result: Callable[[RowResult], None] | None = None,
    on_wait: Callable[[Unreachable | None], None] | None = None,
) -> tuple[ImportRunner, PlantStoreClient]:
    client = PlantStoreClient(base_url, token)

    def settled(result: RowResult) -> None:
        job.results.append(result)
        if on_result is not None:
            on_result(result)

    ledger = job.ledger.for_target(token)
    runner = ImportRunner(client, ledger, job.plan, settings, settled, keep=keep, on_wait=on_wait)
    return runner, client


async def send(
    job: Import, base_url: str, token: SecretStr, settings: ImportSettings, *, keep: bool = True
) -> ImportRunner:
    runner, client = runner_for(job, base_url, token, settings, keep=keep)
    async with client:
        await runner.run(job.plan.rows(job.open, ImportFormat.CSV))
    return runner


def lines_of(job: Import, states: Sequence[str] | None = None) -> set[int]:
    return {
        row.line
        for row in ledger_rows(job.ledger.path)
        if row.line is not None and (states is None or row.state in states)
    }


async def test_every_row_is_in_the_ledger_with_source_import_its_batch_and_line(
    reference_server: BackgroundServer, make_import: Callable[[int, str], Import]
) -> None:
    url, token = reference_server.base_url, reference_server.token
    job = make_import(150, url)
    runner = await send(job, url, token, ImportSettings(concurrency=4, group=32))
    assert runner.reason is StopReason.DONE
    assert runner.finished
    rows = ledger_rows(job.ledger.path)
    assert sorted((row.source, row.batch, row.line, row.plant_id, row.state) for row in rows) == [
        ("import", job.plan.batch.id, line, line - 1, "created") for line in range(2, 152)
    ]
    assert sorted(stored_plants(reference_server.db_path)) == expected(plants(150))
    assert [result.state for result in job.results] == [PlantState.CREATED] * 150


async def test_one_commit_marks_a_group_sending_and_settles_what_came_back(
    reference_server: BackgroundServer,
    make_import: Callable[[int, str], Import],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    commits: list[tuple[int, int, int]] = []
    advance = Batches.advance

    def counted(self: Batches, settled: Any, to_send: Any, *args: Any, **kwargs: Any) -> Any:
        commits.append((len(settled), len(to_send), len(kwargs.get("withdrawn", ()))))
        return advance(self, settled, to_send, *args, **kwargs)

    monkeypatch.setattr(Batches, "advance", counted)
    url, token = reference_server.base_url, reference_server.token
    job = make_import(100, url)
    # No flush on a timer: every commit is a group's, or the last one.
    settings = ImportSettings(concurrency=4, flush_seconds=3600)
    await send(job, url, token, settings)
    assert sum(marked for _, marked, _ in commits) == 100
    assert sum(answered for answered, _, _ in commits) == 100
    assert all(withdrawn == 0 for _, _, withdrawn in commits)
    # Half a group at least in each commit but the last ones: not a transaction a row.
    assert len(commits) <= 100 // 2 + 2
    # Marked sending and not yet settled, as the ledger stood after each commit: never more
    # than a row per request and one group (a row per request).
    unsettled = list(itertools.accumulate(marked - answered for answered, marked, _ in commits))
    assert max(unsettled) <= settings.most_unsettled() == 4 + 4
    assert unsettled[-1] == 0
    assert lines_of(job, ["created"]) == set(range(2, 102))


async def test_every_request_finds_its_row_committed_as_sending_in_the_ledger(
    make_import: Callable[[int, str], Import],
) -> None:
    found: dict[int, str | None] = {}
    ledger_file: list[Path] = []

    def check_the_ledger(request: ReceivedRequest) -> list[Any]:
        sent = request.json()
        # Another connection sees only what is committed.
        with closing(sqlite3.connect(ledger_file[0])) as connection:
            row = connection.execute(
                "SELECT state FROM plants WHERE plant_id = ? AND source = 'import' "
                "ORDER BY entry DESC LIMIT 1",
                (sent["id"],),
            ).fetchone()
        found[sent["id"]] = None if row is None else row[0]
        return [Send(json_response(200, {"name": sent["name"]}))]

    async with MisbehavingServer(check_the_ledger) as server:
        job = make_import(120, server.base_url)
        ledger_file.append(job.ledger.path)
        token = SecretStr("token-of-a-scripted-server")
        await send(job, server.base_url, token, ImportSettings(concurrency=6, group=8))
    assert found == dict.fromkeys(range(1, 121), "sending")
    assert lines_of(job, ["created"]) == set(range(2, 122))


@pytest.fixture
def slow_server(start_slow_server: Callable[[float], BackgroundServer]) -> BackgroundServer:
    return start_slow_server(0.05)


async def test_a_stopped_import_takes_back_the_rows_never_sent_and_a_resume_sends_them(
    slow_server: BackgroundServer, make_import: Callable[[int, str], Import]
) -> None:
    url, token = slow_server.base_url, slow_server.token
    job = make_import(200, url)
    enough = asyncio.Event()
    runner, client = runner_for(
        job,
        url,
        token,
        ImportSettings(concurrency=4, group=16),
        keep=False,
        on_result=lambda _: enough.set() if len(job.results) >= 20 else None,
    )
    async with client:
        task = asyncio.ensure_future(runner.run(job.plan.rows(job.open, ImportFormat.CSV)))
        async with asyncio.timeout(DEADLINE):
            await enough.wait()
        runner.stop()
        assert await task is StopReason.DONE
    sent = {result.line for result in job.results}
    assert 20 <= len(sent) < 200
    # Nothing is left marked sending: what went out is settled, what did not is taken back.
    assert lines_of(job) == lines_of(job, ["created"]) == sent
    assert not runner.finished
    # The rows of an unfinished batch stay, history off or not, and `history clear` keeps them.
    assert job.ledger.clear() == 0
    assert lines_of(job) == sent

    plan = job.resume()
    assert plan.skip == sent
    job.results.clear()
    resumed = await send(job, url, token, ImportSettings(concurrency=4, group=16), keep=False)
    assert {result.line for result in job.results} == set(range(2, 202)) - sent
    assert all(result.state is PlantState.CREATED for result in job.results)
    assert sorted(stored_plants(slow_server.db_path)) == expected(plants(200))
    # Finished: a profile whose history is off keeps nothing of it.
    assert resumed.finished
    assert ledger_rows(job.ledger.path) == []


async def test_rows_cancelled_in_flight_are_unknown_and_the_rest_are_taken_back(
    make_import: Callable[[int, str], Import],
) -> None:
    async with MisbehavingServer([Hang()]) as server:
        job = make_import(50, server.base_url)
        runner, client = runner_for(
            job, server.base_url, SecretStr("token-x"), ImportSettings(concurrency=3, group=8)
        )
        async with client:
            task = asyncio.ensure_future(runner.run(job.plan.rows(job.open, ImportFormat.CSV)))
            async with asyncio.timeout(DEADLINE):
                await server.wait_for_requests(3)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    rows = ledger_rows(job.ledger.path)
    assert [(row.line, row.state) for row in rows] == [(line, "unknown") for line in (2, 3, 4)]
    assert [(result.line, result.state) for result in job.results] == [
        (line, PlantState.UNKNOWN) for line in (2, 3, 4)
    ]
    assert job.results[0].message == "Cancelled before the server answered"
    assert job.resume().skip == {2, 3, 4}


async def test_a_deployment_never_reached_is_given_up_at_once_with_no_wait(
    make_import: Callable[[int, str], Import], closed_port: int
) -> None:
    url = f"http://127.0.0.1:{closed_port}"
    job = make_import(300, url)
    settings = ImportSettings(concurrency=2, give_up_after=0)
    runner = await send(job, url, SecretStr("token-y"), settings)
    assert runner.reason is StopReason.TRANSPORT
    # The rows that went out failed (they never left: a resume sends them); the rows marked to
    # go after them were taken back.
    failed = lines_of(job, ["failed"])
    assert 1 <= len(failed) <= 2
    assert lines_of(job) == failed
    assert {result.state for result in job.results} == {PlantState.FAILED}
    assert job.resume().skip == frozenset()


def _unavailable_first(times: int) -> tuple[list[int], Any]:
    """A scripted server that answers 503 (Retry-After: 0) to its first `times` requests, then
    as the spec says; the ids it received, in order."""
    received: list[int] = []

    def script(request: ReceivedRequest) -> list[Any]:
        received.append(request.json()["id"])
        if len(received) <= times:
            headers = [("Retry-After", "0")]
            return [Send(json_response(503, {"error": 503, "message": "busy"}, headers=headers))]
        return [Send(json_response(200, {"name": request.json()["name"]}))]

    return received, script


async def test_rows_a_503_did_not_take_wait_and_go_again_in_order_once_each(
    make_import: Callable[[int, str], Import],
) -> None:
    received, script = _unavailable_first(3)
    waits: list[Unreachable | None] = []
    async with MisbehavingServer(script) as server:
        job = make_import(12, server.base_url)
        runner, client = runner_for(
            job,
            server.base_url,
            SecretStr("token-w"),
            ImportSettings(concurrency=1),
            on_wait=waits.append,
        )
        async with client:
            reason = await runner.run(job.plan.rows(job.open, ImportFormat.CSV))
    assert reason is StopReason.DONE
    # Line 2 (id 1) was refused three times, then went; the rows after it waited their turn.
    assert received == [1, 1, 1, *range(1, 13)]
    assert [(result.line, result.state, result.retries) for result in job.results][:2] == [
        (2, PlantState.CREATED, 3),
        (3, PlantState.CREATED, 0),
    ]
    assert lines_of(job) == lines_of(job, ["created"]) == set(range(2, 14))
    assert waits[0] is not None
    assert waits[0].words().startswith("deployment busy (503) since ")
    assert waits[-1] is None


async def test_a_row_of_unknown_fate_is_never_sent_again(
    make_import: Callable[[int, str], Import],
) -> None:
    received: list[int] = []

    def script(request: ReceivedRequest) -> list[Any]:
        received.append(request.json()["id"])
        if request.json()["id"] == 3:
            return [Reset()]  # after reading the request: it may have been stored
        return [Send(json_response(200, {"name": request.json()["name"]}))]

    async with MisbehavingServer(script) as server:
        job = make_import(10, server.base_url)
        runner = await send(
            job, server.base_url, SecretStr("token-u"), ImportSettings(concurrency=2)
        )
    assert runner.reason is StopReason.DONE
    assert sorted(received) == list(range(1, 11))
    assert lines_of(job, ["unknown"]) == {4}
    assert job.resume().skip == set(range(2, 12))


async def test_failures_of_unknown_fate_in_a_row_stop_the_import(
    make_import: Callable[[int, str], Import],
) -> None:
    async with MisbehavingServer([Reset()]) as server:
        job = make_import(300, server.base_url)
        settings = ImportSettings(concurrency=2, stop_after_failures=5)
        runner = await send(job, server.base_url, SecretStr("token-r"), settings)
    assert runner.reason is StopReason.TRANSPORT
    unknown = lines_of(job, ["unknown"])
    assert 6 <= len(unknown) <= 6 + settings.most_unsettled()
    assert lines_of(job) == unknown


def test_a_group_is_a_row_per_request_and_the_crash_bound_twice_the_concurrency() -> None:
    # docs/import.md: at most 2 x --concurrency rows of unknown fate after kill -9.
    assert ImportSettings(concurrency=8).group_size() == 8
    assert ImportSettings(concurrency=8).most_unsettled() == 16
    assert ImportSettings(concurrency=1).most_unsettled() == 2
    # With a rate, half a second of it, a row per request at most.
    assert ImportSettings(rate=20).group_size() == 8
    assert ImportSettings(rate=4).group_size() == 2
    assert ImportSettings(rate=0.5).group_size() == 1
    assert ImportSettings(rate=20).most_unsettled() == 16
    assert ImportSettings(concurrency=4, group=5).group_size() == 5
    assert ImportSettings(concurrency=4, group=5).most_unsettled() == 9


async def test_a_deployment_that_answers_fast_never_gets_more_than_a_row_per_request_ahead(
    reference_server: BackgroundServer,
    make_import: Callable[[int, str], Import],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    commits: list[tuple[int, int]] = []
    advance = Batches.advance

    def counted(self: Batches, settled: Any, to_send: Any, *args: Any, **kwargs: Any) -> Any:
        commits.append((len(settled), len(to_send)))
        return advance(self, settled, to_send, *args, **kwargs)

    monkeypatch.setattr(Batches, "advance", counted)
    url, token = reference_server.base_url, reference_server.token
    job = make_import(300, url)
    settings = ImportSettings(concurrency=2, flush_seconds=3600)
    await send(job, url, token, settings)
    assert lines_of(job, ["created"]) == set(range(2, 302))
    # The first group before any answer: a row per request and one group of as many.
    assert commits[0] == (0, 2 + 2)
    # However fast the answers come, never more marked and unsettled than 2 x concurrency.
    unsettled = list(itertools.accumulate(marked - answered for answered, marked in commits))
    assert max(unsettled) <= settings.most_unsettled() == 2 + 2
    assert sum(marked for _, marked in commits) == 300


async def test_a_group_the_ledger_cannot_take_is_never_sent_and_the_import_stops_in_words(
    make_import: Callable[[int, str], Import], monkeypatch: pytest.MonkeyPatch
) -> None:
    advance = Batches.advance
    calls: list[int] = []

    def second_fails(self: Batches, *args: Any, **kwargs: Any) -> Any:
        calls.append(len(calls) + 1)
        if len(calls) == 2:
            raise StoreError(job.ledger.path, "the disk is full")
        return advance(self, *args, **kwargs)

    monkeypatch.setattr(Batches, "advance", second_fails)

    def answer(request: ReceivedRequest) -> list[Any]:
        return [Send(json_response(200, {"name": request.json()["name"]}))]

    async with MisbehavingServer(answer) as server:
        job = make_import(100, server.base_url)
        settings = ImportSettings(concurrency=2, group=8)
        runner = await send(job, server.base_url, SecretStr("token-z"), settings)
    assert runner.reason is StopReason.PROBLEM
    assert runner.problem == (
        f"the ledger, which could not be written: {job.ledger.path}: the disk is full"
    )
    # Nothing of the group the ledger could not take went out; of the first (a row per request
    # and a group), what went out before the stop is settled, and the rest was taken back.
    received = {request.json()["id"] for request in server.requests}
    assert received <= set(range(1, settings.most_unsettled() + 1))
    assert lines_of(job) == lines_of(job, ["created"]) == {plant_id + 1 for plant_id in received}
