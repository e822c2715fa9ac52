"""`plantstore-tui --profile local` in a terminal of 80x24, on a profiles.toml with a misspelt
key: the TUI names the file's line, the key and the nearest known key on its screen."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from burst_support import stored_plants
from pty_support import PtyProcess, isolated_env

from plantstore_tui.server.runner import BackgroundServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")

STARTUP_SECONDS = 20.0
EXIT_SECONDS = 10.0
CTRL_Q = b"\x11"


def test_a_misspelt_protected_is_named_on_the_tuis_screen(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "profiles.toml").write_text(
        "[profiles.local]\n"
        f'base_url = "{reference_server.base_url}"\n'
        'token_env = "LOCAL_TOKEN"\n'
        "protectd = true\n"
    )
    env = isolated_env(tmp_path, LOCAL_TOKEN=reference_server.token.get_secret_value())
    command = [sys.executable, "-m", "plantstore_tui", "--profile", "local"]
    with PtyProcess(command, env=env, cwd=tmp_path, columns=80, rows=24) as terminal:
        terminal.wait_for("ready", STARTUP_SECONDS)
        # Drawn in pieces: short markers, each a part of the one finding.
        for marker in ("line 4", "protectd", "Did you mean", "protected"):
            terminal.wait_for(marker, STARTUP_SECONDS)
        terminal.write(CTRL_Q)
        assert terminal.wait_exit(EXIT_SECONDS) == 0


def test_a_misspelt_protected_makes_the_tui_ask_before_the_send(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "profiles.toml").write_text(
        "[profiles.local]\n"
        f'base_url = "{reference_server.base_url}"\n'
        'token_env = "LOCAL_TOKEN"\n'
        "protectd = true\n"
    )
    env = isolated_env(tmp_path, LOCAL_TOKEN=reference_server.token.get_secret_value())
    command = [sys.executable, "-m", "plantstore_tui", "--profile", "local"]
    with PtyProcess(command, env=env, cwd=tmp_path, columns=80, rows=24) as terminal:
        terminal.wait_for("ready", STARTUP_SECONDS)
        for marker in ("treated as", "protected"):
            terminal.wait_for(marker, STARTUP_SECONDS)
        mark = terminal.mark()
        terminal.write(b"Fern\t7\t\r")
        terminal.wait_for("Send to a protected profile?", STARTUP_SECONDS, since=mark)
        mark = terminal.mark()
        terminal.write(b"n")
        terminal.wait_for("ready", STARTUP_SECONDS, since=mark)
        terminal.write(CTRL_Q)
        assert terminal.wait_exit(EXIT_SECONDS) == 0
    assert stored_plants(reference_server.db_path) == []


@pytest.mark.parametrize(
    "text",
    [
        "a = " + "[" * 500 + "]" * 500 + "\n",
        "[" + ".".join(f"t{level}" for level in range(500)) + "]\nkey = 1\n",
    ],
    ids=["array", "tables"],
)
def test_a_profiles_toml_nested_500_deep_opens_the_broken_file_screen(
    tmp_path: Path, text: str
) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "profiles.toml").write_text(text)
    command = [sys.executable, "-m", "plantstore_tui"]
    with PtyProcess(
        command, env=isolated_env(tmp_path), cwd=tmp_path, columns=80, rows=24
    ) as terminal:
        terminal.wait_for("cannot be read", STARTUP_SECONDS)
        terminal.wait_for("nested", STARTUP_SECONDS)
        terminal.write(b"q")
        assert terminal.wait_exit(EXIT_SECONDS) == 0
        assert "Traceback" not in terminal.screen_text()
    assert (config / "profiles.toml").read_text() == text
