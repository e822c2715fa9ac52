"""The entry session driven without a screen: plants taken into the ledger, sent in order to the
target of the moment, and dealt with when they did not go through."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import pytest
from burst_support import stored_plants
from ledger_support import data_dir, ledger_rows
from misbehaving import (
    Action,
    MisbehavingServer,
    ReceivedRequest,
    Send,
    first_hangs,
    response,
    spec_like,
)
from pydantic import SecretStr

from plantstore_tui.core.http.client import PlantStoreClient
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.plant.models import NewPlant, parse_new_plant
from plantstore_tui.core.sending.counted import Counts
from plantstore_tui.core.sending.events import PlantView
from plantstore_tui.core.sending.queue import NOT_CONFIRMED, QueuedPlant
from plantstore_tui.core.sending.session import EntrySession, LedgerNews
from plantstore_tui.core.sending.state import Asking, Running
from plantstore_tui.core.sending.submitted import (
    AimedElsewhere,
    Dismissed,
    FormBusy,
    FromAttention,
    Invalid,
    Loaded,
    NeedsConfirmation,
    NotTaken,
    Taken,
)
from plantstore_tui.core.store import PlantState
from plantstore_tui.core.store.database import Database
from plantstore_tui.core.store.ledger import Ledger
from plantstore_tui.core.store.settings import HistorySettings
from plantstore_tui.server.runner import BackgroundServer

DEADLINE = 10


def clock() -> datetime:
    """Always the same moment."""
    return datetime(2026, 5, 4, 9, 30, 15, tzinfo=UTC)


class Reports:
    """Every change the session reported, as (entry, state, held, words), and a way to wait."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, PlantState, bool, str | None]] = []
        self._changed = asyncio.Event()

    def __call__(self, plant: QueuedPlant, after: str | None) -> None:
        self.seen.append((plant.number, plant.state, plant.held, after))
        self._changed.set()

    def states(self, number: int) -> list[PlantState]:
        """The states reported for one plant, in order."""
        return [state for entry, state, _, _ in self.seen if entry == number]

    async def until(self, condition: Callable[[], bool]) -> None:
        """Wait for reports until `condition` holds."""
        async with asyncio.timeout(DEADLINE):
            while not condition():
                self._changed.clear()
                await self._changed.wait()


def new_session(reports: Reports, base_url: str) -> EntrySession:
    """A session whose ledger is open and its news told, as the screen has it after mounting."""
    session = EntrySession(reports, clock, base_url=base_url)
    session.ledger()
    assert session.ledger_news() is not None
    return session


def target_of(base_url: str, token: SecretStr) -> Target:
    """A target as the command line resolves it."""
    return Target(base_url=base_url, token=token, token_source="the test")


@asynccontextmanager
async def sending_to(
    session: EntrySession, target: Target, settings: HistorySettings | None = None
) -> AsyncIterator[asyncio.Task[None]]:
    """The session connected to `target` and sending; the task stopped and the session closed
    after."""
    queue = session.connected(target, PlantStoreClient(target.base_url, target.token), settings)
    runner = asyncio.create_task(session.run(queue))
    try:
        yield runner
    finally:
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)
        await session.close()


def typed(name: str, id: str, tag: str = "") -> tuple[FormTexts, NewPlant]:
    """The texts of a form and the plant they make."""
    plant = parse_new_plant(name=name, id=id, tag=tag)
    assert isinstance(plant, NewPlant)
    return FormTexts(name=name, id=id, tag=tag), plant


def submit(session: EntrySession, name: str, id: str, tag: str = "") -> PlantView:
    """Take a plant and put it in line, as a valid submit of the form does."""
    taken = session.submit(FormTexts(name=name, id=id, tag=tag), confirmed=True)
    assert isinstance(taken, Taken)
    return taken.plant


def on_server(server: BackgroundServer) -> tuple[Reports, EntrySession, Target]:
    """A fresh session whose plants go to `server`, what it reports, and the server's target."""
    reports = Reports()
    return reports, new_session(reports, server.base_url), target_of(server.base_url, server.token)


