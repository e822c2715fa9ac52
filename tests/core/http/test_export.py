"""`history export`: the curl and HTTPie commands are run for real and send the same request; no
name or tag can break or inject into them (Hypothesis, through shlex and through bash)."""

from __future__ import annotations

import asyncio
import shlex
import sqlite3

import pytest
from click.testing import CliRunner
from export_support import run_shell, tools
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ledger_support import all_rows, data_dir
from misbehaving import MisbehavingServer, spec_like

from plantstore_tui.cli import main
from plantstore_tui.core.http.export import ExportFormat, export_command
from plantstore_tui.core.plant.form import find_forbidden_char
from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.server.runner import BackgroundServer

CANARY = "CANARY-export-7c3e9a1f5b2d8e40"
AWKWARD = 'Mon\'stera "$HOME" `id` $(id) !! \\n ü 🌿 a\u00a0b %s {}'


def exported(entry: int, as_: str) -> str:
    result = CliRunner().invoke(main, ["history", "export", str(entry), "--as", as_])
    assert result.exit_code == 0, result.output
    command = result.stdout.strip()
    assert "\n" not in command
    return command


def add_with(base_url: str, token: str, plant_id: int) -> None:
    result = CliRunner().invoke(
        main,
        [
            "add",
            "--name",
            AWKWARD,
            "--id",
            str(plant_id),
            "--tag",
            "it's $x",
            "--base-url",
            base_url,
        ],
        env={"PLANTSTORE_TOKEN": token},
    )
    assert result.exit_code in (0, 1), result.output


@pytest.mark.parametrize("as_", ["curl", "httpie"])
async def test_the_exported_command_sends_the_same_bytes(as_: str) -> None:
    tools(as_)
    async with MisbehavingServer(spec_like) as server:
        await asyncio.to_thread(add_with, server.base_url, CANARY, 5)
        command = exported(1, as_)
        assert CANARY not in command
        assert '"${PLANTSTORE_TOKEN:?set PLANTSTORE_TOKEN to the token}"' in command
        done = await asyncio.to_thread(run_shell, command, CANARY)
        assert done.returncode == 0, done.stderr
        await server.wait_for_requests(2)
        first, again = server.requests
    assert again.method == "POST"
    assert again.target == "/plants"
    assert again.body == first.body
    assert again.headers["content-type"] == "application/json"
    assert again.headers["authorization"] == f"Bearer {CANARY}"


@pytest.mark.parametrize("as_", ["curl", "httpie"])
def test_a_refused_send_exported_and_run_with_the_right_token_creates_the_plant(
    reference_server: BackgroundServer, as_: str
) -> None:
    tools(as_)
    add_with(reference_server.base_url, "wrong-token", 6)
    done = run_shell(exported(1, as_), reference_server.token.get_secret_value())
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(reference_server.db_path) as connection:
        stored = connection.execute("SELECT id, name, tag FROM plants").fetchall()
    connection.close()
    assert stored == [(6, AWKWARD, "it's $x")]


@pytest.mark.parametrize("as_", ["curl", "httpie"])
@pytest.mark.parametrize("token", [None, ""], ids=["unset", "empty"])
async def test_without_the_token_variable_the_command_stops_in_words_and_sends_nothing(
    as_: str, token: str | None
) -> None:
    tools(as_)
    async with MisbehavingServer(spec_like) as server:
        await asyncio.to_thread(add_with, server.base_url, CANARY, 8)
        done = await asyncio.to_thread(run_shell, exported(1, as_), token)
        received = len(server.requests)
    assert done.returncode != 0
    assert "PLANTSTORE_TOKEN: set PLANTSTORE_TOKEN to the token" in done.stderr
    assert done.stdout == ""
    # Only the add reached the server: the exported command sent nothing.
    assert received == 1


