"""The operator's everyday start: `plantstore-tui` on a saved profile, in a terminal of its own.

The profile is found before the first frame from profiles.toml alone; its target (token and all)
is resolved in the app after that frame, so what resolving finds wrong is said in the TUI.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from burst_support import Record, expected_rows, keys_for, stored_plants
from pty_support import PtyProcess, isolated_env

from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.config.targets import profile_token
from plantstore_tui.server.runner import BackgroundServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")

STARTUP_SECONDS = 20.0
EXIT_SECONDS = 10.0
CTRL_Q = b"\x11"
RECORDS: list[Record] = [("Alder", "911", "t1"), ("Birch", "912", "")]


def _tui(directory: Path, profiles: str, **env: str) -> PtyProcess:
    config = directory / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "profiles.toml").write_text(profiles)
    command = [sys.executable, "-m", "plantstore_tui"]
    return PtyProcess(command, env=isolated_env(directory, **env), cwd=directory)


def test_the_default_profile_sends_to_its_base_url_with_its_token(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    profiles = (
        'default = "bench"\n\n[profiles.bench]\n'
        f'base_url = "{reference_server.base_url}"\ntoken_env = "BENCH_PLANTS_TOKEN"\n'
    )
    token = reference_server.token.get_secret_value()
    with _tui(tmp_path, profiles, BENCH_PLANTS_TOKEN=token) as terminal:
        terminal.wait_for("token from $BENCH_PLANTS_TOKEN", STARTUP_SECONDS)
        terminal.wait_for("ready", STARTUP_SECONDS)
        mark = terminal.mark()
        terminal.write(keys_for(RECORDS))
        terminal.wait_for(f"Created plant {RECORDS[-1][1]}", STARTUP_SECONDS, since=mark)
        assert token not in terminal.screen_text()
        terminal.write(CTRL_Q)
        assert terminal.wait_exit(EXIT_SECONDS) == 0
    # The server takes a plant only with its own token.
    assert stored_plants(reference_server.db_path) == expected_rows(RECORDS)


def test_a_kept_token_that_cannot_be_read_is_said_in_the_tui(tmp_path: Path) -> None:
    # The keyring fails (the tests' backend) and there is no credentials file: no token.
    profiles = '[profiles.kept]\nbase_url = "http://127.0.0.1:9"\n'
    with _tui(tmp_path, profiles, PLANTSTORE_PROFILE="kept") as terminal:
        terminal.wait_for("Configuration problem: Profile 'kept' has no saved", STARTUP_SECONDS)
        terminal.write(CTRL_Q)
        assert terminal.wait_exit(EXIT_SECONDS) == 0


def test_a_profiles_toml_that_does_not_parse_opens_the_tui_and_is_left_as_it_was(
    tmp_path: Path,
) -> None:
    # Not the exit 4 of a script without a terminal: the operator sees the file's problem.
    corrupt = 'default = "kept"\n[profiles.kept\nbase_url = "http://127.0.0.1:9"\n'
    with _tui(tmp_path, corrupt) as terminal:
        terminal.wait_for("cannot be read", STARTUP_SECONDS)
        terminal.wait_for("Expected", STARTUP_SECONDS)
        terminal.write(b"q")
        assert terminal.wait_exit(EXIT_SECONDS) == 0
    assert (tmp_path / "config" / "profiles.toml").read_text() == corrupt


# The editor at 80x24, reached from the first-run screen. Its Tab order: Name, Base URL, the
# token's source (Typed here, chosen), Token.
EDITOR_SIZE = {"columns": 80, "rows": 24}
CTRL_S = b"\x13"
PASTE_START, PASTE_END = b"\x1b[200~", b"\x1b[201~"
# The random part of each token: no run of 6 of its characters may reach the screen.
TOKEN_TAIL = "5f2c9a71d3e84b06"
TOKEN = f"PTY-CANARY-{TOKEN_TAIL}"


def _editor(directory: Path) -> PtyProcess:
    """The TUI on its first run, its profile editor open on a new profile, Name focused."""
    command = [sys.executable, "-m", "plantstore_tui"]
    terminal = PtyProcess(command, env=isolated_env(directory), cwd=directory, **EDITOR_SIZE)
    try:
        terminal.wait_for("Create a profile", STARTUP_SECONDS)
        terminal.write(b"c")
        terminal.wait_for("New profile", STARTUP_SECONDS)
    except BaseException:
        terminal.close()
        raise
    return terminal


def _assert_token_never_shown(terminal: PtyProcess, tail: str = TOKEN_TAIL) -> None:
    text = terminal.screen_text()
    shown = {tail[i : i + 6] for i in range(len(tail) - 5)} & {
        text[i : i + 6] for i in range(len(text) - 5)
    }
    assert not shown, terminal.report(f"token characters {sorted(shown)} were on screen")


def test_the_editor_takes_name_url_and_token_typed_in_one_write_in_order(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    url = reference_server.base_url
    with _editor(tmp_path) as terminal:
        # A password manager's auto-type: every key in one write, faster than any frame.
        terminal.write(f"bench\t{url}\t\t{TOKEN}".encode())
        # Only the token field masks its text: the dots say the token went there, whole.
        terminal.wait_for("•" * len(TOKEN), STARTUP_SECONDS)
        mark = terminal.mark()
        terminal.write(CTRL_S)
        # Saved and in use: the send screen connected to it (the editor's own hints name the
        # credentials file before the save, so those words do not say it is done).
        terminal.wait_for("ready", STARTUP_SECONDS, since=mark)
        _assert_token_never_shown(terminal)
        terminal.write(CTRL_Q)
        assert terminal.wait_exit(EXIT_SECONDS) == 0
    store = ProfileStore(tmp_path / "config")
    saved = store.get("bench")
    assert saved.base_url == url
    assert (saved.token_env, saved.token_command) == (None, None)
    token, _source = profile_token(saved, store.tokens, os.environ)
    assert token.get_secret_value() == TOKEN


@pytest.mark.parametrize(
    "typed",
    [
        pytest.param(f"PTY-CANARY {TOKEN_TAIL}".encode(), id="typed-with-a-space"),
        pytest.param(
            PASTE_START + f"PTY-CANARY\x01{TOKEN_TAIL}".encode() + PASTE_END,
            id="pasted-with-a-control-character",
        ),
    ],
)
def test_an_invalid_token_is_refused_in_words_that_never_show_it(
    tmp_path: Path, typed: bytes
) -> None:
    with _editor(tmp_path) as terminal:
        terminal.write(b"bench\thttps://plants.example.com\t\t" + typed)
        # The words and where the space or control character is (drawn on the next line, maybe
        # in a later write).
        terminal.wait_for(
            lambda text: "The token has a space, control" in text and "position 11" in text,
            STARTUP_SECONDS,
        )
        mark = terminal.mark()
        terminal.write(CTRL_S)
        # Not saved: the editor stays, saying why, and the token field still masks its text.
        terminal.wait_for("The token has", STARTUP_SECONDS, since=mark)
        assert "•" * len(TOKEN) in terminal.screen_text()
        _assert_token_never_shown(terminal)
        terminal.write(b"\x1b")  # Esc: cancel, back to the first-run screen
        terminal.wait_for("Create a profile", STARTUP_SECONDS, since=mark)
        terminal.write(b"q")
        terminal.wait_exit(EXIT_SECONDS)
    assert not (tmp_path / "config" / "profiles.toml").exists()
