"""Words and widgets of the send screen (issue 17): queued entries say "to send", a key that
cannot act says why, the switches show on and off by shape, a fate said once, and the
ditto key ("same as last", Ctrl+D) applied in order with the keys typed around it."""

from __future__ import annotations

import asyncio
from typing import Any

from keys_support import burst, drained, keys_of
from misbehaving import Hang, MisbehavingServer, ReceivedRequest, Send, json_response
from pydantic import SecretStr
from seen_support import notifications_of
from snapshot_apps.support import SIZE, app_for, fill, ready, until
from snapshot_apps.support import settled as settled_screen
from textual import events

from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.widgets.marked_checkbox import MarkedCheckbox


def _footer_keys(app: Any) -> set[str]:
    screen = app.screen
    return {
        binding.key
        for (_node, binding, enabled, _tip) in screen.active_bindings.values()
        if binding.show and enabled
    }


async def test_a_queued_plant_says_to_send() -> None:
    arrived = asyncio.Event()

    def first_hangs(request: ReceivedRequest) -> list[Any]:
        if not arrived.is_set():
            arrived.set()
            return [Hang()]
        return [Send(json_response(200, {"name": request.json()["name"]}))]

    async with MisbehavingServer(first_hangs) as server:
        app = app_for(server.base_url, SecretStr("token-of-the-test"))
        async with app.run_test(size=SIZE) as pilot:
            screen = await ready(app, pilot)
            burst(app, keys_of([("Held", "1", ""), ("Waiting", "2", "")]))
            await asyncio.wait_for(arrived.wait(), 10)
            await until(pilot, lambda: len(screen.log_panel.entries) == 2, "both entries")
            waiting = screen.log_panel.entries[-1].text().plain
            assert "queued" in waiting
            assert 'to send {"id": 2' in waiting
            assert "sent" not in waiting.replace("to send", ""), waiting


