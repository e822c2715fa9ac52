"""`plantstore-tui add` without `--id` on a profile with a range of ids (issue 35): it takes the
next free id of the range and says which. Two operators, each with a profile of their own range
and a data directory of their own, on one reference server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from plantstore_tui.server.runner import BackgroundServer


def plantstore(
    config: Path, data: Path, server: BackgroundServer, *argv: str
) -> subprocess.CompletedProcess[str]:
    """The real command from a shell: this operator's config and data directories."""
    env = {
        **os.environ,
        "PLANTSTORE_CONFIG_DIR": str(config),
        "PLANTSTORE_DATA_DIR": str(data),
        "PLANTS_TOKEN": server.token.get_secret_value(),
    }
    for name in ("PLANTSTORE_TOKEN", "PLANTSTORE_PROFILE", "PLANTSTORE_BASE_URL"):
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "plantstore_tui", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def ids_on(server: BackgroundServer) -> list[int]:
    with sqlite3.connect(server.db_path) as db:
        return [row[0] for row in db.execute("SELECT id FROM plants ORDER BY id")]


@pytest.fixture
def config(tmp_path: Path, reference_server: BackgroundServer) -> Path:
    """One profiles.toml for both operators: ann's range, bob's range, and one without."""
    directory = tmp_path / "config"
    directory.mkdir()
    url = reference_server.base_url
    (directory / "profiles.toml").write_text(
        f'[profiles.ann]\nbase_url = "{url}"\ntoken_env = "PLANTS_TOKEN"\nids = "70000-70999"\n\n'
        f'[profiles.bob]\nbase_url = "{url}"\ntoken_env = "PLANTS_TOKEN"\nids = "80000-80002"\n\n'
        f'[profiles.open]\nbase_url = "{url}"\ntoken_env = "PLANTS_TOKEN"\n'
    )
    return directory


def test_two_operators_with_disjoint_ranges_each_add_only_ids_of_their_own(
    tmp_path: Path, config: Path, reference_server: BackgroundServer
) -> None:
    ann, bob = tmp_path / "ann-data", tmp_path / "bob-data"
    first = plantstore(config, ann, reference_server, "add", "--profile", "ann", "--name", "A1")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "Next free id of 70000-70999: 70000." in first.stdout.splitlines()
    assert "Created plant 70000 (A1)" in first.stdout
    second = plantstore(
        config, ann, reference_server, "add", "--profile", "ann", "--name", "A2", "--json"
    )
    assert second.returncode == 0, second.stdout + second.stderr
    answer = json.loads(second.stdout)
    assert answer["next_id"] == 70001
    assert answer["sent"]["id"] == 70001
    for name in ("B1", "B2"):
        added = plantstore(config, bob, reference_server, "add", "--profile", "bob", "--name", name)
        assert added.returncode == 0, added.stdout + added.stderr
    assert ids_on(reference_server) == [70000, 70001, 80000, 80001]


def test_the_last_ids_of_the_range_are_said_and_none_is_proposed_past_its_end(
    tmp_path: Path, config: Path, reference_server: BackgroundServer
) -> None:
    bob = tmp_path / "bob-data"
    for _ in range(3):
        added = plantstore(config, bob, reference_server, "add", "--profile", "bob", "--name", "B")
        assert added.returncode == 0, added.stdout + added.stderr
    assert "1 id left in 80000-80002, this one included." in added.stderr
    used_up = plantstore(config, bob, reference_server, "add", "--profile", "bob", "--name", "B")
    assert used_up.returncode == 2, used_up.stdout + used_up.stderr
    assert "Nothing was sent: no id is left in 80000-80002" in used_up.stderr
    assert ids_on(reference_server) == [80000, 80001, 80002]


def test_an_id_given_outside_the_range_is_sent_after_a_warning(
    tmp_path: Path, config: Path, reference_server: BackgroundServer
) -> None:
    argv = ("add", "--profile", "ann", "--name", "A", "--id", "5")
    result = plantstore(config, tmp_path / "ann-data", reference_server, *argv)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Warning: 5 is outside this profile's ids (70000-70999)." in result.stderr
    assert ids_on(reference_server) == [5]


def test_without_a_range_add_without_id_stays_a_usage_error(
    tmp_path: Path, config: Path, reference_server: BackgroundServer
) -> None:
    for target in (("--profile", "open"), ("--base-url", reference_server.base_url)):
        argv = ("add", *target, "--name", "X")
        result = plantstore(config, tmp_path / "data", reference_server, *argv)
        assert result.returncode == 2, result.stdout + result.stderr
        assert "Missing option '--id'" in result.stderr
    assert ids_on(reference_server) == []


@pytest.mark.parametrize("given", ["", "   ", "\t"])
@pytest.mark.parametrize("as_json", [False, True])
def test_an_empty_id_is_invalid_input_not_the_next_free_id(
    tmp_path: Path,
    config: Path,
    reference_server: BackgroundServer,
    given: str,
    as_json: bool,
) -> None:
    # A script's `--id "$ID"` with $ID unset: the range would otherwise choose an id for it.
    argv = ("add", "--profile", "ann", "--name", "A", "--id", given, "--yes")
    result = plantstore(
        config, tmp_path / "ann-data", reference_server, *argv, *(["--json"] if as_json else [])
    )
    assert result.returncode == 2, result.stdout + result.stderr
    said = json.loads(result.stdout)["message"] if as_json else result.stderr
    assert "--id is empty" in said
    assert "Next free id" not in result.stdout
    assert ids_on(reference_server) == []
