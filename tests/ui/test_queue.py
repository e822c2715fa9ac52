"""Entry at operator speed, driven with Pilot: bursts of keys, type-ahead, needs attention, quit.

A burst is posted whole before the app reads any of it, as a scanner, a keyboard macro or one
write of a paste reaches a terminal app: nothing waits between the keys. The server says what
arrived, from its own database (the reference server) or its own record (the misbehaving one).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from burst_support import Record, describe_arrival, expected_rows, stored_plants
from keys_support import burst, drained, keys_of
from ledger_support import all_rows
from misbehaving import (
    Hang,
    MisbehavingServer,
    ReceivedRequest,
    Reset,
    Send,
    json_response,
    spec_like,
)
from pydantic import SecretStr
from seen_support import notifications_of, status_text
from snapshot_apps.support import (
    SIZE,
    app_for,
    fill,
    log_text,
    ready,
    send_and_wait,
    settled,
    until,
)
from textual import events
from textual.widgets import OptionList

from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.store import PlantState, ledger_path, open_for_reading
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.screens.attention import AttentionScreen
from plantstore_tui.ui.screens.confirm import ChoiceScreen
from plantstore_tui.ui.screens.send import SendScreen

# What the status line says for as long as the ledger's file cannot be used.
MEMORY = "ledger in memory only"


SLOW = 0.05


@pytest.fixture
def slow_server(start_slow_server: Callable[[float], BackgroundServer]) -> BackgroundServer:
    """A reference server that answers each POST /plants after SLOW seconds."""
    return start_slow_server(SLOW)


RECORDS: list[Record] = [
    ("Monstera deliciosa", "701", "tropical"),
    ("Ficus lyrata", "702", ""),
    ("Aloë vera", "703", "succulent"),
    ("Pilea peperomioides", "704", "indoor"),
    ("Hoya carnosa", "705", ""),
    ("Calathea, orbifolia", "706", "shade"),
    ("Crassula ovata", "707", "succulent"),
    ("Peperomia 'Hope'", "708", "compact"),
]


@pytest.mark.parametrize("submit", ["enter", "ctrl+s"])
async def test_records_in_one_burst_arrive_whole_and_in_order(
    slow_server: BackgroundServer, submit: str
) -> None:
    app = app_for(slow_server.base_url, slow_server.token)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await pilot.press("ctrl+n")  # every record types its own id
        burst(app, keys_of(RECORDS, submit))
        screen = await drained(app, pilot, len(RECORDS))
        expected = expected_rows(RECORDS)
        stored = stored_plants(slow_server.db_path)
        assert stored == expected, describe_arrival(expected, stored)
        assert (await screen.service.attention()) == []
        assert screen.form.texts() == FormTexts(name="", id="708", tag="")
        assert app.focused is screen.form.field_input("name")


async def test_shift_tab_in_a_burst_goes_back_and_replaces_the_selected_text(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        # Back to Name (its text selected as the focus arrives), so "Ivy" replaces "Fern"; Tab
        # selects the ID, which "12" then replaces.
        keys = [*"Fern", "tab", *"99", "shift+tab", *"Ivy", "tab", *"12", "tab", *"vine", "enter"]
        burst(app, keys)
        screen = await drained(app, pilot, 1)
        assert stored_plants(reference_server.db_path) == [(12, "Ivy", "vine")]
        assert "Created plant 12 (Ivy)" in log_text(screen)


async def test_a_rejected_plant_in_a_burst_waits_with_its_fields_and_the_rest_go_on(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await pilot.press("ctrl+n")
        records: list[Record] = [
            ("First", "801", "a"),
            ("Second", "802", ""),
            ("Again", "801", "dup"),  # the server refuses a second plant 801
            ("Fourth", "804", ""),
            ("Fifth", "805", "e"),
        ]
        burst(app, keys_of(records))
        screen = await drained(app, pilot, len(records))
        good = [record for record in records if record[0] != "Again"]
        assert stored_plants(reference_server.db_path) == expected_rows(good)
        [waiting] = await screen.service.attention()
        assert waiting.state is PlantState.REJECTED
        assert waiting.typed == FormTexts(name="Again", id="801", tag="dup")
        assert "A plant with id 801 already exists" in waiting.message
        assert "1 needs attention (F4)" in screen.status.sides()[1]

        await pilot.press("f4")
        await pilot.pause()
        assert isinstance(app.screen, AttentionScreen)
        await pilot.press("delete")
        await pilot.pause()
        assert app.screen is screen
        assert (await screen.service.attention()) == []
        assert "Dismissed at 09:30:15." in screen.log_panel.entries[2].text().plain


def _reset_for(name: str) -> Any:
    """Answer as the spec says, but drop the connection on the plant called `name`."""

    def script(request: ReceivedRequest) -> list[Any]:
        if request.json().get("name") == name:
            return [Reset()]
        return spec_like(request)

    return script


async def test_a_dropped_connection_in_a_burst_is_fate_unknown_and_offered_with_a_warning() -> None:
    async with MisbehavingServer(_reset_for("Lost")) as server:
        app = app_for(server.base_url, SecretStr("token-for-a-dropping-server"))
        async with app.run_test(size=SIZE) as pilot:
            await ready(app, pilot)
            burst(app, keys_of([("Kept", "1", ""), ("Lost", "2", "x"), ("Also kept", "3", "")]))
            screen = await drained(app, pilot, 3)
            assert [request.json()["name"] for request in server.requests] == [
                "Kept",
                "Lost",
                "Also kept",
            ]
            [unknown] = await screen.service.attention()
            assert unknown.state is PlantState.UNKNOWN
            assert "(it may exist already)" in screen.log_panel.entries[1].text().plain

            await pilot.press("f4")
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            assert screen.form.texts() == FormTexts(name="Lost", id="2", tag="x")
            assert any(n.title == "Check before sending" for n in notifications_of(app))


async def test_type_ahead_during_a_slow_send_is_never_refused(
    slow_server: BackgroundServer,
) -> None:
    app = app_for(slow_server.base_url, slow_server.token)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await pilot.press(*"Aloe", "tab", *"31", "tab", *"shade", "enter")
        await pilot.press(*"Fern", "tab", "tab", *"indoor", "enter")
        await pilot.press(*"Ivy", "enter", "enter", "enter")
        await drained(app, pilot, 3)
        assert stored_plants(slow_server.db_path) == [
            (31, "Aloe", "shade"),
            (32, "Fern", "indoor"),
            (33, "Ivy", None),
        ]
        assert not any("already in flight" in n.message for n in notifications_of(app))


async def test_an_invalid_submit_is_never_queued_and_keeps_the_form(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        burst(app, [*"Fern", "tab", *"12a", "tab", *"x", "enter"])
        await settled(app, pilot)
        assert screen.log_panel.entries == []
        assert status_text(app).endswith(" ready")
        assert all_rows() == []
        assert screen.form.texts() == FormTexts(name="Fern", id="12a", tag="x")
        assert app.focused is screen.form.field_input("id")


async def test_keep_tag_keeps_the_tag_after_a_send(reference_server: BackgroundServer) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await pilot.press("ctrl+t")
        assert screen.form.keep_tag
        burst(app, [*"One", "tab", *"51", "tab", *"bench", "enter", *"Two", *["enter"] * 3])
        await drained(app, pilot, 2)
        assert stored_plants(reference_server.db_path) == [
            (51, "One", "bench"),
            (52, "Two", "bench"),
        ]
        assert screen.form.texts() == FormTexts(name="", id="53", tag="bench")


async def test_a_single_line_paste_goes_in_as_it_is_and_several_lines_are_refused(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        name = screen.form.field_input("name")
        app.post_message(events.Paste("Strelitzia  nicolai "))
        await pilot.pause()
        assert name.value == "Strelitzia  nicolai "
        app.post_message(events.Paste("Fern\nIvy\n"))
        await pilot.pause()
        assert name.value == "Strelitzia  nicolai "
        [refused] = [n for n in notifications_of(app) if n.title == "Not pasted"]
        assert "The paste has 2 lines; a field takes one" in refused.message


# --- quitting never loses work ------------------------------------------------------------------


async def _one_plant_needing_attention(app: PlantStoreApp, pilot: Any) -> SendScreen:
    screen = await ready(app, pilot)
    await pilot.press("ctrl+n")
    burst(app, keys_of([("Fern", "5", "a"), ("Ivy", "5", "b")]))
    screen = await drained(app, pilot, 2)
    assert len(await screen.service.attention()) == 1
    return screen


async def test_quit_with_a_plant_needing_attention_asks_and_esc_keeps_working(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _one_plant_needing_attention(app, pilot)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        question = app.screen
        assert "1 plant: 1 needing attention" in str(
            question.query_one("#confirm-subject").render()
        )
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        assert app.is_running
        assert len(await screen.service.attention()) == 1


async def test_quit_keeps_the_plant_in_the_ledger_and_the_next_start_offers_it_back(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        await _one_plant_needing_attention(app, pilot)
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
    assert app.return_code == 0

    for start in ("second", "third"):
        again = app_for(reference_server.base_url, reference_server.token)
        async with again.run_test(size=SIZE) as pilot:
            screen = await ready(again, pilot)
            # Offered once, as the same row, however many times the TUI starts.
            [waiting] = await screen.service.attention()
            assert waiting.typed == FormTexts(name="Ivy", id="5", tag="b"), start
            assert waiting.state is PlantState.REJECTED
            assert "1 needs attention (F4)" in screen.status.sides()[1]
            # Said in the log, where it stays; no toast hides the log's newest lines.
            assert "1 plant from an earlier session needs attention (F4)" in log_text(screen)
            assert not any(n.title == "Plants waiting" for n in notifications_of(again))
            # Nothing was sent on the way: the server holds only the first plant.
            assert stored_plants(reference_server.db_path) == [(5, "Fern", "a")]


async def test_quit_and_drop_offers_nothing_next_time(reference_server: BackgroundServer) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        await _one_plant_needing_attention(app, pilot)
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
    ledger = open_for_reading()
    assert ledger is not None
    try:
        assert ledger.pending() == []
        [dropped] = [row for row in ledger.query() if row.name == "Ivy"]
        assert dropped.dismissed
        assert "Dropped at quit" in (dropped.note or "")
    finally:
        ledger.close()


async def test_quit_with_nothing_pending_does_not_ask(reference_server: BackgroundServer) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        burst(app, keys_of([("Fern", "5", "")]))
        await drained(app, pilot, 1)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0


async def test_a_ledger_that_cannot_be_written_keeps_plants_in_memory_and_says_so(
    reference_server: BackgroundServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("PLANTSTORE_DATA_DIR", str(blocker))
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _one_plant_needing_attention(app, pilot)
        [problem] = [n for n in notifications_of(app) if n.title == "Ledger in memory"]
        assert str(blocker) in problem.message
        assert "a crash would lose" in problem.message
        await pilot.press("ctrl+q")
        await pilot.pause()
        question = app.screen
        assert isinstance(question, ChoiceScreen)
        assert "in memory only" in str(question.query_one("#confirm-detail").render())
        await pilot.press("escape")
        await pilot.pause()
        assert app.is_running
        assert len(await screen.service.attention()) == 1


async def test_a_ledger_that_cannot_be_used_stays_in_the_status_line_while_it_lasts(
    reference_server: BackgroundServer,
) -> None:
    # A ledger file another program overwrote: the TUI keeps its plants in memory for the run.
    ledger_path().parent.mkdir(parents=True, exist_ok=True)
    ledger_path().write_bytes(b"not a database, whatever its name says" * 200)
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        await until(pilot, lambda: MEMORY in status_text(app), "the ledger's state said")
        assert status_text(app).endswith(MEMORY), status_text(app)
        assert "ready" not in status_text(app)

        # Plants come and go, one needs attention: the words stay, with the count beside them.
        screen = await _one_plant_needing_attention(app, pilot)
        await settled(app, pilot)
        line = status_text(app)
        assert MEMORY in line, line
        assert "1 needs attention" in line, line
        assert str(reference_server.port) in line, "the target keeps its port"
        await pilot.press("f3")
        await pilot.pause()
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "back to the form")
        assert MEMORY in status_text(app)


# --- switching the profile with plants queued ---------------------------------------------------


async def test_switching_the_target_with_plants_queued_asks_where_they_go(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    arrived = asyncio.Event()

    def first_hangs(request: ReceivedRequest) -> list[Any]:
        if not arrived.is_set():
            arrived.set()
            return [Hang()]  # the first plant stays in flight until the server stops
        return [Send(json_response(200, {"name": request.json()["name"]}))]

    async with MisbehavingServer(first_hangs) as old, MisbehavingServer(spec_like) as new:
        app = app_for(old.base_url, SecretStr("token-for-the-old-target"))
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            burst(app, keys_of([("Held", "1", ""), ("Waiting", "2", "")]))
            await asyncio.wait_for(arrived.wait(), 10)
            await pilot.pause()
            monkeypatch.setenv("NEW_TOKEN", "token-for-the-new-target")
            ProfileStore().add(Profile(name="new", base_url=new.base_url, token_env="NEW_TOKEN"))
            assert not app.use_profile("new")  # Enter on it in F2
            await pilot.pause()
            assert isinstance(app.screen, ChoiceScreen)
            await pilot.press("h")  # hold them: they wait in needs attention
            await pilot.pause()
            waiting = [row for row in (await screen.service.attention()) if row.name == "Waiting"]
            assert [(row.state, row.held) for row in waiting] == [(PlantState.QUEUED, True)]
            assert len(old.requests) == 1
            assert new.requests == []


async def test_needs_attention_shows_a_megabyte_error_message_bounded() -> None:
    error = {"error": 7, "message": "M" * 1_048_000}
    async with MisbehavingServer([Send(json_response(400, error))]) as server:
        app = app_for(server.base_url, SecretStr("token-for-a-long-winded-server"))
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            await fill(pilot, screen, name="Rose", id="5")
            await send_and_wait(pilot, app, "enter")
            await pilot.press("f4")
            await pilot.pause()
            attention = app.screen
            assert isinstance(attention, AttentionScreen)
            [option] = attention.query_one(OptionList).options
            shown = str(option.prompt)
    assert "Rejected with 400: error 7: MMM" in shown
    assert "(message: 1,048,000 characters, first 200 shown)" in shown
    assert len(shown) < 500
