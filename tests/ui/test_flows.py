"""The TUI driven with Pilot against the real reference server (and a misbehaving one)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from ledger_support import all_rows
from misbehaving import (
    ESCAPES,
    MARKUP,
    MisbehavingServer,
    Send,
    first_hangs,
    json_response,
    markup_and_escapes,
    response,
)
from pydantic import SecretStr
from seen_support import drawn_text, notifications_of, status_text
from snapshot_apps.support import (
    SIZE,
    app_for,
    app_with,
    drawn_log,
    fill,
    log_text,
    paste,
    ready,
    send_and_wait,
    send_fern,
    settled,
    tab_to,
    target_of,
    until,
    workers_done,
)
from textual.command import CommandPalette
from textual.widgets import Static

from plantstore_tui.cli.exits import ConfigProblem
from plantstore_tui.core.plant.form import FORM_FIELDS, FormTexts
from plantstore_tui.core.sending.connection import Connection, connect_to
from plantstore_tui.core.store import PlantState
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.confirm import ChoiceScreen
from plantstore_tui.ui.screens.help import HelpScreen
from plantstore_tui.ui.screens.send import SendScreen

TERMINAL_CONTROLS = ("\x1b", "\x9b", "\x07", "\u202e", "\x7f")


def _assert_terminal_safe(text: str) -> None:
    for char in TERMINAL_CONTROLS:
        assert char not in text, f"{char!r} reached the screen"


async def test_fields_say_what_is_wrong_as_you_type(reference_server: Any) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await pilot.press(*"Fern", "tab", *"12")
        assert list(screen.form.query(".field-message")) == []  # nothing to say yet
        await pilot.press("a")
        message = screen.form.query_one("#id-message")
        assert "ID must be a whole number" in str(message.render())
        await pilot.press("backspace")
        await pilot.pause()
        assert str(message.render()) == ""

        await tab_to(pilot, screen.form.field_input("name"))
        # Emptied (End, then delete to the start): the field held text, so it says why.
        await pilot.press("end", "ctrl+u")
        await pilot.pause()
        assert str(screen.form.query_one("#name-message").render()) == "Name is required"

        # An ESC reaches a field in a paste only: typed, it is a key of its own.
        await tab_to(pilot, screen.form.field_input("tag"))
        await paste(pilot, "in\x1bdoor")
        await pilot.pause()
        tag_message = str(screen.form.query_one("#tag-message").render())
        assert tag_message == "Tag has a control character (U+001B) at position 3"


@pytest.mark.parametrize("size", [SIZE, (80, 24)], ids=["roomy", "80x24"])
async def test_a_message_line_is_made_in_the_blank_line_its_field_kept(
    reference_server: Any, size: tuple[int, int]
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=size) as pilot:
        screen = await ready(app, pilot)
        form = screen.form

        def rows() -> list[int]:
            return [form.field_input(field).region.y for field in FORM_FIELDS] + [
                form.query_one("#switches").region.y
            ]

        before = rows()
        assert list(form.query(".field-message")) == []
        await pilot.press(*"Fern", "ctrl+u")  # held text, now empty: a one-line message
        await pilot.pause()
        line = form.query_one("#name-message", Static)
        assert str(line.render()) == "Name is required"
        name = form.field_input("name").region
        assert line.region.y == name.bottom  # right under its field, in the line it kept
        assert rows() == before
        await pilot.press("F")
        await pilot.pause()
        assert str(line.render()) == ""
        assert rows() == before  # the emptied line stays, holding the same place
        assert [widget.id for widget in form.query(".field-message")] == ["name-message"]


async def test_an_invalid_form_is_never_sent_and_focus_goes_to_the_first_bad_field(
    reference_server: Any,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await fill(pilot, screen, name="Fern", id="99999999999999999999", tag="x")
        await send_and_wait(pilot, app, "ctrl+s")
        assert screen.log_panel.entries == []
        assert app.focused is screen.form.field_input("id")
        assert "ID must be between" in str(screen.form.query_one("#id-message").render())

        await fill(pilot, screen, name="  ", id="", tag="")
        await send_and_wait(pilot, app, "ctrl+s")
        assert screen.log_panel.entries == []
        assert app.focused is screen.form.field_input("name")
        assert str(screen.form.query_one("#id-message").render()) == "ID is required"


async def test_a_success_is_logged_and_the_form_moves_to_the_next_plant(
    reference_server: Any,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await fill(pilot, screen, name="Monstera", id="41", tag="indoor")
        await send_and_wait(pilot, app, "enter")  # Enter on the last field sends

        text = log_text(screen)
        assert f"09:30:15  #1  POST {reference_server.base_url}/plants  200" in text
        assert "✔       Created plant 41 (Monstera)" in text
        assert 'sent    {"id": 41, "name": "Monstera", "tag": "indoor"}' in text
        assert 'plant   {"name": "Monstera", "tag": "indoor"}' in text
        assert " ms" in text
        form = screen.form
        assert form.texts().name == ""
        assert form.texts().tag == ""
        assert form.texts().id == "42"
        assert app.focused is form.field_input("name")

        # Three plants with the keyboard alone: Name, Tab past the ID it filled in, Tag, Enter.
        await pilot.press(*"Fern", "tab", "tab", *"in")
        await pilot.pause()
        tag = form.field_input("tag")
        assert drawn_text(tag) == "indoor"  # tags sent this session are suggested
        await pilot.press("right")
        await send_and_wait(pilot, app, "enter")
        assert "✔       Created plant 42 (Fern)" in log_text(screen)
        assert form.texts().id == "43"


async def test_the_next_id_toggle_keeps_the_id(reference_server: Any) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await pilot.press("ctrl+n")
        assert screen.form.next_id_after_success is False
        await fill(pilot, screen, name="Aloe", id="7")
        await send_and_wait(pilot, app, "ctrl+s")
        assert "Created plant 7 (Aloe)" in log_text(screen)
        assert screen.form.texts().id == "7"


async def test_a_duplicate_id_shows_the_servers_error_and_waits_in_needs_attention(
    reference_server: Any,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await pilot.press("ctrl+n")
        for name in ("Fern", "Ivy"):
            await fill(pilot, screen, name=name, id="5", tag="shade")
            await send_and_wait(pilot, app, "ctrl+s")
        assert len(screen.log_panel.entries) == 2
        second = screen.log_panel.entries[1].text().plain
        assert f"#2  POST {reference_server.base_url}/plants  400" in second
        assert "A plant with id 5 already exists" in second
        assert "error   {" in second
        assert "The plant was not created. Correct the plant and send it again." in second
        assert "needs attention: F4 to load it into the form or dismiss it" in second
        # The form was handed over for the next plant; the rejected one waits, fields intact.
        assert screen.form.texts().name == ""
        assert "1 needs attention (F4)" in screen.status.sides()[1]
        [waiting] = await screen.service.attention()
        assert (waiting.typed.name, waiting.typed.id, waiting.typed.tag) == ("Ivy", "5", "shade")

        await pilot.press("f4")
        await pilot.pause()
        await pilot.press("enter")  # load the highlighted (only) plant into the form
        await pilot.pause()
        assert screen.form.texts() == waiting.typed
        assert app.focused is screen.form.field_input("name")
        assert (await screen.service.attention()) == []
        assert "Loaded into the form at 09:30:15." in screen.log_panel.entries[1].text().plain
        assert "ready" in screen.status.sides()[1]


async def test_a_wrong_token_is_a_401_in_words_and_stops_the_queue(reference_server: Any) -> None:
    app = app_for(reference_server.base_url, SecretStr("not-the-token-at-all"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await send_fern(app, pilot, "ctrl+s")
        text = log_text(screen)
        assert "  401" in text
        assert "The bearer token is not valid" in text
        await until(pilot, lambda: "refused the token (401)" in log_text(screen), "the note")
        assert "not-the-token-at-all" not in log_text(screen)
        # Not in needs attention: first in line, waiting for the operator.
        assert (await screen.service.attention()) == []
        assert screen.status.kind == "problem"
        assert "token refused · 401: fix it in F2, then Ctrl+R · 1 waiting" in status_text(app)


async def test_a_stopped_server_keeps_the_plant_waiting_in_words(reference_server: Any) -> None:
    base_url = reference_server.base_url
    reference_server.stop()
    app = app_for(base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await send_fern(app, pilot, "ctrl+s")
        text = log_text(screen)
        assert "no answer" in text
        assert "Cannot connect to 127.0.0.1: the connection was refused" in text
        assert "goes again by itself as soon as the deployment answers" in text
        await until(pilot, lambda: "cannot be reached" in log_text(screen), "the note")
        # Not lost, not in needs attention: it waits in line, and the status line says so.
        assert screen.status.kind == "problem"
        assert "unreachable, next try in" in screen.status.sides()[1]
        assert "1 waiting" in screen.status.sides()[1]
        assert (await screen.service.attention()) == []
        on_its_way = (PlantState.QUEUED, PlantState.SENDING)
        assert [row.typed.name for row in all_rows() if row.state in on_its_way] == ["Fern"]


def _state_words(screen: SendScreen) -> str:
    return screen.status.sides()[1]


@pytest.mark.parametrize("hold", [True, False], ids=["hold-the-rest", "keep-sending"])
async def test_a_slow_send_never_holds_up_the_next_plant_and_escape_cancels_it(hold: bool) -> None:
    arrived = asyncio.Event()
    async with MisbehavingServer(first_hangs(arrived)) as server:
        app = app_for(server.base_url, SecretStr("token-for-a-slow-server"))
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            await pilot.press(*"Fern", "tab", *"3", "tab", *"shade", "enter")
            await asyncio.wait_for(arrived.wait(), 10)
            # Shown once the moment its answer may come in has passed (SendScreen.submit).
            await until(pilot, lambda: "sending…" in _state_words(screen), "sending… shown")
            assert "sending…" in status_text(app)
            shown = {active.binding.action for active in screen.active_bindings.values()}
            assert "cancel_send" in shown  # Esc is in the footer

            # The form was handed over at once: the next plant is typed and queued meanwhile.
            assert screen.form.texts() == FormTexts(name="", id="4", tag="")
            assert app.focused is screen.form.field_input("name")
            await pilot.press(*"Aloe", "tab", "tab", *"sun", "enter")
            # Its entry is drawn once its take is on disk for good (the ledger's group commit).
            await until(pilot, lambda: "#2  POST " in log_text(screen), "the second entry")
            assert "sending… · 1 queued" in _state_words(screen)
            assert "queued" in screen.log_panel.entries[1].text().plain

            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, ChoiceScreen)  # "Stop the queue too?"
            # Nothing more goes out while the question waits for an answer.
            assert len(server.requests) == 1
            await pilot.press("h" if hold else "escape")
            await settled(app, pilot)

            first = screen.log_panel.entries[0].text().plain
            assert "⚠       Cancelled before the server answered" in first
            assert "The plant may or may not have been created." in first
            assert "(it may exist already)" in first
            second = screen.log_panel.entries[1].text().plain
            attention = await screen.service.attention()
            if hold:
                assert len(server.requests) == 1
                assert "Not sent: held when the queue was stopped (Esc)." in second
                assert [plant.typed.name for plant in attention] == ["Fern", "Aloe"]
                assert "2 need attention (F4)" in _state_words(screen)
            else:
                assert [request.json()["name"] for request in server.requests] == ["Fern", "Aloe"]
                assert server.requests[1].json() == {"id": 4, "name": "Aloe", "tag": "sun"}
                assert "Created plant 4 (Aloe)" in second
                assert [plant.typed.name for plant in attention] == ["Fern"]
                assert "1 needs attention (F4)" in _state_words(screen)
            # The fields of the cancelled plant are kept, exactly as typed.
            assert attention[0].typed == FormTexts(name="Fern", id="3", tag="shade")
            assert attention[0].state is PlantState.UNKNOWN


@pytest.mark.parametrize("status", [400, 200])
async def test_markup_and_escape_sequences_from_the_server_are_shown_literally(
    status: int,
) -> None:
    async with MisbehavingServer(markup_and_escapes(status)) as server:
        app = app_for(server.base_url, SecretStr("token-for-a-hostile-server"))
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            await fill(pilot, screen, name="Fern", id="8")
            await send_and_wait(pilot, app, "ctrl+s")
            saved = log_text(screen)
            drawn = drawn_log(screen)
            for text in (saved, drawn):
                _assert_terminal_safe(text)
            assert MARKUP in saved  # as typed by the server, not turned into bold red
            assert "\\e]52;c;cm0gLXJmIH4=\\x07\\e[2J\\x9b31m\\u202e" in saved
            assert ESCAPES not in saved
            _assert_terminal_safe(app.export_screenshot())


async def test_a_zero_width_character_in_a_name_from_the_server_is_shown_escaped() -> None:
    # A name that looks like "Rose" and is not: the log says what it holds.
    named = [Send(json_response(200, {"name": "Ro\u200bse\u2060"}))]
    async with MisbehavingServer(named) as server:
        app = app_for(server.base_url, SecretStr("token-for-a-tricky-server"))
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            await fill(pilot, screen, name="Rose", id="8")
            await send_and_wait(pilot, app, "ctrl+s")
            saved = log_text(screen)
            drawn = drawn_log(screen)
            assert "Created plant 8 (Ro\\u200bse\\u2060)" in saved
            for text in (saved, drawn, app.export_screenshot()):
                assert "\u200b" not in text
                assert "\u2060" not in text


async def test_a_long_body_is_cut_for_display_with_its_size() -> None:
    body = b"<html>" + b"A" * 12_000 + b"</html>"
    page = response(502, body, headers=[("Content-Type", "text/html")])
    async with MisbehavingServer([Send(page)]) as server:
        app = app_for(server.base_url, SecretStr("token-for-a-proxy"))
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            await fill(pilot, screen, name="Fern", id="8")
            await send_and_wait(pilot, app, "ctrl+s")
            text = log_text(screen)
            assert "  502" in text
            assert f"(the body: {len(body):,} characters, first 200 shown)" in text
            assert "The plant may or may not have been created." in text
            assert len(text) < 3000


async def test_the_log_can_be_saved_without_the_token_and_cleared(
    reference_server: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    token = reference_server.token.get_secret_value()
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await fill(pilot, screen, name="Fern", id="1", tag="green")
        await send_and_wait(pilot, app, "ctrl+s")
        await pilot.press("ctrl+o")
        await pilot.pause()
        saved = tmp_path / "plantstore-log-20260504-093015.txt"
        content = saved.read_text(encoding="utf-8")
        assert "Created plant 1 (Fern)" in content
        assert token not in content
        assert token[-4:] not in content
        assert any(str(saved) in n.message for n in notifications_of(app))

        await pilot.press("ctrl+l")
        await pilot.pause()
        assert screen.log_panel.entries == []
        assert screen.log_panel.lines == []


async def test_clearing_the_log_keeps_the_entry_of_a_plant_still_on_its_way(
    reference_server: Any,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await fill(pilot, screen, name="Fern", id="1")
        await send_and_wait(pilot, app, "ctrl+s")
        reference_server.stop()
        await fill(pilot, screen, name="Ivy", id="2")
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "cannot be reached" in log_text(screen), "the note")

        await pilot.press("ctrl+l")
        await pilot.pause()
        text = log_text(screen)
        # Fern is created and its entry goes; Ivy waits in line, its entry stays, as it stands.
        assert "Fern" not in text
        assert "cannot be reached" not in text
        assert "Ivy" in text
        assert len(screen.log_panel.entries) == 1


async def test_the_status_line_names_the_target_and_token_source_never_the_token(
    reference_server: Any,
) -> None:
    token = reference_server.token.get_secret_value()
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        status = screen.status.sides()[0]
        assert status == f"{reference_server.base_url} · token from the test …{token[-4:]}"
        screenshot = app.export_screenshot()
        assert token not in screenshot
        assert token[:-4] not in screenshot


async def test_help_opens_with_f1_and_closes_with_escape(reference_server: Any) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)


async def test_the_palette_offers_the_main_actions(reference_server: Any) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        titles = {command.title for command in app.get_system_commands(screen)}
        assert {"Send plant", "Clear log", "Save log", "Toggle next id", "Help"} <= titles

        await fill(pilot, screen, name="Fern", id="2")
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"Send plant")
        await workers_done(app)  # the palette searches in a worker
        await pilot.pause()
        await send_and_wait(pilot, app, "enter")
        assert "Created plant 2 (Fern)" in log_text(screen)


async def test_a_configuration_problem_is_shown_and_nothing_is_sent() -> None:
    def connect() -> Connection:
        raise ConfigProblem("The base URL must start with http:// or https://")

    app = app_with(connect, TargetLabel(base_url="ftp://plants", token_source="the test"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        assert "Configuration problem: The base URL must start" in log_text(screen)
        assert screen.status.kind == "problem"
        await fill(pilot, screen, name="Fern", id="2")
        await send_and_wait(pilot, app, "ctrl+s")
        assert len(screen.log_panel.entries) == 1
        assert any(n.title == "Cannot send" for n in notifications_of(app))


async def test_a_send_before_the_client_is_ready_waits_for_it(reference_server: Any) -> None:
    gate = asyncio.Event()
    loop = asyncio.get_running_loop()
    target = target_of(reference_server.base_url, reference_server.token)

    def connect() -> Connection:
        # Runs in the app's thread: hold the client back until the plant has been submitted.
        asyncio.run_coroutine_threadsafe(gate.wait(), loop).result(10)
        return connect_to(target)

    app = app_with(connect, TargetLabel.of(target))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SendScreen)
        await pilot.pause()
        state = screen.status.sides()[1]
        assert state in ("starting…", "connecting…")
        await fill(pilot, screen, name="Early", id="11")
        # The send waits for the client (and next id's offer, which comes with it: issue 42),
        # the plant still in the form; the keys typed after it wait too, in order.
        await pilot.press("ctrl+s", *"Late")
        assert not screen.log_panel.entries
        assert screen.form.texts() == FormTexts(name="Early", id="11", tag="")
        gate.set()
        await settled(app, pilot)
        await pilot.pause()
        assert "Created plant 11 (Early)" in log_text(screen)
        assert screen.form.texts() == FormTexts(name="Late", id="12", tag="")
