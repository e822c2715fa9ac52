"""The profile screens driven with Pilot: list, add, edit, delete, default, test, use, first run,
the protected-send confirmation, a corrupt profiles.toml, and a canary token kept off the screen."""

from __future__ import annotations

import os
import shlex
import sqlite3
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from profiles_support import CANARY, MemoryKeyring, isolate, use_keyring, write_profiles
from pydantic import SecretStr
from seen_support import screen_text
from snapshot_apps.support import paste_over, tab_to, type_over, workers_done
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, ListView, RadioButton, Static, Switch

from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.config.targets import profile_token
from plantstore_tui.core.config.tokens import SourceKind
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.core.sending.submitted import Protection
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.screens.check import CheckScreen
from plantstore_tui.ui.screens.confirm import Answer, ConfirmScreen, protected_question
from plantstore_tui.ui.screens.first_run import FirstRunChoice, FirstRunScreen
from plantstore_tui.ui.screens.profile_editor import ProfileEditor
from plantstore_tui.ui.screens.profiles import ProfilesScreen
from plantstore_tui.ui.widgets.profile_row import ProfileRow

SIZE = (110, 32)
# The random part of the canary: no run of 5 of its characters may reach the screen.
CANARY_TAIL = CANARY.rsplit("-", 1)[1]
SnapCompare = Callable[..., bool]


class Host(App[None]):
    """A bare app that shows one screen and keeps what it was dismissed with."""

    def __init__(self, screen: Screen[Any]) -> None:
        super().__init__()
        self.first = screen
        self.results: list[object] = []

    def on_mount(self) -> None:
        self.push_screen(self.first, self.results.append)


@pytest.fixture(autouse=True)
def config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    directory = isolate(monkeypatch, tmp_path)
    use_keyring(monkeypatch, MemoryKeyring())
    return directory


@pytest.fixture
def store(config: Path) -> ProfileStore:
    return ProfileStore()


async def settle(pilot: Pilot[Any]) -> None:
    """Wait for every worker, and for what their ends draw (a listing can start another one)."""
    for _ in range(3):
        await workers_done(pilot.app)
        await pilot.pause()


@asynccontextmanager
async def showing(screen: Screen[Any]) -> AsyncIterator[tuple[Host, Pilot[None]]]:
    """`screen` shown by a Host at SIZE, once its workers are done."""
    app = Host(screen)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        yield app, pilot


def assert_no_canary(app: App[Any]) -> None:
    text = screen_text(app)
    windows = {CANARY_TAIL[i : i + 5] for i in range(len(CANARY_TAIL) - 4)}
    shown = [window for window in windows if window in text]
    assert not shown, f"token characters {shown} are on screen:\n{text}"


def rows(screen: ProfilesScreen) -> dict[str, ProfileRow]:
    return {row.profile_name: row for row in screen.query(ProfileRow)}


def cell(row: ProfileRow, name: str) -> str:
    return str(row.query_one(f".profile-{name}", Static).render())


