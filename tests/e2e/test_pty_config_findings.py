"""`plantstore-tui --profile local` in a terminal of 80x24, on a profiles.toml with a misspelt
key: the TUI names the file's line, the key and the nearest known key on its screen."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
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
