"""The real TUI in a pseudo-terminal of its own, typed at from outside as an operator would.

`python -m plantstore_tui --base-url ...` runs in a terminal of 110x32 against the reference server;
keys go in as bytes, and what arrived is read from the server's database. The burst test types 20
plants in one write, faster than any answer comes back (the server waits 0.15 s per plant): every
plant must arrive whole, with its own fields, in the order typed, and nothing else.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from burst_support import Record, Row, describe_arrival, expected_rows, keys_for, stored_plants
from pty_support import PtyProcess, isolated_env, wait_until

from plantstore_tui.server.runner import BackgroundServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")

# Deadlines only: each wait ends as soon as what it waits for happens.
STARTUP_SECONDS = 20.0
KEY_SECONDS = 5.0
ARRIVAL_SECONDS = 30.0
EXIT_SECONDS = 10.0
SLOW_SERVER_DELAY = 0.15

CTRL_Q = b"\x11"

BURST: list[Record] = [
    ("Monstera deliciosa 7", "501", "tropical"),
    ("Ficus lyrata", "502", "indoor"),
    ("Aloë vera", "503", ""),
    ("Sansevieria trifasciata", "504", "succulent"),
    ("Calathea orbifolia", "505", "shade"),
    ("Pilea peperomioides", "506", ""),
    ("Strelitzia nicolai", "507", "tropical"),
    ("Kalanchoë blossfeldiana", "508", "flowering"),
    ("Philodendron Pink Princess", "509", "rare"),
    ("Oxalis triangularis", "510", ""),
    ("Begonia maculata", "511", "indoor"),
    ("Hoya carnosa", "512", "hanging"),
    ("Zamioculcas zamiifolia", "513", ""),
    ("Chlorophytum comosum", "514", "easy"),
    ("Dracaena marginata", "515", "indoor"),
    ("Peperomia obtusifolia", "516", "compact"),
    ("Maranta leuconeura", "517", ""),
    ("Ceropegia woodii", "518", "hanging"),
    ("Crassula ovata", "519", "succulent"),
    ("Fougère de Boston 🌿", "520", "fern"),
]


@pytest.fixture
def slow_server(start_slow_server: Callable[[float], BackgroundServer]) -> BackgroundServer:
    """A reference server that answers each POST /plants after SLOW_SERVER_DELAY seconds."""
    return start_slow_server(SLOW_SERVER_DELAY)


@contextmanager
def tui_on(server: BackgroundServer, directory: Path) -> Iterator[PtyProcess]:
    """The TUI in a terminal of its own, on `server`, once it is connected and ready for keys."""
    env = isolated_env(directory, PLANTSTORE_TOKEN=server.token.get_secret_value())
    command = [sys.executable, "-m", "plantstore_tui", "--base-url", server.base_url]
    # Run in the test's directory: anything the TUI saves where it runs lands there.
    with PtyProcess(command, env=env, cwd=directory) as terminal:
        terminal.wait_for("Name", STARTUP_SECONDS)
        terminal.wait_for("ready", STARTUP_SECONDS)
        yield terminal


def type_slowly(terminal: PtyProcess, text: str) -> None:
    """Type `text` one key per write, each once the screen shows what has been typed so far."""
    for end, char in enumerate(text, start=1):
        mark = terminal.mark()
        terminal.write(char.encode())
        terminal.wait_for(text[:end], KEY_SECONDS, since=mark)


def type_record_slowly(terminal: PtyProcess, name: str, plant_id: str, tag: str) -> None:
    """Fill the form one key at a time, waiting for every key to show, and press Enter."""
    type_slowly(terminal, name)
    for key, next_field, text in ((b"\t", "ID", plant_id), (b"\t", "Tag", tag)):
        mark = terminal.mark()
        terminal.write(key)
        # The focus moving redraws the next field's border, and its title with it.
        terminal.wait_for(next_field, KEY_SECONDS, since=mark)
        type_slowly(terminal, text)
    terminal.write(b"\r")


def quit_once_answered(terminal: PtyProcess, last_plant_id: str, since: int) -> int:
    """Ctrl+Q once the last plant's answer is on screen; the TUI's exit code.

    The database holds a plant a moment before the TUI has its answer, and a plant still in
    flight rightly makes Ctrl+Q ask first: the log entry of the last plant settles that.
    """
    terminal.wait_for(f"Created plant {last_plant_id}", KEY_SECONDS, since=since)
    terminal.write(CTRL_Q)
    return terminal.wait_exit(EXIT_SECONDS)


def assert_arrived(server: BackgroundServer, expected: list[Row], terminal: PtyProcess) -> None:
    """Wait until the server holds as many plants as expected (at the deadline, the comparison
    says what did arrive), then check they are exactly the expected ones, in order."""
    with contextlib.suppress(TimeoutError):
        wait_until(
            lambda: len(stored_plants(server.db_path)) >= len(expected),
            ARRIVAL_SECONDS,
            what=f"{len(expected)} plants stored",
            process=terminal,
        )
    stored = stored_plants(server.db_path)
    assert stored == expected, describe_arrival(expected, stored)


def test_one_plant_typed_key_by_key_arrives(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    # Checks the harness on what today's TUI already does: one key at a time, each seen on screen.
    with tui_on(reference_server, tmp_path) as terminal:
        mark = terminal.mark()
        type_record_slowly(terminal, "Aloë vera", "601", "succulent")
        stored = wait_until(
            lambda: stored_plants(reference_server.db_path),
            KEY_SECONDS,
            what="a plant stored",
            process=terminal,
        )
        assert stored == [(601, "Aloë vera", "succulent")]
        assert quit_once_answered(terminal, "601", mark) == 0


def test_twenty_plants_typed_in_one_burst_arrive_whole_and_in_order(
    slow_server: BackgroundServer, tmp_path: Path
) -> None:
    expected = expected_rows(BURST)
    with tui_on(slow_server, tmp_path) as terminal:
        mark = terminal.mark()
        terminal.write(keys_for(BURST))
        assert_arrived(slow_server, expected, terminal)
        assert quit_once_answered(terminal, BURST[-1][1], mark) == 0
    # Nothing more went out on the way out.
    assert stored_plants(slow_server.db_path) == expected


def test_plants_typed_before_the_first_frame_arrive_in_order(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    # Keys typed while the TUI starts are read before its form is there: they used to crash it
    # (the key went to a form not yet composed). They are kept and applied once it is; an Enter
    # typed before the TUI owns the terminal reaches it as a line feed, and sends all the same.
    early = BURST[:3]
    env = isolated_env(tmp_path, PLANTSTORE_TOKEN=reference_server.token.get_secret_value())
    command = [sys.executable, "-m", "plantstore_tui", "--base-url", reference_server.base_url]
    with PtyProcess(command, env=env, cwd=tmp_path) as terminal:
        terminal.write(keys_for(early))
        assert_arrived(reference_server, expected_rows(early), terminal)
        assert quit_once_answered(terminal, early[-1][1], 0) == 0
        assert b"Traceback" not in terminal.raw_output()


def test_the_token_never_reaches_the_terminal(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    token = reference_server.token.get_secret_value()
    with tui_on(reference_server, tmp_path) as terminal:
        mark = terminal.mark()
        type_record_slowly(terminal, "Canary fern", "602", "")
        # Once the answer's log entry is on screen: the check covers a send's output too.
        assert quit_once_answered(terminal, "602", mark) == 0
        screen, raw = terminal.screen_text(), terminal.raw_output()
    # The status line names the token by its last 4 characters: the check below reads real output.
    assert f"…{token[-4:]}" in screen
    assert token not in screen
    assert token.encode() not in raw