def static_text(screen: Screen[Any], selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def save_three(store: ProfileStore) -> None:
    """local keeps the canary token (keyring), staging reads a variable, prod runs a command."""
    store.add(Profile(name="local", base_url="http://127.0.0.1:8000"), token=SecretStr(CANARY))
    store.add(
        Profile(name="staging", base_url="https://staging.example.com", token_env="STAGING_TOKEN")
    )
    store.add(
        Profile(
            name="prod",
            base_url="https://plants.example.com",
            token_command="pass show plants/prod",
            protected=True,
            timeout=20,
        )
    )


async def highlight(pilot: Pilot[Any], screen: ProfilesScreen, name: str) -> ProfileRow:
    view = screen.query_one("#profiles-list", ListView)
    view.focus()
    view.index = list(rows(screen)).index(name)
    await pilot.pause()
    row = screen.highlighted
    assert row is not None
    assert row.profile_name == name
    return row


def editor_of(app: App[Any]) -> ProfileEditor:
    editor = app.screen
    assert isinstance(editor, ProfileEditor)
    return editor


def field(editor: ProfileEditor, key: str) -> Input:
    return editor.query_one(f"#editor-{key}", Input)


async def type_into(pilot: Pilot[Any], widget: Input, text: str) -> None:
    """Tab to a field and type `text` over what it holds, key by key."""
    await tab_to(pilot, widget)
    await type_over(pilot, text)
    await pilot.pause()


async def paste_into(pilot: Pilot[Any], widget: Input, text: str) -> None:
    """Tab to a field and paste `text` over what it holds."""
    await tab_to(pilot, widget)
    await paste_over(pilot, text)
    await pilot.pause()


# --- the list ----------------------------------------------------------------------------------


async def test_the_list_shows_each_profile_its_token_source_and_markers(
    store: ProfileStore,
) -> None:
    save_three(store)
    async with showing(ProfilesScreen(store, active="staging")) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ProfilesScreen)
        shown = rows(screen)
        assert list(shown) == ["local", "staging", "prod"]
        assert cell(shown["local"], "token") == "keyring"
        assert cell(shown["staging"], "token") == "$STAGING_TOKEN (not set)"
        assert cell(shown["prod"], "token") == "command"
        assert cell(shown["prod"], "url") == "https://plants.example.com"
        assert cell(shown["prod"], "badge") == "PROTECTED"
        assert shown["prod"].has_class("-protected")
        assert not shown["local"].has_class("-protected")
        assert "*" in cell(shown["local"], "marks")  # the first profile saved is the default
        assert "●" in cell(shown["staging"], "marks")  # the one in use
        # The cursor starts on the profile in use, and the details follow it.
        assert screen.highlighted is shown["staging"]
        await highlight(pilot, screen, "prod")
        detail = static_text(screen, "#profiles-detail")
        assert "Token command: pass show plants/prod" in detail
        assert "protected: sends ask first · timeout 20 s" in detail
        text = screen_text(app)
        assert "PROTECTED" in text
        assert f"Profiles in {store.path}" in text
        assert_no_canary(app)


async def test_profile_names_and_urls_from_the_file_are_shown_literally(
    store: ProfileStore,
) -> None:
    # A shared profiles.toml may hold anything: markup and escapes are shown, never acted on.
    write_profiles(
        store,
        '[profiles.ok]\nbase_url = "https://[bold]x.example.com"\n'
        '[profiles."bad\\u001b[31m"]\nbase_url = "https://plants.example.com"\n',
    )
    async with showing(ProfilesScreen(store)) as (app, _pilot):
        text = screen_text(app)
        assert "\x1b" not in text
        assert "bad\\e[31m" in text
        assert "[bold]" in static_text(app.screen, "#profiles-problems")


