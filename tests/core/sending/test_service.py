"""The send service driven without a screen: held plants sent again from needs attention, the
decision made in the core and told back as a typed result; the ledger's rows dealt with off the
event loop."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from datetime import UTC, datetime

import pytest
from burst_support import stored_plants
from ledger_support import all_rows, new_row, opened

from plantstore_tui.core.http.client import PlantStoreClient
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.sending.connection import Connection
from plantstore_tui.core.sending.events import CannotConnect, Connected, Event, PlantMoved
from plantstore_tui.core.sending.service import SendService
from plantstore_tui.core.sending.session import EntrySession
from plantstore_tui.core.sending.submitted import NotTaken, SentAgain, Taken
from plantstore_tui.core.store import PlantState
from plantstore_tui.server.runner import BackgroundServer

DEADLINE = 10
HELD = "Not sent: held when the queue was stopped (Esc)."


def clock() -> datetime:
    """Always the same moment."""
    return datetime(2026, 5, 4, 9, 30, 15, tzinfo=UTC)


async def never_asked(target: Target, plant: object) -> bool:
    """The front end's question: never needed here (the target is not protected)."""
    raise AssertionError("asked")


def held_rows(server: BackgroundServer, *plants: tuple[str, str]) -> list[int]:
    """Plants an earlier plantstore-tui held before they were sent, in the order taken."""
    with opened("tui") as ledger:
        numbers = [
            ledger.take(
                new_row(name, id, source="tui", state=PlantState.QUEUED, base_url=server.base_url)
            )
            for name, id in plants
        ]
        ledger.hold(numbers, HELD)
    return numbers


async def connected_service(server: BackgroundServer, told: list[Event]) -> SendService:
    """A service connected to the server, as the screen has it once the status line names it."""
    target = Target(base_url=server.base_url, token=server.token, token_source="the test")
    event = asyncio.Event()

    def tell(what: Event) -> None:
        told.append(what)
        if isinstance(what, Connected):
            event.set()

    service = SendService(
        tell,
        clock,
        never_asked,
        connect=lambda: Connection(target, PlantStoreClient(target.base_url, target.token)),
        base_url=server.base_url,
    )
    service.start()
    async with asyncio.timeout(DEADLINE):
        await event.wait()
    return service


async def test_held_plants_go_in_order_and_leave_needs_attention(
    reference_server: BackgroundServer,
) -> None:
    held_rows(reference_server, ("Fern", "13"), ("Ivy", "12"), ("Aloe", "11"))
    told: list[Event] = []
    service = await connected_service(reference_server, told)
    try:
        held = await service.attention()
        assert [plant.name for plant in held] == ["Fern", "Ivy", "Aloe"]
        assert service.send_again(held) == SentAgain(sent=3, skipped=0)
        async with asyncio.timeout(DEADLINE):
            await service.wait_until_quiet()
        assert [row[:2] for row in stored_plants(reference_server.db_path)] == [
            (13, "Fern"),
            (12, "Ivy"),
            (11, "Aloe"),
        ]
        assert await service.attention() == []
        assert service.status().counts.attention == 0
    finally:
        await service.close()
    notes = {row.note for row in all_rows() if row.state is not PlantState.CREATED}
    assert notes == {"Sent again from needs attention at 09:30:15."}


async def test_a_plant_dealt_with_elsewhere_meanwhile_is_skipped(
    reference_server: BackgroundServer,
) -> None:
    fern, ivy = held_rows(reference_server, ("Fern", "13"), ("Ivy", "12"))
    told: list[Event] = []
    service = await connected_service(reference_server, told)
    try:
        held = await service.attention()
        with opened("other") as other:
            # Another plantstore-tui loaded Fern into its form after this list was read.
            assert other.release(fern, "Loaded into the form at 09:31:00.")
        assert service.send_again(held) == SentAgain(sent=1, skipped=1)
        async with asyncio.timeout(DEADLINE):
            await service.wait_until_quiet()
        assert [row[:2] for row in stored_plants(reference_server.db_path)] == [(12, "Ivy")]
        assert ivy not in [plant.entry for plant in await service.attention()]
    finally:
        await service.close()


