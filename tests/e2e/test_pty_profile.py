"""The operator's everyday start: `plantstore-tui` on a saved profile, in a terminal of its own.

The profile is found before the first frame from profiles.toml alone; its target (token and all)
is resolved in the app after that frame, so what resolving finds wrong is said in the TUI.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from burst_support import Record, expected_rows, keys_for, stored_plants
from pty_support import PtyProcess, isolated_env

from plantstore_tui.server.runner import BackgroundServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")

STARTUP_SECONDS = 20.0
EXIT_SECONDS = 10.0
CTRL_Q = b"\x11"
RECORDS: list[Record] = [("Alder", "911", "t1"), ("Birch", "912", "")]


def _tui(directory: Path, profiles: str, **env: str) -> PtyProcess:
    config = directory / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "profiles.toml").write_text(profiles)
    command = [sys.executable, "-m", "plantstore_tui"]
    return PtyProcess(command, env=isolated_env(directory, **env), cwd=directory)


def test_the_default_profile_sends_to_its_base_url_with_its_token(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    profiles = (
        'default = "bench"\n\n[profiles.bench]\n'
        f'base_url = "{reference_server.base_url}"\ntoken_env = "BENCH_PLANTS_TOKEN"\n'
    )
    token = reference_server.token.get_secret_value()
    with _tui(tmp_path, profiles, BENCH_PLANTS_TOKEN=token) as terminal:
        terminal.wait_for("token from $BENCH_PLANTS_TOKEN", STARTUP_SECONDS)
        terminal.wait_for("ready", STARTUP_SECONDS)
        mark = terminal.mark()
        terminal.write(keys_for(RECORDS))
        terminal.wait_for(f"Created plant {RECORDS[-1][1]}", STARTUP_SECONDS, since=mark)
        assert token not in terminal.screen_text()
        terminal.write(CTRL_Q)
        assert terminal.wait_exit(EXIT_SECONDS) == 0
    # The server takes a plant only with its own token.
    assert stored_plants(reference_server.db_path) == expected_rows(RECORDS)


def test_a_kept_token_that_cannot_be_read_is_said_in_the_tui(tmp_path: Path) -> None:
    # The keyring fails (the tests' backend) and there is no credentials file: no token.
    profiles = '[profiles.kept]\nbase_url = "http://127.0.0.1:9"\n'
    with _tui(tmp_path, profiles, PLANTSTORE_PROFILE="kept") as terminal:
        terminal.wait_for("Configuration problem: Profile 'kept' has no saved", STARTUP_SECONDS)
        terminal.write(CTRL_Q)
        assert terminal.wait_exit(EXIT_SECONDS) == 0