async def test_at_80x24_a_real_base_url_and_token_source_are_shown_whole(
    store: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nothing tested and nothing protected yet: those columns take no room from the ones that are.
    monkeypatch.setenv("PLANTS_TOKEN", "x" * 40)
    url = "https://plants.example.test:8443/api/v1"
    store.add(Profile(name="greenhouse", base_url=url, token_env="PLANTS_TOKEN"))
    store.add(Profile(name="bench", base_url="https://bench.example.test"), token=SecretStr(CANARY))
    app = Host(ProfilesScreen(store))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lines = screen_text(app).splitlines()
        # A row of the list (the details under it start "greenhouse: https://...").
        [greenhouse] = [line for line in lines if "greenhouse " in line]
        assert f"{url} " in greenhouse, greenhouse
        assert "$PLANTS_TOKEN" in greenhouse, greenhouse
        assert "…" not in greenhouse
        [bench] = [line for line in lines if "bench " in line]
        assert "https://bench.example.test" in bench, bench
        assert "keyring" in bench, bench
        # The titles stand over their columns.
        [titles] = [line for line in lines if "Base URL" in line]
        assert titles.index("Base URL") == greenhouse.index(url)
        assert titles.index("Token from") == greenhouse.index("$PLANTS_TOKEN")
        assert "Last test" not in titles


# --- add and edit ------------------------------------------------------------------------------


async def test_add_saves_the_profile_and_keeps_the_typed_token_masked(
    store: ProfileStore,
) -> None:
    async with showing(ProfilesScreen(store)) as (app, pilot):
        assert "No profiles yet" in static_text(app.screen, "#profiles-detail")
        await pilot.press("a")
        await settle(pilot)
        editor = editor_of(app)
        assert "A typed token is saved in: keyring" in static_text(editor, "#editor-token-home")
        await type_into(pilot, field(editor, "name"), "local")
        await type_into(pilot, field(editor, "base_url"), "http://127.0.0.1:8000/")
        token = field(editor, "token")
        await tab_to(pilot, token)
        await pilot.press(*f"  {CANARY}  ")
        assert token.password
        assert "•" * 8 in screen_text(app)
        assert_no_canary(app)

        await pilot.press("ctrl+r")  # reveal: the operator asked to see it
        assert not token.password
        assert CANARY_TAIL in screen_text(app)
        await pilot.press("ctrl+r")
        assert token.password
        assert_no_canary(app)

        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ProfilesScreen)
        assert cell(rows(app.screen)["local"], "url") == "http://127.0.0.1:8000"
        assert_no_canary(app)

    saved = store.get("local")
    assert saved.base_url == "http://127.0.0.1:8000"
    assert store.load().default == "local"
    secret, source = profile_token(saved, store.tokens, os.environ)
    assert secret.get_secret_value() == CANARY  # trimmed, as the core does
    assert source.kind is SourceKind.KEYRING


async def test_the_form_says_what_is_wrong_in_the_cores_words_and_saves_nothing(
    store: ProfileStore,
) -> None:
    async with showing(ProfileEditor(store)) as (app, pilot):
        editor = editor_of(app)

        def message(key: str) -> str:
            return static_text(editor, f"#editor-{key}-message")

        await type_into(pilot, field(editor, "name"), "no spaces")
        assert "must be 1 to 64 letters, digits" in message("name")
        await type_into(pilot, field(editor, "name"), "edge")
        assert message("name") == ""

        await type_into(pilot, field(editor, "base_url"), "ftp://plants.example.com")
        assert message("base_url") == "The base URL must start with http:// or https://"
        await type_into(pilot, field(editor, "base_url"), "http://10.1.2.3:8000")
        assert message("base_url") == (
            "plain http:// to 10.1.2.3 would send the token unencrypted over the network: "
            "use https://, or allow plain http below"
        )
        await pilot.click("#editor-insecure")
        await pilot.pause()
        assert message("base_url") == ""

        await type_into(pilot, field(editor, "token"), "abc def")
        assert message("token") == (
            "The token has a space, control or non-ASCII character at position 4"
        )
        await type_into(pilot, field(editor, "token"), "good-token")

        await pilot.click("#editor-choice-env")
        await type_into(pilot, field(editor, "token_env"), "1BAD")
        assert "token_env must be the name of an environment variable" in message("form")
        await type_into(pilot, field(editor, "token_env"), "EDGE_TOKEN")
        await type_into(pilot, field(editor, "timeout"), "soon")
        assert "timeout must be a number of seconds" in message("form")

        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is editor  # nothing saved, the form stays as typed
        assert field(editor, "timeout").value == "soon"
        assert field(editor, "timeout").has_focus or field(editor, "timeout").has_class("-invalid")
    assert store.load().profiles == ()


