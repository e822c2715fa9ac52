"""Keys typed as the TUI starts on a profile with a range of ids (issue 42): the operator leaves
ID to next id and types at once, before the offer has come. Each plant gets the id it would
have got had they waited for the offer: nothing refused, no field mixed.

The real TUI on a saved profile with `ids`, in a terminal of 80x24 of its own, against the
reference server; the keys are written right after launch, so they are read before the form
is there and applied before the offer (looked up in a thread once the screen is up) arrives.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import pytest
from burst_support import Row, describe_arrival, stored_plants
from pty_support import PtyProcess, isolated_env, wait_until

from plantstore_tui.server.runner import BackgroundServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")

ARRIVAL_SECONDS = 30.0
EXIT_SECONDS = 10.0
CTRL_Q = b"\x11"
FIRST_ID = 70000

# Name, Tag: ID is left to next id (Tab passes over it).
RECORDS: list[tuple[str, str]] = [("Fern", "indoor"), ("Rose", ""), ("Ivy", "porch")]


def _keys(records: list[tuple[str, str]]) -> bytes:
    return "".join(f"{name}\t\t{tag}\r" for name, tag in records).encode()


def _expected(records: list[tuple[str, str]]) -> list[Row]:
    return [(FIRST_ID + n, name, tag or None) for n, (name, tag) in enumerate(records)]


def _tui_on_a_range(server: BackgroundServer, directory: Path) -> PtyProcess:
    config = directory / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "profiles.toml").write_text(
        'default = "keyer"\n\n[profiles.keyer]\n'
        f'base_url = "{server.base_url}"\ntoken_env = "KEYER_TOKEN"\n'
        f'ids = "{FIRST_ID}-{FIRST_ID + 999}"\n'
    )
    env = isolated_env(directory, KEYER_TOKEN=server.token.get_secret_value())
    command = [sys.executable, "-m", "plantstore_tui"]
    return PtyProcess(command, env=env, cwd=directory, columns=80, rows=24)


def test_plants_typed_at_once_on_a_range_get_the_ids_offered_in_turn(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    expected = _expected(RECORDS)
    with _tui_on_a_range(reference_server, tmp_path) as terminal:
        terminal.write(_keys(RECORDS))
        with contextlib.suppress(TimeoutError):
            wait_until(
                lambda: len(stored_plants(reference_server.db_path)) >= len(expected),
                ARRIVAL_SECONDS,
                what=f"{len(expected)} plants stored",
                process=terminal,
            )
        stored = stored_plants(reference_server.db_path)
        assert stored == expected, describe_arrival(expected, stored)
        terminal.wait_for(f"Created plant {expected[-1][0]}", ARRIVAL_SECONDS)
        terminal.write(CTRL_Q)
        assert terminal.wait_exit(EXIT_SECONDS) == 0
        assert "Traceback" not in terminal.screen_text()
