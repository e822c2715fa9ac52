"""The previous release's files (history, import journal, recovery files), written by that
release itself (tests/fixtures/previous_release), taken into the ledger on its first open: once,
never changed or deleted, a file that cannot be read named in words and skipped."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from burst_support import stored_plants

from plantstore_tui.core.store import HistoryFilter, Ledger, PlantState, open_for_reading
from plantstore_tui.core.store.batches import Batches
from plantstore_tui.core.store.opening import open_ledger
from plantstore_tui.server.runner import BackgroundServer

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "previous_release"
EXPECTED: dict[str, Any] = json.loads((FIXTURES / "expected.json").read_text())
RECOVERY_FILES = [found["file"] for found in EXPECTED["recovery"]["files"]]
[UNREADABLE] = [found["file"] for found in EXPECTED["recovery"]["unreadable"]]


@pytest.fixture
def old_data(tmp_path: Path) -> Path:
    """A copy of the previous release's data directory, private as that release wrote it."""
    data = Path(os.environ["PLANTSTORE_DATA_DIR"])
    shutil.copytree(FIXTURES / "data", data)
    for path in [data, *data.rglob("*")]:
        path.chmod(0o700 if path.is_dir() else 0o600)
    return data


def snapshot(data: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(data)): path.read_bytes()
        for path in sorted(data.rglob("*"))
        if path.is_file() and path.parent.name != "sessions" and "plantstore" not in path.name
    }


def opened(data: Path) -> Ledger:
    return open_ledger("tui", path=data / "plantstore.sqlite3")


def test_every_file_is_carried_over_once_and_left_exactly_as_it_was(old_data: Path) -> None:
    before = snapshot(old_data)
    ledger = opened(old_data)
    try:
        carried = ledger.carried
        assert carried is not None
        assert sorted(carried.files) == sorted(
            ["history.sqlite3", "import-journal.sqlite3", *RECOVERY_FILES]
        )
        [problem] = carried.problems
        assert UNREADABLE in problem
        assert "cannot be read" in problem
        assert "left as it is" in problem
        total = ledger.count()
    finally:
        ledger.close()
    # Reading them changed no byte, and deleted nothing (SQLite's -wal/-shm aside).
    after = {name: data for name, data in snapshot(old_data).items() if "-wal" not in name}
    assert {name: data for name, data in after.items() if "-shm" not in name} == before

    again = opened(old_data)
    try:
        assert again.carried is not None
        assert again.carried.files == []
        assert again.count() == total
        # The unreadable file is named again, as long as it is there.
        assert len(again.carried.problems) == 1
    finally:
        again.close()


def test_the_history_rows_keep_every_field_and_are_not_offered_again(old_data: Path) -> None:
    ledger = opened(old_data)
    try:
        for expected in EXPECTED["history.sqlite3"]["rows"]:
            if expected["source"] == "import":
                continue  # the journal's rows stand for these (next test)
            [row] = [
                row
                for row in ledger.query(HistoryFilter(plant_id=expected["plant_id"]))
                if row.source == expected["source"] and row.batch is None
            ]
            for key in ("profile", "base_url", "name", "tag", "outcome", "status", "kind"):
                assert getattr(row, key) == expected[key], key
            assert row.body.decode() == expected["body"]
            assert row.fate == expected["fate"]
            assert row.message == expected["message"]
            assert row.plant == expected["plant"]
            assert row.settled
            assert not row.needs_attention
    finally:
        ledger.close()


def test_the_cut_short_batch_resumes_exactly_where_it_stopped(old_data: Path) -> None:
    [finished, cut_short] = EXPECTED["import-journal.sqlite3"]["batches"]
    ledger = opened(old_data)
    try:
        batches = Batches(ledger)
        batch = batches.latest(cut_short["sha256"], cut_short["base_url"])
        assert batch is not None
        assert (batch.file_name, batch.rows, batch.profile) == ("cut_short.csv", 9, "lab")
        counts = batches.counts(batch)
        assert (counts.created, counts.rejected) == (2, 1)
        assert (counts.failed, counts.unknown) == (1, 2)
        assert batches.settled_lines(batch, resend_unknown=False) == set(cut_short["not_resent"])
        assert batches.settled_lines(batch, resend_unknown=True) == set(
            cut_short["not_resent_with_resend_unknown"]
        )
        assert [row.line for row in batches.unknown_rows(batch)] == [7, 8]
        # The names the journal did not keep come from the old history's import rows.
        [line_2] = list(ledger.query(HistoryFilter(plant_id=2001)))
        assert (line_2.batch, line_2.line, line_2.state) == (batch.id, 2, PlantState.CREATED)
        assert line_2.name == EXPECTED["history.sqlite3"]["rows"][4]["name"]
        done = batches.latest(finished["sha256"], finished["base_url"])
        assert done is not None
        assert batches.finish(done)
        assert not batches.finish(batch)
    finally:
        ledger.close()


