"""The real TUI ended by a signal, as a closed terminal window or a service manager ends it.

Nobody is there to ask, and nothing needs writing: every plant the screen took is in the ledger
already. The process ends at once; the next start offers what was left. `demo` removes its
throwaway directory.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from ledger_support import ledger_rows
from pty_support import PtyProcess, isolated_env, wait_until

from plantstore_tui.server.runner import BackgroundServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals and a pty")

STARTUP_SECONDS = 20.0
EXIT_SECONDS = 10.0
# Long enough that the first plant is still in flight when the signal comes.
VERY_SLOW = 30.0


@pytest.fixture
def very_slow_server(start_slow_server: Callable[[float], BackgroundServer]) -> BackgroundServer:
    """A reference server that answers each POST /plants after VERY_SLOW seconds."""
    return start_slow_server(VERY_SLOW)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_ends_the_tui_at_once_and_every_plant_taken_is_in_the_ledger(
    very_slow_server: BackgroundServer, tmp_path: Path, signum: signal.Signals
) -> None:
    data = tmp_path / "data"
    token = very_slow_server.token.get_secret_value()
    env = isolated_env(tmp_path, PLANTSTORE_TOKEN=token)
    command = [sys.executable, "-m", "plantstore_tui", "--base-url", very_slow_server.base_url]
    with PtyProcess(command, env=env, cwd=tmp_path) as terminal:
        terminal.wait_for("ready", STARTUP_SECONDS)
        mark = terminal.mark()
        terminal.write(b"In flight\t41\tslow\rQueued 'one'\t\t\r")
        # The first on its way, the second behind it (the status line says both at once).
        terminal.wait_for("sending… · 1 queued", STARTUP_SECONDS, since=mark)
        terminal.send_signal(signum)
        assert terminal.wait_exit(EXIT_SECONDS) == 128 + signum

    # The send in flight was cancelled (its fate unknown); the queued one waits, held.
    assert ledger_rows(data) == [
        ("In flight", "41", "slow", "unknown", 0),
        ("Queued 'one'", "42", "", "queued", 1),
    ]
    assert not (data / "recovery").exists()
    for path in data.rglob("*"):
        if path.is_file():
            assert token.encode() not in path.read_bytes(), path


def test_demo_removes_its_throwaway_directory_on_sighup(tmp_path: Path) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = isolated_env(tmp_path, TMPDIR=str(temporary))
    with PtyProcess([sys.executable, "-m", "plantstore_tui", "demo"], env=env) as terminal:
        terminal.wait_for("ready", STARTUP_SECONDS)
        [directory] = wait_until(
            lambda: list(temporary.glob("plantstore-demo-*")),
            STARTUP_SECONDS,
            what="the demo's directory",
            process=terminal,
        )
        assert (directory / "plants.sqlite3").exists() or any(directory.iterdir())
        terminal.send_signal(signal.SIGHUP)
        assert terminal.wait_exit(EXIT_SECONDS) == 128 + signal.SIGHUP
    assert list(temporary.glob("plantstore-demo-*")) == []
