"""A mistake in profiles.toml is said where the operator looks: the TUI, started as
`plantstore-tui --profile local` starts it, names the file, the line, the key and the nearest
known key on screen at once, and keeps the same words in the log."""

from __future__ import annotations

import html
import os
import textwrap
from pathlib import Path
from typing import Any

from seen_support import notifications_of
from snapshot_apps.support import app_with, ready, until

from plantstore_tui.cli.tui import unprompted_plan
from plantstore_tui.core.config.files import config_dir
from plantstore_tui.core.config.options import TargetOptions
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.send import SendScreen

SMALL = (80, 24)


def write_profiles(text: str) -> str:
    """profiles.toml in the config dir, as an operator writes it; its path."""
    path = config_dir() / "profiles.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return str(path)


def started(profile: str) -> PlantStoreApp:
    """The TUI as `plantstore-tui --profile PROFILE` opens it."""
    plan = unprompted_plan(TargetOptions(profile=profile), os.environ)
    assert plan is not None
    return app_with(*plan)


def on_screen(app: PlantStoreApp) -> str:
    """The text of the screen as drawn (notifications included), spaces as spaces."""
    return html.unescape(app.export_screenshot()).replace("\xa0", " ")


def notified(words: str) -> str:
    """The finding's words as the notification says them: by line, the file in its title."""
    line = words.split(", line ", 1)[1]
    return f"Line {line}"


async def shows_and_logs(app: PlantStoreApp, words: str, *pieces: str) -> None:
    """The finding's words notified by line (its toast drawn, with `pieces` of it) and whole
    in the log, with the file's path."""
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        screen = await ready(app, pilot)
        assert isinstance(screen, SendScreen)
        await until(
            pilot,
            lambda: any(notified(words) in note.message for note in notifications_of(app)),
            "the finding notified",
        )
        await until(pilot, lambda: words in screen.log_panel.plain_text(), "the finding logged")
        await until(pilot, lambda: "A mistake in profiles.toml" in on_screen(app), "the toast")
        drawn = on_screen(app)
        for piece in pieces:
            assert piece in drawn, piece


async def test_a_misspelt_protected_is_said_on_screen_and_in_the_log(
    reference_server: Any, monkeypatch: Any, tmp_path: Path
) -> None:
    monkeypatch.setenv("LOCAL_TOKEN", reference_server.token.get_secret_value())
    # A home as deep as a real one's: the path must not push the nearest key out of the toast.
    deep = tmp_path / "home" / "operator-with-a-long-name" / ".config" / "plantstore-tui"
    monkeypatch.setenv("PLANTSTORE_CONFIG_DIR", str(deep))
    path = write_profiles(
        f"""\
        # the greenhouse
        [profiles.local]
        base_url = "{reference_server.base_url}"
        token_env = "LOCAL_TOKEN"
        protectd = true
        """
    )
    words = (
        f"{path}, line 5: profile 'local' has no setting `protectd`, and it looks like a safety "
        "setting: until the file is fixed the profile is treated as protected (each send asks "
        "first). Did you mean `protected`?"
    )
    app = started("local")
    await shows_and_logs(app, words, "protectd", "Did you mean")
    [said] = [note for note in notifications_of(app) if "protectd" in note.message]
    assert said.severity == "warning"


async def test_a_theme_that_is_not_a_name_is_said_on_screen_and_in_the_log(
    reference_server: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("LOCAL_TOKEN", reference_server.token.get_secret_value())
    path = write_profiles(
        f"""\
        theme = 3

        [profiles.local]
        base_url = "{reference_server.base_url}"
        token_env = "LOCAL_TOKEN"
        """
    )
    words = (
        f"{path}, line 1: `theme` must be the name of a theme in quotes, such as "
        '"textual-light"; 3 is ignored and the default theme is used.'
    )
    app = started("local")
    await shows_and_logs(app, words, "theme", "3 is ignored")


async def test_many_mistakes_are_summed_up_in_the_notification_and_each_kept_in_the_log() -> None:
    path = write_profiles(
        """\
        colour = 1
        size = 2
        thme = "nord"
        defualt = "a"
        histroy_limit = 5
        """
    )
    app = PlantStoreApp(None, TargetLabel(base_url="no target yet", token_source="no profile"))
    async with app.run_test(size=SMALL) as pilot:
        await until(pilot, lambda: bool(notifications_of(app)), "a notification")
        screen = app.get_default_screen()
        assert isinstance(screen, SendScreen)
        await until(pilot, lambda: "histroy_limit" in screen.log_panel.plain_text(), "the log")
        [said] = notifications_of(app)
        assert said.title == "Mistakes in profiles.toml"
        assert said.message.split("\n\n") == [
            "Line 1: there is no setting `colour`, so it is ignored.",
            "Line 2: there is no setting `size`, so it is ignored.",
            "And 3 more: the log lists each.",
        ]
        logged = screen.log_panel.plain_text()
        for line, key in enumerate(("colour", "size", "thme", "defualt", "histroy_limit"), 1):
            assert f"{path}, line {line}: there is no setting `{key}`" in logged
        assert "Did you mean `history_limit`?" in logged
