"""Many processes, one ledger: the TUI in a real terminal kept open while its operator opens and
closes its screens and runs commands in a second terminal, on one data directory, as issue 42
found them losing plants. SQLite's "How To Corrupt An SQLite Database File" (2.2): a process that
closes a descriptor of its own on the ledger drops every lock it holds there, so another process's
close takes itself for the last user and deletes the write-ahead log still being written.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from burst_support import keys_for
from pty_support import PtyProcess, isolated_env

from plantstore_tui.core.store import LEDGER_FILE
from plantstore_tui.server.runner import BackgroundServer

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc/PID/fd of the TUI"
)

STARTUP_SECONDS = 20.0
ANSWER_SECONDS = 15.0
F3, F6, F7, ESC, CTRL_Q = b"\x1bOR", b"\x1b[17~", b"\x1b[18~", b"\x1b", b"\x11"


# Each screen's key, and what shows it is open.
HISTORY, PROBE, SUMMARY = (F3, "Prev page"), (F6, "Body, sent as typed"), (F7, "Shift summary")


def visit(terminal: PtyProcess, *screens: tuple[bytes, str]) -> None:
    """Open each screen and close it again (Esc), as an operator glancing at it."""
    for key, title in screens:
        mark = terminal.mark()
        terminal.write(key)
        terminal.wait_for(title, STARTUP_SECONDS, since=mark)
        terminal.write(ESC)
        terminal.wait_for("ready", STARTUP_SECONDS, since=mark)


def deleted_ledger_files(pid: int, data: Path) -> list[str]:
    """The ledger's files the process `pid` holds open although they were deleted."""
    held = []
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except FileNotFoundError:
            continue  # closed while listed
        if target.startswith(str(data / LEDGER_FILE)) and target.endswith("(deleted)"):
            held.append(target)
    return held


def run(env: dict[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    """`plantstore-tui ARGUMENTS` in a second terminal on the same data directory."""
    return subprocess.run(
        [sys.executable, "-m", "plantstore_tui", *arguments],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def ledger_plants(data: Path) -> list[tuple[int, str, str]]:
    """(entry, name, state) of every plant in the ledger, read as a third process reads it."""
    with closing(sqlite3.connect(data / LEDGER_FILE)) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return connection.execute("SELECT entry, name, state FROM plants ORDER BY entry").fetchall()


def test_plants_keyed_and_added_beside_the_screens_and_a_second_command_are_all_kept(
    reference_server: BackgroundServer, tmp_path: Path, plant_id: int
) -> None:
    data = tmp_path / "data"
    env = isolated_env(tmp_path, PLANTSTORE_TOKEN=reference_server.token.get_secret_value())
    command = [sys.executable, "-m", "plantstore_tui", "--base-url", reference_server.base_url]
    ids = [str(plant_id + n) for n in range(3)]
    with PtyProcess(command, env=env, cwd=tmp_path, columns=80, rows=24) as terminal:
        terminal.wait_for("ready", STARTUP_SECONDS)
        mark = terminal.mark()
        terminal.write(keys_for([("Alder", ids[0], "")]))
        terminal.wait_for(f"Created plant {ids[0]}", ANSWER_SECONDS, since=mark)
        visit(terminal, HISTORY, PROBE, SUMMARY)
        listed = run(env, "history")
        assert listed.returncode == 0, listed.stderr
        assert "Alder" in listed.stdout
        assert deleted_ledger_files(terminal.pid, data) == []

        mark = terminal.mark()
        terminal.write(keys_for([("Birch", ids[1], "")]))
        terminal.wait_for(f"Created plant {ids[1]}", ANSWER_SECONDS, since=mark)
        added = run(
            env,
            "add",
            "--name",
            "Cedar",
            "--id",
            ids[2],
            "--json",
            "--base-url",
            reference_server.base_url,
        )
        assert added.returncode == 0, added.stdout + added.stderr
        cedar = json.loads(added.stdout)["entry"]
        assert deleted_ledger_files(terminal.pid, data) == []
        plants = ledger_plants(data)
        assert [(name, state) for _, name, state in plants] == [
            ("Alder", "created"),
            ("Birch", "created"),
            ("Cedar", "created"),
        ]
        assert plants[2][0] == cedar

        terminal.write(CTRL_Q)
        assert terminal.wait_exit() == 0
    assert [name for _, name, _ in ledger_plants(data)] == ["Alder", "Birch", "Cedar"]


def test_a_plant_queued_while_the_deployment_is_down_survives_kill_9_after_a_second_command(
    closed_port: int, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    env = isolated_env(tmp_path, PLANTSTORE_TOKEN="a-token-for-nobody")
    command = [
        sys.executable,
        "-m",
        "plantstore_tui",
        "--base-url",
        f"http://127.0.0.1:{closed_port}",
    ]
    with PtyProcess(command, env=env, cwd=tmp_path, columns=80, rows=24) as terminal:
        terminal.wait_for("ready", STARTUP_SECONDS)
        visit(terminal, HISTORY, SUMMARY)
        listed = run(env, "history")
        assert listed.returncode == 0, listed.stderr
        mark = terminal.mark()
        terminal.write(keys_for([("Dogwood", "4242", "")]))
        terminal.wait_for("Dogwood", ANSWER_SECONDS, since=mark)
        terminal.wait_for("waiting", ANSWER_SECONDS, since=mark)
        terminal.send_signal(signal.SIGKILL)
        assert terminal.wait_exit() == -signal.SIGKILL
    assert [(name, state) for _, name, state in ledger_plants(data)] == [("Dogwood", "queued")]
