"""A probe from the history sent again, changed, in a real terminal of 80x24: `probe` gets a 400
for an id written as text; in the TUI, F6, F3 lists it, and in one write Enter opens it, the
quotes around the id are deleted with the keys a tester presses, Ctrl+S creates the plant. Two
probes in `history --probes`, the first untouched (issue 45, part 4)."""

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
F3, F6 = b"\x1bOR", b"\x1b[17~"
HOME, RIGHT, BACKSPACE, DELETE = b"\x1b[H", b"\x1b[C", b"\x7f", b"\x1b[3~"
ENTER, CTRL_S, CTRL_Q = b"\r", b"\x13", b"\x11"


def plantstore(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plantstore_tui", *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_probe_from_history_opened_changed_by_keys_and_sent_again_is_a_new_probe(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    base = reference_server.base_url
    env = isolated_env(tmp_path, PLANTSTORE_TOKEN=reference_server.token.get_secret_value())
    first = plantstore(
        "probe", "--base-url", base, "--body", '{"id": "7", "name": "Fern"}', env=env
    )
    assert first.returncode == 0, first.stderr
    assert "Answer: 400" in first.stdout
    command = [sys.executable, "-m", "plantstore_tui", "--base-url", base]
    with PtyProcess(command, env=env, cwd=tmp_path, columns=80, rows=24) as terminal:
        terminal.wait_for("ready", STARTUP_SECONDS)
        mark = terminal.mark()
        terminal.write(F6)
        terminal.wait_for("Kept probes", ANSWER_SECONDS, since=mark)
        mark = terminal.mark()
        terminal.write(F3)
        terminal.wait_for("p1", ANSWER_SECONDS, since=mark)
        # Enter and the edit in one write, as a fast tester types them: the edit waits for the
        # probe to be in the fields. {"id": "7", ...}: the cursor after `{"id": "`, the quote
        # before 7 deleted, then the one after it.
        mark = terminal.mark()
        terminal.write(ENTER + HOME + RIGHT * 8 + BACKSPACE + RIGHT + DELETE + CTRL_S)
        terminal.wait_for("200", ANSWER_SECONDS, since=mark)
        terminal.wait_for("created", ANSWER_SECONDS, since=mark)
        terminal.write(CTRL_Q)
        assert terminal.wait_exit() == 0
    listed = plantstore("history", "--probes", "--json", env=env)
    again, one = json.loads(listed.stdout)
    assert (again["probe"], again["status"], again["source"]) == ("p2", 200, "tui")
    assert json.loads(again["request"]["body"]) == {"id": 7, "name": "Fern"}
    assert (one["probe"], one["status"], one["source"]) == ("p1", 400, "probe")
    assert json.loads(one["request"]["body"]) == {"id": "7", "name": "Fern"}
    assert [row[:2] for row in stored_plants(reference_server.db_path)] == [(7, "Fern")]
