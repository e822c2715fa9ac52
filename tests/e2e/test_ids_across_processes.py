"""Ids handed out once across processes (issue 42): operators who share one data directory and
one block of ids (`ids = "70000-70999"`) never get the same id, whether they run `add` without
`--id` side by side or keep two TUIs open on the profile."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from pty_support import PtyProcess, isolated_env

from plantstore_tui.server.runner import BackgroundServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")

STARTUP_SECONDS = 20.0
ANSWER_SECONDS = 15.0
CTRL_Q = b"\x11"
ROUNDS, AT_ONCE = 3, 6


def environment(tmp_path: Path, server: BackgroundServer) -> dict[str, str]:
    """One operator's config with the shared block, and the shared data directory."""
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "profiles.toml").write_text(
        f'[profiles.shop]\nbase_url = "{server.base_url}"\ntoken_env = "PLANTS_TOKEN"\n'
        'ids = "70000-70999"\n'
    )
    return isolated_env(
        tmp_path,
        PLANTSTORE_CONFIG_DIR=str(config),
        PLANTS_TOKEN=server.token.get_secret_value(),
    )


def stored_ids(server: BackgroundServer) -> list[int]:
    with sqlite3.connect(server.db_path) as db:
        return [row[0] for row in db.execute("SELECT id FROM plants ORDER BY id")]


def test_six_adds_without_an_id_at_once_never_take_the_same_id(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    env = {**os.environ, **environment(tmp_path, reference_server)}
    command = [sys.executable, "-m", "plantstore_tui", "add", "--profile", "shop", "--json"]
    taken: list[int] = []
    for round_ in range(ROUNDS):
        started = [
            subprocess.Popen(
                [*command, "--name", f"Fern {round_}.{n}"],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for n in range(AT_ONCE)
        ]
        for process in started:
            out, err = process.communicate(timeout=120)
            assert process.returncode == 0, out + err
            answer = json.loads(out)
            assert answer["outcome"] == "created", answer
            taken.append(answer["sent"]["id"])
    assert sorted(taken) == list(range(70000, 70000 + ROUNDS * AT_ONCE))
    assert stored_ids(reference_server) == sorted(taken)


NEXT = re.compile(r"next (7\d{4})")


def offered_id(terminal: PtyProcess) -> str:
    """The id the form offers, as the line under ID names it."""
    text = terminal.wait_for(lambda text: NEXT.search(text) is not None, STARTUP_SECONDS)
    return NEXT.findall(text)[-1]


def test_two_tuis_on_one_block_offer_different_ids_and_both_are_created(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    env = environment(tmp_path, reference_server)
    command = [sys.executable, "-m", "plantstore_tui", "--profile", "shop"]
    with PtyProcess(command, env=env, cwd=tmp_path, columns=80, rows=24) as first:
        first.wait_for("ready", STARTUP_SECONDS)
        first_offer = offered_id(first)
        with PtyProcess(command, env=env, cwd=tmp_path, columns=80, rows=24) as second:
            second.wait_for("ready", STARTUP_SECONDS)
            second_offer = offered_id(second)
            assert {first_offer, second_offer} == {"70000", "70001"}
            for terminal, name, offer in (
                (first, "Alder", first_offer),
                (second, "Birch", second_offer),
            ):
                mark = terminal.mark()
                terminal.write(f"{name}\t\t\r".encode())  # the offer left as it is
                terminal.wait_for(f"Created plant {offer}", ANSWER_SECONDS, since=mark)
            second.write(CTRL_Q)
            assert second.wait_exit() == 0
        first.write(CTRL_Q)
        assert first.wait_exit() == 0
    assert stored_ids(reference_server) == [70000, 70001]


def test_an_id_on_screen_taken_by_another_command_moves_the_form_on_and_says_so(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    env = environment(tmp_path, reference_server)
    command = [sys.executable, "-m", "plantstore_tui", "--profile", "shop"]
    with PtyProcess(command, env=env, cwd=tmp_path, columns=80, rows=24) as terminal:
        terminal.wait_for("ready", STARTUP_SECONDS)
        assert offered_id(terminal) == "70000"
        mark = terminal.mark()
        added = subprocess.run(
            [*command, "add", "--name", "Taken", "--id", "70000"],
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert added.returncode == 0, added.stdout + added.stderr
        terminal.wait_for("next 70001", STARTUP_SECONDS, since=mark)
        terminal.wait_for("taken elsewhere", STARTUP_SECONDS, since=mark)
        mark = terminal.mark()
        terminal.write(b"Rose\t\t\r")
        terminal.wait_for("Created plant 70001", ANSWER_SECONDS, since=mark)
        terminal.write(CTRL_Q)
        assert terminal.wait_exit() == 0
    assert stored_ids(reference_server) == [70000, 70001]