async def test_a_refused_save_says_why_and_loses_nothing(store: ProfileStore) -> None:
    store.add(Profile(name="taken", base_url="https://a.example.com", token_env="A_TOKEN"))
    async with showing(ProfileEditor(store)) as (app, pilot):
        editor = editor_of(app)
        await type_into(pilot, field(editor, "name"), "taken")
        await type_into(pilot, field(editor, "base_url"), "https://b.example.com")
        await type_into(pilot, field(editor, "token"), CANARY)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is editor
        assert "already exists" in static_text(editor, "#editor-save-message")
        assert field(editor, "base_url").value == "https://b.example.com"
        assert field(editor, "token").value == CANARY
        assert_no_canary(app)
    assert store.get("taken").base_url == "https://a.example.com"


async def test_edit_changes_only_what_changed_and_switches_the_token_source(
    store: ProfileStore,
) -> None:
    save_three(store)
    async with showing(ProfilesScreen(store)) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ProfilesScreen)
        await highlight(pilot, screen, "local")
        await pilot.press("e")
        await settle(pilot)
        editor = editor_of(app)
        assert field(editor, "name").disabled
        assert field(editor, "token").value == ""  # the saved token is never put in the form
        assert "empty: keep the saved token" in screen_text(app)
        await type_into(pilot, field(editor, "base_url"), "http://localhost:9000")
        await pilot.click("#editor-protected")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ProfilesScreen)

        await highlight(pilot, app.screen, "prod")
        await pilot.press("e")
        await settle(pilot)
        editor = editor_of(app)
        await pilot.click("#editor-choice-env")
        await type_into(pilot, field(editor, "token_env"), "PROD_TOKEN")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ProfilesScreen)
        assert cell(rows(app.screen)["prod"], "token") == "$PROD_TOKEN (not set)"

    local = store.get("local")
    assert (local.base_url, local.protected) == ("http://localhost:9000", True)
    token, _source = profile_token(local, store.tokens, os.environ)
    assert token.get_secret_value() == CANARY  # kept, not retyped
    prod = store.get("prod")
    assert (prod.token_env, prod.token_command, prod.protected) == ("PROD_TOKEN", None, True)


async def test_without_colour_the_token_choices_differ_by_their_marks(
    store: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # NO_COLOR: Textual draws every cell in one colour, so the choice must show in its shape.
    monkeypatch.setenv("NO_COLOR", "1")

    def marks(editor: ProfileEditor) -> list[str]:
        return [
            editor.query_one(f"#editor-choice-{key}", RadioButton).render().plain.strip()
            for key in ("typed", "env", "command")
        ]

    async with showing(ProfileEditor(store)) as (app, pilot):
        assert app.no_color
        editor = editor_of(app)
        assert marks(editor) == [
            "▐●▌ Typed here",
            "▐ ▌ Environment variable",
            "▐ ▌ Command",
        ]
        await pilot.click("#editor-choice-env")
        await pilot.pause()
        assert marks(editor) == [
            "▐ ▌ Typed here",
            "▐●▌ Environment variable",
            "▐ ▌ Command",
        ]
        assert "▐●▌ Environment variable" in screen_text(app)


# --- delete, default, use ----------------------------------------------------------------------


async def test_delete_asks_first_and_removes_the_kept_token(store: ProfileStore) -> None:
    save_three(store)
    async with showing(ProfilesScreen(store, active="local")) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ProfilesScreen)
        await highlight(pilot, screen, "local")
        await pilot.press("d")
        await pilot.pause()
        confirm = app.screen
        assert isinstance(confirm, ConfirmScreen)
        question = screen_text(app)
        assert "Delete this profile?" in question
        assert "http://127.0.0.1:8000" in question
        assert "It is the profile in use" in question
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ProfilesScreen)
        assert "local" in rows(screen)

        await pilot.press("d")
        await pilot.pause()
        await pilot.press("n")
        await settle(pilot)
        assert store.load().names == ("local", "staging", "prod")

        await pilot.press("d")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        assert list(rows(screen)) == ["staging", "prod"]
    assert store.load().names == ("staging", "prod")
    assert store.tokens.find("local") is None


