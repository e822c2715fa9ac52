"""An import whose ledger fills the disk: the summary says what the ledger holds (the rows whose
answers it could not keep named as such), and why it stopped: the ledger could not be written,
the disk is full. A full disk is SQLite's own SQLITE_FULL, brought on by a page cap
(`PRAGMA max_page_count`) on the import's connection to the ledger."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from burst_support import stored_plants
from click.testing import CliRunner, Result
from import_support import plants, write_csv
from ledger_support import ledger_file, opened

from plantstore_tui.cli import main
from plantstore_tui.core.store import LEDGER_FILE
from plantstore_tui.server.runner import BackgroundServer

ROWS = 600
# Pages the ledger may grow by during the import: room for some of its rows, not all.
ROOM = 60


class _FillingDisk(sqlite3.Connection):
    """A connection to a ledger on a disk with `ROOM` pages free: once a write has found it
    full, the disk stays full (no write that needs a page more goes through), as a real one
    does until somebody frees room."""

    full = False

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        if self.full and sql.startswith("BEGIN"):
            pages = super().execute("PRAGMA page_count").fetchone()[0]
            super().execute(f"PRAGMA max_page_count = {pages}")
        try:
            return super().execute(sql, parameters)
        except sqlite3.OperationalError as exc:
            self.full = self.full or exc.sqlite_errorname == "SQLITE_FULL"
            raise


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ledger's disk fills up once the ledger has grown by `ROOM` pages."""
    with opened():
        pass  # the ledger made and migrated: what it holds now fits
    connect: Callable[..., sqlite3.Connection] = sqlite3.connect

    def filling(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        if not str(database).endswith(LEDGER_FILE):
            return connect(database, *args, **kwargs)
        connection = connect(database, *args, factory=_FillingDisk, **kwargs)
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
        connection.execute(f"PRAGMA max_page_count = {pages + ROOM}")
        return connection

    monkeypatch.setattr(sqlite3, "connect", filling)


def run_import(server: BackgroundServer, *args: str) -> Result:
    argv = ["import", *args, "--base-url", server.base_url]
    return CliRunner().invoke(main, argv, env={"PLANTSTORE_TOKEN": server.token.get_secret_value()})


def in_the_ledger() -> Counter[str]:
    """The states of the import's rows, read from the file as another process reads it."""
    with closing(sqlite3.connect(ledger_file())) as connection:
        return Counter(
            state
            for (state,) in connection.execute("SELECT state FROM plants WHERE batch IS NOT NULL")
        )


@pytest.mark.usefixtures("full_disk")
def test_the_summary_agrees_with_the_ledger_after_the_disk_fills(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    # Long names: each answer written takes room of its own, as each row marked sending does.
    rows = [(f"{name} {'of the long greenhouse ' * 40}", i, tag) for name, i, tag in plants(ROWS)]
    path = write_csv(tmp_path / "plants.csv", rows)
    result = run_import(reference_server, str(path), "--json")
    assert result.exit_code == 3, result.output
    summary = json.loads(result.stdout)
    # The ledger read as the next process reads it: rows in flight of this one, of unknown fate.
    held = in_the_ledger()
    on_the_server = len(stored_plants(reference_server.db_path))
    assert 0 < on_the_server < ROWS

    # Counted as the ledger holds them, and what the run knows of them said apart.
    assert summary["created"] == held["created"], (summary, held)
    assert summary["unknown"] == held["unknown"] + held["sending"], (summary, held)
    assert summary["created"] + summary["not_recorded"].get("created", 0) == on_the_server
    assert sum(summary["not_recorded"].values()) > 0, summary
    assert sum(summary[part] for part in ("created", "unknown", "not_sent")) == ROWS
    assert summary["problem"].startswith("the ledger, which could not be written"), summary
    assert summary["problem"].endswith("the disk is full"), summary

    # Room made again, the resume says why those rows are left out: not only "it ended".
    resumed = run_import(reference_server, str(path), "--resume")
    assert "could not write the ledger (a full disk, say)" in resumed.stderr, resumed.stderr


@pytest.mark.usefixtures("full_disk")
def test_the_words_name_the_full_disk_and_the_rows_the_ledger_could_not_record(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    rows = [(f"{name} {'of the long greenhouse ' * 40}", i, tag) for name, i, tag in plants(ROWS)]
    path = write_csv(tmp_path / "plants.csv", rows)
    result = run_import(reference_server, str(path))
    assert result.exit_code == 3, result.output
    lines = result.stdout.splitlines()
    assert any(
        line.startswith("Stopped on the ledger, which could not be written: ")
        and line.endswith(
            f": the disk is full. Once it is dealt with: plantstore-tui import {path} --resume"
        )
        for line in lines
    ), lines
    assert any(line.startswith("The ledger could not record what came of ") for line in lines)
