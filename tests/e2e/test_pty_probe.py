"""The probe screen in a real terminal of 80x24, typed at as a tester would: F6 and an edit of the
body in one write (the id made a string with the arrow keys), Ctrl+S, the 400 and its reading on
screen; the probe in `history --probes`, no plant anywhere. F6 on an empty form and Ctrl+S at once
create no plant on the deployment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from burst_support import stored_plants
from pty_support import PtyProcess, isolated_env

from plantstore_tui.server.runner import BackgroundServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")

# Deadlines only: each wait ends as soon as what it waits for happens.
STARTUP_SECONDS = 20.0
ANSWER_SECONDS = 15.0

# xterm's bytes for the keys.
F6 = b"\x1b[17~"
DOWN, END, LEFT = b"\x1b[B", b"\x1b[F", b"\x1b[D"
CTRL_S, CTRL_Q = b"\x13", b"\x11"


def test_f6_an_edit_and_ctrl_s_in_one_write_show_the_400_and_its_reading(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    env = isolated_env(tmp_path, PLANTSTORE_TOKEN=reference_server.token.get_secret_value())
    command = [sys.executable, "-m", "plantstore_tui", "--base-url", reference_server.base_url]
    with PtyProcess(command, env=env, cwd=tmp_path, columns=80, rows=24) as terminal:
        terminal.wait_for("ready", STARTUP_SECONDS)
        terminal.write(b"Fern\t7")
        # The body opens as {"id": 7, "name": "Fern"}, one key a line: "id" is on the second.
        edit = DOWN + END + LEFT + b'"' + LEFT + LEFT + b'"'
        mark = terminal.mark()
        terminal.write(F6 + edit + CTRL_S)
        terminal.wait_for("Bad Request", ANSWER_SECONDS, since=mark)
        terminal.wait_for("spec", ANSWER_SECONDS, since=mark)
        terminal.write(CTRL_Q)
        assert terminal.wait_exit() == 0
    listed = subprocess.run(
        [sys.executable, "-m", "plantstore_tui", "history", "--probes", "--json"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    [probe] = json.loads(listed.stdout)
    assert json.loads(probe["request"]["body"]) == {"id": "7", "name": "Fern"}
    assert (probe["status"], probe["source"]) == (400, "tui")
    assert probe["verdict"]["shape"] == "Error"
    plants = subprocess.run(
        [sys.executable, "-m", "plantstore_tui", "history", "--json"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(plants.stdout) == []


def test_f6_on_an_empty_form_and_ctrl_s_create_no_plant(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    env = isolated_env(tmp_path, PLANTSTORE_TOKEN=reference_server.token.get_secret_value())
    command = [sys.executable, "-m", "plantstore_tui", "--base-url", reference_server.base_url]
    with PtyProcess(command, env=env, cwd=tmp_path, columns=80, rows=24) as terminal:
        terminal.wait_for("ready", STARTUP_SECONDS)
        mark = terminal.mark()
        terminal.write(F6 + CTRL_S)
        terminal.wait_for("Bad Request", ANSWER_SECONDS, since=mark)
        terminal.write(CTRL_Q)
        assert terminal.wait_exit() == 0
    assert stored_plants(reference_server.db_path) == []
    listed = subprocess.run(
        [sys.executable, "-m", "plantstore_tui", "history", "--probes", "--json"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    [probe] = json.loads(listed.stdout)
    assert probe["status"] == 400
    assert "<id>" in probe["request"]["body"]