async def test_a_plant_is_on_disk_before_it_is_in_line_and_settles_created(
    reference_server: BackgroundServer,
) -> None:
    reports, session, target = on_server(reference_server)
    async with sending_to(session, target):
        queued = submit(session, "Fern", " 7", "shade")
        # Committed before the front end lets go of it (another process reads it; a killed one
        # keeps it), and before anything is reported.
        assert ledger_rows(data_dir()) == [("Fern", " 7", "shade", "queued", 0)]
        assert reports.seen == []
        await session.wait_until_quiet()
        # Reported once on disk for good: queued, unless its durable `sending` came first.
        states = reports.states(queued.number)
        assert states in (
            [PlantState.QUEUED, PlantState.SENDING, PlantState.CREATED],
            [PlantState.SENDING, PlantState.CREATED],
        )
        assert stored_plants(reference_server.db_path) == [(7, "Fern", "shade")]
        assert ledger_rows(data_dir()) == [("Fern", " 7", "shade", "created", 0)]
        assert session.counts() == Counts(queued=0, sending=0, attention=0)
        assert session.open_plants() == ()
        assert session.unsettled() == []
        assert session.next_id() == 8
        assert "plant 7 was created here" in (session.duplicate_warning("+7") or "")
        assert session.duplicate_warning("8") is None
        assert session.duplicate_warning("seven") is None


async def test_a_plant_taken_behind_another_is_queued_and_marked_sending_in_its_turn() -> None:
    arrived = asyncio.Event()
    async with MisbehavingServer(first_hangs(arrived)) as server:
        reports = Reports()
        session = new_session(reports, server.base_url)
        async with sending_to(session, target_of(server.base_url, SecretStr("token-for-a-hang"))):
            first = submit(session, "First", "1")
            second = submit(session, "Second", "2")
            await server.wait_for_requests(1)
            assert ledger_rows(data_dir()) == [
                ("First", "1", "", "sending", 0),
                ("Second", "2", "", "queued", 0),
            ]
            session.cancel_send()
            await session.wait_until_quiet()
            assert reports.states(first.number)[-1] is PlantState.UNKNOWN
            assert reports.states(second.number)[-1] is PlantState.CREATED


async def test_a_plant_held_before_it_went_out_is_held_queued(
    reference_server: BackgroundServer,
) -> None:
    _, session, target = on_server(reference_server)
    async with sending_to(session, target):
        held = submit(session, "Held", "3")
        assert ledger_rows(data_dir()) == [("Held", "3", "", "queued", 0)]
        # Before the queue's task had its turn: the plant never went out.
        session.hold_queued("Not sent: held by the test.")
        assert ledger_rows(data_dir()) == [("Held", "3", "", "queued", 1)]
        await session.wait_until_quiet()
        assert stored_plants(reference_server.db_path) == []
        assert [(row.entry, row.state, row.held) for row in session.ledger().attention()] == [
            (held.number, PlantState.QUEUED, True)
        ]


async def test_plants_taken_before_the_connection_wait_and_go_in_order_to_its_target(
    reference_server: BackgroundServer,
) -> None:
    reports = Reports()
    session = new_session(reports, "loading…")
    assert session.connecting
    first = submit(session, "First", "1")
    second = submit(session, "Second", "2", "b")
    assert session.counts() == Counts(queued=2, sending=0, attention=0)
    assert sorted(session.unsettled()) == [first.number, second.number]
    assert [plant.number for plant in session.open_plants()] == [first.number, second.number]
    early = session.ledger().get(first.number)
    assert early is not None
    assert early.base_url == "loading…"
    target = target_of(reference_server.base_url, reference_server.token)
    async with sending_to(session, target):
        await session.wait_until_quiet()
        assert stored_plants(reference_server.db_path) == [(1, "First", None), (2, "Second", "b")]
        sent = session.ledger().get(second.number)
        assert sent is not None
        assert (sent.base_url, sent.state) == (reference_server.base_url, PlantState.CREATED)
        assert session.counts() == Counts(queued=0, sending=0, attention=0)


