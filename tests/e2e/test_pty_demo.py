"""The demo is a sandbox: started as `plantstore-tui demo` or from the first-run screen, it
neither reads nor writes the operator's profiles, tokens or ledger, says so, and leaves nothing
behind when it ends.
"""

from __future__ import annotations

import hashlib
import signal
import stat
import sys
from pathlib import Path

import pytest
from ledger_support import ledger_rows, new_row, opened
from pty_support import PtyProcess, isolated_env

from plantstore_tui.core.store import LEDGER_FILE, PlantState

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")

STARTUP_SECONDS = 20.0
EXIT_SECONDS = 10.0
F4 = b"\x1bOS"
CTRL_Q = b"\x11"
OPERATOR_TOKEN = "operator-token-c4f1a9e07b3d"
# A plant of the operator's own deployment, held in their ledger for them to deal with.
HELD_NAME = "Operator Held Fern"
PROFILES = 'default = "prod"\n\n[profiles.prod]\nbase_url = "https://plants.example.test"\n'
# The first run: profiles.toml there, but no profile in it yet.
NO_PROFILES = "# Profiles of plantstore-tui.\n"
CREDENTIALS = f'[tokens]\nprod = "{OPERATOR_TOKEN}"\n'


def _operators_files(root: Path, profiles: str) -> None:
    """The operator's config (profiles, a credentials file) and a ledger with a held plant."""
    config, data = root / "config", root / "data"
    config.mkdir(parents=True)
    (config / "profiles.toml").write_text(profiles)
    credentials = config / "credentials.toml"
    credentials.write_text(CREDENTIALS)
    credentials.chmod(0o600)
    with opened("tui", path=data / LEDGER_FILE) as ledger:
        row = new_row(
            HELD_NAME,
            "777",
            source="tui",
            state=PlantState.QUEUED,
            base_url="https://plants.example.test",
            profile="prod",
        )
        ledger.hold([ledger.take(row)], "Not sent: held when the queue was stopped (Esc).")


def _fingerprint(root: Path) -> dict[str, tuple[str, int]]:
    """Every file and directory under `root`: its content's hash (files) and its mode."""
    found = {}
    for path in sorted(root.rglob("*")):
        mode = stat.S_IMODE(path.lstat().st_mode)
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        found[str(path.relative_to(root))] = (digest, mode)
    return found


def _try_the_demo(terminal: PtyProcess, temporary: Path) -> None:
    """Say it is a sandbox, create a plant, show an empty needs attention, and quit."""
    terminal.wait_for("sandbox", STARTUP_SECONDS)
    terminal.wait_for("ready", STARTUP_SECONDS)
    [sandbox] = temporary.glob("plantstore-demo-*")

    mark = terminal.mark()
    terminal.write(b"Demo Fern\t1\t\r")
    terminal.wait_for("Created plant 1", STARTUP_SECONDS, since=mark)
    # The demo's ledger is in its sandbox.
    assert ledger_rows(sandbox / "data") == [("Demo Fern", "1", "", "created", 0)]

    mark = terminal.mark()
    terminal.write(F4)
    terminal.wait_for("Nothing needs attention", STARTUP_SECONDS, since=mark)
    shown = terminal.screen_text()
    assert HELD_NAME not in shown
    assert "Needs attention (" not in shown
    assert "1 needs attention" not in shown
    assert OPERATOR_TOKEN not in shown

    terminal.write(CTRL_Q)
    assert terminal.wait_exit(EXIT_SECONDS) == 0


