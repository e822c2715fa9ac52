"""The app around its screens: protected sends confirmed, profiles switched on F2, first run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ledger_support import ledger_file
from pydantic import SecretStr
from seen_support import notifications_of, status_text
from snapshot_apps.support import SIZE, app_with, fill, log_text, ready, target_of, until
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widgets import ListView, OptionList, Static

from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.sending.connection import connect_to, connect_to_profile
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.confirm import ConfirmScreen
from plantstore_tui.ui.screens.first_run import FirstRunScreen
from plantstore_tui.ui.screens.profiles import ProfilesScreen
from plantstore_tui.ui.screens.send import SendScreen
from plantstore_tui.ui.widgets.profile_row import ProfileRow


def save_profiles(server: Any, monkeypatch: pytest.MonkeyPatch, *profiles: Profile) -> None:
    monkeypatch.setenv("WIRING_TOKEN", server.token.get_secret_value())
    store = ProfileStore()
    for profile in profiles:
        store.add(profile)


def app_on_profile(name: str) -> PlantStoreApp:
    label = TargetLabel(base_url="loading…", token_source="the profile", profile=name)
    return app_with(lambda: connect_to_profile(name), label)


def two_profiles_on_first(server: Any, monkeypatch: pytest.MonkeyPatch) -> PlantStoreApp:
    """Profiles `first` and `second` on the same server, and the app sending to `first`."""
    base_url = server.base_url
    save_profiles(
        server,
        monkeypatch,
        Profile(name="first", base_url=base_url, token_env="WIRING_TOKEN"),
        Profile(name="second", base_url=base_url + "/", token_env="WIRING_TOKEN"),
    )
    return app_on_profile("first")


async def send_goes_through(pilot: Pilot[None], screen: SendScreen, plant_id: int) -> None:
    await fill(pilot, screen, name="Fern", id=str(plant_id))
    await pilot.press("ctrl+s")
    await until(pilot, lambda: len(screen.log_panel.entries) == 1)
    assert f"Created plant {plant_id} (Fern)" in log_text(screen)


def target_shown(screen: SendScreen) -> str:
    return screen.status.sides()[0]


async def test_each_send_to_a_protected_profile_is_confirmed_unless_told_not_to_ask(
    shared_reference_server: Any, monkeypatch: pytest.MonkeyPatch, plant_id: int
) -> None:
    base_url = shared_reference_server.base_url
    save_profiles(
        shared_reference_server,
        monkeypatch,
        Profile(name="prod", base_url=base_url, token_env="WIRING_TOKEN", protected=True),
    )
    app = app_on_profile("prod")
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        assert "prod PROTECTED" in target_shown(screen)
        assert screen.status.protected

        await fill(pilot, screen, name="Fern", id=str(plant_id))
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await until(pilot, lambda: "sending…" not in status_text(app))
        assert screen.log_panel.entries == []

        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: len(screen.log_panel.entries) == 1)
        assert f"Created plant {plant_id} (Fern)" in log_text(screen)

        # "Don't ask again": the next sends to prod go without a question.
        await fill(pilot, screen, name="Aloe", id=str(plant_id + 10_000_000))
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("a")
        await until(pilot, lambda: len(screen.log_panel.entries) == 2)
        await fill(pilot, screen, name="Ivy", id=str(plant_id + 20_000_000))
        await pilot.press("ctrl+s")
        await until(pilot, lambda: len(screen.log_panel.entries) == 3)
        assert not isinstance(app.screen, ConfirmScreen)
        assert f"Created plant {plant_id + 20_000_000} (Ivy)" in log_text(screen)


async def test_f2_switches_the_profile_plants_go_to(
    shared_reference_server: Any, monkeypatch: pytest.MonkeyPatch, plant_id: int
) -> None:
    app = two_profiles_on_first(shared_reference_server, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        assert target_shown(screen).startswith("first · ")

        await pilot.press("f2")
        await until(pilot, lambda: isinstance(app.screen, ProfilesScreen))
        profiles = app.screen
        assert isinstance(profiles, ProfilesScreen)
        await until(pilot, lambda: len(profiles.query(ProfileRow)) == 2)
        view = profiles.query_one("#profiles-list", ListView)
        view.focus()
        view.index = [row.profile_name for row in profiles.query(ProfileRow)].index("second")
        await pilot.press("u")
        await until(pilot, lambda: app.screen is screen)
        await until(pilot, lambda: screen.target is not None and screen.target.profile == "second")
        assert target_shown(screen).startswith("second · ")
        await send_goes_through(pilot, screen, plant_id)


async def test_the_demo_chosen_on_the_first_run_is_started_by_the_front_door() -> None:
    # This app's session and ledger are the operator's: the demo runs after it, in a sandbox
    # (cli/tui.py, run_demo), and the operator's ledger is not even opened meanwhile.
    label = TargetLabel(base_url="no target yet", token_source="no profile")
    app = PlantStoreApp(None, label)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, FirstRunScreen))
        await pilot.press("d")
        await until(pilot, lambda: app.return_code is not None)
    assert app.demo_chosen
    assert app.return_code == 0
    assert not ledger_file().exists()


async def test_first_run_quits_when_asked() -> None:
    app = PlantStoreApp(None, TargetLabel(base_url="no target yet", token_source="no profile"))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, FirstRunScreen))
        await pilot.press("q")
        await until(pilot, lambda: app.return_code is not None)
    assert app.return_code == 0
    assert not app.demo_chosen


async def test_the_note_handed_in_is_in_the_log_from_the_start() -> None:
    target = target_of("http://127.0.0.1:9", SecretStr("a-token-for-the-test"))
    note = "This is the demo, a sandbox: nothing is kept."
    app = PlantStoreApp(lambda: connect_to(target), TargetLabel.of(target), note=note)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        assert note in " ".join(log_text(screen).split())


async def test_the_palette_switches_to_another_saved_profile(
    shared_reference_server: Any, monkeypatch: pytest.MonkeyPatch, plant_id: int
) -> None:
    app = two_profiles_on_first(shared_reference_server, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"use profile sec")
        palette = app.screen
        assert isinstance(palette, CommandPalette)
        # Only the profile not in use is offered.
        await until(pilot, lambda: "Use profile second" in palette_text(palette))
        assert "Use profile first" not in palette_text(palette)
        await pilot.press("enter")
        await until(pilot, lambda: screen.target is not None and screen.target.profile == "second")
        assert target_shown(screen).startswith("second · ")
        await send_goes_through(pilot, screen, plant_id)


async def test_a_click_on_the_target_opens_the_profiles(
    shared_reference_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_profiles(
        shared_reference_server,
        monkeypatch,
        Profile(name="first", base_url=shared_reference_server.base_url, token_env="WIRING_TOKEN"),
    )
    app = app_on_profile("first")
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await pilot.click("#status", offset=(2, 0))
        await until(pilot, lambda: isinstance(app.screen, ProfilesScreen))


def palette_text(palette: CommandPalette) -> str:
    options = palette.query_one(OptionList)
    return "\n".join(
        str(options.get_option_at_index(index).prompt) for index in range(options.option_count)
    )


# --- a profiles.toml that cannot be read --------------------------------------------------------

CORRUPT = b'default = "local"\n[profiles.local\nbase_url = "http://127.0.0.1:9"\n'
PARSER_WORDS = ":2:16: Expected ']' at the end of a table declaration"


def shown(screen: object, selector: str) -> str:
    assert isinstance(screen, FirstRunScreen | ProfilesScreen)
    return " ".join(str(screen.query_one(selector, Static).render()).split())


def unreadable_profiles() -> Path:
    path = ProfileStore().path
    path.parent.mkdir(parents=True)
    path.write_bytes(CORRUPT)
    return path


def first_run_app() -> PlantStoreApp:
    # What the front door opens when profiles.toml cannot be read (cli/tui.py).
    return PlantStoreApp(None, TargetLabel(base_url="no target yet", token_source="no profile"))


async def test_a_profiles_toml_that_does_not_parse_opens_the_tui_saying_where_and_what() -> None:
    path = unreadable_profiles()
    app = first_run_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, FirstRunScreen))
        screen = app.screen
        await until(pilot, lambda: "cannot be read" in shown(screen, "#first-run-headline"))
        problems = shown(screen, "#first-run-problems")
        assert f"{path}{PARSER_WORDS}; fix the file by hand, it is not overwritten" in problems
        words = shown(screen, "#first-run-text")
        assert "plantstore-tui --base-url URL" in words
        assert "plantstore-tui demo" in words
        # Nothing can be saved in it: said, and no form opens.
        await pilot.press("c")
        await until(pilot, lambda: notifications_of(app))
        assert "cannot be read" in notifications_of(app)[-1].message
        assert app.screen is screen

        await pilot.press("f2")
        await until(pilot, lambda: isinstance(app.screen, ProfilesScreen))
        profiles = app.screen
        await until(pilot, lambda: PARSER_WORDS in shown(profiles, "#profiles-problems"))
        assert str(path) in shown(profiles, "#profiles-problems")
        detail = shown(profiles, "#profiles-detail")
        assert "plantstore-tui demo" in detail
        assert "plantstore-tui --base-url URL" in detail
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)

        await pilot.press("d")
        await until(pilot, lambda: app.return_code is not None)
    assert app.demo_chosen
    assert path.read_bytes() == CORRUPT


async def test_a_profiles_toml_fixed_meanwhile_is_read_again_and_its_default_used(
    shared_reference_server: Any, monkeypatch: pytest.MonkeyPatch, plant_id: int
) -> None:
    path = unreadable_profiles()
    app = first_run_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, FirstRunScreen))
        screen = app.screen
        await until(pilot, lambda: "cannot be read" in shown(screen, "#first-run-headline"))
        # Fixed in an editor while the TUI waits.
        monkeypatch.setenv("WIRING_TOKEN", shared_reference_server.token.get_secret_value())
        path.write_text(
            'default = "local"\n[profiles.local]\n'
            f'base_url = "{shared_reference_server.base_url}"\ntoken_env = "WIRING_TOKEN"\n'
        )
        await pilot.press("r")
        send = app.get_default_screen()
        assert isinstance(send, SendScreen)
        await until(pilot, lambda: app.screen is send, "the send screen")
        await until(pilot, lambda: send.target is not None and send.target.profile == "local")
        await send_goes_through(pilot, send, plant_id)


async def test_a_profile_chosen_on_f2_from_the_first_run_screen_is_used(
    shared_reference_server: Any, monkeypatch: pytest.MonkeyPatch, plant_id: int
) -> None:
    path = unreadable_profiles()
    app = first_run_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, FirstRunScreen))
        screen = app.screen
        await until(pilot, lambda: "cannot be read" in shown(screen, "#first-run-headline"))
        monkeypatch.setenv("WIRING_TOKEN", shared_reference_server.token.get_secret_value())
        # Fixed, without a default this time.
        path.write_text(
            f'[profiles.local]\nbase_url = "{shared_reference_server.base_url}"\n'
            'token_env = "WIRING_TOKEN"\n'
        )
        await pilot.press("r")
        await until(pilot, lambda: "No default profile" in shown(screen, "#first-run-headline"))
        await pilot.press("f2")
        await until(pilot, lambda: isinstance(app.screen, ProfilesScreen))
        await until(pilot, lambda: app.screen.query(ProfileRow))
        await pilot.press("u")
        send = app.get_default_screen()
        assert isinstance(send, SendScreen)
        await until(pilot, lambda: app.screen is send, "the send screen")
        await until(pilot, lambda: send.target is not None and send.target.profile == "local")
        await send_goes_through(pilot, send, plant_id)