def test_the_recovered_plants_wait_in_needs_attention_exactly_as_typed(old_data: Path) -> None:
    ledger = opened(old_data)
    try:
        waiting = ledger.attention()
    finally:
        ledger.close()
    expected = [plant for found in EXPECTED["recovery"]["files"] for plant in found["plants"]]
    assert len(waiting) == len(expected)
    by_typed = {(row.typed.name, row.typed.id, row.typed.tag): row for row in waiting}
    for plant in expected:
        row = by_typed[(plant["name"], plant["id"], plant["tag"])]
        assert (row.base_url, row.profile, row.source) == (
            plant["base_url"],
            plant["profile"],
            "tui",
        )
        match plant["state"]:
            case "queued" | "held":
                assert (row.state, row.held) == (PlantState.QUEUED, True)
            case "sending":
                assert row.state is PlantState.UNKNOWN
                assert "may exist already" in (row.note or "")
            case state:
                assert row.state is PlantState(state)
        if plant["reason"]:
            assert plant["reason"] in row.message or plant["reason"] == row.note


def test_history_pending_lists_the_recovered_plants_from_the_command_line(old_data: Path) -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "plantstore_tui", "history", "--pending", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = json.loads(listed.stdout)
    typed = [(row["typed"]["name"], row["typed"]["id"], row["typed"]["tag"]) for row in rows]
    expected = [
        (plant["name"], plant["id"], plant["tag"])
        for found in EXPECTED["recovery"]["files"]
        for plant in found["plants"]
    ]
    assert sorted(typed) == sorted(expected)
    assert UNREADABLE in listed.stderr


def test_reading_the_history_alone_carries_the_old_files_over(old_data: Path) -> None:
    ledger = open_for_reading()
    assert ledger is not None
    try:
        assert ledger.count() > 0
    finally:
        ledger.close()
    assert (old_data / "plantstore.sqlite3").exists()
    assert (old_data / "history.sqlite3").exists()


def test_import_resume_sends_exactly_the_rows_the_old_journal_never_settled(
    old_data: Path, tmp_path: Path, reference_server: BackgroundServer
) -> None:
    cut_short = EXPECTED["import-journal.sqlite3"]["batches"][1]
    ledger = opened(old_data)
    try:
        # The old batch went to a deployment on another port: this test's server stands in.
        with ledger.db.write() as connection:
            connection.execute("UPDATE batches SET base_url = ?", (reference_server.base_url,))
            connection.execute(
                "UPDATE plants SET base_url = ? WHERE batch IS NOT NULL",
                (reference_server.base_url,),
            )
    finally:
        ledger.close()
    shutil.copy(FIXTURES / "cut_short.csv", tmp_path / "cut_short.csv")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "plantstore_tui",
            "import",
            "cut_short.csv",
            "--resume",
            "--base-url",
            reference_server.base_url,
        ],
        cwd=tmp_path,
        env=os.environ | {"PLANTSTORE_TOKEN": reference_server.token.get_secret_value()},
        capture_output=True,
        text=True,
        check=False,
    )
    # Lines 2-4 were done and 7-8 may exist: only the failed line 6 and the never-sent 9-11 go.
    assert sorted(row[0] for row in stored_plants(reference_server.db_path)) == [
        2004,
        2007,
        2008,
        2009,
    ], done.stdout + done.stderr
    assert set(cut_short["not_resent"]) == {2, 3, 4, 7, 8}
    again = opened(old_data)
    try:
        batch = Batches(again).latest(cut_short["sha256"], reference_server.base_url)
        assert batch is not None
        counts = Batches(again).counts(batch)
        assert (counts.created, counts.rejected, counts.failed, counts.unknown) == (6, 1, 0, 2)
    finally:
        again.close()