async def test_the_first_plant_not_taken_stops_the_rest_and_says_why(
    reference_server: BackgroundServer,
) -> None:
    numbers = held_rows(reference_server, ("Fern", "13"), ("Ivy", "12"))
    cannot = asyncio.Event()

    def tell(what: Event) -> None:
        if isinstance(what, CannotConnect):
            cannot.set()

    def broken() -> Connection:
        raise ValueError("the token file tokens/missing cannot be read")

    service = SendService(tell, clock, never_asked, connect=broken, base_url="http://127.0.0.1:9")
    service.start()
    try:
        async with asyncio.timeout(DEADLINE):
            await cannot.wait()
        held = await service.attention()
        result = service.send_again(held)
        assert result.sent == 0
        assert result.stopped == NotTaken(
            "Cannot send", "the token file tokens/missing cannot be read"
        )
        assert result.stopped_texts == held[0].typed
        # Both still wait, held, in needs attention.
        assert [plant.entry for plant in await service.attention()] == numbers
    finally:
        await service.close()
    assert stored_plants(reference_server.db_path) == []


async def test_closing_right_after_sending_held_plants_again_still_deals_with_their_rows(
    reference_server: BackgroundServer,
) -> None:
    numbers = held_rows(reference_server, ("Fern", "13"), ("Ivy", "12"))
    service = await connected_service(reference_server, [])
    held = await service.attention()
    assert service.send_again(held).sent == 2
    # Quit at once: the rows of the plants sent again are dealt with before the ledger closes,
    # or the next start would offer them held beside their new sends (sent twice if sent again).
    await service.close()
    with opened("tui") as ledger:
        offered = [plant.entry for plant in ledger.attention()]
    assert not set(numbers) & set(offered)


async def test_what_the_service_tells_of_a_plant_is_a_copy_nothing_changes_after(
    reference_server: BackgroundServer,
) -> None:
    # A front end keeps what it was told (the log draws an entry later, in its own turn): the
    # plant told as queued stays queued there, while the plant itself goes on to be created.
    told: list[Event] = []
    service = await connected_service(reference_server, told)
    try:
        taken = service.submit(FormTexts(name="Fern", id="41", tag=""), typed=True)
        assert isinstance(taken, Taken)
        await service.wait_until_quiet()
        moved = [event.plant for event in told if isinstance(event, PlantMoved)]
        assert [plant.state for plant in moved][-1] is PlantState.CREATED
        assert {plant.number for plant in moved} == {taken.plant.number}
        # Each told as it stood: no two tellings share one changing object.
        assert len({id(plant) for plant in moved}) == len(moved)
        assert taken.plant.state is PlantState.QUEUED
        with pytest.raises(dataclasses.FrozenInstanceError):
            taken.plant.state = PlantState.CREATED  # type: ignore[misc]
        assert service.open_plants() == ()
    finally:
        await service.close()


async def test_the_count_needing_attention_is_written_on_the_event_loop_only(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The settle runs in a worker thread and counts there; what the session keeps of the count
    # is written on the loop (service.py: thread work touches nothing of the service).
    loop_thread = threading.current_thread()
    written_on: list[threading.Thread] = []
    counted = EntrySession._counted

    def recorded(session: EntrySession, attention: int | None) -> None:
        written_on.append(threading.current_thread())
        counted(session, attention)

    monkeypatch.setattr(EntrySession, "_counted", recorded)
    told: list[Event] = []
    service = await connected_service(reference_server, told)
    try:
        for name in ("Fern", "Ivy"):  # the second a duplicate id: it needs attention
            service.submit(FormTexts(name=name, id="42", tag=""), typed=True)
        await service.wait_until_quiet()
        assert service.status().counts.attention == 1
        assert written_on, "the settles told no count"
        assert set(written_on) == {loop_thread}
    finally:
        await service.close()
