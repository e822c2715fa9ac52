"""core.importing.runner: the one import runner, against the real reference server (and a
scripted one where a well-behaved server cannot show it).

The ledger is read from another connection: what a test sees there is committed, so "marked
sending before its request goes out" and "one commit per window" are checked where they matter.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from burst_support import stored_plants
from import_support import expected, ledger_rows, plants, write_csv
from misbehaving import Hang, MisbehavingServer, ReceivedRequest, Send, json_response
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
        self.plan = resume_batch(self.ledger.batches, self.plan.batch, validation)
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
            ledger.batches, validation, base_url=base_url, profile=None, file_name="plants.csv"
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
) -> tuple[ImportRunner, PlantStoreClient]:
    client = PlantStoreClient(base_url, token)

    def settled(result: RowResult) -> None:
        job.results.append(result)
        if on_result is not None:
            on_result(result)

    ledger = job.ledger.for_target(token)
    return ImportRunner(client, ledger, job.plan, settings, settled, keep=keep), client


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
    runner = await send(job, url, token, ImportSettings(concurrency=4, window=32))
    assert runner.reason is StopReason.DONE
    assert runner.finished
    rows = ledger_rows(job.ledger.path)
    assert sorted((row.source, row.batch, row.line, row.plant_id, row.state) for row in rows) == [
        ("import", job.plan.batch.id, line, line - 1, "created") for line in range(2, 152)
    ]
    assert sorted(stored_plants(reference_server.db_path)) == expected(plants(150))
    assert [result.state for result in job.results] == [PlantState.CREATED] * 150


async def test_one_commit_marks_a_window_sending_and_settles_what_came_back(
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
    # No flush on a timer: every commit is a window's, or the last one.
    settings = ImportSettings(concurrency=4, window=16, flush_seconds=3600)
    await send(job, url, token, settings)
    # 100 rows: 7 windows, then the answers still unwritten: 8 transactions, not 4 a row.
    assert [marked for _, marked, _ in commits] == [16] * 6 + [4, 0]
    assert sum(answered for answered, _, _ in commits) == 100
    assert commits[0][0] == 0
    assert all(withdrawn == 0 for _, _, withdrawn in commits)
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
        await send(job, server.base_url, token, ImportSettings(concurrency=6, window=8))
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
        ImportSettings(concurrency=4, window=16),
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
    resumed = await send(job, url, token, ImportSettings(concurrency=4, window=16), keep=False)
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
            job, server.base_url, SecretStr("token-x"), ImportSettings(concurrency=3, window=8)
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


async def test_transport_failures_in_a_row_stop_the_import(
    make_import: Callable[[int, str], Import], closed_port: int
) -> None:
    url = f"http://127.0.0.1:{closed_port}"
    job = make_import(300, url)
    runner = await send(job, url, SecretStr("token-y"), ImportSettings(concurrency=2, window=8))
    assert runner.reason is StopReason.TRANSPORT
    failed = lines_of(job, ["failed"])
    assert 5 <= len(failed) < 300
    assert lines_of(job) == failed
    assert job.resume().skip == frozenset()


def test_a_window_holds_half_a_second_of_rows_from_a_request_each_up_to_eight_each() -> None:
    settings = ImportSettings(concurrency=8)
    # Before any answer: one row per request in flight.
    assert settings.window_size() == 8
    assert settings.window_size(10_000) == 64
    assert ImportSettings(concurrency=16).window_size(10_000) == 128
    assert settings.window_size(40) == 20
    assert settings.window_size(2) == 8
    # With a rate: half a second of it, never more rows marked than go in that time.
    assert ImportSettings(rate=20).window_size() == 10
    assert ImportSettings(rate=0.5).window_size() == 1
    assert ImportSettings(window=5).window_size(10_000) == 5


async def test_a_window_the_ledger_cannot_take_is_never_sent_and_the_import_stops_in_words(
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
        settings = ImportSettings(concurrency=2, window=8)
        runner = await send(job, server.base_url, SecretStr("token-z"), settings)
    assert runner.reason is StopReason.PROBLEM
    assert runner.problem == f"the ledger: {job.ledger.path}: the disk is full"
    # Nothing of the window the ledger could not take went out; of the one it took, what went
    # out before the stop is settled, and the rest was taken back.
    received = {request.json()["id"] for request in server.requests}
    assert received <= set(range(1, 9))
    assert lines_of(job) == lines_of(job, ["created"]) == {plant_id + 1 for plant_id in received}
