"""The import screen (F5) of the real TUI in a pseudo-terminal: F5, a path and Enter typed in one
write (a macro, a paste of keystrokes, a fast typist) check that path, whole, and it is that file
whose plants are sent."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from burst_support import stored_plants
from import_support import expected, plants, write_csv
from pty_support import PtyProcess, isolated_env

from plantstore_tui.server.runner import BackgroundServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")

# Deadlines only: each wait ends as soon as what it waits for happens.
STARTUP_SECONDS = 20.0
SCREEN_SECONDS = 10.0
EXIT_SECONDS = 10.0
F5, CTRL_S, ESC, CTRL_Q = b"\x1b[15~", b"\x13", b"\x1b", b"\x11"
PATH = "orders/spring.csv"


def test_a_path_and_enter_typed_in_one_write_check_that_file(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    rows = plants(3)
    (tmp_path / "orders").mkdir()
    write_csv(tmp_path / PATH, rows)
    # Another file the path's first letters lead to (suggested for orders/spring, before the
    # path's own): a path cut short, or completed to it, is told apart by its 7 plants.
    write_csv(tmp_path / "orders" / "spring-late.csv", plants(7, first=10))
    env = isolated_env(tmp_path, PLANTSTORE_TOKEN=reference_server.token.get_secret_value())
    command = [sys.executable, "-m", "plantstore_tui", "--base-url", reference_server.base_url]
    with PtyProcess(command, env=env, cwd=tmp_path) as terminal:
        terminal.wait_for("ready", STARTUP_SECONDS)
        mark = terminal.mark()
        # F5 and the path in the same write: the keys read while the import screen opens are
        # held until its path field has the focus, then applied in order.
        terminal.write(F5 + f"{PATH}\r".encode())
        terminal.wait_for(f"{PATH}: 3 plants", SCREEN_SECONDS, since=mark)
        mark = terminal.mark()
        terminal.write(CTRL_S)
        terminal.wait_for(f"3 plants from {PATH}", SCREEN_SECONDS, since=mark)
        mark = terminal.mark()
        terminal.write(b"\r")
        terminal.wait_for("3 created", SCREEN_SECONDS, since=mark)
        mark = terminal.mark()
        terminal.write(ESC)
        terminal.wait_for("ready", SCREEN_SECONDS, since=mark)
        terminal.write(CTRL_Q)
        assert terminal.wait_exit(EXIT_SECONDS) == 0
    assert sorted(stored_plants(reference_server.db_path)) == expected(rows)
