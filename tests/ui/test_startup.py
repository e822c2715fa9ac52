"""Starting the TUI: no target is a configuration problem, `demo`'s server, and crash reports."""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from plantstore_tui.cli import main
from plantstore_tui.core.config.files import config_dir, data_dir
from plantstore_tui.core.sending.connection import Connection
from plantstore_tui.ui.app import PlantStoreApp

CANARY = "CANARY-tui-8d41f0c2b7e94a13"
REPO = Path(__file__).resolve().parents[2]


def test_no_target_is_a_configuration_problem_before_the_tui_starts() -> None:
    env = {"PLANTSTORE_TOKEN": CANARY, "PLANTSTORE_BASE_URL": None, "PLANTSTORE_PROFILE": None}
    result = CliRunner().invoke(main, [], env=env)
    assert result.exit_code == 4
    assert "No target" in result.output
    assert "plantstore-tui demo" in result.output


def test_the_tui_resolves_its_target_after_the_first_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def run(self: PlantStoreApp) -> None:
        seen["label"] = self._label.describe()
        connection = self._connect()
        seen["token"] = connection.target.token.get_secret_value()
        seen["url"] = connection.client.url

    monkeypatch.setattr(PlantStoreApp, "run", run)
    env = {"PLANTSTORE_TOKEN": CANARY, "PLANTSTORE_BASE_URL": None, "PLANTSTORE_PROFILE": None}
    result = CliRunner().invoke(main, ["--base-url", "http://127.0.0.1:9/"], env=env)
    assert result.exit_code == 0, result.output
    assert seen["label"] == "http://127.0.0.1:9/ · token from $PLANTSTORE_TOKEN"
    assert seen["token"] == CANARY
    assert seen["url"] == "http://127.0.0.1:9/plants"


def test_demo_serves_while_the_tui_runs_and_stops_when_it_crashes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen: dict[str, Any] = {}
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    operator = (config_dir(), data_dir())

    def run(self: PlantStoreApp) -> None:
        # The TUI runs in the demo's sandbox.
        seen["dirs"] = (config_dir(), data_dir())
        connection: Connection = self._connect()
        seen["target"] = connection.target
        host, port = connection.target.base_url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=5):
            seen["served"] = True
        raise RuntimeError("the TUI crashed")

    monkeypatch.setattr(PlantStoreApp, "run", run)
    result = CliRunner().invoke(main, ["demo"])
    assert isinstance(result.exception, RuntimeError)
    assert seen["served"]
    target = seen["target"]
    assert target.base_url.startswith("http://127.0.0.1:")
    assert len(target.token.get_secret_value()) >= 32
    host, port = target.base_url.removeprefix("http://").split(":")
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((host, int(port)), timeout=5).close()
    [sandbox] = {path.parent for path in seen["dirs"]}
    assert sandbox.parent == tmp_path
    assert not sandbox.exists()
    assert (config_dir(), data_dir()) == operator


_CRASH = """
    import sys
    from pydantic import SecretStr
    from plantstore_tui.core.http.target import Target
    from plantstore_tui.ui.app import PlantStoreApp
    from plantstore_tui.core.sending.connection import connect_to
    from plantstore_tui.ui.connection import TargetLabel
    from plantstore_tui.ui.screens.send import SendScreen

    target = Target(base_url="http://127.0.0.1:9", token=SecretStr(sys.argv[1]),
                    token_source="the test")

    def clear_log(self):
        token = target.token.get_secret_value()  # a plain token in this frame's locals
        raise RuntimeError("a bug in an event handler")

    SendScreen.action_clear_log = clear_log
    if sys.argv[2] == "textual-default":
        PlantStoreApp.crash_report_shows_locals = True

    async def crash(pilot):
        await pilot.app.get_default_screen().wait_until_settled()
        await pilot.press("ctrl+l")

    app = PlantStoreApp(lambda: connect_to(target), TargetLabel.of(target))
    app.run(headless=True, size=(100, 30), auto_pilot=crash)
    sys.exit(app.return_code)
"""


def _crash(mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_CRASH), CANARY, mode],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=False,
    )


def test_a_crash_report_never_prints_the_token() -> None:
    result = _crash("ours")
    output = result.stdout + result.stderr
    assert result.returncode == 1
    assert "RuntimeError" in output
    assert "a bug in an event handler" in output
    assert CANARY not in output
    assert CANARY[-12:] not in output


def test_textual_default_crash_report_would_print_it() -> None:
    # The control: with Textual's own report (locals shown) the same crash leaks the canary,
    # so the test above proves the override, not luck.
    result = _crash("textual-default")
    assert CANARY in result.stdout + result.stderr
