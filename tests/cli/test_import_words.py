"""`plantstore-tui import`'s words: hostile files named at their line, the dry run bounded, counts
that add up to the rows of the file, the rows a resume leaves out counted and named, and a ledger
that cannot be opened or written named with its path, never a traceback."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from burst_support import stored_plants
from click.testing import CliRunner, Result
from import_support import cut_short, expected, plants, write_csv

from plantstore_tui.cli import main
from plantstore_tui.core.importing.rows import TOO_LONG
from plantstore_tui.core.store import StoreError, ledger_path
from plantstore_tui.core.store.batches import Batches
from plantstore_tui.server.runner import BackgroundServer


def run_import(*args: str, server: BackgroundServer | None = None) -> Result:
    token = "unused" if server is None else server.token.get_secret_value()
    argv = ["import", *args]
    if server is not None:
        argv += ["--base-url", server.base_url]
    return CliRunner().invoke(main, argv, env={"PLANTSTORE_TOKEN": token})


# --- read strictly ------------------------------------------------------------------------------


def test_hostile_json_lines_are_refused_each_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "plants.jsonl"
    path.write_text(
        '{"name":"A","id":1,"name":"B"}\n'
        '{"name": "C", "id": ' + "9" * 5000 + "}\n"
        '{"name": "' + "x" * 200_000 + '", "id": 3}\n'
        '{"name": "D", "id": 4}\n'
    )
    result = run_import(str(path), "--dry-run")
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines() == [
        f"{path}:1: json: the key 'name' is given twice (each key once)",
        f"{path}:2: id: ID must be between -9223372036854775808 and 9223372036854775807",
        f"{path}:3: row: {TOO_LONG}",
        f"{path}: 3 bad rows of 4; nothing was sent.",
    ]
    assert "nested too deeply" not in result.output


def test_csv_and_json_lines_refuse_a_row_too_long_in_the_same_words(tmp_path: Path) -> None:
    csv_path = write_csv(tmp_path / "plants.csv", [("x" * 200_000, 1, "")])
    jsonl_path = tmp_path / "plants.jsonl"
    jsonl_path.write_text('{"name": "' + "x" * 200_000 + '", "id": 1}\n')
    from_csv, from_jsonl = run_import(str(csv_path)), run_import(str(jsonl_path))
    assert (from_csv.exit_code, from_jsonl.exit_code) == (2, 2)
    assert f"{csv_path}:2: row: {TOO_LONG}" in from_csv.stderr
    assert f"{jsonl_path}:1: row: {TOO_LONG}" in from_jsonl.stderr


def test_a_dry_run_shows_each_value_bounded_with_its_full_size_named(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "plants.csv", [("N" * 100_000, 1, "t" * 300), ("Fern", 2, "")])
    result = run_import(str(path), "--dry-run")
    assert result.exit_code == 0, result.output
    first, second = (line for line in result.stdout.splitlines() if line.startswith("  line"))
    assert first == (
        f"  line 2: id 1, name '{'N' * 200}…', tag '{'t' * 200}…' "
        "(name: 100,000 characters, first 200 shown; tag: 300 characters, first 200 shown)"
    )
    assert second == "  line 3: id 2, name 'Fern'"
    assert max(map(len, result.output.splitlines())) < 600


# --- counts that add up -------------------------------------------------------------------------


def test_a_resume_counts_and_names_the_unknown_rows_it_leaves_out_and_does_not_exit_0(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    rows = plants(10)
    path = write_csv(tmp_path / "plants.csv", rows)
    # Line 2 was created, lines 3 and 4 were in flight when the earlier run was killed.
    cut_short(path, reference_server.base_url, created_lines={2}, unknown_lines={3, 4})
    # A row carried over from an older release says nothing of why: words are found for it.
    with closing(sqlite3.connect(ledger_path())) as connection, connection:
        connection.execute("UPDATE plants SET note = NULL, message = NULL WHERE line = 4")

    result = run_import(str(path), "--resume", server=reference_server)
    assert result.exit_code == 3, result.output
    assert result.stderr.splitlines()[:3] == [
        "2 rows whose fate is unknown are left out, not sent again (--resend-unknown sends "
        "them; they may exist already):",
        f"  {path}:3: id 2 ('Plant 2'): No answer was recorded for its send: plantstore-tui "
        "ended during it, or could not write the ledger (a full disk, say): it may exist "
        "already.",
        f"  {path}:4: id 3 ('Plant 3'): no answer is recorded: it may exist already",
    ]
    summary = result.stdout.splitlines()[0]
    assert summary.startswith(
        f"{path} (10 rows) -> {reference_server.base_url}: 7 created, 0 rejected, "
        "0 not sent after a failure, 0 unknown; 1 done before, skipped; 2 unknown, skipped in "
    )
    assert "2 rows may or may not have been created" in result.stdout
    assert sorted(stored_plants(reference_server.db_path)) == expected(rows[3:])


def test_the_json_summary_adds_up_to_the_rows_of_the_file(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    path = write_csv(tmp_path / "plants.csv", plants(12))
    cut_short(path, reference_server.base_url, created_lines={2, 3}, unknown_lines={5})
    result = run_import(str(path), "--resume", "--json", server=reference_server)
    assert result.exit_code == 3, result.output
    summary = json.loads(result.stdout)
    parts = ("created", "rejected", "failed", "unknown", "not_sent")
    parts += ("done_before", "unknown_skipped")
    assert [summary[part] for part in parts] == [9, 0, 0, 0, 0, 2, 1]
    assert sum(summary[part] for part in parts) == summary["rows"] == 12
    assert summary["skipped"] == 3


# --- a ledger that cannot be used ---------------------------------------------------------------


@pytest.fixture(params=["parent-is-a-file", "ledger-is-a-directory"])
def unusable_data_dir(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> str:
    """A data directory no process can keep the ledger in, root or not (chmod does not stop
    root): its parent is a regular file, or the ledger's path is a directory. What the import
    says of it, naming the path."""
    if request.param == "parent-is-a-file":
        (tmp_path / "a-file").write_text("not a directory")
        data = tmp_path / "a-file" / "data"
        said = (
            f"{data}: the data directory is not a directory (a path through a file), so the "
            "ledger cannot be kept there; set PLANTSTORE_DATA_DIR to a directory"
        )
    else:
        data = tmp_path / "data"
        (data / "plantstore.sqlite3").mkdir(parents=True)
        said = (
            f"The ledger cannot be used: {data / 'plantstore.sqlite3'}: cannot be opened (Is a "
            "directory); nothing was sent"
        )
    monkeypatch.setenv("PLANTSTORE_DATA_DIR", str(data))
    return said


def test_a_ledger_that_cannot_be_opened_is_named_and_nothing_is_sent(
    reference_server: BackgroundServer, tmp_path: Path, unusable_data_dir: str
) -> None:
    path = write_csv(tmp_path / "plants.csv", plants(3))
    for extra in ((), ("--resume",)):
        result = run_import(str(path), *extra, server=reference_server)
        assert result.exit_code == 4, result.output
        assert result.stderr == f"Error: {unusable_data_dir}\n"
        assert not isinstance(result.exception, StoreError)
    assert stored_plants(reference_server.db_path) == []


def test_a_ledger_that_cannot_be_written_when_the_batch_starts_is_named(
    reference_server: BackgroundServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opened, then refusing the batch's first write (a read-only file as another user sees
    it: chmod does not stop root, so the refusal is the store's own error)."""

    def refuse(self: Batches, **_: object) -> None:
        raise StoreError(ledger_path(), "cannot be written (read-only)")

    monkeypatch.setattr(Batches, "start", refuse)
    path = write_csv(tmp_path / "plants.csv", plants(3))
    result = run_import(str(path), server=reference_server)
    assert result.exit_code == 4, result.output
    assert result.stderr == (
        f"Error: The ledger cannot be used: {ledger_path()}: cannot be written (read-only); "
        "nothing was sent\n"
    )
    assert stored_plants(reference_server.db_path) == []
