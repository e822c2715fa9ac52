"""The installed command, as an operator runs it: `serve` in one process, `add` in another."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

CANARY = "CANARY-e2e-0b7d5a31c9e84f26"


def plantstore(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plantstore_tui", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def start_serve(db: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    """`serve` on a free loopback port; returns once it says where it listens."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "plantstore_tui",
            "serve",
            "--port",
            "0",
            "--db",
            str(db),
            "--token-env",
            "E2E_SERVER_TOKEN",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    for line in process.stdout:
        if "listening on http://" in line:
            return process, line.split("listening on ", 1)[1].split()[0].rstrip("/")
    process.kill()
    pytest.fail("serve exited before it listened")


def stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=30)
    return output


@pytest.fixture
def env() -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PLANTSTORE_")}
    clean["E2E_SERVER_TOKEN"] = CANARY
    clean["PLANTSTORE_TOKEN"] = CANARY
    return clean


def test_serve_and_add_round_trip_and_survive_a_restart(
    tmp_path: Path, env: dict[str, str]
) -> None:
    db = tmp_path / "plants.sqlite3"
    server, base_url = start_serve(db, env)
    try:
        created = plantstore(
            "add",
            "--name",
            "Aloe",
            "--id",
            "101",
            "--tag",
            "succulent",
            "--base-url",
            base_url,
            env=env,
        )
        assert created.returncode == 0, created.stderr
        assert "Created plant 101 (Aloe)" in created.stdout
    finally:
        first_log = stop(server)

    server, base_url = start_serve(db, env)
    try:
        duplicate = plantstore(
            "add", "--name", "Aloe", "--id", "101", "--json", "--base-url", base_url, env=env
        )
        assert duplicate.returncode == 1
        answer = json.loads(duplicate.stdout)
        assert answer["outcome"] == "rejected"
        assert answer["status"] == 400
        assert "101" in answer["error"]["message"]
    finally:
        second_log = stop(server)

    for text in (
        created.stdout,
        created.stderr,
        duplicate.stdout,
        duplicate.stderr,
        first_log,
        second_log,
    ):
        assert CANARY not in text