async def test_a_profile_without_history_keeps_no_plant_once_it_is_created(
    reference_server: BackgroundServer,
) -> None:
    reports = Reports()
    session = new_session(reports, "loading…")
    early = submit(session, "Early", "1")
    target = target_of(reference_server.base_url, reference_server.token)
    async with sending_to(session, target, HistorySettings(enabled=False)):
        later = submit(session, "Later", "2")
        await session.wait_until_quiet()
        assert reports.states(early.number)[-1] is PlantState.CREATED
        assert reports.states(later.number)[-1] is PlantState.CREATED
        assert stored_plants(reference_server.db_path) == [(1, "Early", None), (2, "Later", None)]
        assert session.ledger().query() == []


async def test_a_plant_is_reported_only_once_a_power_cut_cannot_lose_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sync, on_disk, disk = Database.sync, threading.Event(), threading.Event()

    def slow_sync(db: Database) -> None:
        on_disk.set()
        disk.wait(DEADLINE)
        sync(db)

    monkeypatch.setattr(Database, "sync", slow_sync)
    reports = Reports()
    session = new_session(reports, "http://127.0.0.1:9")
    first = submit(session, "Fern", "1")
    second = submit(session, "Ivy", "2")
    # Committed (a killed process keeps them), waiting for the disk: not reported yet.
    assert [row[:2] for row in ledger_rows(data_dir())] == [("Fern", "1"), ("Ivy", "2")]
    assert await asyncio.to_thread(on_disk.wait, DEADLINE)
    assert reports.seen == []
    disk.set()
    await reports.until(lambda: len(reports.seen) == 2)
    assert [entry for entry, *_ in reports.seen] == [first.number, second.number]
    await session.close()


async def test_a_target_that_cannot_be_used_holds_the_plants_that_waited_for_it() -> None:
    reports = Reports()
    session = new_session(reports, "ftp://plants")
    waiting = submit(session, "Fern", "3")
    session.cannot_connect("The base URL must start with http:// or https://")
    assert session.problem is not None
    await session.wait_until_quiet()  # reported once its take is durable
    assert reports.seen[-1] == (waiting.number, PlantState.QUEUED, True, None)
    [held] = session.ledger().attention()
    assert (held.entry, held.held) == (waiting.number, True)
    assert held.note == "Not sent: The base URL must start with http:// or https://"
    assert session.counts() == Counts(queued=0, sending=0, attention=1)
    assert session.unsettled() == [waiting.number]
    await session.wait_until_quiet()
    await session.close()


async def test_a_rejected_plant_needs_attention_until_the_operator_deals_with_it(
    reference_server: BackgroundServer,
) -> None:
    reports, session, target = on_server(reference_server)
    async with sending_to(session, target):
        submit(session, "Fern", "5")
        again = submit(session, "Ivy", "5", "dup")
        await session.wait_until_quiet()
        assert reports.states(again.number)[-1] is PlantState.REJECTED
        assert session.counts() == Counts(queued=0, sending=0, attention=1)
        assert [plant.number for plant in session.open_plants()] == [again.number]
        [waiting] = session.ledger().attention()
        assert waiting.typed == FormTexts(name="Ivy", id="5", tag="dup")

        assert session.release(again.number, "Dismissed at 09:30:15.")
        assert reports.seen[-1] == (
            again.number,
            PlantState.REJECTED,
            False,
            "Dismissed at 09:30:15.",
        )
        assert session.ledger().attention() == []
        assert session.open_plants() == ()
        assert session.counts() == Counts(queued=0, sending=0, attention=0)
        assert not session.release(again.number, "Dismissed again.")


