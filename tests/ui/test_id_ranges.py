"""A profile's range of ids in the TUI (issue 35), as operators meet it at 80x24: two operators
with disjoint ranges, each with a data directory of their own, on one reference server on
127.0.0.1; the ID field's hint, the warning of an id outside the range, the last ids counted
down, and a range used up."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from seen_support import screen_text
from snapshot_apps.support import app_with, ready, settled, until, workers_done
from textual.pilot import Pilot

from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.config.targets import profile_target
from plantstore_tui.core.sending.connection import connect_to_profile
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.send import SendScreen

# As an operator's terminal is at its smallest.
SIZE = (80, 24)


@pytest.fixture(autouse=True)
def profiles(
    monkeypatch: pytest.MonkeyPatch, reference_server: BackgroundServer
) -> BackgroundServer:
    """ann's range and bob's (a short one) on one deployment, in one profiles.toml."""
    monkeypatch.setenv("PLANTS_TOKEN", reference_server.token.get_secret_value())
    store = ProfileStore()
    store.path.parent.mkdir(parents=True, exist_ok=True)
    url = reference_server.base_url
    store.path.write_text(
        f'[profiles.ann]\nbase_url = "{url}"\ntoken_env = "PLANTS_TOKEN"\nids = "70000-70999"\n\n'
        f'[profiles.bob]\nbase_url = "{url}"\ntoken_env = "PLANTS_TOKEN"\nids = "80000-80011"\n'
    )
    return reference_server


def app_of(name: str, data: Path, monkeypatch: pytest.MonkeyPatch) -> PlantStoreApp:
    """The TUI on profile `name`, keeping its ledger in `data` (this operator's own)."""
    monkeypatch.setenv("PLANTSTORE_DATA_DIR", str(data))
    store = ProfileStore()
    label = TargetLabel.of(profile_target(store.get(name), store.tokens, {"PLANTS_TOKEN": "x"}))
    return app_with(lambda: connect_to_profile(name), label)


async def started(app: PlantStoreApp, pilot: Pilot[None]) -> SendScreen:
    screen = await ready(app, pilot)
    await workers_done(app)
    await pilot.pause()
    return screen


async def send(app: PlantStoreApp, pilot: Pilot[None], name: str, plant_id: str = "") -> None:
    """Type a name (and an id over the one offered, if given) and send; wait for the answer."""
    id_keys = ("end", "ctrl+u", *plant_id) if plant_id else ()
    await pilot.press(*name, "tab", *id_keys, "ctrl+s")
    await settled(app, pilot)
    await workers_done(app)
    await pilot.pause()


def id_of(screen: SendScreen) -> str:
    return screen.form.texts().id


def hint(screen: SendScreen) -> str:
    return str(screen.form.field_input("id").border_subtitle)


def id_message(screen: SendScreen) -> str:
    found = screen.form.query("#id-message")
    return str(found.first().render()) if found else ""


def ids_on(server: BackgroundServer) -> list[int]:
    with sqlite3.connect(server.db_path) as db:
        return [row[0] for row in db.execute("SELECT id FROM plants ORDER BY id")]


async def test_two_operators_with_disjoint_ranges_propose_and_send_only_their_own_ids(
    profiles: BackgroundServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, first in (("ann", 70000), ("bob", 80000)):
        app = app_of(name, tmp_path / f"{name}-data", monkeypatch)
        async with app.run_test(size=SIZE) as pilot:
            screen = await started(app, pilot)
            assert id_of(screen) == str(first)
            await send(app, pilot, "Fern")
            await send(app, pilot, "Ivy")
            assert id_of(screen) == str(first + 2)
            assert str(first + 2) in hint(screen)
    assert ids_on(profiles) == [70000, 70001, 80000, 80001]


async def test_the_id_field_hint_names_the_range_and_the_next_free_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = app_of("ann", tmp_path / "ann-data", monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(app, pilot)
        assert hint(screen) == "70000-70999 · next 70000"
        assert "70000-70999 · next 70000" in screen_text(app)


async def test_an_id_typed_outside_the_range_is_warned_of_and_still_sent(
    profiles: BackgroundServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = app_of("ann", tmp_path / "ann-data", monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(app, pilot)
        await pilot.press("tab", "end", "ctrl+u", "5")
        warning = "5 is outside this profile's ids (70000-70999)."
        await until(pilot, lambda: id_message(screen) == warning, "the range warning")
        await pilot.press("shift+tab", *"Fern", "tab", "ctrl+s")
        await settled(app, pilot)
    assert ids_on(profiles) == [5]


async def test_the_last_ten_ids_are_counted_down_and_none_is_proposed_past_the_end(
    profiles: BackgroundServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = app_of("bob", tmp_path / "bob-data", monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(app, pilot)
        assert id_message(screen) == ""
        await send(app, pilot, "A")
        await send(app, pilot, "B")
        assert id_of(screen) == "80002"
        left = "10 ids left in 80000-80011, this one included."
        await until(pilot, lambda: id_message(screen) == left, "ten ids left")
        for name in "CDEFGHIJ":
            await send(app, pilot, name)
        assert id_of(screen) == "80010"
        await send(app, pilot, "K")
        last = "1 id left in 80000-80011, this one included."
        await until(pilot, lambda: id_message(screen) == last, "one id left")
        await send(app, pilot, "L")
        assert id_of(screen) == ""
        assert id_message(screen) == "No id is left in 80000-80011: type one."
        assert "all taken" in hint(screen)
    assert ids_on(profiles) == list(range(80000, 80012))


async def test_a_ledger_that_cannot_be_read_never_says_the_range_is_used_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from plantstore_tui.core.sending import session as session_module
    from plantstore_tui.core.store import StoreError

    app = app_of("ann", tmp_path / "ann", monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(app, pilot)
        assert id_of(screen) == "70000"

        def unreadable(*_: object, **__: object) -> int | None:
            raise StoreError(tmp_path / "plantstore.sqlite3", "disk I/O error")

        monkeypatch.setattr(session_module, "reserve_next_free_id", unreadable)
        await send(app, pilot, "Aloe")
        # The next id is not known: not "No id is left", and the hint says no "all taken".
        assert "No id is left" not in screen_text(app)
        assert "all taken" not in hint(screen)