@pytest.mark.parametrize(
    ("arguments", "profiles"),
    [
        pytest.param(["demo"], PROFILES, id="plantstore-tui-demo"),
        pytest.param([], NO_PROFILES, id="from-the-first-run-screen"),
    ],
)
def test_the_demo_leaves_the_operators_files_byte_for_byte_as_they_were(
    tmp_path: Path, arguments: list[str], profiles: str
) -> None:
    operator = tmp_path / "operator"
    _operators_files(operator, profiles)
    before = _fingerprint(operator)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    # The operator's own directories and token, as their shell would have them.
    env = isolated_env(operator, TMPDIR=str(temporary), PLANTSTORE_TOKEN=OPERATOR_TOKEN)
    command = [sys.executable, "-m", "plantstore_tui", *arguments]
    with PtyProcess(command, env=env, cwd=tmp_path) as terminal:
        if not arguments:
            terminal.wait_for("Start the demo", STARTUP_SECONDS)
            terminal.write(b"d")
        _try_the_demo(terminal, temporary)

    assert _fingerprint(operator) == before
    assert list(temporary.iterdir()) == []


def test_a_sandbox_left_by_a_demo_killed_with_sigkill_is_removed_by_the_next(
    tmp_path: Path,
) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = isolated_env(tmp_path / "operator", TMPDIR=str(temporary))
    command = [sys.executable, "-m", "plantstore_tui", "demo"]
    with PtyProcess(command, env=env, cwd=tmp_path) as killed:
        killed.wait_for("ready", STARTUP_SECONDS)
        [left] = temporary.glob("plantstore-demo-*")
        killed.send_signal(signal.SIGKILL)
        assert killed.wait_exit(EXIT_SECONDS) == -signal.SIGKILL
    assert left.exists()

    with PtyProcess(command, env=env, cwd=tmp_path) as terminal:
        terminal.wait_for("ready", STARTUP_SECONDS)
        [own] = temporary.glob("plantstore-demo-*")
        assert own != left
        terminal.write(CTRL_Q)
        assert terminal.wait_exit(EXIT_SECONDS) == 0
    assert list(temporary.iterdir()) == []


def test_quitting_the_demo_with_a_plant_not_settled_says_it_is_lost(tmp_path: Path) -> None:
    # The demo's ledger goes with its sandbox: "the next plantstore-tui offers it" would not be
    # true, so the question says the plant is lost, as it does for a ledger in memory.
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = isolated_env(tmp_path / "operator", TMPDIR=str(temporary))
    command = [sys.executable, "-m", "plantstore_tui", "demo"]
    with PtyProcess(command, env=env, cwd=tmp_path) as terminal:
        terminal.wait_for("ready", STARTUP_SECONDS)
        mark = terminal.mark()
        terminal.write(b"Demo Fern\t1\t\r")
        terminal.wait_for("Created plant 1", STARTUP_SECONDS, since=mark)
        mark = terminal.mark()
        terminal.write(b"Demo Ivy\t\x151\t\r")  # Ctrl+U empties ID: the same id again
        terminal.wait_for("1 needs attention", STARTUP_SECONDS, since=mark)
        mark = terminal.mark()
        terminal.write(CTRL_Q)
        asked = terminal.wait_for("Keep working", STARTUP_SECONDS, since=mark)
        assert "This is the demo" in asked
        assert "next time" not in asked
        terminal.write(b"d")
        assert terminal.wait_exit(EXIT_SECONDS) == 0
    assert list(temporary.iterdir()) == []


def test_the_demo_names_the_operators_variables_it_ignores(tmp_path: Path) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = isolated_env(
        tmp_path / "operator",
        TMPDIR=str(temporary),
        PLANTSTORE_TOKEN=OPERATOR_TOKEN,
        PLANTSTORE_BASE_URL="https://plants.example.test",
        PLANTSTORE_PROFILE="",  # empty: not set
    )
    command = [sys.executable, "-m", "plantstore_tui", "demo"]
    with PtyProcess(command, env=env, cwd=tmp_path, columns=80, rows=24) as terminal:
        terminal.wait_for("sandbox", STARTUP_SECONDS)
        terminal.wait_for("ready", STARTUP_SECONDS)
        shown = " ".join(terminal.screen_text().split())
        assert "PLANTSTORE_TOKEN" in shown
        assert "PLANTSTORE_BASE_URL" in shown
        assert "PLANTSTORE_PROFILE" not in shown
        assert OPERATOR_TOKEN not in shown
        terminal.write(CTRL_Q)
        assert terminal.wait_exit(EXIT_SECONDS) == 0