async def test_the_plants_needing_attention_are_counted_in_the_settles_thread_not_at_each_change(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    reports, session, target = on_server(reference_server)
    counted_on: list[str] = []
    count = Ledger.attention_count

    def attention_count(ledger: Ledger) -> int:
        counted_on.append(threading.current_thread().name)
        return count(ledger)

    monkeypatch.setattr(Ledger, "attention_count", attention_count)
    seen: list[Counts] = []

    def shown(plant: QueuedPlant, after: str | None) -> None:
        # What the screen does at each change: show the counts.
        reports(plant, after)
        seen.append(session.counts())

    session._on_change = shown
    async with sending_to(session, target):
        submit(session, "Fern", "5")
        again = submit(session, "Ivy", "5", "dup")
        await session.wait_until_quiet()
        assert reports.states(again.number)[-1] is PlantState.REJECTED
        assert seen[-1] == Counts(queued=0, sending=0, attention=1)
        # Each plant's send and answer shown (its take too, unless its durable `sending`
        # came first), two settles: counted twice, never on this (the UI) thread.
        assert 4 <= len(seen) <= 6
        assert len(counted_on) == 2
        assert threading.current_thread().name not in counted_on
        assert session.release(again.number, "Dismissed at 09:30:15.")
        assert session.counts() == Counts(queued=0, sending=0, attention=0)


async def test_a_cancelled_send_is_of_unknown_fate_and_the_plants_behind_it_can_be_held() -> None:
    arrived = asyncio.Event()
    async with MisbehavingServer(first_hangs(arrived)) as server:
        reports = Reports()
        session = new_session(reports, server.base_url)
        async with sending_to(session, target_of(server.base_url, SecretStr("token-for-a-hang"))):
            slow = submit(session, "Slow", "1")
            behind = submit(session, "Behind", "2")
            await server.wait_for_requests(1)
            await reports.until(lambda: session.counts().sending == 1)
            assert session.in_line() == 2
            # The screen asks about the plants behind before it cancels.
            session.question_opened()
            assert session.queue_state == Asking()
            assert session.cancel_send() == 1
            await reports.until(lambda: PlantState.UNKNOWN in reports.states(slow.number))
            # Paused until the operator answers: the plant behind has not gone out.
            assert len(server.requests) == 1
            assert session.counts() == Counts(queued=1, sending=0, attention=1)

            session.hold_queued("Not sent: held when the queue was stopped.")
            session.question_closed()
            assert session.queue_state == Running()
            await session.wait_until_quiet()
            assert len(server.requests) == 1
            attention = session.ledger().attention()
            assert [(row.entry, row.state, row.held) for row in attention] == [
                (slow.number, PlantState.UNKNOWN, False),
                (behind.number, PlantState.QUEUED, True),
            ]
            assert session.cancel_send() is None


async def test_a_plant_not_confirmed_when_its_turn_comes_is_held_not_sent(
    reference_server: BackgroundServer,
) -> None:
    reports = Reports()
    session = new_session(reports, reference_server.base_url)
    texts = FormTexts(name="Fern", id="9", tag="")
    asked: list[int] = []

    async def refuse(queued: QueuedPlant) -> bool:
        asked.append(queued.number)
        return False

    target = target_of(reference_server.base_url, reference_server.token)
    client = PlantStoreClient(target.base_url, target.token)
    taken = session.submit(texts)  # before the connection: confirmed at its turn, if need be
    assert isinstance(taken, Taken)
    queued = taken.plant
    runner = asyncio.create_task(session.run(session.connected(target, client), refuse))
    try:
        await session.wait_until_quiet()
        assert asked == [queued.number]
        [held] = session.ledger().attention()
        assert (held.entry, held.held, held.note) == (queued.number, True, NOT_CONFIRMED)
        assert stored_plants(reference_server.db_path) == []
    finally:
        runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)
        await session.close()


async def test_a_switch_lets_the_old_queue_finish_and_sends_what_follows_to_the_new_target(
    reference_server: BackgroundServer,
    shared_reference_server: BackgroundServer,
    plant_id: int,
) -> None:
    old, new = reference_server, shared_reference_server
    reports = Reports()
    session = new_session(reports, old.base_url)
    old_queue = session.connected(
        target_of(old.base_url, old.token), PlantStoreClient(old.base_url, old.token)
    )
    old_runner = asyncio.create_task(session.run(old_queue))
    before = submit(session, "Before", str(plant_id))
    session.choose(new.base_url, "new")
    assert session.connecting
    assert session.target is None
    after = submit(session, "After", str(plant_id))
    taken = session.ledger().get(after.number)
    assert taken is not None
    assert (taken.base_url, taken.profile) == (new.base_url, "new")
    # Left behind, the old queue sends what it held, then ends by itself.
    await asyncio.wait_for(old_runner, DEADLINE)
    assert reports.states(before.number)[-1] is PlantState.CREATED
    assert stored_plants(old.db_path) == [(plant_id, "Before", None)]
    async with sending_to(session, target_of(new.base_url, new.token)):
        await session.wait_until_quiet()
        assert reports.states(after.number)[-1] is PlantState.CREATED
        assert (plant_id, "After", None) in stored_plants(new.db_path)


