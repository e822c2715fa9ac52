"""`kill -9` of the real TUI between a plant's two keyings (verified entry): the first keying
cleared the form, so the screen took it, and nothing the screen took may be lost. The next start
offers it in needs attention, held, saying it was keyed once; nothing is sent by itself."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest
from burst_support import stored_plants
from ledger_support import ledger_rows
from pty_support import PtyProcess, isolated_env

from plantstore_tui.server.runner import BackgroundServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals and a pty")

STARTUP_SECONDS = 20.0
EXIT_SECONDS = 10.0


def tui(server: BackgroundServer, tmp_path: Path, *options: str) -> PtyProcess:
    env = isolated_env(tmp_path, PLANTSTORE_TOKEN=server.token.get_secret_value())
    command = [sys.executable, "-m", "plantstore_tui", *options, "--base-url", server.base_url]
    return PtyProcess(command, env=env, cwd=tmp_path)


def test_a_first_keying_survives_kill_9_and_is_offered_held(
    reference_server: BackgroundServer, tmp_path: Path, plant_id: int
) -> None:
    data = tmp_path / "data"
    with tui(reference_server, tmp_path, "--verify") as terminal:
        terminal.wait_for("ready · verify", STARTUP_SECONDS)
        mark = terminal.mark()
        terminal.write(f"Fern\t{plant_id}\tshade\r".encode())
        terminal.wait_for("key it again", STARTUP_SECONDS, since=mark)
        terminal.send_signal(signal.SIGKILL)
        assert terminal.wait_exit(EXIT_SECONDS) == -signal.SIGKILL
    # Kept, not yet a plant of the ledger's.
    assert ledger_rows(data) == []

    with tui(reference_server, tmp_path) as terminal:
        terminal.wait_for("1 needs attention", STARTUP_SECONDS)
        mark = terminal.mark()
        terminal.write(b"\x1bOS")  # F4
        terminal.wait_for("Keyed once, not verified", STARTUP_SECONDS, since=mark)
        terminal.write(b"\x1b")  # Esc closes the list
        mark = terminal.mark()
        terminal.write(b"\x11")  # Ctrl+Q asks, since a plant waits
        terminal.wait_for("offer it next time", STARTUP_SECONDS, since=mark)
        terminal.write(b"s")
        assert terminal.wait_exit(EXIT_SECONDS) == 0
    assert ledger_rows(data) == [("Fern", str(plant_id), "shade", "queued", 1)]
    assert plant_id not in [row[0] for row in stored_plants(reference_server.db_path)]