def write_previous_release_import_journal(plant_id: int) -> None:
    """The previous release's import journal, which kept a line's plant id and state only."""
    data_dir().mkdir(parents=True)
    with sqlite3.connect(data_dir() / "import-journal.sqlite3") as connection:
        connection.executescript(
            """
            CREATE TABLE batches (id INTEGER PRIMARY KEY, sha256 TEXT NOT NULL,
                base_url TEXT NOT NULL, profile TEXT, file_name TEXT NOT NULL,
                rows INTEGER NOT NULL, started_at TEXT NOT NULL);
            CREATE TABLE batch_rows (batch_id INTEGER NOT NULL, line INTEGER NOT NULL,
                plant_id INTEGER NOT NULL, state TEXT NOT NULL, status INTEGER,
                message TEXT NOT NULL DEFAULT '', updated_at TEXT NOT NULL,
                PRIMARY KEY (batch_id, line)) WITHOUT ROWID;
            PRAGMA user_version = 1;
            """
        )
        connection.execute(
            "INSERT INTO batches VALUES (1, ?, 'http://127.0.0.1:9', NULL, 'plants.csv', 1, ?)",
            ("ab" * 32, "2026-11-20T09:30:00+00:00"),
        )
        connection.execute(
            "INSERT INTO batch_rows VALUES (1, 2, ?, 'rejected', 400, 'duplicate id', ?)",
            (plant_id, "2026-11-20T09:30:01+00:00"),
        )
    connection.close()


def test_a_row_without_a_body_is_refused_in_words() -> None:
    write_previous_release_import_journal(41)
    [row] = all_rows()
    assert (row.plant_id, row.batch, row.line, row.sent()) == (41, 1, 2, None)
    for as_ in ("curl", "httpie"):
        refused = CliRunner().invoke(main, ["history", "export", str(row.entry), "--as", as_])
        assert refused.exit_code == 2
        assert "no body to send again" in refused.output
        assert "import journal" in refused.output
        assert refused.stdout == ""
    shown = CliRunner().invoke(main, ["history", "show", str(row.entry)])
    assert shown.exit_code == 0
    assert "import batch 1, line 2" in shown.stdout


def _sendable(text: str) -> bool:
    return bool(text.strip()) and find_forbidden_char(text) is None


names = st.text(st.characters(codec="utf-8"), min_size=1, max_size=40).filter(_sendable)
tags = st.none() | st.text(st.characters(codec="utf-8"), max_size=20).filter(
    lambda text: find_forbidden_char(text) is None
)
URL = "http://127.0.0.1:8000/plants"


def _plant(name: str, tag: str | None) -> NewPlant:
    return NewPlant(id=1, name=name, tag=tag)


@given(names, tags, st.sampled_from(list(ExportFormat)))
def test_a_shell_reads_the_body_back_exactly(name: str, tag: str | None, as_: ExportFormat) -> None:
    body = _plant(name, tag).body_bytes()
    words = shlex.split(export_command(URL, body, as_))
    assert words[-1] == body.decode()
    assert URL in words
    scheme = "Authorization: Bearer " if as_ is ExportFormat.CURL else "Authorization:Bearer "
    assert scheme + "${PLANTSTORE_TOKEN:?set PLANTSTORE_TOKEN to the token}" in words


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(names, tags, st.sampled_from(list(ExportFormat)))
def test_bash_passes_every_word_as_is_and_runs_nothing_else(
    name: str, tag: str | None, as_: ExportFormat
) -> None:
    body = _plant(name, tag).body_bytes()
    command = export_command(URL, body, as_)
    program, _, rest = command.partition(" ")
    # The command's words, printed one per NUL by bash itself instead of being sent.
    done = run_shell("printf '%s\\0' " + rest, CANARY)
    assert done.returncode == 0
    words = done.stdout.split("\0")[:-1]
    assert words[-1] == body.decode()
    assert f"Bearer {CANARY}" in " ".join(words)
    assert program in ("curl", "http")
