"""Verified entry as an operator meets it: with --verify every plant is keyed twice, the second
time blind; keyed once it is not sent, keyed twice the same it is sent once, keyed twice
differently nothing is sent until the difference is settled, both values on screen. Every plant
goes through the real TUI to a real reference server on 127.0.0.1."""

from __future__ import annotations

import json

import pytest
from burst_support import stored_plants
from click.testing import CliRunner
from keys_support import burst, keys_of
from ledger_support import all_rows
from snapshot_apps.support import fixed_clock, ready, settled, target_of, until
from textual.pilot import Pilot
from textual.widgets import Input

from plantstore_tui.cli import main
from plantstore_tui.core.sending.connection import connect_to, connect_to_profile
from plantstore_tui.core.store import HistoryEntry
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.differences import DifferencesScreen
from plantstore_tui.ui.screens.send import SendScreen

SIZE = (80, 24)


def verifying_app(server: BackgroundServer) -> PlantStoreApp:
    """The TUI as `plantstore-tui --verify --base-url URL` opens it."""
    target = target_of(server.base_url, server.token)
    return PlantStoreApp(
        lambda: connect_to(target), TargetLabel.of(target), clock=fixed_clock, verify=True
    )


async def key(pilot: Pilot[None], name: str, plant_id: str, tag: str = "") -> None:
    """Key one plant into the form, key by key, and press Enter on Tag."""
    await pilot.press(*name, "tab", "end", "ctrl+u", *plant_id, "tab", *tag, "enter")


def ids(server: BackgroundServer) -> list[int]:
    """The ids the reference server stored."""
    return [row[0] for row in stored_plants(server.db_path)]


def stored(server: BackgroundServer, plant_id: int) -> list[tuple[int, str, str | None]]:
    """The stored plants of this id."""
    return [row for row in stored_plants(server.db_path) if row[0] == plant_id]


def ledger_row(screen: SendScreen, plant_id: int) -> HistoryEntry:
    """The one ledger row of this id."""
    [row] = [row for row in all_rows() if row.plant_id == plant_id]
    return row


def state(screen: SendScreen) -> str:
    return screen.status.sides()[1]


