"""The TUI's history: sends kept in the ledger by the queue, the F3 screen (a page of 100,000
sends, filters, load, resend, copy as curl), the duplicate warning under ID, and a ledger that
cannot be used said once."""

from __future__ import annotations

import json
import sqlite3

import pytest
from keys_support import burst
from ledger_support import all_rows, ledger_file, new_row, opened, take_settled
from snapshot_apps.support import (
    SIZE,
    app_for,
    app_with,
    fill,
    log_text,
    ready,
    send_and_wait,
    tab_to,
    type_over,
    until,
)
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static

from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.http.conformance import against_sent
from plantstore_tui.core.plant.models import Plant
from plantstore_tui.core.plant.outcome import Created
from plantstore_tui.core.sending.connection import connect_to_profile
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.confirm import ConfirmScreen
from plantstore_tui.ui.screens.history import PAGE_SIZE, HistoryScreen


def rows() -> list[tuple[int, str | None, str]]:
    return [(row.plant_id, row.outcome, row.fate) for row in all_rows()]


async def open_history(app: App[None], pilot: Pilot[None]) -> HistoryScreen:
    await pilot.press("f3")
    screen = app.screen
    assert isinstance(screen, HistoryScreen)
    await done(app, pilot)
    return screen


async def done(app: App[None], pilot: Pilot[None], group: str = "history-read") -> None:
    """Wait for the screen's workers of `group` (an empty list would wait for every worker of
    the app)."""
    pending = [worker for worker in app.workers if worker.group == group]
    if pending:
        await app.workers.wait_for_complete(pending)
    await pilot.pause()


def detail(screen: HistoryScreen) -> str:
    return str(screen.query_one("#history-detail", Static).render())