async def test_the_ledger_news_tells_once_of_plants_left_by_an_earlier_session() -> None:
    first = new_session(Reports(), "ftp://plants")
    submit(first, "Left", "4")
    first.cannot_connect("no usable target")
    await first.close()

    session = EntrySession(Reports(), clock, base_url="ftp://plants")
    assert session.ledger_news() is None  # not open yet
    session.ledger()
    assert session.ledger_news() == LedgerNews(problem=None, carried_problems=(), waiting=1)
    assert session.ledger_news() is None
    assert not session.ledger_in_memory
    await session.close()


async def test_dropping_at_quit_releases_every_plant_not_settled() -> None:
    reports = Reports()
    session = new_session(reports, "ftp://plants")
    submit(session, "Fern", "1")
    submit(session, "Ivy", "2")
    session.cannot_connect("no usable target")
    assert len(session.unsettled()) == 2
    session.drop_unsettled()
    assert session.unsettled() == []
    assert session.ledger().pending() == []
    assert session.counts() == Counts(queued=0, sending=0, attention=0)
    await session.close()


async def test_submit_decides_and_says_what_became_of_the_texts(
    reference_server: BackgroundServer,
) -> None:
    reports = Reports()
    unchosen = EntrySession(reports, clock, base_url="", chosen=False)
    fern = FormTexts(name="Fern", id="7", tag="")
    assert unchosen.submit(fern) == NotTaken(
        "Not sent", "No target yet: press F2 to choose or create a profile."
    )

    reports, session, target = on_server(reference_server)
    invalid = session.submit(FormTexts(name=" ", id="7b", tag=""))
    assert isinstance(invalid, Invalid)
    assert set(invalid.errors.errors) == {"name", "id"}
    protected = dataclasses.replace(target, profile="prod", protected=True)
    async with sending_to(session, protected):
        asked = session.submit(fern)
        assert asked == NeedsConfirmation(protected, typed("Fern", "7")[1])
        assert ledger_rows(data_dir()) == []  # nothing taken before the answer
        taken = session.submit(fern, confirmed=True)
        assert isinstance(taken, Taken)
        await session.wait_until_quiet()
        assert reports.states(taken.plant.number)[-1] is PlantState.CREATED
        # "Don't ask again" lasts for this target, this session.
        session.protection.trust(protected)
        assert isinstance(session.submit(FormTexts(name="Ivy", id="8", tag="")), Taken)
        await session.wait_until_quiet()
    assert stored_plants(reference_server.db_path) == [(7, "Fern", None), (8, "Ivy", None)]

    session.cannot_connect("Profile 'prod': no token")
    assert session.submit(fern) == NotTaken("Cannot send", "Profile 'prod': no token")


async def test_a_plant_taken_before_the_connection_is_confirmed_when_its_turn_comes(
    reference_server: BackgroundServer,
) -> None:
    reports = Reports()
    session = new_session(reports, reference_server.base_url)
    early = session.submit(FormTexts(name="Fern", id="9", tag=""))
    assert isinstance(early, Taken)
    assert early.plant.confirmed is False


