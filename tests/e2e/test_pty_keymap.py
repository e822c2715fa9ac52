"""`plantstore-tui --profile local` in a terminal of 80x24 with a `[keymap]` in profiles.toml: the
keys it names send, open the history and needs attention, the keys they replace no longer do,
and the footer and F1 name the new ones. A keymap with mistakes is named, and the TUI works."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from burst_support import stored_plants
from pty_support import PtyProcess, isolated_env

from plantstore_tui.server.runner import BackgroundServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")

STARTUP_SECONDS = 20.0
EXIT_SECONDS = 10.0
CTRL_Q = b"\x11"
CTRL_S = b"\x13"
CTRL_G = b"\x07"
ESC = b"\x1b"
F1 = b"\x1bOP"
F3 = b"\x1bOR"
F4 = b"\x1bOS"
F8 = b"\x1b[19~"
F9 = b"\x1b[20~"
END = b"\x1b[F"
# The history screen's search field.
HISTORY = "Search name, tag"


def _tui(directory: Path, server: BackgroundServer, keymap: str) -> PtyProcess:
    config = directory / "config"
    config.mkdir()
    (config / "profiles.toml").write_text(
        "[profiles.local]\n"
        f'base_url = "{server.base_url}"\n'
        'token_env = "LOCAL_TOKEN"\n\n'
        f"[keymap]\n{keymap}"
    )
    env = isolated_env(directory, LOCAL_TOKEN=server.token.get_secret_value())
    command = [sys.executable, "-m", "plantstore_tui", "--profile", "local"]
    return PtyProcess(command, env=env, cwd=directory, columns=80, rows=24)


def test_a_keymap_moves_send_history_and_needs_attention(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    keymap = 'send.send = "ctrl+g"\nsend.history = "f9"\n"send.attention" = "f8"\n'
    with _tui(tmp_path, reference_server, keymap) as terminal:
        terminal.wait_for("ready", STARTUP_SECONDS)
        # The footer names the new keys, as Textual shows them.
        for shown in ("^g Send", "f9 History", "f8 Needs attention"):
            terminal.wait_for(shown, STARTUP_SECONDS)

        # Ctrl+S no longer sends: what follows it is typed into the Tag field, and Ctrl+G
        # sends the plant once, with all of it. Keys are applied in the order typed.
        mark = terminal.mark()
        terminal.write(b"Fern\t7\tporch" + CTRL_S + b"X" + CTRL_G)
        terminal.wait_for("Created plant 7", STARTUP_SECONDS, since=mark)
        assert stored_plants(reference_server.db_path) == [(7, "Fern", "porchX")]

        # F4 no longer asks for needs attention (which would say it has nothing); F9 opens the
        # history, with the plant sent.
        mark = terminal.mark()
        terminal.write(F4 + F9)
        terminal.wait_for(HISTORY, STARTUP_SECONDS, since=mark)
        terminal.wait_for("Fern", STARTUP_SECONDS, since=mark)
        assert "Nothing needs attention" not in terminal.screen_text()
        terminal.write(ESC)
        # F3 no longer opens the history (F8 pressed in it would do nothing): F8 asks for needs
        # attention.
        mark = terminal.mark()
        terminal.write(F3 + F8)
        terminal.wait_for("Nothing needs attention", STARTUP_SECONDS, since=mark)

        # F1 names the keys in force: at 80x24 its first rows, then (End) its last ones.
        mark = terminal.mark()
        terminal.write(F1)
        terminal.wait_for("needs attention: load a plant", STARTUP_SECONDS, since=mark)
        terminal.write(END)
        terminal.wait_for("shift summary", STARTUP_SECONDS, since=mark)
        help_text = terminal.screen_text(since=mark)
        for key in ("Ctrl+G", "F9", "F8"):
            assert key in help_text, key
        for key in ("Ctrl+S", "F3", "F4"):
            assert key not in help_text, key
        terminal.write(ESC + CTRL_Q)
        assert terminal.wait_exit(EXIT_SECONDS) == 0


def test_an_unknown_id_and_a_clash_are_named_and_the_tui_works(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    keymap = 'sendd = "ctrl+g"\nsend.history = "ctrl+s"\n'
    with _tui(tmp_path, reference_server, keymap) as terminal:
        terminal.wait_for("ready", STARTUP_SECONDS)
        # Drawn in pieces: short markers, each a part of the findings.
        for marker in ("line 6", "sendd", "Did you mean", "send.send", "line 7", "ignored"):
            terminal.wait_for(marker, STARTUP_SECONDS)
        # The defaults hold: Ctrl+S sends, F3 opens the history.
        mark = terminal.mark()
        terminal.write(b"Fern\t8\t" + CTRL_S)
        terminal.wait_for("Created plant 8", STARTUP_SECONDS, since=mark)
        mark = terminal.mark()
        terminal.write(F3)
        terminal.wait_for(HISTORY, STARTUP_SECONDS, since=mark)
        terminal.write(ESC + CTRL_Q)
        assert terminal.wait_exit(EXIT_SECONDS) == 0
    assert stored_plants(reference_server.db_path) == [(8, "Fern", None)]
