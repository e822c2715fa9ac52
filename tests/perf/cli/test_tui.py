"""What the TUI's start loads before its first frame: an ad hoc target or a saved profile opens
it without httpx, Pydantic or keyring, read when the target is resolved in the app (what it
opens: tests/cli/test_tui.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from front_door_support import SAVED, TOKEN, front_door, profiles_in


def test_an_ad_hoc_target_starts_the_tui_without_httpx_or_pydantic(tmp_path: Path) -> None:
    result = front_door(
        ["--base-url", "http://127.0.0.1:9"],
        PLANTSTORE_TOKEN=TOKEN,
        PLANTSTORE_CONFIG_DIR=str(tmp_path),
    )
    assert "label: http://127.0.0.1:9" in result.stdout, result.stdout + result.stderr
    assert "loaded: []" in result.stdout


@pytest.mark.parametrize(
    ("arguments", "env"),
    [
        ([], {}),
        (["--profile", "prod", "--proxy", "none"], {"PLANTSTORE_TOKEN": TOKEN}),
        # The profile keeps its token (keyring or credentials file): read after the first frame.
        ([], {"PLANTSTORE_PROFILE": "prod"}),
    ],
)
def test_a_saved_profile_starts_the_tui_without_httpx_pydantic_or_keyring(
    tmp_path: Path, arguments: list[str], env: dict[str, str]
) -> None:
    config = profiles_in(tmp_path / "config", SAVED)
    result = front_door(arguments, PLANTSTORE_CONFIG_DIR=str(config), STAGING_TOKEN=TOKEN, **env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "label: " in result.stdout
    assert "loaded: []" in result.stdout
