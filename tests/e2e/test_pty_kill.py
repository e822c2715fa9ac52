"""`kill -9` of the real TUI in the middle of a burst: what an OOM killer, a crashed terminal
emulator or a power cut does. Nothing can run at the end, so nothing the screen showed as taken
may be only in memory: every plant whose log entry was painted is in the ledger with exactly the
fields typed, and the next start offers them in needs attention without sending anything.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from burst_support import Record, keys_for, stored_plants
from ledger_support import ledger_rows
from pty_support import PtyProcess, isolated_env

from plantstore_tui.server.runner import BackgroundServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals and a pty")

STARTUP_SECONDS = 20.0
EXIT_SECONDS = 10.0
# Slow enough that the first plant is in flight and the others queued when the kill comes.
SLOW = 20.0
# Ids typed with a sign and spaces around them: the ledger keeps each field exactly as typed.
RECORDS: list[Record] = [
    ("Alder", " 901", "t1"),
    ("Birch", "902", ""),
    ("Cedar", "+903", "t3"),
    ("Dogwood", "904 ", ""),
]


@pytest.fixture
def slow_server(start_slow_server: Callable[[float], BackgroundServer]) -> BackgroundServer:
    """A reference server that answers each POST /plants after SLOW seconds."""
    return start_slow_server(SLOW)


def tui(server: BackgroundServer, tmp_path: Path) -> PtyProcess:
    env = isolated_env(tmp_path, PLANTSTORE_TOKEN=server.token.get_secret_value())
    command = [sys.executable, "-m", "plantstore_tui", "--base-url", server.base_url]
    return PtyProcess(command, env=env, cwd=tmp_path)


@pytest.mark.parametrize(
    "moment",
    [
        pytest.param(None, id="as-the-burst-arrives"),
        pytest.param("sending…", id="first-on-its-way"),
        pytest.param("sending… · 3 queued", id="all-taken"),
    ],
)
def test_kill_9_loses_no_plant_the_screen_took_and_a_restart_sends_nothing(
    slow_server: BackgroundServer, reference_server: BackgroundServer, tmp_path: Path, moment: str
) -> None:
    data = tmp_path / "data"
    with tui(slow_server, tmp_path) as terminal:
        terminal.wait_for("ready", STARTUP_SECONDS)
        mark = terminal.mark()
        terminal.write(keys_for(RECORDS))
        if moment is not None:
            terminal.wait_for(moment, STARTUP_SECONDS, since=mark)
        terminal.send_signal(signal.SIGKILL)
        assert terminal.wait_exit(EXIT_SECONDS) == -signal.SIGKILL
        shown = terminal.screen_text(mark)

    rows = ledger_rows(data)
    typed = [row[:3] for row in rows]
    # In the order typed, each whole: never a plant made up, mixed or reordered.
    assert typed == RECORDS[: len(typed)]
    # Every plant whose log entry was painted (its sent body shows the name in quotes) is there.
    painted = [record for record in RECORDS if f'"{record[0]}"' in shown]
    assert painted == RECORDS[: len(painted)]
    assert len(typed) >= len(painted)
    if moment == "sending… · 3 queued":
        assert [row[3:] for row in rows] == [
            ("sending", 0),
            ("queued", 0),
            ("queued", 0),
            ("queued", 0),
        ]
    if not rows:
        return

    # The next start, pointed at another deployment: it offers every plant, sends none.
    with tui(reference_server, tmp_path) as terminal:
        count = len(rows)
        words = "1 needs attention" if count == 1 else f"{count} need attention"
        terminal.wait_for(words, STARTUP_SECONDS)
        mark = terminal.mark()
        terminal.write(b"\x1bOS")  # F4
        terminal.wait_for(f"Needs attention ({count})", STARTUP_SECONDS, since=mark)
        terminal.write(b"\x1b")  # Esc closes the list
        mark = terminal.mark()
        terminal.write(b"\x11")  # Ctrl+Q asks, since plants wait
        offer = "offer it next time" if count == 1 else "offer them next time"
        terminal.wait_for(offer, STARTUP_SECONDS, since=mark)
        terminal.write(b"s")
        assert terminal.wait_exit(EXIT_SECONDS) == 0
    assert stored_plants(reference_server.db_path) == []
    after = ledger_rows(data)
    assert [row[:3] for row in after] == typed
    # The one in flight when the process died may exist; the queued ones were never sent.
    states = {row[3] for row in after}
    assert states <= {"unknown", "queued"}
    assert all(row[4] == 1 for row in after if row[3] == "queued")


def test_two_tuis_on_one_data_directory_each_keep_their_own_queue(
    slow_server: BackgroundServer, reference_server: BackgroundServer, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    with tui(slow_server, tmp_path) as first:
        first.wait_for("ready", STARTUP_SECONDS)
        mark = first.mark()
        first.write(keys_for(RECORDS[:2]))
        first.wait_for("sending… · 1 queued", STARTUP_SECONDS, since=mark)

        with tui(reference_server, tmp_path) as second:
            second.wait_for("ready", STARTUP_SECONDS)
            mark = second.mark()
            second.write(keys_for([("Elm", "905", "")]))
            second.wait_for("Created plant 905", STARTUP_SECONDS, since=mark)
            # The first TUI's plants are its own while it runs: not offered here, not sent.
            assert "attention (F4)" not in second.screen_text()
            second.write(b"\x11")  # Ctrl+Q: nothing of its own is pending, so no question
            assert second.wait_exit(EXIT_SECONDS) == 0
        assert stored_plants(reference_server.db_path) == [(905, "Elm", None)]

        first.send_signal(signal.SIGKILL)
        assert first.wait_exit(EXIT_SECONDS) == -signal.SIGKILL
    assert ledger_rows(data) == [
        ("Alder", " 901", "t1", "sending", 0),
        ("Birch", "902", "", "queued", 0),
        ("Elm", "905", "", "created", 0),
    ]
