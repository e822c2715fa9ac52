"""A token too short to be found in answers (under 8 characters) is said once by every front end
that sends with it, since an echo of it cannot be hidden: `add`, `import`, `check` and the TUI
(`probe` says it beside its answer: tests/cli/test_probe_echo.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pty_support import PtyProcess, isolated_env

NOTE = "The token is under 8 characters"


def run(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **isolated_env(tmp_path, PLANTSTORE_TOKEN="abc")}
    return subprocess.run(
        [sys.executable, "-m", "plantstore_tui", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("command", ["add", "import", "check"])
def test_a_short_token_is_said_once_on_stderr(
    tmp_path: Path, closed_port: int, command: str
) -> None:
    url = f"http://127.0.0.1:{closed_port}"
    rows = tmp_path / "plants.csv"
    rows.write_text("name,id\nFern,1\n")
    argv = {
        "add": ["add", "--name", "Fern", "--id", "1", "--base-url", url],
        "import": ["import", str(rows), "--base-url", url, "--give-up-after", "0"],
        "check": ["check", "--base-url", url],
    }[command]
    result = run(tmp_path, *argv)
    assert result.stderr.count(NOTE) == 1, result.stdout + result.stderr
    assert NOTE not in result.stdout
    assert "abc" not in result.stdout + result.stderr


def test_the_tui_says_a_short_token_once_in_its_log(tmp_path: Path, closed_port: int) -> None:
    env = isolated_env(tmp_path, PLANTSTORE_TOKEN="abc")
    command = [
        sys.executable,
        "-m",
        "plantstore_tui",
        "--base-url",
        f"http://127.0.0.1:{closed_port}",
    ]
    with PtyProcess(command, env=env, cwd=tmp_path, columns=80, rows=24) as terminal:
        terminal.wait_for("under 8", 20.0)
        terminal.write(b"\x11")
        assert terminal.wait_exit() == 0
