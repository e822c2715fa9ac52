"""A data directory that is not a directory (`PLANTSTORE_DATA_DIR` pointing at a regular file, or
below one) is a configuration problem for every command that keeps plants: exit 4, a sentence
naming the path, nothing sent; never "No history yet" and exit 0. Run as an operator runs them."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from front_door_support import front_door

from plantstore_tui.server.runner import BackgroundServer

CONFIG_PROBLEM = 4


def plantstore(data: Path, *argv: str, token: str = "") -> subprocess.CompletedProcess[str]:
    """The real command from a shell, its data directory `data`."""
    env = {**os.environ, "PLANTSTORE_DATA_DIR": str(data), "PLANTSTORE_TOKEN": token}
    return subprocess.run(
        [sys.executable, "-m", "plantstore_tui", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def stored(server: BackgroundServer) -> int:
    with sqlite3.connect(server.db_path) as db:
        found: int = db.execute("SELECT count(*) FROM plants").fetchone()[0]
        return found


@pytest.fixture(params=["a file", "below a file"])
def not_a_directory(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """The data directory as an operator mistypes it: a regular file, or a path through one."""
    file = tmp_path / "plants.csv"
    file.write_text("name,id\nFern,1\n")
    return file if request.param == "a file" else file / "data"


def said_of(done: subprocess.CompletedProcess[str], path: Path) -> None:
    """Exit 4, and one sentence naming the path and what is wrong with it."""
    assert done.returncode == CONFIG_PROBLEM, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert str(path) in done.stderr, done.stderr
    assert "is not a directory" in done.stderr, done.stderr
    assert "PLANTSTORE_DATA_DIR" in done.stderr, done.stderr


@pytest.mark.parametrize(
    "argv",
    [["history"], ["history", "--pending"], ["history", "summary"], ["history", "show", "1"]],
    ids=["history", "pending", "summary", "show"],
)
def test_history_says_the_data_directory_is_not_one(not_a_directory: Path, argv: list[str]) -> None:
    done = plantstore(not_a_directory, *argv)
    said_of(done, not_a_directory)
    assert "No history yet" not in done.stdout


def test_add_sends_nothing_and_says_so(
    not_a_directory: Path, reference_server: BackgroundServer
) -> None:
    token = reference_server.token.get_secret_value()
    argv = ["add", "--name", "Fern", "--id", "1", "--base-url", reference_server.base_url]
    said_of(plantstore(not_a_directory, *argv, token=token), not_a_directory)
    as_json = plantstore(not_a_directory, *argv, "--json", token=token)
    assert as_json.returncode == CONFIG_PROBLEM
    answer = json.loads(as_json.stdout)
    assert answer["outcome"] == "configuration problem"
    assert str(not_a_directory) in answer["message"]
    assert stored(reference_server) == 0


def test_import_sends_nothing_and_says_so(
    not_a_directory: Path, reference_server: BackgroundServer, tmp_path: Path
) -> None:
    rows = tmp_path / "rows.csv"
    rows.write_text("name,id\nFern,1\nIvy,2\n")
    token = reference_server.token.get_secret_value()
    argv = ["import", str(rows), "--base-url", reference_server.base_url]
    said_of(plantstore(not_a_directory, *argv, token=token), not_a_directory)
    assert stored(reference_server) == 0


def test_the_tui_does_not_start(not_a_directory: Path) -> None:
    # The TUI would keep its plants in memory and lose them at quit: refused before it starts.
    done = front_door(
        ["--base-url", "http://127.0.0.1:9"],
        PLANTSTORE_DATA_DIR=str(not_a_directory),
        PLANTSTORE_TOKEN="a-token",
    )
    said_of(done, not_a_directory)
    assert "label:" not in done.stdout, "the app ran"


@pytest.mark.parametrize(
    "argv",
    [["probe", "--body", '{"id": 1, "name": "Fern"}'], ["check", "--create", "--ids", "1-9"]],
    ids=["probe", "check --create"],
)
def test_what_would_be_kept_is_not_sent(
    not_a_directory: Path, reference_server: BackgroundServer, argv: list[str]
) -> None:
    token = reference_server.token.get_secret_value()
    done = plantstore(not_a_directory, *argv, "--base-url", reference_server.base_url, token=token)
    said_of(done, not_a_directory)
    assert stored(reference_server) == 0
