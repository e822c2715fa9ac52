"""Next id is the next free id, as an operator meets it: plants created out of order by `add`,
a restart, a plant loaded from needs attention or resent from the history, a duplicate the
deployment answered. Every plant goes through the real CLI or the real TUI to a real reference
server on 127.0.0.1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from burst_support import stored_plants
from keys_support import burst, drained, keys_of
from snapshot_apps.support import SIZE, app_for, ready, settled, until, workers_done
from textual.pilot import Pilot
from textual.widgets import DataTable

from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.screens.attention import AttentionScreen
from plantstore_tui.ui.screens.history import HistoryScreen
from plantstore_tui.ui.screens.send import SendScreen


def add(server: BackgroundServer, plant_id: int, *, data_dir: Path | None = None) -> None:
    """`plantstore-tui add` from a shell: this operator's ledger, or another's (`data_dir`)."""
    env = {**os.environ, "PLANTSTORE_TOKEN": server.token.get_secret_value()}
    if data_dir is not None:
        env["PLANTSTORE_DATA_DIR"] = str(data_dir)
    argv = ["add", "--name", f"Added {plant_id}", "--id", str(plant_id)]
    result = subprocess.run(
        [sys.executable, "-m", "plantstore_tui", *argv, "--base-url", server.base_url],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


async def started(app: PlantStoreApp, pilot: Pilot[None]) -> SendScreen:
    """The TUI as the operator first sees it: connected, the ledger read, the ID offered."""
    screen = await ready(app, pilot)
    await workers_done(app)
    await pilot.pause()
    return screen


async def type_plant(pilot: Pilot[None], app: PlantStoreApp, name: str, plant_id: str) -> None:
    """Type a plant into the form, key by key, over the ID offered, and send it; wait for its
    answer."""
    screen = app.get_default_screen()
    assert isinstance(screen, SendScreen)
    await pilot.press(*name, "tab", "end", "ctrl+u", *plant_id, "ctrl+s")
    await settled(app, pilot)


def rows_listed(app: PlantStoreApp) -> int:
    screen = app.screen
    return screen.query_one(DataTable).row_count if isinstance(screen, HistoryScreen) else 0


def id_shown(screen: SendScreen) -> str:
    return screen.form.texts().id


def id_warning(screen: SendScreen) -> str:
    """What the form says under ID (a warning of an id created here), if anything."""
    found = screen.form.query("#id-message")
    return str(found.first().render()) if found else ""


async def test_ids_created_out_of_order_by_add_then_the_tui_offers_the_next_free_id(
    reference_server: BackgroundServer,
) -> None:
    for plant_id in (5, 3, 4):
        add(reference_server, plant_id)
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(app, pilot)
        assert id_shown(screen) == "6"
        assert "was created here" not in id_warning(screen)


async def test_after_a_restart_the_id_goes_on_from_the_last_plant_typed_not_the_last_created(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        await started(app, pilot)
        await type_plant(pilot, app, "Fern", "10")
        await type_plant(pilot, app, "Ivy", "11")
    # Meanwhile, from a shell: one id just after the form's, one far above it.
    add(reference_server, 12)
    add(reference_server, 40)
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(app, pilot)
        assert id_shown(screen) == "13"


async def test_a_plant_loaded_from_needs_attention_and_sent_does_not_move_the_id(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    # Another operator, on another machine, already created plant 9.
    add(reference_server, 9, data_dir=tmp_path / "another-operator")
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(app, pilot)
        await type_plant(pilot, app, "Rose", "9")  # refused: a duplicate, in needs attention
        await type_plant(pilot, app, "Fern", "10")
        await type_plant(pilot, app, "Ivy", "11")
        assert id_shown(screen) == "12"

        await pilot.press("f4")
        await until(pilot, lambda: isinstance(app.screen, AttentionScreen), "needs attention")
        await pilot.press("enter")  # load plant 9 into the form
        await until(pilot, lambda: id_shown(screen) == "9", "plant 9 in the form")
        await pilot.press("ctrl+s")
        await settled(app, pilot)
        assert screen.form.texts().name == ""
        assert id_shown(screen) == "12"
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(app, pilot)
        assert id_shown(screen) == "12"


async def test_a_plant_resent_from_the_history_does_not_move_the_id(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(app, pilot)
        await type_plant(pilot, app, "Fern", "20")
        await type_plant(pilot, app, "Ivy", "30")
        assert id_shown(screen) == "31"
        # Fern's send, the older of the two: its id typed over in the form and sent.
        await pilot.press("f3")
        await until(pilot, lambda: rows_listed(app) == 2, "the history's rows")
        await pilot.press("down", "l")
        await until(pilot, lambda: id_shown(screen) == "20", "Fern in the form")
        await pilot.press("tab", "end", "ctrl+u", *"25", "ctrl+s")
        await settled(app, pilot)
        assert (25, "Fern", None) in stored_plants(reference_server.db_path)
        assert id_shown(screen) == "31"
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(app, pilot)
        assert id_shown(screen) == "31"


async def test_an_id_the_deployment_answered_as_a_duplicate_is_skipped(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    # Plant 4 exists already, created by another operator: this ledger has never seen it.
    add(reference_server, 4, data_dir=tmp_path / "another-operator")
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(app, pilot)
        await type_plant(pilot, app, "Rose", "4")  # 400: a plant with id 4 already exists
        await type_plant(pilot, app, "Fern", "3")
        assert id_shown(screen) == "5"
        await type_plant(pilot, app, "Ivy", "1")
        assert id_shown(screen) == "2"
        await type_plant(pilot, app, "Yew", "2")
        assert id_shown(screen) == "5"  # 3 created, 4 a duplicate
        # The duplicate of this run's Ivy: ID goes on past 2 (Yew's), 3 and 4, as before it.
        await type_plant(pilot, app, "Oak", "1")
        assert id_shown(screen) == "5"
        assert "was created here" not in id_warning(screen)
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(app, pilot)
        assert id_shown(screen) == "5"


async def test_an_operator_typing_fast_after_typing_over_an_old_id_meets_one_refusal_not_a_run(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(app, pilot)
        for plant_id in range(1, 6):
            await type_plant(pilot, app, f"Plant {plant_id}", str(plant_id))
        # One write of a terminal: plant 1 again, typed over the ID offered, then two plants
        # whose IDs the form offers.
        keys = [*"Again", "tab", "end", "ctrl+u", "1", "tab", "enter"]
        burst(app, [*keys, *keys_of([("Fern", "", ""), ("Ivy", "", "")])])
        await drained(app, pilot, 8)
        stored = stored_plants(reference_server.db_path)
        assert [(plant_id, name) for plant_id, name, _ in stored[5:]] == [(6, "Fern"), (7, "Ivy")]
        [refused] = await screen.service.attention()
        assert (refused.plant_id, refused.typed.name) == (1, "Again")
        assert id_shown(screen) == "8"
