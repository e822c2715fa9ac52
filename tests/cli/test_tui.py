"""`plantstore-tui` without a subcommand: an ad hoc target or a saved profile opens the TUI with
its label, connected to in the TUI; a start that cannot open says why, with its exit code."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from front_door_support import SAVED, TOKEN, front_door, profiles_in

from plantstore_tui.cli import tui
from plantstore_tui.cli.exits import ConfigProblem
from plantstore_tui.core.config.options import TargetOptions


def test_an_ad_hoc_target_opens_the_tui_with_its_label(tmp_path: Path) -> None:
    result = front_door(
        ["--base-url", "http://127.0.0.1:9"],
        PLANTSTORE_TOKEN=TOKEN,
        PLANTSTORE_CONFIG_DIR=str(tmp_path),
    )
    assert "label: http://127.0.0.1:9 · token from $PLANTSTORE_TOKEN" in result.stdout
    assert TOKEN not in result.stdout + result.stderr


def test_an_ad_hoc_target_is_connected_to_in_the_tui(tmp_path: Path) -> None:
    # The connect thread resolves the target with the core's words.
    result = front_door(
        ["--base-url", "http://127.0.0.1:9", "--connect"],
        PLANTSTORE_TOKEN=TOKEN,
        PLANTSTORE_CONFIG_DIR=str(tmp_path),
    )
    assert "connected: http://127.0.0.1:9" in result.stdout, result.stdout + result.stderr


def test_a_target_unusable_in_the_tui_is_said_in_the_same_words(tmp_path: Path) -> None:
    # Found in the connect thread (a bad proxy from the environment): the message the TUI's
    # log shows is the core's, as the command line's exit 4 says it.
    result = front_door(
        ["--base-url", "http://example.test", "--connect"],
        PLANTSTORE_TOKEN=TOKEN,
        PLANTSTORE_CONFIG_DIR=str(tmp_path),
        HTTP_PROXY="ftp://proxy.example.test:21",
    )
    assert "connect failed:" in result.stdout, result.stdout + result.stderr
    assert "proxy" in result.stdout.split("connect failed:", 1)[1].lower()


def test_an_ad_hoc_target_without_its_token_or_a_terminal_to_ask_on_ends_in_words(
    tmp_path: Path,
) -> None:
    # The token would be asked for before the TUI; with no terminal, a configuration problem.
    result = front_door(["--base-url", "http://127.0.0.1:9"], PLANTSTORE_CONFIG_DIR=str(tmp_path))
    assert result.returncode == 4, result.stdout + result.stderr
    assert "Error: No token: set PLANTSTORE_TOKEN" in result.stderr
    assert "label:" not in result.stdout


def test_help_names_the_command() -> None:
    result = front_door(["--help"])
    assert result.returncode == 0
    assert "Usage: plantstore-tui" in result.stdout


@pytest.mark.parametrize(
    ("arguments", "env", "label"),
    [
        ([], {}, "staging · http://127.0.0.1:9 · token from $STAGING_TOKEN"),
        (
            ["--profile", "prod", "--proxy", "none"],
            {"PLANTSTORE_TOKEN": TOKEN},
            "prod PROTECTED · https://plants.example.com/ · token from $PLANTSTORE_TOKEN",
        ),
        # The profile keeps its token (keyring or credentials file): read after the first frame.
        ([], {"PLANTSTORE_PROFILE": "prod"}, "prod PROTECTED · https://plants.example.com/ · "),
        # A profile named wins over PLANTSTORE_BASE_URL.
        (
            [],
            {"PLANTSTORE_BASE_URL": "http://127.0.0.1:8", "PLANTSTORE_PROFILE": "staging"},
            "staging",
        ),
    ],
)
def test_a_saved_profile_opens_the_tui_with_its_label(
    tmp_path: Path, arguments: list[str], env: dict[str, str], label: str
) -> None:
    config = profiles_in(tmp_path / "config", SAVED)
    result = front_door(arguments, PLANTSTORE_CONFIG_DIR=str(config), STAGING_TOKEN=TOKEN, **env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"label: {label}" in result.stdout
    assert TOKEN not in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("profiles", "arguments", "env", "words"),
    [
        # No profiles.toml: the first run (no terminal here, so the words of "no target").
        (None, [], {}, "No target: give --base-url URL"),
        ("default = \n", [], {}, "profiles.toml:1:"),
        (
            SAVED,
            ["--profile", "nope"],
            {},
            "Unknown profile 'nope'; saved profiles: staging, prod",
        ),
        (SAVED, [], {"PLANTSTORE_PROFILE": "nope"}, "Unknown profile 'nope'"),
        (
            SAVED.replace('default = "staging"', ""),
            [],
            {},
            "No target: choose a profile with --profile NAME (saved: staging, prod)",
        ),
        # "No token" is a configuration problem said before the TUI, as it always was.
        (
            SAVED,
            [],
            {"STAGING_TOKEN": " "},
            "takes its token from $STAGING_TOKEN, which is not set",
        ),
        # An ad hoc target in the environment without its token, and no terminal to ask on.
        (None, [], {"PLANTSTORE_BASE_URL": "http://127.0.0.1:9"}, "No token: set PLANTSTORE_TOKEN"),
    ],
)
def test_a_start_that_cannot_open_the_tui_says_why_and_exits_4(
    tmp_path: Path, profiles: str | None, arguments: list[str], env: dict[str, str], words: str
) -> None:
    config = tmp_path / "config"
    if profiles is not None:
        profiles_in(config, profiles)
    result = front_door(arguments, PLANTSTORE_CONFIG_DIR=str(config), **env)
    assert result.returncode == 4, result.stdout + result.stderr
    assert "label:" not in result.stdout
    assert words in result.stderr


class _Terminal:
    """stdin and stdout of a run in a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("arguments", "env"),
    [([], {}), (["--profile", "staging"], {}), ([], {"PLANTSTORE_PROFILE": "staging"})],
)
def test_in_a_terminal_a_profiles_toml_that_does_not_parse_opens_the_first_run_screen(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    arguments: list[str],
    env: dict[str, str],
) -> None:
    # Not exit 4: the TUI opens and says what is wrong with the file (tests/ui/test_wiring.py).
    config = profiles_in(tmp_path / "config", SAVED.replace("[profiles.prod]", "[profiles.prod"))
    monkeypatch.setenv("PLANTSTORE_CONFIG_DIR", str(config))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.setattr(sys, "stdout", _Terminal())
    profile = arguments[1] if arguments else None
    connect, label = tui._plan(TargetOptions(profile=profile))
    assert connect is None
    assert label.base_url == "no target yet"


def test_a_profiles_toml_that_does_not_parse_is_no_first_run_for_another_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An ad hoc target does not come from the file: its own problem is said (exit 4).
    config = profiles_in(tmp_path / "config", "default = \n")
    monkeypatch.setenv("PLANTSTORE_CONFIG_DIR", str(config))
    monkeypatch.setenv("PLANTSTORE_BASE_URL", "ftp://plants.example.com")
    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.setattr(sys, "stdout", _Terminal())
    with pytest.raises(ConfigProblem) as raised:
        tui._plan(TargetOptions())
    assert "profiles.toml" not in raised.value.message
