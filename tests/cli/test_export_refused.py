"""`history export --as curl|httpie`: a replay the deployment refuses ends the exported command
with a non-zero exit, run for real against the reference server, as a script runs it."""

from __future__ import annotations

import sqlite3

import pytest
from click.testing import CliRunner
from export_support import run_shell, tools

from plantstore_tui.cli import main
from plantstore_tui.server.runner import BackgroundServer


def exported(entry: int, as_: str) -> str:
    result = CliRunner().invoke(main, ["history", "export", str(entry), "--as", as_])
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


def plants_in(server: BackgroundServer) -> list[tuple[int, str]]:
    with sqlite3.connect(server.db_path) as connection:
        stored = connection.execute("SELECT id, name FROM plants").fetchall()
    connection.close()
    return stored


@pytest.mark.parametrize("as_", ["curl", "httpie"])
@pytest.mark.parametrize("refusal", ["wrong token", "duplicate id"])
def test_a_refused_replay_exits_non_zero_and_shows_the_answer(
    reference_server: BackgroundServer, as_: str, refusal: str
) -> None:
    tools(as_)
    token = reference_server.token.get_secret_value()
    added = CliRunner().invoke(
        main,
        ["add", "--name", "Fern", "--id", "11", "--base-url", reference_server.base_url],
        env={"PLANTSTORE_TOKEN": token},
    )
    assert added.exit_code == 0, added.output
    # The replay of a created plant is refused as a duplicate; with a wrong token, as a 401.
    done = run_shell(exported(1, as_), token if refusal == "duplicate id" else "wrong-token")
    assert done.returncode != 0, (done.stdout, done.stderr)
    # The deployment's words are still shown (curl --fail-with-body, http --check-status).
    assert '"message"' in done.stdout
    assert plants_in(reference_server) == [(11, "Fern")]
