"""The TUI on the ledger: a plant is on disk before the form lets go of it or its entry is drawn,
and the next id goes on from the last plant created on the target."""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing
from typing import Any

import pytest
from keys_support import burst, drained, keys_of
from snapshot_apps.support import (
    SIZE,
    app_for,
    ready,
    settled,
    tab_to,
    type_over,
    until,
    workers_done,
)

from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.plant.models import NewPlant, Plant
from plantstore_tui.core.plant.outcome import Created
from plantstore_tui.core.store import ledger_path
from plantstore_tui.core.store.ledger import Ledger
from plantstore_tui.core.store.opening import open_ledger
from plantstore_tui.core.store.rows import NewRow
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.widgets.plant_form import PlantForm
from plantstore_tui.ui.widgets.response_log import ResponseLog


def on_disk() -> list[tuple[str, str, str, str]]:
    """What another process reading the ledger file sees now: committed rows only."""
    uri = ledger_path().resolve().as_uri() + "?mode=ro"
    with closing(sqlite3.connect(uri, uri=True)) as connection:
        return connection.execute(
            "SELECT name_text, id_text, tag_text, state FROM plants ORDER BY entry"
        ).fetchall()


async def test_each_plant_is_on_disk_before_the_form_clears_and_before_its_entry_is_drawn(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[str, list[tuple[str, str, str, str]]]] = []
    hand_over, show_plant = PlantForm.hand_over, ResponseLog.show_plant

    def checked_hand_over(form: PlantForm, sent: FormTexts, next_id: int | None = None) -> None:
        seen.append((f"form clears {sent.name}", on_disk()))
        hand_over(form, sent, next_id)

    def checked_show(log: ResponseLog, plant: Any, after: str | None = None) -> None:
        seen.append((f"entry of {plant.texts.name} {plant.state}", on_disk()))
        show_plant(log, plant, after)

    monkeypatch.setattr(PlantForm, "hand_over", checked_hand_over)
    monkeypatch.setattr(ResponseLog, "show_plant", checked_show)
    app = app_for(reference_server.base_url, reference_server.token)
    records = [("Fern", " 61", "a"), ("Ivy", "+62", "")]
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await pilot.press("ctrl+n")
        burst(app, keys_of(records))
        await drained(app, pilot, len(records))
    for moment, rows in seen:
        name = moment.split()[2]
        typed = [(row[0], row[1], row[2]) for row in rows]
        record = next(record for record in records if record[0] == name)
        assert record in typed, f"{moment}: not on disk yet ({rows})"
        if moment.endswith("sending"):
            assert (*record, "sending") in rows, moment
    assert on_disk() == [(*record, "created") for record in records]


def created(plant_id: int) -> Created:
    return Created(
        url="u",
        sent=NewPlant(id=plant_id, name="A"),
        status=200,
        elapsed_ms=1.0,
        plant=Plant(name="A"),
        body="{}",
    )


def record_created(base_url: str, plant_id: int) -> None:
    ledger = open_ledger("add")
    try:
        entry = ledger.take(
            NewRow(
                source="add",
                texts=FormTexts(name="A", id=str(plant_id), tag=""),
                plant=NewPlant(id=plant_id, name="A"),
                base_url=base_url,
                profile=None,
            )
        )
        ledger.settle(entry, created(plant_id))
    finally:
        ledger.close()


async def test_the_next_id_goes_on_from_the_last_plant_created_on_this_target(
    reference_server: BackgroundServer,
) -> None:
    record_created(reference_server.base_url, 41)
    record_created("http://127.0.0.1:9", 900)  # another target: not this one's next id
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await workers_done(screen.app)
        await pilot.pause()
        assert screen.form.texts() == FormTexts(name="", id="42", tag="")
        # Editable as before, and a plant typed over it goes as typed.
        await pilot.press(*"Oak", "tab", "backspace", *"7", "tab", "enter")
        await settled(app, pilot)
        assert "Created plant 7 (Oak)" in screen.log_panel.plain_text()


async def test_the_next_id_is_read_once_off_the_app_thread(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A read of the ledger on the app's thread would hold every key while another program
    # writes to it.
    record_created(reference_server.base_url, 41)
    on_app_thread: list[bool] = []
    last_created_id = Ledger.last_created_id

    def recorded(ledger: Ledger, base_url: str) -> int | None:
        on_app_thread.append(threading.current_thread() is threading.main_thread())
        return last_created_id(ledger, base_url)

    monkeypatch.setattr(Ledger, "last_created_id", recorded)
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await until(pilot, lambda: screen.form.texts().id == "42", "the next id offered")
    assert on_app_thread == [False]


async def test_an_id_typed_before_the_ledger_answers_is_never_replaced(
    reference_server: BackgroundServer,
) -> None:
    record_created(reference_server.base_url, 41)
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await tab_to(pilot, screen.form.field_input("id"))
        await type_over(pilot, "5")
        screen.form.offer_next_id(42)
        assert screen.form.texts().id == "5"