async def test_a_plant_keyed_once_is_not_sent_and_keyed_twice_the_same_is_sent_once(
    reference_server: BackgroundServer, plant_id: int
) -> None:
    app = verifying_app(reference_server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        assert "verify" in state(screen)
        await key(pilot, "Fern", str(plant_id), "shade")
        await settled(app, pilot)
        # Kept, not taken: the form is empty again (blind), asking for the same plant.
        assert plant_id not in ids(reference_server)
        assert screen.form.texts().name == ""
        assert screen.form.texts().tag == ""
        assert "key it again" in state(screen)
        assert screen.form.border_title == "Same plant again, blind"
        assert screen.log_panel.entries == []
        await key(pilot, "Fern", f" {plant_id}", "shade")
        await until(pilot, lambda: len(screen.log_panel.entries) == 1, "the plant's entry")
        await settled(app, pilot)
        assert stored(reference_server, plant_id) == [(plant_id, "Fern", "shade")]
        assert "key it again" not in state(screen)
        row = ledger_row(screen, plant_id)
        assert row.verified == 0


async def test_two_keyings_that_differ_send_nothing_until_the_difference_is_settled(
    reference_server: BackgroundServer, plant_id: int
) -> None:
    app = verifying_app(reference_server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await key(pilot, "Fern", str(plant_id))
        await key(pilot, "Fren", str(plant_id))
        await until(pilot, lambda: isinstance(app.screen, DifferencesScreen), "the differences")
        shown = str(app.screen.query_one("#differences-panel").render()) + " ".join(
            str(widget.render()) for widget in app.screen.query(".keyings")
        )
        # Both values on screen, only the field that differs asked about.
        assert "“Fern”" in shown
        assert "“Fren”" in shown
        assert [widget.id for widget in app.screen.query(Input)] == ["name"]
        assert plant_id not in ids(reference_server)
        # The first keying was right: ↑ takes it, Enter takes the plant.
        await pilot.press("up", "enter")
        await until(pilot, lambda: len(screen.log_panel.entries) == 1, "the plant's entry")
        await settled(app, pilot)
        assert stored(reference_server, plant_id) == [(plant_id, "Fern", None)]
        row = ledger_row(screen, plant_id)
        assert row.verified == 1
        shown = CliRunner().invoke(main, ["history", "show", str(row.entry)])
        assert "verified: keyed twice, 1 field corrected" in shown.output
        # The shift's summary counts it.
        summary = CliRunner().invoke(main, ["history", "summary", "--json"])
        counted = json.loads(summary.stdout)
        assert (counted["verified"], counted["corrected"]) == (1, 1)
        table = CliRunner().invoke(main, ["history", "summary"])
        assert "Verified" in table.output
        assert "1 (1 field corrected)" in table.output


async def test_a_field_keyed_a_third_time_settles_it_and_esc_takes_nothing(
    reference_server: BackgroundServer, plant_id: int
) -> None:
    app = verifying_app(reference_server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await key(pilot, "Fern", str(plant_id))
        await key(pilot, "Fern", str(plant_id + 1))
        await until(pilot, lambda: isinstance(app.screen, DifferencesScreen), "the differences")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "back to the form")
        await settled(app, pilot)
        assert plant_id not in ids(reference_server)
        assert plant_id + 1 not in ids(reference_server)
        # The second keying stays in the form; sent, it is the first keying of the plant again.
        assert screen.form.texts() == ("Fern", str(plant_id + 1), "")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: screen.form.texts().name == "", "the form blind again")
        # The ID differs again: keyed a third time, it is the ID sent.
        await key(pilot, "Fern", str(plant_id))
        await until(pilot, lambda: isinstance(app.screen, DifferencesScreen), "the differences")
        await pilot.press(*str(plant_id), "enter")
        await until(pilot, lambda: len(screen.log_panel.entries) == 1, "the plant's entry")
        await settled(app, pilot)
        assert stored(reference_server, plant_id) == [(plant_id, "Fern", None)]
        assert plant_id + 1 not in ids(reference_server)


async def test_records_keyed_twice_in_one_write_verify_like_keyings_by_hand(
    reference_server: BackgroundServer, plant_id: int
) -> None:
    records = [(f"Plant {n}", str(plant_id + n), "t") for n in range(3)]
    twice = [record for record in records for _ in range(2)]
    app = verifying_app(reference_server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        burst(app, keys_of(twice))
        await until(pilot, lambda: len(screen.log_panel.entries) == 3, "three entries")
        await settled(app, pilot)
        assert [stored(reference_server, plant_id + n) for n in range(3)] == [
            [(plant_id + n, f"Plant {n}", "t")] for n in range(3)
        ]


async def test_a_profile_that_says_verify_keys_every_plant_twice(
    reference_server: BackgroundServer, plant_id: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VERIFY_TOKEN", reference_server.token.get_secret_value())
    saved = CliRunner().invoke(
        main,
        [
            "profile",
            "add",
            "keyed-twice",
            "--base-url",
            reference_server.base_url,
            "--token-env",
            "VERIFY_TOKEN",
            "--verify",
        ],
    )
    assert saved.exit_code == 0, saved.output
    shown = CliRunner().invoke(main, ["profile", "show", "keyed-twice"])
    assert "verify:    on" in shown.output
    app = PlantStoreApp(
        lambda: connect_to_profile("keyed-twice"),
        TargetLabel(base_url=reference_server.base_url, token_source="$VERIFY_TOKEN"),
        clock=fixed_clock,
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        assert "verify" in state(screen)
        await key(pilot, "Fern", str(plant_id))
        await settled(app, pilot)
        assert plant_id not in ids(reference_server)
        # Turned off from the palette's command: the next plant goes as keyed once.
        await pilot.press("ctrl+p", *"verified entry", "enter")
        await until(pilot, lambda: "verify" not in state(screen), "verify off")
        await key(pilot, "Fern", str(plant_id))
        await until(pilot, lambda: plant_id in ids(reference_server), "the plant sent")


def test_verify_is_for_the_tui_and_a_subcommand_says_so() -> None:
    result = CliRunner().invoke(main, ["--verify", "add", "--name", "Fern", "--id", "1"])
    assert result.exit_code == 2
    assert "--verify is for the TUI" in result.output


async def test_next_id_keep_tag_and_ditto_work_in_both_keyings(
    reference_server: BackgroundServer, plant_id: int
) -> None:
    app = verifying_app(reference_server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await key(pilot, "Fern", str(plant_id), "shade")
        await key(pilot, "Fern", str(plant_id), "shade")
        await until(pilot, lambda: plant_id in ids(reference_server), "the first plant sent")
        # The ID moved on: both keyings of the next plant start at it. Keep tag on.
        await pilot.press("ctrl+t")
        assert screen.form.texts().id == str(plant_id + 1)
        await pilot.press(*"Ivy", "tab", "tab", *"porch", "enter")
        # Blind: the tag typed in the first keying is not shown in the second.
        assert screen.form.texts() == ("", str(plant_id + 1), "")
        # Ditto repeats the last plant taken (Fern), not the first keying (Ivy).
        await pilot.press("ctrl+d")
        assert screen.form.texts().name == "Fern"
        await pilot.press("ctrl+u", *"Ivy", "tab", "tab", *"porch", "enter")
        await until(pilot, lambda: plant_id + 1 in ids(reference_server), "the second plant")
        assert stored(reference_server, plant_id + 1) == [(plant_id + 1, "Ivy", "porch")]
        # The kept tag is in both keyings of the plant after it.
        assert screen.form.texts() == ("", str(plant_id + 2), "porch")
        await pilot.press(*"Oak", "ctrl+s")
        assert screen.form.texts() == ("", str(plant_id + 2), "porch")
        await pilot.press(*"Oak", "ctrl+s")
        await until(pilot, lambda: plant_id + 2 in ids(reference_server), "the third plant")
        await settled(app, pilot)
        assert stored(reference_server, plant_id + 2) == [(plant_id + 2, "Oak", "porch")]
