"""Who took each plant: every front end that takes plants writes the operating system's user and
the host into the plant's row, and a ledger from before keeps its plants with operator unknown."""

from __future__ import annotations

import getpass
import socket
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner
from ledger_support import as_before, ledger_file, new_row, opened, take_settled

from plantstore_tui.cli import main
from plantstore_tui.core.store import operator
from plantstore_tui.server.runner import BackgroundServer


def operators() -> list[tuple[str, str | None, str | None]]:
    """(source, operator, host) of each plant in the ledger file, in the order taken."""
    with closing(sqlite3.connect(ledger_file())) as connection:
        return connection.execute(
            "SELECT source, operator, host FROM plants ORDER BY entry"
        ).fetchall()


@pytest.fixture
def _forgetting_the_operator() -> Iterator[None]:
    operator.this_operator.cache_clear()
    yield
    operator.this_operator.cache_clear()


@pytest.mark.usefixtures("_forgetting_the_operator")
def test_add_import_and_check_write_who_took_each_plant(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    env = {"PLANTSTORE_TOKEN": reference_server.token.get_secret_value()}
    target = ["--base-url", reference_server.base_url]
    runner = CliRunner()
    added = runner.invoke(main, ["add", "--name", "Fern", "--id", "1", *target], env=env)
    assert added.exit_code == 0, added.output
    plants = tmp_path / "plants.csv"
    plants.write_text("id,name\n2,Rose\n3,Ivy\n")
    imported = runner.invoke(main, ["import", str(plants), *target], env=env)
    assert imported.exit_code == 0, imported.output
    checked = runner.invoke(main, ["check", "--create", "--ids", "100-199", *target], env=env)
    assert checked.exit_code == 0, checked.output

    found = operators()
    assert {source for source, _, _ in found} == {"add", "import", "check"}
    assert {row[1:] for row in found} == {(getpass.getuser(), socket.gethostname())}


@pytest.mark.usefixtures("_forgetting_the_operator")
def test_a_user_the_system_cannot_name_is_written_as_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def nobody() -> str:
        raise OSError("No username set in the environment")

    monkeypatch.setattr(getpass, "getuser", nobody)
    with opened() as ledger:
        take_settled(ledger, new_row("Fern", "1"))
    assert operators() == [("add", "unknown", socket.gethostname())]


def test_a_ledger_from_before_keeps_its_plants_with_operator_unknown() -> None:
    with opened() as ledger:
        take_settled(ledger, new_row("Fern", "1"))
    as_before("plants.operator")
    with opened() as ledger:
        take_settled(ledger, new_row("Rose", "2"))
    assert operators() == [
        ("add", None, None),
        ("add", getpass.getuser(), socket.gethostname()),
    ]
