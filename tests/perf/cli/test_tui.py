"""The real `plantstore-tui` in a terminal, on a profile whose token command waits (a password
manager asking to be unlocked): its first frame is painted and takes a plant before the token
is there, and the plant goes out once it is. The token command reads a line from a named pipe
the test writes to, so every wait is on an event (the screen, the pipe); how fast the first
frame comes is measured by benchmarks/startup.py.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from burst_support import stored_plants
from pty_support import PtyProcess, isolated_env, wait_until

from plantstore_tui.server.runner import BackgroundServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty and a named pipe")

STARTUP_SECONDS = 20.0
ANSWER_SECONDS = 10.0
# A word of the Name field's placeholder: on screen once the form is painted.
FIRST_FRAME = "Monstera"
CTRL_S, TAB = b"\x13", b"\t"


def test_the_first_frame_takes_a_plant_while_the_token_command_waits(
    reference_server: BackgroundServer, plant_id: int, tmp_path: Path
) -> None:
    pipe = tmp_path / "token.pipe"
    os.mkfifo(pipe)
    config = tmp_path / "config"
    config.mkdir()
    (config / "profiles.toml").write_text(
        'default = "waiting"\n\n[profiles.waiting]\n'
        f'base_url = "{reference_server.base_url}"\n'
        f'token_command = "head -n 1 {pipe}"\n'
    )
    env = isolated_env(tmp_path)
    # Held open by the test (read and write: opening never waits) until the end, so the line
    # written reaches the token command whenever it reads, and a TUI that ended early leaves
    # nothing waiting.
    writer = os.open(pipe, os.O_RDWR)
    try:
        with PtyProcess([sys.executable, "-m", "plantstore_tui"], env=env, cwd=tmp_path) as tui:
            tui.wait_for(FIRST_FRAME, STARTUP_SECONDS)
            mark = tui.mark()
            tui.write(b"Fern" + TAB + str(plant_id).encode() + CTRL_S)
            tui.wait_for("queued", ANSWER_SECONDS, since=mark)
            assert stored_plants(reference_server.db_path) == []
            os.write(writer, reference_server.token.get_secret_value().encode() + b"\n")
            wait_until(
                lambda: stored_plants(reference_server.db_path),
                ANSWER_SECONDS,
                what="the plant stored",
                process=tui,
            )
            assert stored_plants(reference_server.db_path) == [(plant_id, "Fern", None)]
    finally:
        os.close(writer)
