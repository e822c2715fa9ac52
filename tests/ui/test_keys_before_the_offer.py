"""Keys typed before next id's offer arrives (issue 42): on a target with a range of ids the form
offers the next free id once the target is connected, a moment after the screen is up. Keys
typed meanwhile mean what they would have meant a second later: ID left to next id gets the
offer, an id typed stays, and nothing is refused or put in the wrong field.

The connection is held (`Gate`) until the keys are applied, so the offer surely comes after
them; the plants go to the real reference server on 127.0.0.1.
"""

from __future__ import annotations

import threading

import pytest
from burst_support import stored_plants
from keys_support import burst, drained
from seen_support import notifications_of
from snapshot_apps.support import app_with, until
from textual.pilot import Pilot

from plantstore_tui.core.config.errors import TokenError
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.plant.id_range import IdRange
from plantstore_tui.core.sending.connection import Connection, connect_to
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens import send
from plantstore_tui.ui.screens.send import SendScreen

SIZE = (80, 24)
RANGE = IdRange(70000, 70999)
# Bounded: a connection the test never opens would otherwise hang the suite.
GATE_SECONDS = 30.0


class Gate:
    """A connection made only once the test opens the gate (a keyring slow to answer)."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.opened = threading.Event()
        self.error: Exception | None = None

    def connect(self) -> Connection:
        if not self.opened.wait(GATE_SECONDS):
            raise TimeoutError("the test never opened the gate")
        if self.error is not None:
            raise self.error
        return connect_to(self.target)


@pytest.fixture
def gate(reference_server: BackgroundServer) -> Gate:
    return Gate(
        Target(
            base_url=reference_server.base_url,
            token=reference_server.token,
            token_source="the test",
            ids=RANGE,
        )
    )


def app_on(gate: Gate) -> PlantStoreApp:
    return app_with(gate.connect, TargetLabel.of(gate.target))


async def applied(app: PlantStoreApp, pilot: Pilot[None], keys: list[str]) -> SendScreen:
    """Post `keys` as one write of a terminal and let the app take every one of them."""
    screen = app.get_default_screen()
    assert isinstance(screen, SendScreen)
    burst(app, keys)
    await pilot.pause()
    await pilot.pause()
    return screen


def records(*plants: tuple[str, str, str]) -> list[str]:
    """The keys of plants typed Name, Tab, ID (empty: left to next id), Tab, Tag, Enter."""
    keys: list[str] = []
    for name, plant_id, tag in plants:
        keys += [*name, "tab", *plant_id, "tab", *tag, "enter"]
    return keys


def opened(gate: Gate, error: Exception | None = None) -> None:
    gate.error = error
    gate.opened.set()


async def test_plants_left_to_next_id_before_the_offer_get_the_ids_offered_in_turn(
    gate: Gate, reference_server: BackgroundServer
) -> None:
    app = app_on(gate)
    async with app.run_test(size=SIZE) as pilot:
        keys = records(("Fern", "", "indoor"), ("Rose", "", ""), ("Ivy", "", "porch"))
        screen = await applied(app, pilot, keys)
        opened(gate)
        await drained(app, pilot, 3)
        assert screen.form.texts().id == "70003"
        assert screen.form.next_id_after_success
    assert stored_plants(reference_server.db_path) == [
        (70000, "Fern", "indoor"),
        (70001, "Rose", None),
        (70002, "Ivy", "porch"),
    ]


async def test_an_id_typed_before_the_offer_is_kept_and_the_next_goes_on_from_it(
    gate: Gate, reference_server: BackgroundServer
) -> None:
    app = app_on(gate)
    async with app.run_test(size=SIZE) as pilot:
        screen = await applied(app, pilot, records(("Fern", "70500", ""), ("Rose", "", "")))
        opened(gate)
        await drained(app, pilot, 2)
        assert screen.form.texts().id == "70502"
    assert stored_plants(reference_server.db_path) == [(70500, "Fern", None), (70501, "Rose", None)]


async def test_an_id_typed_outside_the_range_before_the_offer_is_followed_by_the_range(
    gate: Gate, reference_server: BackgroundServer
) -> None:
    # A second later the range is known: the plant after an id from elsewhere is offered the
    # range's first free id, not the id after the one typed.
    app = app_on(gate)
    async with app.run_test(size=SIZE) as pilot:
        screen = await applied(app, pilot, records(("Fern", "5", ""), ("Rose", "", "")))
        opened(gate)
        await drained(app, pilot, 2)
        assert screen.form.texts().id == "70001"
    assert stored_plants(reference_server.db_path) == [(5, "Fern", None), (70000, "Rose", None)]


async def test_the_offer_arriving_in_an_empty_id_being_typed_in_is_typed_over(
    gate: Gate, reference_server: BackgroundServer
) -> None:
    # Tab into ID, then the offer: a second later, Tab into ID had selected the offer.
    app = app_on(gate)
    async with app.run_test(size=SIZE) as pilot:
        screen = await applied(app, pilot, [*"Fern", "tab"])
        opened(gate)
        await until(pilot, lambda: screen.form.texts().id == "70000", "the offer in ID")
        await pilot.press(*"70700", "enter", "enter")
        await drained(app, pilot, 1)
    assert stored_plants(reference_server.db_path) == [(70700, "Fern", None)]


async def test_next_id_switched_off_before_the_offer_is_off_as_a_second_later(
    gate: Gate, reference_server: BackgroundServer
) -> None:
    app = app_on(gate)
    async with app.run_test(size=SIZE) as pilot:
        screen = await applied(app, pilot, ["ctrl+n", *"Fern", "tab", "tab", "enter"])
        opened(gate)
        await drained(app, pilot, 1)
        assert not screen.form.next_id_after_success
        # The offer had filled ID; the switch only stops it moving on.
        assert screen.form.texts() == screen.form.texts()._replace(name="", id="70000")
    assert stored_plants(reference_server.db_path) == [(70000, "Fern", None)]


async def test_keys_held_for_an_offer_that_cannot_come_are_applied_as_typed_saying_why(
    gate: Gate,
) -> None:
    # The target cannot be used: the keys go on as typed, as they would a second later (the
    # send refused for its empty ID, the cursor put there, Rose typed in it), and the operator
    # is told why no id came.
    app = app_on(gate)
    async with app.run_test(size=SIZE) as pilot:
        screen = await applied(app, pilot, [*records(("Fern", "", "")), *"Rose"])
        opened(gate, TokenError("the token file is gone"))
        await until(pilot, lambda: screen.form.texts().id == "Rose", "the keys applied")
        assert screen.form.texts() == FormTexts(name="Fern", id="Rose", tag="")
        said = [note.message for note in notifications_of(app)]
        assert said == [
            "The target cannot be used (the log says why), so next id has no id to offer: "
            "the keys typed are applied as typed."
        ]
        assert "the token file is gone" in screen.log_panel.plain_text()


async def test_keys_wait_for_a_connection_that_hangs_only_so_long(
    gate: Gate, monkeypatch: pytest.MonkeyPatch, reference_server: BackgroundServer
) -> None:
    # A keyring waiting to be unlocked: the send waits a while, then it and the keys after it
    # go on as typed, saying so; the plant is in line for the connection when it comes.
    monkeypatch.setattr(send, "OFFER_WAIT_SECONDS", 0.2)
    app = app_on(gate)
    async with app.run_test(size=SIZE) as pilot:
        screen = await applied(app, pilot, [*records(("Fern", "70400", "")), *"Rose"])
        await until(pilot, lambda: screen.form.texts().name == "Rose", "the keys applied")
        said = [note.message for note in notifications_of(app)]
        assert said == [
            "The target is still being connected after 0.2 s, so next id has no id to offer "
            "yet: the keys typed are applied as typed."
        ]
        opened(gate)
        await until(pilot, lambda: screen.form.texts().id == "70401", "the offer after Fern")
        await pilot.press("tab", "tab", "enter")
        await drained(app, pilot, 2)
    assert stored_plants(reference_server.db_path) == [(70400, "Fern", None), (70401, "Rose", None)]
