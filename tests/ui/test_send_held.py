"""Needs attention (F4) sends the held plants of the form's target with one key, in order, after
one question naming how many and where; a plant of unknown fate stays to be checked one by one.

The user's path: the token is refused, plants wait in line, Ctrl+Q "offer them next time"; the
next start has the token right, F4, one key, one answer, and the plants are created in order."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable

import pytest
from burst_support import stored_plants
from keys_support import burst, drained, keys_of
from ledger_support import new_row, opened
from pydantic import SecretStr
from seen_support import notifications_of, screen_text
from snapshot_apps.support import app_for, app_with, ready, settled, until
from textual.widgets import OptionList

from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.http.address import host_port
from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.sending.connection import connect_to_profile
from plantstore_tui.core.store import PlantState, open_for_reading
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.attention import AttentionScreen
from plantstore_tui.ui.screens.confirm import ChoiceScreen
from plantstore_tui.ui.screens.summary import SummaryScreen

SIZES = pytest.mark.parametrize("size", [(80, 24), (110, 32)], ids=["80x24", "110x32"])
# Ids falling as they are typed: the server's order of arrival cannot be mistaken for id order.
HELD = [("Fern", "13", "shade"), ("Ivy", "12", ""), ("Aloe", "11", "sun")]


@pytest.fixture
def server(start_slow_server: Callable[[float], BackgroundServer]) -> BackgroundServer:
    """A reference server slow enough that each plant stored has a moment of its own."""
    return start_slow_server(0.01)


def flat(text: str) -> str:
    """The words on screen, the panels' side borders taken out."""
    return " ".join(text.replace("│", " ").replace("█", " ").split())


@SIZES
async def test_held_plants_go_in_order_with_one_key_after_one_question(
    server: BackgroundServer, size: tuple[int, int]
) -> None:
    # A plant that was on its way when an earlier plantstore-tui ended: it may exist already.
    with opened("tui") as ledger:
        ledger.take(new_row("Rose", "10", source="tui", base_url=server.base_url))

    refused = app_for(server.base_url, SecretStr("a-token-the-deployment-refuses"))
    async with refused.run_test(size=size) as pilot:
        await ready(refused, pilot)
        await pilot.press("ctrl+n")  # the ids as typed
        burst(refused, keys_of(HELD))
        await drained(refused, pilot, len(HELD))
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(refused.screen, ChoiceScreen), "the quit question")
        await pilot.press("s")  # Quit, offer them next time
        await pilot.pause()
    assert stored_plants(server.db_path) == []

    app = app_for(server.base_url, server.token)
    async with app.run_test(size=size) as pilot:
        screen = await ready(app, pilot)
        await pilot.press("f4")
        await until(pilot, lambda: isinstance(app.screen, AttentionScreen), "needs attention")
        listed = flat(screen_text(app))
        assert "Needs attention (4)" in listed
        assert "Ctrl+S: send the 3 held plants" in listed

        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "one question")
        question = flat(screen_text(app))
        assert "3 held plants" in question
        assert host_port(server.base_url) in question
        assert "Fern" in question
        assert "Aloe" in question
        assert stored_plants(server.db_path) == [], "nothing goes before the answer"

        await pilot.press("s")
        await until(pilot, lambda: len(stored_plants(server.db_path)) == len(HELD), "all three")
        await settled(app, pilot)
        assert stored_plants(server.db_path) == [
            (13, "Fern", "shade"),
            (12, "Ivy", None),
            (11, "Aloe", "sun"),
        ]
        # Only the plant of unknown fate still waits, to be checked and loaded one by one.
        [waiting] = await screen.service.attention()
        assert (waiting.name, waiting.state) == ("Rose", PlantState.UNKNOWN)
        assert "1 needs attention (F4)" in screen.status.sides()[1]
        # The form was not touched: a plant sent from F4 is not a plant typed.
        assert screen.form.texts().name == ""

    ledger = open_for_reading()
    assert ledger is not None
    try:
        rows = sorted(ledger.query(), key=lambda row: row.entry)
    finally:
        ledger.close()
    held = [row for row in rows if row.held]
    # Each held row dealt with as a plant loaded and sent: released, with a note saying so.
    assert [row.typed for row in held] == [FormTexts(*plant) for plant in HELD]
    assert all(row.dismissed for row in held)
    assert all("Sent again from needs attention" in (row.note or "") for row in held)
    sent = [row for row in rows if row.state is PlantState.CREATED]
    assert [row.typed for row in sent] == [FormTexts(*plant) for plant in HELD]
    assert min(row.entry for row in sent) > max(row.entry for row in held)


async def test_no_held_plant_for_this_target_means_no_send_key(server: BackgroundServer) -> None:
    # Held for another deployment: loaded one by one, into a form that says where it goes.
    with opened("tui") as ledger:
        ledger.take(new_row("Rose", "10", source="tui", state=PlantState.QUEUED))
    app = app_for(server.base_url, server.token)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        await pilot.press("f4")
        await until(pilot, lambda: isinstance(app.screen, AttentionScreen), "needs attention")
        assert app.screen.query_one(OptionList).option_count == 1
        assert "Ctrl+S" not in screen_text(app)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, AttentionScreen)
    assert stored_plants(server.db_path) == []


