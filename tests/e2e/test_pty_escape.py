"""Esc in a terminal: typed quickly before a letter, it reaches the TUI as that letter with Alt
(a terminal sends Alt+N as Esc then n). Alt+N and Alt+T switch Next id and Keep tag only in a
browser, which keeps Ctrl+N and Ctrl+T for itself (tests/web/test_browser.py); in a terminal the
Esc does what Esc does, and the letter is typed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from burst_support import stored_plants
from pty_support import PtyProcess, isolated_env

from plantstore_tui.server.runner import BackgroundServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")

STARTUP_SECONDS = 20.0
ESC = b"\x1b"
CTRL_U = b"\x15"
F3 = b"\x1bOR"


def test_esc_then_n_or_t_does_not_switch_next_id_or_keep_tag(
    reference_server: BackgroundServer, tmp_path: Path, plant_id: int
) -> None:
    command = [sys.executable, "-m", "plantstore_tui", "--base-url", reference_server.base_url]
    token = reference_server.token.get_secret_value()
    env = isolated_env(tmp_path, PLANTSTORE_TOKEN=token)
    with PtyProcess(command, env=env, cwd=tmp_path) as terminal:
        terminal.wait_for("ready", STARTUP_SECONDS)
        # Each in one write, as fast as a person can type it; then the frame of the field (the
        # letter typed in Name) or of the switch, whichever the key changed.
        for letter, typed, switch in ((b"n", " n ", "Next id"), (b"t", " nt ", "Keep tag")):
            mark = terminal.mark()
            terminal.write(ESC + letter)
            shown = terminal.wait_for(
                lambda text, typed=typed, switch=switch: typed in text or switch in text,
                STARTUP_SECONDS,
                since=mark,
            )
            assert switch not in shown, f"Esc then {letter.decode()} switched {switch}"

        # Both switches as they were: the id moves on after a send, the tag is not kept.
        mark = terminal.mark()
        terminal.write(CTRL_U + f"Fern\t{plant_id}\tporch\r".encode())
        terminal.wait_for(f"Created plant {plant_id}", STARTUP_SECONDS, since=mark)
        terminal.write(b"Birch\t\t\r")
        terminal.wait_for(f"Created plant {plant_id + 1}", STARTUP_SECONDS, since=mark)
    assert stored_plants(reference_server.db_path) == [
        (plant_id, "Fern", "porch"),
        (plant_id + 1, "Birch", None),
    ]


def test_esc_typed_quickly_before_a_letter_still_closes_the_history(
    reference_server: BackgroundServer, tmp_path: Path, plant_id: int
) -> None:
    # Esc closes F3, and the name typed straight after it lands in the form, whole.
    command = [sys.executable, "-m", "plantstore_tui", "--base-url", reference_server.base_url]
    token = reference_server.token.get_secret_value()
    env = isolated_env(tmp_path, PLANTSTORE_TOKEN=token)
    with PtyProcess(command, env=env, cwd=tmp_path) as terminal:
        terminal.wait_for("ready", STARTUP_SECONDS)
        mark = terminal.mark()
        terminal.write(F3)
        terminal.wait_for("Search name", STARTUP_SECONDS, since=mark)
        mark = terminal.mark()
        terminal.write(ESC + f"new Fern\t{plant_id}\t\r".encode())
        terminal.wait_for(f"Created plant {plant_id}", STARTUP_SECONDS, since=mark)
    assert stored_plants(reference_server.db_path) == [(plant_id, "new Fern", None)]
