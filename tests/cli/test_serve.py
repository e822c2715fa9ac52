"""`plantstore-tui serve` warns about listening beyond this machine by the one loopback rule, and
says in one sentence why it cannot start, before it prints a token."""

from __future__ import annotations

import socket
import subprocess
import sys
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

    def listen(host: str, port: int) -> object:
        hosts.append(host)
        return object()

    monkeypatch.setattr(serve_module, "listen", listen)
    monkeypatch.setattr(serve_module, "run_server", lambda app, sock: None)
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


def test_a_port_in_use_is_one_sentence_and_no_token(tmp_path: Any) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        db = str(tmp_path / "plants.sqlite3")
        done = subprocess.run(
            [sys.executable, "-m", "plantstore_tui", "serve", "--port", str(port), "--db", db],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    assert done.returncode == 4
    assert done.stdout == ""
    assert done.stderr == (
        f"Error: Port {port} on 127.0.0.1 is in use: stop what listens there, or choose "
        "another --port.\n"
    )
    # The generated token is printed only once the server listens: a failed start shows none.
    assert "Traceback" not in done.stderr
    assert "token" not in done.stderr


def test_the_named_token_variable_is_not_announced_when_the_start_fails(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setenv("SERVE_TOKEN", "serve-token-DO-NOT-PRINT")
    result = CliRunner().invoke(
        serve,
        ["--host", "192.0.2.7", "--token-env", "SERVE_TOKEN", "--db", str(tmp_path / "p.db")],
    )
    assert result.exit_code == 4
    assert result.output == (
        "Error: Cannot listen on 192.0.2.7: it is not an address of this machine (127.0.0.1 is "
        "this machine alone, 0.0.0.0 every network).\n"
    )