async def test_esc_with_nothing_in_flight_says_why_it_does_nothing(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        assert "escape" in _footer_keys(app)
        await pilot.press("escape")
        await pilot.pause()
        told = [note.message for note in notifications_of(app)]
        assert any("Nothing is being sent" in message for message in told), told
        assert app.screen is app.get_default_screen()


async def test_the_switches_show_on_and_off_by_shape_not_only_colour(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        next_id = screen.query_one("#next-id", MarkedCheckbox)
        keep_tag = screen.query_one("#keep-tag", MarkedCheckbox)
        on, off = next_id.render().plain, keep_tag.render().plain
        assert (next_id.value, keep_tag.value) == (True, False)
        assert on.replace("Next id ^N", "") != off.replace("Keep tag ^T", "")
        await pilot.press("ctrl+t")
        assert keep_tag.render().plain.replace("Keep tag ^T", "") == on.replace("Next id ^N", "")


async def test_in_a_terminal_alt_n_and_alt_t_are_letters_not_the_switches(
    reference_server: BackgroundServer,
) -> None:
    # A terminal sends Esc then n for Alt+N: the switches are Alt+N and Alt+T only in a browser,
    # which keeps Ctrl+N and Ctrl+T for itself (tests/web/test_browser.py, the app's keymap).
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        next_id = screen.query_one("#next-id", MarkedCheckbox)
        keep_tag = screen.query_one("#keep-tag", MarkedCheckbox)
        # As a terminal's parser reads ESC n and ESC t: printable keys, with their letter.
        app.post_message(events.Key("alt+n", "n"))
        app.post_message(events.Key("alt+t", "t"))
        await pilot.pause()
        assert (next_id.value, keep_tag.value) == (True, False)
        assert screen.form.texts().name == "nt"
        await pilot.press("ctrl+n", "ctrl+t")
        assert (next_id.value, keep_tag.value) == (False, True)


async def test_ctrl_d_fills_the_focused_field_with_the_last_plant_in_a_burst(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        # One write: a plant, then the next with Name and Tag the same as the last (Ctrl+D in
        # each), its ID typed; then a third whose Name is the ditto of the second.
        keys = [*"Fern", "tab", *"31", "tab", *"shade", "enter"]
        keys += ["ctrl+d", "tab", *"32", "tab", "ctrl+d", "enter"]
        keys += ["ctrl+d", "tab", "tab", "enter"]
        burst(app, keys)
        await drained(app, pilot, 3)
        sent = [entry.text().plain for entry in screen.log_panel.entries]
        assert '"id": 31, "name": "Fern", "tag": "shade"' in sent[0]
        assert '"id": 32, "name": "Fern", "tag": "shade"' in sent[1]
        assert '"id": 33, "name": "Fern"' in sent[2]
        assert screen.form.texts() == FormTexts(name="", id="34", tag="")


async def test_ctrl_d_before_any_plant_says_there_is_nothing_to_copy(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await pilot.press("a", "ctrl+d")
        await pilot.pause()
        assert screen.form.texts().name == "a", "Ctrl+D deletes nothing and copies nothing"
        assert any("no plant was sent" in note.message for note in notifications_of(app))


def test_a_fate_unknown_is_said_once_when_the_note_says_it_already() -> None:
    from datetime import UTC, datetime

    from plantstore_tui.core.plant.form import FormTexts as Texts
    from plantstore_tui.core.plant.models import NewPlant
    from plantstore_tui.core.sending.events import PlantView
    from plantstore_tui.core.store import PlantState
    from plantstore_tui.core.store.sessions import SENDING_WHEN_ENDED
    from plantstore_tui.ui.widgets.log_entry import render_plant

    at = datetime(2026, 5, 4, 9, 30, tzinfo=UTC)
    plant = PlantView(
        number=7,
        texts=Texts(name="Fern", id="5", tag=""),
        plant=NewPlant(id=5, name="Fern"),
        base_url="http://127.0.0.1:8000",
        profile=None,
        queued_at=at,
        answered_at=None,
        state=PlantState.UNKNOWN,
        held=False,
        outcome=None,
        note=SENDING_WHEN_ENDED,
        confirmed=True,
    )
    text = render_plant(plant, at).text().plain
    assert text.lower().count("may exist already") == 1, text


def test_help_and_the_readme_say_the_same_of_tag_suggestions_and_the_ditto_key() -> None:
    from pathlib import Path

    from plantstore_tui.core.config.keymap import BY_ID
    from plantstore_tui.ui.screens.help import ABOUT, KEYS

    readme = " ".join((Path(__file__).parents[2] / "README.md").read_text().split())
    help_text = " ".join(" ".join(ABOUT).split())
    for words in ("tags of plants created since", "the most recent first"):
        assert words in help_text, words
        assert words in readme, words
    assert "send.same_as_last" in dict(KEYS)
    assert BY_ID["send.same_as_last"].keys == "ctrl+d"
    assert "| Ctrl+D | same as last" in readme


async def test_at_80x24_the_form_its_button_and_hints_and_the_quit_question_fit() -> None:
    from snapshot_apps.canned import canned_app, duplicate_id

    from plantstore_tui.ui.screens.confirm import ChoiceScreen
    from plantstore_tui.ui.widgets.plant_form import HINTS

    app = canned_app(duplicate_id)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await ready(app, pilot)
        screen_region = screen.region
        form = screen.form
        for widget in (form.send_button, form.query_one("#form-hint")):
            assert form.region.contains_region(widget.region), widget
        assert form.query_one("#form-hint").region.height == len(HINTS.splitlines())
        await fill(pilot, screen, name="Ivy", id="7")
        await pilot.press("ctrl+s")
        await settled_screen(app, pilot)
        await pilot.press("ctrl+q")
        await pilot.pause()
        question = app.screen
        assert isinstance(question, ChoiceScreen)
        for button in question.query("#confirm-buttons Button"):
            assert screen_region.contains_region(button.region), button
            assert button.region.width >= len(str(button.label)), str(button.label)