def hold(base_url: str, plants: list[tuple[str, str, str]], profile: str | None = None) -> None:
    """Plants an earlier plantstore-tui had queued when it ended: held, offered in F4."""
    with opened("tui") as ledger:
        for name, plant_id, tag in plants:
            ledger.take(
                new_row(
                    name,
                    plant_id,
                    tag,
                    source="tui",
                    state=PlantState.QUEUED,
                    base_url=base_url,
                    profile=profile,
                )
            )


async def test_esc_at_the_question_sends_nothing_and_keeps_them_held(
    server: BackgroundServer,
) -> None:
    hold(server.base_url, HELD[:2])
    app = app_for(server.base_url, server.token)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await ready(app, pilot)
        await pilot.press("f4")
        await until(pilot, lambda: isinstance(app.screen, AttentionScreen), "needs attention")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "one question")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "back to the form")
        await settled(app, pilot)
        assert [n.title for n in notifications_of(app)][-1] == "Not sent"
        held = await screen.service.attention()
        assert [(plant.name, plant.never_sent) for plant in held] == [("Fern", True), ("Ivy", True)]
    assert stored_plants(server.db_path) == []


async def test_a_protected_profile_is_asked_once_for_them_all(
    server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HELD_TOKEN", server.token.get_secret_value())
    ProfileStore().add(
        Profile(name="prod", base_url=server.base_url, token_env="HELD_TOKEN", protected=True)
    )
    hold(server.base_url, HELD, profile="prod")
    label = TargetLabel(base_url="loading…", token_source="the profile", profile="prod")
    app = app_with(lambda: connect_to_profile("prod"), label)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await ready(app, pilot)
        await pilot.press("f4")
        await until(pilot, lambda: isinstance(app.screen, AttentionScreen), "needs attention")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "one question")
        question = flat(screen_text(app))
        assert "3 held plants to prod · " in question
        assert "marked protected: this answer confirms these sends" in question
        await pilot.press("s")
        await until(pilot, lambda: len(stored_plants(server.db_path)) == len(HELD), "all three")
        await settled(app, pilot)
        assert app.screen is screen, "no second question"
        assert [plant[0] for plant in stored_plants(server.db_path)] == [13, 12, 11]
        assert (await screen.service.attention()) == []


async def test_a_plant_another_tui_dealt_with_meanwhile_is_not_sent(
    server: BackgroundServer,
) -> None:
    hold(server.base_url, HELD)
    app = app_for(server.base_url, server.token)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await ready(app, pilot)
        await pilot.press("f4")
        await until(pilot, lambda: isinstance(app.screen, AttentionScreen), "needs attention")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "one question")
        ivy = next(plant for plant in (await screen.service.attention()) if plant.name == "Ivy")
        with opened("tui") as other:
            assert other.release(ivy.entry, "Loaded into the form at 09:30:15.")
        await pilot.press("s")
        await until(pilot, lambda: len(stored_plants(server.db_path)) >= 2, "the other two")
        await settled(app, pilot)
    assert stored_plants(server.db_path) == [(13, "Fern", "shade"), (11, "Aloe", "sun")]


def plantstore(*arguments: str) -> str:
    """`plantstore-tui ARGUMENTS` run as an operator runs it in a second terminal: its stdout."""
    done = subprocess.run(
        [sys.executable, "-m", "plantstore_tui", *arguments],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_a_plant_sent_again_is_one_plant_in_the_history_and_the_counts(
    server: BackgroundServer,
) -> None:
    hold(server.base_url, HELD)
    app = app_for(server.base_url, server.token)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        await pilot.press("f4")
        await until(pilot, lambda: isinstance(app.screen, AttentionScreen), "needs attention")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "one question")
        await pilot.press("s")
        await until(pilot, lambda: len(stored_plants(server.db_path)) == len(HELD), "all three")
        await settled(app, pilot)

        await pilot.press("f7")
        await until(pilot, lambda: isinstance(app.screen, SummaryScreen), "the summary")
        summary = app.screen
        assert isinstance(summary, SummaryScreen)
        await until(pilot, lambda: summary.summary is not None, "the summary read")
        await pilot.pause()
        shown = flat(screen_text(app))
        assert "3 plants taken" in shown, shown
        assert "Created 3" in shown, shown

    listed = json.loads(plantstore("history", "--json"))
    new = {row["entry"]: row for row in listed if not row["held"]}
    old = [row for row in listed if row["held"]]
    assert len(new) == len(old) == len(HELD)
    for row in old:
        # The held row names the send that took its place, whose fate is the plant's.
        assert row["sent_again_as"] in new, row
        assert new[row["sent_again_as"]]["sent"] == row["sent"]
        assert new[row["sent_again_as"]]["state"] == "created"
    table = plantstore("history")
    assert "held (not sent)" not in table, table
    for row in old:
        assert f"sent again as #{row['sent_again_as']}" in table, table

    # Listed by state, each plant stands where its new send stands: created, not queued.
    assert json.loads(plantstore("history", "--state", "queued", "--json")) == []
    created = json.loads(plantstore("history", "--state", "created", "--json"))
    assert sorted(row["entry"] for row in created) == sorted(new)

    counted = json.loads(plantstore("history", "summary", "--json"))
    assert (counted["taken"], counted["created"]) == (len(HELD), len(HELD)), counted
