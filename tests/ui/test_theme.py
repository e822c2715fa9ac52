"""The theme: chosen in the palette, kept in profiles.toml for the next start; a file that
cannot take it is left alone and the operator is told."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import SecretStr
from seen_support import notifications_of
from snapshot_apps.support import SIZE, app_for, ready, until
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widgets import OptionList

from plantstore_tui.core.config.files import config_dir
from plantstore_tui.ui.app import PlantStoreApp

# Nothing listens there: these tests send nothing.
NOWHERE = "http://127.0.0.1:9"


def an_app() -> PlantStoreApp:
    return app_for(NOWHERE, SecretStr("a-token-for-the-theme-tests"))


def first_offered(app: PlantStoreApp) -> str:
    """The first line of the palette's highlighted choice ("" while it lists none)."""
    palette = app.screen
    if not isinstance(palette, CommandPalette):
        return ""
    options = palette.query_one(OptionList)
    index = options.highlighted
    return "" if index is None else str(options.get_option_at_index(index).prompt).split("\n")[0]


async def choose_theme(app: PlantStoreApp, pilot: Pilot[None], name: str) -> None:
    """Ctrl+P, "Theme", then `name` in Textual's theme list, as an operator does it."""
    await pilot.press("ctrl+p")
    await until(pilot, lambda: isinstance(app.screen, CommandPalette))
    await pilot.press(*"theme")
    await until(pilot, lambda: first_offered(app) == "Theme", "Theme offered")
    await pilot.press("enter")
    await until(pilot, lambda: first_offered(app) not in ("", "Theme"), "the theme list")
    await pilot.press(*name)
    await until(pilot, lambda: first_offered(app) == name, f"{name} offered")
    await pilot.press("enter")
    await until(pilot, lambda: app.theme == name, f"the theme {name}")
    await asyncio.gather(*(worker.wait() for worker in app.workers if worker.group == "theme"))


def profiles_toml() -> Path:
    return config_dir() / "profiles.toml"


async def test_the_theme_chosen_in_the_palette_is_kept_for_the_next_start() -> None:
    first = an_app()
    async with first.run_test(size=SIZE) as pilot:
        await ready(first, pilot)
        assert first.theme != "textual-light"
        await choose_theme(first, pilot, "textual-light")
    assert 'theme = "textual-light"' in profiles_toml().read_text()

    second = an_app()
    async with second.run_test(size=SIZE) as pilot:
        screen = await ready(second, pilot)
        assert second.theme == "textual-light"
        # Drawn in it from the start: a light background, not the dark theme's.
        assert screen.styles.background.brightness > 0.5


async def test_a_theme_kept_beside_profiles_leaves_the_operators_lines_as_they_were() -> None:
    path = profiles_toml()
    path.parent.mkdir(parents=True)
    mine = (
        '# my profiles\ndefault = "a"  # the usual one\n\n'
        '[profiles.a]\nbase_url = "https://a.example.com"\ntoken_env = "A"\n'
    )
    path.write_text(mine)
    app = an_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await choose_theme(app, pilot, "nord")
    kept = path.read_text()
    assert kept.replace('theme = "nord"\n', "") == mine
    assert kept.index("theme") < kept.index("[profiles.a]")


async def test_a_profiles_toml_that_does_not_parse_is_not_rewritten_for_a_theme() -> None:
    path = profiles_toml()
    path.parent.mkdir(parents=True)
    corrupt = b'[profiles.a\nbase_url = "https://a.example.com"\n'
    path.write_bytes(corrupt)
    app = an_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await choose_theme(app, pilot, "textual-light")
        await until(pilot, lambda: any(n.title == "Theme" for n in notifications_of(app)))
    [said] = [n.message for n in notifications_of(app) if n.title == "Theme"]
    assert said.startswith("The theme is used until you quit, but it is not kept:")
    assert f"{path}:1:" in said
    assert path.read_bytes() == corrupt


async def test_a_theme_this_version_does_not_have_is_said_and_the_default_used() -> None:
    path = profiles_toml()
    path.parent.mkdir(parents=True)
    path.write_text('theme = "no-such-theme"\n')
    app = an_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await ready(app, pilot)
        words = f"{path}, line 1: this version has no theme 'no-such-theme', so the default theme"
        # The toast says it by line, the file named in its title; the log, with the path.
        brief = "Line 1: this version has no theme 'no-such-theme', so the default theme"
        await until(pilot, lambda: any(brief in n.message for n in notifications_of(app)))
        assert app.theme == "textual-dark"
        await until(pilot, lambda: words in screen.log_panel.plain_text(), "kept in the log")
    # Not replaced by the default for having been missing: only a choice is written.
    assert path.read_text() == 'theme = "no-such-theme"\n'


async def test_a_misspelt_theme_is_said_with_the_nearest_name() -> None:
    path = profiles_toml()
    path.parent.mkdir(parents=True)
    path.write_text('# mine\ntheme = "nrod"\n')
    app = an_app()
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await until(pilot, lambda: bool(notifications_of(app)), "a notification")
    [said] = notifications_of(app)
    assert said.title == "A mistake in profiles.toml"
    assert said.message == (
        "Line 2: this version has no theme 'nrod', so the default theme is used. "
        "Did you mean `nord`?"
    )