async def test_sends_from_the_tui_are_kept_and_named_alike_in_the_log_and_the_history(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await fill(pilot, screen, name="Monstera", id="41", tag="indoor")
        await send_and_wait(pilot, app, "enter")
        [row] = all_rows()
        assert (row.plant_id, row.outcome, row.fate, row.state) == (
            41,
            "created",
            "created",
            "created",
        )
        assert (row.source, row.typed.id, row.tag) == ("tui", "41", "indoor")
        # The log's number is the ledger's entry: one number for the plant everywhere.
        assert f"#{row.entry}  POST" in log_text(screen)
        history = await open_history(app, pilot)
        table = history.query_one(DataTable)
        assert table.row_count == 1
        assert f"History #{row.entry}" in detail(history)
        assert "Created plant 41 (Monstera)" in detail(history)
        assert "from tui" in detail(history)


async def test_load_resend_and_copy_as_curl(reference_server: BackgroundServer) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await fill(pilot, screen, name="Fern", id="7", tag="shade")
        await send_and_wait(pilot, app, "enter")

        history = await open_history(app, pilot)
        await pilot.press("c")
        assert app.clipboard.startswith("curl ")
        assert '"${PLANTSTORE_TOKEN:?set PLANTSTORE_TOKEN to the token}"' in app.clipboard
        assert reference_server.token.get_secret_value() not in app.clipboard
        command = app.screen.query_one("#command-text", Static).render()
        assert app.clipboard in str(command).replace("\n", "")
        await pilot.press("escape")
        assert app.screen is history

        await pilot.press("l")
        assert app.screen is screen
        texts = screen.form.texts()
        assert (texts.name, texts.id, texts.tag) == ("Fern", "7", "shade")

        await open_history(app, pilot)
        await pilot.press("l")
        assert isinstance(app.screen, HistoryScreen), "a form being typed is not overwritten"
        await pilot.press("r")
        assert app.screen is screen
        await send_and_wait(pilot, app)
        assert rows() == [(7, "rejected", "not created"), (7, "created", "created")]
        # The resend went from the history, not the form: what was typed is still there.
        assert screen.form.texts().name == "Fern"


async def test_a_search_typed_right_after_ctrl_f_goes_in_the_search_not_to_the_table(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await fill(pilot, screen, name="Rose", id="8")
        await send_and_wait(pilot, app, "enter")
        history = await open_history(app, pilot)
        search = history.query_one("#history-search", Input)
        # Read in one go: the r of "rose" would resend the highlighted plant if it reached the
        # table, focused when Ctrl+F was read.
        burst(app, ["ctrl+f", *"rose"])
        await until(pilot, lambda: search.value == "rose", "rose in the search")
        await done(app, pilot)
        assert app.screen is history
        assert history.query_one(DataTable).row_count == 1
        assert rows() == [(8, "created", "created")]


async def test_the_id_field_warns_of_an_id_created_here(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await fill(pilot, screen, name="Fern", id="42")
        await send_and_wait(pilot, app, "enter")
        id_input = screen.form.field_input("id")
        await tab_to(pilot, id_input)
        await type_over(pilot, "42")
        # Looked up in the ledger off the event loop (the service's, not a worker): its words.
        await until(
            pilot,
            lambda: any(
                "created here" in str(said.render()) for said in screen.query("#id-message")
            ),
            "the warning under ID",
        )
        message = screen.query_one("#id-message", Static)
        assert "plant 42 was created here at" in str(message.render())
        assert message.has_class("-warning")
        assert not message.has_class("-error")
        await type_over(pilot, "43")
        await pilot.pause()
        assert "created here" not in str(message.render())


def fill_history(count: int) -> None:
    """`count` settled sends: one taken and settled as `add` does it, the rest copies of it
    made by SQLite (taking 100,000 rows one commit at a time would take minutes)."""
    with opened() as ledger:
        template = take_settled(ledger, new_row("plant 0", "0", base_url="http://h"))
    with sqlite3.connect(ledger_file()) as connection:
        connection.execute(
            "WITH RECURSIVE number(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM number "
            "WHERE n < ?) INSERT INTO plants (source, profile, base_url, name_text, id_text, "
            "tag_text, plant_id, name, tag, body, state, queued_at, sent_at, settled_at, outcome, "
            "status, response, elapsed_ms, fate, message, plant) SELECT source, profile, "
            "base_url, 'plant ' || n, n, tag_text, n, 'plant ' || n, tag, body, state, "
            "queued_at, sent_at, settled_at, outcome, status, response, elapsed_ms, fate, "
            "message, plant FROM plants, number WHERE entry = ?",
            (count - 1, template),
        )
    connection.close()


async def test_a_history_of_100000_sends_opens_a_page_at_a_time_and_filters(
    reference_server: BackgroundServer,
) -> None:
    fill_history(100_000)
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        history = await open_history(app, pilot)
        table = history.query_one(DataTable)
        assert table.row_count == PAGE_SIZE
        page = str(history.query_one("#history-page", Static).render())
        assert "1 to 100 of 100,000" in page
        await pilot.press("n")
        await done(app, pilot)
        assert "101 to 200 of 100,000" in str(history.query_one("#history-page", Static).render())

        await tab_to(pilot, history.query_one("#history-search", Input))
        await type_over(pilot, "plant 9999")
        # Each key starts a read of its own (a worker, in a thread): the last one's rows are
        # waited for, as a person does, not the workers there happen to be at that moment.
        # plant 9999 and plant 99990..99999
        await until(pilot, lambda: table.row_count == 11, "the search's 11 rows")


async def test_a_corrupt_ledger_is_said_once_left_alone_and_sends_go_on(
    reference_server: BackgroundServer,
) -> None:
    ledger_file().parent.mkdir(parents=True)
    ledger_file().write_bytes(b"not a database" * 50)
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await fill(pilot, screen, name="Fern", id="5")
        await send_and_wait(pilot, app, "enter")
        await fill(pilot, screen, name="Fern", id="6")
        await send_and_wait(pilot, app, "enter")
        text = log_text(screen)
        assert text.count("The ledger cannot be used") == 1
        assert str(ledger_file()) in text
        assert "kept in memory only for this run" in text
        assert text.count("Created plant") == 2
        await pilot.press("f3")
        history = app.screen
        assert isinstance(history, HistoryScreen)
        await done(app, pilot)
        page = str(history.query_one("#history-page", Static).render())
        assert "The history cannot be read" in page
        assert "not a plantstore-tui ledger" in page
    assert ledger_file().read_bytes() == b"not a database" * 50


def asking(app: App[None]) -> bool:
    """A protected send's question is up, its answers ready for keys."""
    return isinstance(app.screen, ConfirmScreen) and bool(app.screen.query("#confirm-yes"))


async def test_a_resend_to_a_protected_profile_is_asked_first(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HISTORY_TOKEN", reference_server.token.get_secret_value())
    ProfileStore().add(
        Profile(
            name="prod",
            base_url=reference_server.base_url,
            token_env="HISTORY_TOKEN",
            protected=True,
        )
    )
    label = TargetLabel(base_url="loading…", token_source="the profile", profile="prod")
    app = app_with(lambda: connect_to_profile("prod"), label)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await fill(pilot, screen, name="Fern", id="9")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: asking(app))
        await pilot.press("enter")
        await until(pilot, lambda: len(rows()) == 1 and rows()[0][1] is not None)

        await open_history(app, pilot)
        await pilot.press("r")
        await until(pilot, lambda: asking(app))
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)
        await pilot.press("f3")
        await until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await done(app, pilot)
        await pilot.press("r")
        await until(pilot, lambda: asking(app))
        await pilot.press("enter")
        await until(pilot, lambda: len(rows()) == 2 and rows()[0][1] is not None)
    assert rows() == [(9, "rejected", "not created"), (9, "created", "created")]
    assert {row.profile for row in all_rows()} == {"prod"}


def fill_with_megabyte_answers(count: int) -> str:
    """`count` sends each answered with a name of about 1 MB the server stored instead of the
    name sent; the mark the client made of it."""
    huge = "S" * 1_048_560
    mark = against_sent({"id": 1, "name": "Rose"}, {"name": huge})[0]
    with opened() as ledger:
        for number in range(count):
            row = new_row("Rose", str(number), base_url="http://h")
            answer = Plant(name=huge)
            outcome = Created(
                url="http://h/plants",
                sent=row.plant,
                status=200,
                elapsed_ms=1.0,
                plant=answer,
                body=json.dumps(answer.as_received()),
                off_spec=(mark,),
            )
            take_settled(ledger, row, outcome)
    return mark


async def test_a_page_of_megabyte_answers_is_read_and_shown_bounded(
    reference_server: BackgroundServer,
) -> None:
    mark = fill_with_megabyte_answers(10)
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        history = await open_history(app, pilot)
        assert history.query_one(DataTable).row_count == 10
        shown = detail(history)
        assert "(the body: 1,048,572 characters, first 200 shown)" in shown
        assert "(all of it: plantstore-tui history show " in shown
        assert f"off spec  {mark}" in shown
        assert "(name: 1,048,560 characters, first 60 shown)" in shown
        assert len(shown) < 2000


async def test_at_80_columns_each_sends_id_name_and_outcome_stay_in_view(
    reference_server: BackgroundServer,
) -> None:
    # A long name is clipped in its cell (its full size is in the row's detail), and where a
    # send came from gives way to the right: what it became stays on screen without scrolling.
    with opened() as ledger:
        take_settled(ledger, new_row("Strelitzia nicolai " * 4, "7", "a-rather-long-tag"))
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(app, pilot)
        history = await open_history(app, pilot)
        table = history.query_one(DataTable)
        labels = [str(column.label) for column in table.ordered_columns]
        widths = [column.get_render_width(table) for column in table.ordered_columns]
        in_view = sum(widths[: labels.index("outcome") + 1])
        assert in_view <= table.scrollable_content_region.width
        assert "created" in str(table.get_row_at(0)[labels.index("outcome")])
        assert len(str(table.get_row_at(0)[labels.index("name")])) == 30