async def test_a_plant_of_needs_attention_is_loaded_dismissed_or_said_why_not(
    reference_server: BackgroundServer,
) -> None:
    reports, session, target = on_server(reference_server)
    async with sending_to(session, target):
        first = submit(session, "Fern", "1")
        again = submit(session, "Ivy", "1")  # a duplicate id: refused, needs attention
        await session.wait_until_quiet()
        assert reports.states(again.number)[-1] is PlantState.REJECTED
        assert reports.states(first.number)[-1] is PlantState.CREATED

        busy = session.load(FromAttention(again.number), form_busy=True)
        assert busy == FormBusy()
        assert [row.entry for row in session.ledger().attention()] == [again.number]
        loaded = session.load(FromAttention(again.number), form_busy=False)
        assert loaded == Loaded(FormTexts(name="Ivy", id="1", tag=""), False, 1)
        assert session.ledger().attention() == []
        # Dealt with already (here, or by another instance): said, not done twice.
        assert session.dismiss(again.number) == NotTaken(
            "Not loaded", "Another plantstore-tui has already dealt with this plant."
        )
        assert session.load(FromAttention(99_999), form_busy=False) == NotTaken(
            "Not found", "Plant #99999 is no longer in the ledger."
        )


async def test_a_plant_meant_for_another_target_is_loaded_only_once_confirmed(
    reference_server: BackgroundServer,
) -> None:
    _, session, target = on_server(reference_server)
    async with sending_to(session, target):
        submit(session, "Fern", "2")
        refused = submit(session, "Ivy", "2")
        dropped = submit(session, "Yew", "2")
        await session.wait_until_quiet()
        session.choose("http://127.0.0.1:9", "elsewhere")
        elsewhere = session.load(FromAttention(refused.number), form_busy=False)
        assert isinstance(elsewhere, AimedElsewhere)
        assert elsewhere.here == "elsewhere · 127.0.0.1:9"
        assert [row.entry for row in session.ledger().attention()] == [
            refused.number,
            dropped.number,
        ]
        chosen = FromAttention(refused.number)
        assert isinstance(session.load(chosen, form_busy=False, anywhere=True), Loaded)
        # Dismissing asks nothing: the plant goes nowhere.
        assert isinstance(session.dismiss(dropped.number), Dismissed)
        assert session.ledger().attention() == []


async def test_a_plant_confirmed_at_its_turn_is_not_asked_about_again_when_it_goes_again() -> None:
    answers = iter([[Send(response(503, b"", headers=[("Retry-After", "0")]))]])

    def script(request: ReceivedRequest) -> list[Action]:
        return next(answers, None) or spec_like(request)

    async with MisbehavingServer(script) as server:
        reports = Reports()
        session = new_session(reports, server.base_url)
        asked: list[int] = []

        async def confirm(queued: QueuedPlant) -> bool:
            asked.append(queued.number)
            return True

        target = target_of(server.base_url, SecretStr("token-for-a-503"))
        taken = session.submit(FormTexts(name="Fern", id="9", tag=""))
        assert isinstance(taken, Taken)
        queued = taken.plant
        client = PlantStoreClient(target.base_url, target.token)
        runner = asyncio.create_task(session.run(session.connected(target, client), confirm))
        try:
            await reports.until(lambda: PlantState.CREATED in reports.states(queued.number))
            assert len(server.requests) == 2  # the 503, then the plant created
            assert asked == [queued.number]
        finally:
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)
            await session.close()


async def test_a_plant_is_counted_sending_only_once_its_sending_is_on_disk(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The status line says "sending…" from these counts: a kill -9 then must find the row
    # `sending`, not `queued` (tests/e2e/test_pty_kill.py, the all-taken moment).
    writing, release = threading.Event(), threading.Event()
    marking = Ledger.sending

    def held_sending(ledger: Ledger, entry: int) -> None:
        writing.set()
        release.wait(DEADLINE)
        marking(ledger, entry)

    monkeypatch.setattr(Ledger, "sending", held_sending)
    reports, session, target = on_server(reference_server)
    async with sending_to(session, target):
        queued = submit(session, "Fern", "17")
        await asyncio.wait_for(asyncio.to_thread(writing.wait, DEADLINE), DEADLINE)
        assert ledger_rows(data_dir()) == [("Fern", "17", "", "queued", 0)]
        assert session.counts() == Counts(queued=1, sending=0, attention=0)
        release.set()
        await reports.until(lambda: PlantState.SENDING in reports.states(queued.number))
        await session.wait_until_quiet()
        assert reports.states(queued.number)[-1] is PlantState.CREATED