async def test_set_default_marks_the_profile_and_saves_it(store: ProfileStore) -> None:
    save_three(store)
    async with showing(ProfilesScreen(store)) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ProfilesScreen)
        await highlight(pilot, screen, "prod")
        await pilot.press("s")
        await settle(pilot)
        assert "*" in cell(rows(screen)["prod"], "marks")
        assert "*" not in cell(rows(screen)["local"], "marks")
        assert screen.highlighted is rows(screen)["prod"]
    assert store.load().default == "prod"


async def test_enter_uses_the_highlighted_profile_and_escape_keeps_the_current_one(
    store: ProfileStore,
) -> None:
    save_three(store)
    async with showing(ProfilesScreen(store, active="local")) as (app, pilot):
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        assert app.results == ["prod"]

    async with showing(ProfilesScreen(store, active="local")) as (app, pilot):
        await pilot.press("escape")
        await pilot.pause()
        assert app.results == [None]


# --- test --------------------------------------------------------------------------------------


async def test_test_runs_the_check_and_shows_its_table(
    store: ProfileStore, reference_server: BackgroundServer
) -> None:
    store.add(
        Profile(name="good", base_url=reference_server.base_url), token=reference_server.token
    )
    store.add(Profile(name="wrong", base_url=reference_server.base_url), token=SecretStr(CANARY))
    async with showing(ProfilesScreen(store)) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ProfilesScreen)
        await highlight(pilot, screen, "good")
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, CheckScreen)
        shown = screen_text(app)
        assert "Check of " in shown
        assert ": pass" in shown
        assert "id not an integer" in shown
        await pilot.press("escape")
        await settle(pilot)
        row = rows(screen)["good"]
        assert cell(row, "test") == "pass"
        assert "Check: pass." in static_text(screen, "#profiles-detail")

        await highlight(pilot, screen, "wrong")
        await pilot.press("t")
        await settle(pilot)
        assert "the token was refused" in screen_text(app)
        assert_no_canary(app)
        await pilot.press("escape")
        await settle(pilot)
        assert cell(rows(screen)["wrong"], "test") == "fail"
        detail = static_text(screen, "#profiles-detail")
        assert "Check: fail (missing name, id not an integer)" in detail
        assert cell(rows(screen)["good"], "test") == "pass"  # kept per profile
        assert_no_canary(app)
    assert sqlite3.connect(reference_server.db_path).execute(
        "SELECT count(*) FROM plants"
    ).fetchone() == (0,)


async def test_test_without_a_token_says_so(store: ProfileStore) -> None:
    store.add(Profile(name="envless", base_url="http://127.0.0.1:9", token_env="UNSET_TOKEN"))
    async with showing(ProfilesScreen(store)) as (app, pilot):
        await pilot.press("t")
        await settle(pilot)
        detail = static_text(app.screen, "#profiles-detail")
        assert "Not tested: Profile 'envless' takes its token from $UNSET_TOKEN" in detail


# --- a profiles.toml that cannot be used -------------------------------------------------------


async def test_a_corrupt_file_is_reported_never_overwritten_and_the_screen_still_works(
    store: ProfileStore,
) -> None:
    corrupt = '# mine\n[profiles.local\nbase_url = "http://127.0.0.1:8000"\n'
    write_profiles(store, corrupt)
    async with showing(ProfilesScreen(store)) as (app, pilot):
        problems = static_text(app.screen, "#profiles-problems")
        assert f"{store.path}:2:" in problems  # path, line and column
        assert "not overwritten" in problems
        await pilot.press("e")  # nothing to edit: said, not crashed
        await pilot.press("a")
        await settle(pilot)
        editor = editor_of(app)
        await type_into(pilot, field(editor, "name"), "new")
        await type_into(pilot, field(editor, "base_url"), "https://plants.example.com")
        await type_into(pilot, field(editor, "token"), CANARY)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is editor
        assert str(store.path) in static_text(editor, "#editor-save-message")
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ProfilesScreen)
    assert store.path.read_text() == corrupt
    assert store.tokens.find("new") is None


