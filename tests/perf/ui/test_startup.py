"""The first frame comes before whatever the start waits for: the form is painted, Name focused,
and takes keys while the target is still being resolved (a token command, a keyring) or the
ledger is still being opened (a slow disk, another program's lock); a plant typed meanwhile goes
out once the target is there. Each test holds that work on an event and releases it; how fast the
first frame comes is measured by benchmarks/startup.py, not here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from burst_support import stored_plants
from snapshot_apps.support import SIZE, app_with, log_text, settled, target_of, until
from textual.pilot import Pilot

from plantstore_tui.core.sending import session_ledger
from plantstore_tui.core.sending.connection import Connection, connect_to
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.first_run import FirstRunScreen
from plantstore_tui.ui.screens.help import HelpScreen
from plantstore_tui.ui.screens.send import SendScreen

# A word of the Name field's placeholder: on screen once the form is painted.
NAME_PLACEHOLDER = "Monstera"


class Held:
    """A piece of the start held in its thread until `release`; `reached` once it is."""

    def __init__(self) -> None:
        self.reached = threading.Event()
        self.released = threading.Event()

    def hold(self) -> None:
        self.reached.set()
        # Released by the test, or at its end whatever happened (never left waiting).
        self.released.wait()

    def release(self) -> None:
        self.released.set()


@pytest.fixture
def held() -> Iterator[Held]:
    piece = Held()
    yield piece
    piece.release()


async def first_frame(app: PlantStoreApp, pilot: Pilot[None]) -> SendScreen:
    """Wait until the form is painted with Name focused; the send screen."""
    screen = app.get_default_screen()
    assert isinstance(screen, SendScreen)
    name = screen.form.field_input("name")
    await until(
        pilot,
        lambda: app.screen is screen and name.has_focus,
        "the send screen shown, Name focused",
    )
    assert NAME_PLACEHOLDER in app.export_screenshot()
    return screen


def held_connect(server: BackgroundServer, held: Held) -> Callable[[], Connection]:
    """The target's resolution, held until released (a token command waiting for a password
    manager), then connected to `server`."""
    target = target_of(server.base_url, server.token)

    def connect() -> Connection:
        held.hold()
        return connect_to(target)

    return connect


async def test_the_form_takes_a_plant_while_the_target_is_resolved_and_sends_it_after(
    reference_server: BackgroundServer, plant_id: int, held: Held
) -> None:
    target = target_of(reference_server.base_url, reference_server.token)
    app = app_with(held_connect(reference_server, held), TargetLabel.of(target))
    async with app.run_test(size=SIZE) as pilot:
        screen = await first_frame(app, pilot)
        await pilot.press(*"Fern", "tab", *str(plant_id), "ctrl+s")
        await until(pilot, lambda: "queued" in log_text(screen), "the plant queued")
        assert held.reached.is_set()
        assert not held.released.is_set()
        assert screen.form.field_input("name").value == ""  # taken: the form is ready again
        assert stored_plants(reference_server.db_path) == []
        held.release()
        await settled(app, pilot)
        assert stored_plants(reference_server.db_path) == [(plant_id, "Fern", None)]


async def test_the_form_takes_keys_while_the_ledger_is_opened(
    reference_server: BackgroundServer,
    plant_id: int,
    held: Held,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    opened = session_ledger.open_ledger

    def open_held(*args: Any, **kwargs: Any) -> Any:
        held.hold()
        return opened(*args, **kwargs)

    monkeypatch.setattr(session_ledger, "open_ledger", open_held)
    target = target_of(reference_server.base_url, reference_server.token)
    app = app_with(lambda: connect_to(target), TargetLabel.of(target))
    async with app.run_test(size=SIZE) as pilot:
        screen = await first_frame(app, pilot)
        await pilot.press(*"Fern", "tab", *str(plant_id))
        name, id_ = screen.form.field_input("name"), screen.form.field_input("id")
        await until(pilot, lambda: id_.value == str(plant_id), "the id typed")
        assert name.value == "Fern"
        assert held.reached.is_set()
        assert not held.released.is_set()
        held.release()
        await settled(app, pilot)
        await pilot.press("ctrl+s")
        await settled(app, pilot)
        assert stored_plants(reference_server.db_path) == [(plant_id, "Fern", None)]


async def test_the_first_frame_parses_only_the_send_screen_styles() -> None:
    app = PlantStoreApp(None, TargetLabel(base_url="http://127.0.0.1:9", token_source="test"))
    async with app.run_test(size=(110, 32)) as pilot:
        assert isinstance(app.screen, FirstRunScreen)
        selectors = " ".join(rule.selectors for rule in app.stylesheet.rules)
        assert "#form-hint" in selectors
        # Help's panel is styled by its own file, read when the screen first opens.
        assert "help-panel" not in selectors
        await pilot.press("escape")
        await app.push_screen(HelpScreen())
        await pilot.pause()
        assert "help-panel" in " ".join(rule.selectors for rule in app.stylesheet.rules)


async def test_the_send_screen_is_twelve_widgets() -> None:
    # Each widget costs the first frame its compose, mount, styles, layout and render (4M
    # instructions and up) and the idle TUI about 0.1 MiB: the footer is one widget, not one a
    # key, and so is the status line (not a target and a state); the form and the log share the
    # screen's own layout; Send needs no row of its own; a field's message line is made when
    # the field first has a message.
    app = PlantStoreApp(None, TargetLabel(base_url="http://127.0.0.1:9", token_source="test"))
    async with app.run_test(size=(110, 32)):
        screen = app.get_default_screen()
        widgets = [type(widget).__name__ for widget in screen.walk_children()]
        assert len(widgets) == 12, widgets
        assert widgets.count("Horizontal") == 1  # the switches' row
