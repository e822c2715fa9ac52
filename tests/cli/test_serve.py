"""`plantstore-tui serve` warns about listening beyond this machine by the one loopback rule."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner

from plantstore_tui.cli import serve as serve_module
from plantstore_tui.cli.serve import serve

WARNING = "over plain HTTP; tokens sent to it can be read on the network"


@pytest.fixture
def served_hosts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The hosts `serve` would listen on; nothing is opened or started."""
    hosts: list[str] = []
    monkeypatch.setattr(serve_module, "create_app", lambda **_: object())

    def run_server(app: Any, *, host: str, port: int) -> None:
        hosts.append(host)

    monkeypatch.setattr(serve_module, "run_server", run_server)
    return hosts


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "::ffff:127.0.0.1", "localhost"])
def test_loopback_hosts_get_no_warning(host: str, served_hosts: list[str], tmp_path: Any) -> None:
    result = CliRunner().invoke(serve, ["--host", host, "--db", str(tmp_path / "p.db")])
    assert result.exit_code == 0, result.output
    assert served_hosts == [host]
    assert WARNING not in result.output


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.7"])
def test_other_hosts_are_warned_about(host: str, served_hosts: list[str], tmp_path: Any) -> None:
    result = CliRunner().invoke(serve, ["--host", host, "--db", str(tmp_path / "p.db")])
    assert result.exit_code == 0, result.output
    assert f"Warning: listening on {host} {WARNING}" in result.output