async def test_a_broken_profile_is_listed_and_can_be_deleted(store: ProfileStore) -> None:
    write_profiles(
        store,
        '[profiles.ok]\nbase_url = "https://a.example.com"\ntoken_env = "A"\n'
        '[profiles.broken]\nbase_url = "ftp://b.example.com"\n',
    )
    async with showing(ProfilesScreen(store)) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ProfilesScreen)
        assert rows(screen)["broken"].has_class("-broken")
        await highlight(pilot, screen, "broken")
        assert "must start with http:// or https://" in static_text(screen, "#profiles-detail")
        await pilot.press("enter")  # cannot be used
        await pilot.pause()
        assert app.results == []
        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        assert list(rows(screen)) == ["ok"]
    assert "broken" not in store.path.read_text()


# --- the protected-send confirmation -----------------------------------------------------------


def _target(*, protected: bool, url: str = "https://plants.example.com") -> Target:
    return Target(
        base_url=url,
        token=SecretStr(CANARY),
        token_source="keyring",
        profile="prod",
        protected=protected,
    )


async def _ask(pilot: Pilot[Any], app: Host, sends: Protection, key: str) -> bool:
    target = _target(protected=True)
    plant = NewPlant(id=41, name="Monstera deliciosa", tag="indoor")
    app.push_screen(protected_question(target, plant), app.results.append)
    await pilot.pause()
    text = screen_text(app)
    assert "Send to a protected profile?" in text
    assert "prod" in text
    assert "https://plants.example.com" in text
    assert "Monstera deliciosa (id 41, tag indoor)" in text
    assert_no_canary(app)
    await pilot.press(key)
    await pilot.pause()
    answer = app.results.pop()
    assert isinstance(answer, Answer)
    if answer is Answer.YES_FOR_SESSION:
        sends.trust(target)
    return answer.confirmed


async def test_a_send_to_a_protected_profile_is_confirmed_by_enter_or_y(
    store: ProfileStore,
) -> None:
    sends = Protection()
    assert not sends.needs_asking(_target(protected=False))
    app = Host(Screen())
    async with app.run_test(size=SIZE) as pilot:
        for key, goes in (("enter", True), ("y", True), ("escape", False), ("n", False)):
            assert sends.needs_asking(_target(protected=True))
            assert await _ask(pilot, app, sends, key) is goes, key
        assert sends.needs_asking(_target(protected=True))


async def test_dont_ask_again_lasts_for_this_profile_and_url_only(store: ProfileStore) -> None:
    sends = Protection()
    app = Host(Screen())
    async with app.run_test(size=SIZE) as pilot:
        assert await _ask(pilot, app, sends, "a")
    assert not sends.needs_asking(_target(protected=True))
    assert sends.needs_asking(_target(protected=True, url="https://elsewhere.example.com"))
    assert Protection().needs_asking(_target(protected=True))  # a new session asks again


async def test_a_plain_yes_no_question_offers_no_dont_ask_again(store: ProfileStore) -> None:
    from rich.text import Text

    app = Host(ConfirmScreen("Delete this profile?", Text("local")))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a")
        await pilot.pause()
        assert app.results == []
        assert "don't ask" not in screen_text(app)
        await pilot.press("y")
        await pilot.pause()
        assert app.results == [Answer.YES]


# --- first run ---------------------------------------------------------------------------------


async def test_first_run_offers_the_demo_or_quitting(store: ProfileStore) -> None:
    for key, choice in (("d", FirstRunChoice(demo=True)), ("q", FirstRunChoice())):
        async with showing(FirstRunScreen(store)) as (app, pilot):
            assert "No profile yet." in screen_text(app)
            await pilot.press(key)
            await pilot.pause()
            assert app.results == [choice]


