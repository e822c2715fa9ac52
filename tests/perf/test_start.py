"""What the front door loads: an ad hoc target or a saved profile starts the TUI without click,
httpx or Pydantic, and connecting loads no click (what it opens:
tests/test_start.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from front_door_support import SAVED, TOKEN, front_door, profiles_in


def test_an_ad_hoc_target_starts_the_tui_without_click(tmp_path: Path) -> None:
    result = front_door(
        ["--base-url", "http://127.0.0.1:9"],
        PLANTSTORE_TOKEN=TOKEN,
        PLANTSTORE_CONFIG_DIR=str(tmp_path),
    )
    assert "label: http://127.0.0.1:9" in result.stdout, result.stdout + result.stderr
    assert "click loaded: False" in result.stdout


@pytest.mark.parametrize(
    ("base_url", "env"),
    [
        ("http://127.0.0.1:9", {}),
        # Found in the connect thread: a bad proxy from the environment.
        ("http://example.test", {"HTTP_PROXY": "ftp://proxy.example.test:21"}),
    ],
)
def test_connecting_in_the_tui_loads_no_click(
    tmp_path: Path, base_url: str, env: dict[str, str]
) -> None:
    # click costs 0.9 MiB; the connect thread resolves the target with the core's words.
    result = front_door(
        ["--base-url", base_url, "--connect"],
        PLANTSTORE_TOKEN=TOKEN,
        PLANTSTORE_CONFIG_DIR=str(tmp_path),
        **env,
    )
    assert "click loaded after connecting: False" in result.stdout, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("arguments", "env"),
    [
        ([], {}),
        (["--profile", "prod", "--proxy", "none"], {"PLANTSTORE_TOKEN": TOKEN}),
        # The profile keeps its token (keyring or credentials file): read after the first frame.
        ([], {"PLANTSTORE_PROFILE": "prod"}),
    ],
)
def test_a_saved_profile_starts_the_tui_without_click_httpx_or_pydantic(
    tmp_path: Path, arguments: list[str], env: dict[str, str]
) -> None:
    config = profiles_in(tmp_path / "config", SAVED)
    result = front_door(arguments, PLANTSTORE_CONFIG_DIR=str(config), STAGING_TOKEN=TOKEN, **env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "label: " in result.stdout
    assert "loaded: []" in result.stdout
