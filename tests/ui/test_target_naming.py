"""Needs attention and the history name each plant's target (host and port, and profile), and a
plant loaded from them into a form aimed at another target is asked about first."""

from __future__ import annotations

from ledger_support import failed, new_row, opened, take_settled
from snapshot_apps.support import SIZE, app_for, ready, until
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import DataTable, OptionList

from plantstore_tui.core.store.records import PlantState
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.screens.attention import AttentionScreen
from plantstore_tui.ui.screens.confirm import ConfirmScreen
from plantstore_tui.ui.screens.history import HistoryScreen
from plantstore_tui.ui.screens.send import SendScreen

ELSEWHERE = "http://127.0.0.1:9"


def seed(here: str) -> None:
    """Two plants that did not go through: Yew for staging on another port, Fern for `here`."""
    with opened() as ledger:
        for name, id, base_url, profile in (
            ("Yew", "7", ELSEWHERE, "staging"),
            ("Fern", "8", here, None),
        ):
            row = new_row(name, id, source="tui", base_url=base_url, profile=profile)
            take_settled(ledger, row, failed(row.plant, base_url=base_url))


def asking(app: App[None]) -> bool:
    return isinstance(app.screen, ConfirmScreen) and bool(app.screen.query("#confirm-yes"))


async def open_attention(app: App[None], pilot: Pilot[None]) -> list[str]:
    """F4, and the text of each plant listed."""
    await pilot.press("f4")
    await until(pilot, lambda: isinstance(app.screen, AttentionScreen))
    options = app.screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_needs_attention_names_each_plants_target_and_marks_another(
    reference_server: BackgroundServer,
) -> None:
    here = reference_server.base_url
    seed(here)
    app = app_for(here, reference_server.token)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        yew, fern = await open_attention(app, pilot)
        assert "\n    to staging · 127.0.0.1:9  not the form's target" in yew
        port = here.rsplit(":", 1)[1]
        assert f"\n    to 127.0.0.1:{port}\n" in fern
        assert "not the form's target" not in fern


async def test_loading_a_plant_meant_for_another_target_asks_first(
    reference_server: BackgroundServer,
) -> None:
    here = reference_server.base_url
    seed(here)
    app = app_for(here, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await open_attention(app, pilot)
        await pilot.press("enter")  # Yew, the first: meant for staging
        await until(pilot, lambda: asking(app))
        question = app.screen
        assert isinstance(question, ConfirmScreen)
        words = " ".join(str(static.render()) for static in question.query("Static"))
        title = str(question.query_one("#confirm-panel").border_title)
        assert title == "Load a plant meant for another target?"
        assert "was for   staging · 127.0.0.1:9" in words
        port = here.rsplit(":", 1)[1]
        assert f"the form  127.0.0.1:{port}" in words
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)
        # Cancelled: the form is as it was, the plant still needs attention.
        assert screen.form.texts().name == ""
        assert [p.typed.name for p in (await screen.service.attention())] == [
            "Yew",
            "Fern",
        ]

        await open_attention(app, pilot)
        await pilot.press("enter")
        await until(pilot, lambda: asking(app))
        await pilot.press("enter")  # Load it
        await until(pilot, lambda: app.screen is screen and screen.form.texts().name == "Yew")
        assert [p.typed.name for p in (await screen.service.attention())] == ["Fern"]

        # A plant for this very target loads at once, without a question.
        await open_attention(app, pilot)
        await pilot.press("delete")  # nothing typed is lost: Fern is dismissed, not loaded
        await until(pilot, lambda: app.screen is screen)
        assert (await screen.service.attention()) == []


async def test_a_plant_for_this_target_loads_without_a_question(
    reference_server: BackgroundServer,
) -> None:
    here = reference_server.base_url
    seed(here)
    app = app_for(here, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await open_attention(app, pilot)
        await pilot.press("down", "enter")  # Fern, the second: meant for this target
        await until(pilot, lambda: app.screen is screen and screen.form.texts().name == "Fern")
        assert [p.typed.name for p in (await screen.service.attention())] == ["Yew"]


async def test_the_history_names_each_sends_target_and_asks_before_loading_another(
    reference_server: BackgroundServer,
) -> None:
    here = reference_server.base_url
    seed(here)
    app = app_for(here, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await pilot.press("f3")
        history = app.screen
        assert isinstance(history, HistoryScreen)
        table = history.query_one(DataTable)
        await until(pilot, lambda: table.row_count == 2)
        labels = [str(column.label) for column in table.ordered_columns]
        targets = [str(table.get_row_at(row)[labels.index("target")]) for row in (0, 1)]
        port = here.rsplit(":", 1)[1]
        # Newest first: Fern (here), then Yew (staging).
        assert targets == [f"127.0.0.1:{port}", "127.0.0.1:9"]
        assert str(table.get_row_at(1)[labels.index("profile")]) == "staging"

        await pilot.press("down", "l")  # load Yew
        await until(pilot, lambda: asking(app))
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is screen and screen.form.texts().name == "Yew")
        assert isinstance(app.screen, SendScreen)
        assert screen.form.texts().id == "7"
        # Loading from the history leaves needs attention as it was.
        assert len(await screen.service.attention()) == 2
        assert all(p.state is PlantState.FAILED for p in (await screen.service.attention()))