async def test_first_run_creates_a_profile_in_the_editor(store: ProfileStore) -> None:
    async with showing(FirstRunScreen(store)) as (app, pilot):
        await pilot.press("enter")  # Create a profile has the focus
        await settle(pilot)
        editor = editor_of(app)
        await pilot.press("escape")  # a cancelled form leaves the choice open
        await settle(pilot)
        assert isinstance(app.screen, FirstRunScreen)
        await pilot.press("c")
        await settle(pilot)
        editor = editor_of(app)
        await type_into(pilot, field(editor, "name"), "local")
        await type_into(pilot, field(editor, "base_url"), "http://127.0.0.1:8000")
        await type_into(pilot, field(editor, "token"), CANARY)
        assert_no_canary(app)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.results == [FirstRunChoice(profile=store.get("local"))]
    assert store.load().default == "local"


async def test_first_run_shows_why_a_profiles_file_gave_no_profile(store: ProfileStore) -> None:
    write_profiles(store, "default = \n")
    async with showing(FirstRunScreen(store)) as (app, _pilot):
        assert str(store.path) in static_text(app.screen, "#first-run-problems")


# --- a canary token through every source -------------------------------------------------------


async def test_a_canary_token_from_any_source_never_reaches_the_screen(
    store: ProfileStore,
    monkeypatch: pytest.MonkeyPatch,
    reference_server: BackgroundServer,
    tmp_path: Path,
) -> None:
    base_url = reference_server.base_url
    # The screen shows the command itself, so the canary is in a file it reads, as with `pass`.
    secret_file = tmp_path / "secret"
    secret_file.write_text(CANARY)
    command = shlex.join([sys.executable, "-c", f"print(open({str(secret_file)!r}).read())"])
    monkeypatch.setenv("CANARY_TOKEN", CANARY)
    store.add(Profile(name="kept", base_url=base_url), token=SecretStr(CANARY))
    store.add(Profile(name="env", base_url=base_url, token_env="CANARY_TOKEN"))
    store.add(Profile(name="command", base_url=base_url, token_command=command))
    for override in (False, True):
        if override:
            monkeypatch.setenv("PLANTSTORE_TOKEN", CANARY)
        async with showing(ProfilesScreen(store)) as (app, pilot):
            screen = app.screen
            assert isinstance(screen, ProfilesScreen)
            if override:
                assert "PLANTSTORE_TOKEN is set" in static_text(screen, "#profiles-problems")
            # With the override every profile has the same token: one of them shows enough.
            for name in ("kept",) if override else ("kept", "env", "command"):
                await highlight(pilot, screen, name)
                await pilot.press("t")
                await settle(pilot)
                # The full check runs on its own screen: the canary is refused, and not shown.
                assert isinstance(app.screen, CheckScreen)
                assert_no_canary(app)
                await pilot.press("escape")
                await settle(pilot)
                assert cell(rows(screen)[name], "test") == "fail"
                assert_no_canary(app)
                await pilot.press("e")
                await settle(pilot)
                assert_no_canary(app)
                await pilot.press("escape")
                await settle(pilot)
                await pilot.press("d")
                await pilot.pause()
                assert_no_canary(app)
                await pilot.press("escape")
                await settle(pilot)


# --- snapshot ----------------------------------------------------------------------------------


def test_profiles_screen_snapshot(
    snap_compare: SnapCompare, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A relative config dir, so the path on screen is the same on every machine.
    monkeypatch.chdir(tmp_path)
    store = ProfileStore(Path("config"))
    save_three(store)
    store.path.write_text(store.path.read_text() + '\n[profiles.old]\nbase_url = "gopher://x"\n')

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, ProfilesScreen)
        await highlight(pilot, screen, "prod")

    app = Host(ProfilesScreen(store, active="local"))
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_the_editor_sets_a_ca_bundle_and_keeps_what_it_does_not_show(
    store: ProfileStore, tmp_path: Path
) -> None:
    bundle = tmp_path / "company-ca.pem"
    bundle.write_text("-----BEGIN CERTIFICATE-----\n")
    quiet = Profile(name="quiet", base_url="https://q.example", token_env="Q", history=False)
    store.add(replace(quiet, ids="70000-70999"))
    async with showing(ProfilesScreen(store)) as (app, pilot):
        await highlight(pilot, app.screen, "quiet")
        assert "ids 70000-70999" in screen_text(app)
        await pilot.press("e")
        await settle(pilot)
        editor = editor_of(app)
        # A file's path is pasted, as from a file manager.
        await paste_into(pilot, field(editor, "ca_bundle"), str(tmp_path / "missing.pem"))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is editor  # not saved: the file does not exist
        assert "no such file" in screen_text(app)
        await paste_into(pilot, field(editor, "ca_bundle"), str(bundle))
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ProfilesScreen)
    saved = ProfileStore().get("quiet")
    assert saved is not None
    assert (saved.ca_bundle, saved.history, saved.ids) == (str(bundle), False, "70000-70999")


async def test_the_editor_sets_a_proxy_and_never_shows_its_password(store: ProfileStore) -> None:
    with_login = "http://alice:pw-SECRET@proxy.corp:3128"
    store.add(Profile(name="corp", base_url="https://c.example", token_env="C", proxy=with_login))
    async with showing(ProfileEditor(store, store.get("corp"))) as (app, pilot):
        editor = editor_of(app)
        assert field(editor, "proxy").value == "http://proxy.corp:3128"
        assert "SECRET" not in screen_text(app)
        await pilot.press("ctrl+s")
        await settle(pilot)
    # Saved unchanged: the password shown as nothing is not lost.
    assert ProfileStore().get("corp").proxy == with_login

    async with showing(ProfileEditor(store, store.get("corp"))) as (app, pilot):
        editor = editor_of(app)
        await type_into(pilot, field(editor, "proxy"), "socks5://proxy.corp:1080")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is editor
        assert "only http:// and https:// proxies" in screen_text(app)
        await type_into(pilot, field(editor, "proxy"), "none")
        await pilot.press("ctrl+s")
        await settle(pilot)
    assert ProfileStore().get("corp").proxy == "none"


async def test_an_edit_keeps_verified_entry_and_the_editor_sets_it(store: ProfileStore) -> None:
    store.add(Profile(name="desk", base_url="https://d.example", token_env="D", verify=True))
    async with showing(ProfilesScreen(store)) as (app, pilot):
        await highlight(pilot, app.screen, "desk")
        await pilot.press("e")
        await settle(pilot)
        editor = editor_of(app)
        assert editor.query_one("#editor-verify", Switch).value
        await type_into(pilot, field(editor, "timeout"), "20")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, ProfilesScreen)
    saved = store.get("desk")
    assert (saved.timeout, saved.verify) == (20, True)
    async with showing(ProfileEditor(store, saved)) as (app, pilot):
        await pilot.click("#editor-verify")
        await pilot.press("ctrl+s")
        await settle(pilot)
    assert not ProfileStore().get("desk").verify


async def test_the_editor_sets_an_id_range_in_the_core_s_words(store: ProfileStore) -> None:
    store.add(Profile(name="desk", base_url="https://d.example", token_env="D"))
    async with showing(ProfileEditor(store, store.get("desk"))) as (app, pilot):
        editor = editor_of(app)
        assert field(editor, "ids").value == ""
        await type_into(pilot, field(editor, "ids"), "70999-70000")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is editor  # not saved: the range runs backwards
        assert "70999 is more than 70000" in screen_text(app)
        await type_into(pilot, field(editor, "ids"), " 70000-70999 ")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is not editor
    assert ProfileStore().get("desk").ids == "70000-70999"
    async with showing(ProfileEditor(store, store.get("desk"))) as (app, pilot):
        editor = editor_of(app)
        assert field(editor, "ids").value == "70000-70999"
        await type_into(pilot, field(editor, "ids"), "")
        await pilot.press("ctrl+s")
        await settle(pilot)
    assert ProfileStore().get("desk").ids is None
