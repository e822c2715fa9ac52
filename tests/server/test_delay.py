"""The reference server's --delay: every POST /plants answered late, requests waiting side by side.

Times here are measured, and the bounds are wide: a delayed answer is never early, and several
requests at once take about one delay, far from one delay each.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from pydantic import SecretStr

from plantstore_tui.cli import main
from plantstore_tui.server.app import create_app
from plantstore_tui.server.runner import BackgroundServer

DELAY = 0.4


@pytest.fixture
def slow_server(start_slow_server: Callable[[float], BackgroundServer]) -> BackgroundServer:
    """A reference server that answers every POST /plants after DELAY seconds."""
    return start_slow_server(DELAY)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def stored_ids(db_path: Path) -> list[int]:
    with closing(sqlite3.connect(db_path)) as connection:
        return [row[0] for row in connection.execute("SELECT id FROM plants ORDER BY id")]


def test_a_plant_is_answered_no_sooner_than_the_delay(slow_server: BackgroundServer) -> None:
    token = slow_server.token.get_secret_value()
    with httpx.Client(base_url=slow_server.base_url, headers=bearer(token)) as client:
        started = time.perf_counter()
        response = client.post("/plants", json={"id": 1, "name": "Fern"})
        elapsed = time.perf_counter() - started
    assert response.status_code == 200
    assert response.json() == {"name": "Fern"}
    assert elapsed >= DELAY
    assert stored_ids(slow_server.db_path) == [1]


def test_a_refusal_is_delayed_too(slow_server: BackgroundServer) -> None:
    with httpx.Client(base_url=slow_server.base_url, headers=bearer("wrong")) as client:
        started = time.perf_counter()
        response = client.post("/plants", json={"id": 1, "name": "Fern"})
        elapsed = time.perf_counter() - started
    assert response.status_code == 401
    assert elapsed >= DELAY
    assert stored_ids(slow_server.db_path) == []


async def test_concurrent_plants_wait_side_by_side(slow_server: BackgroundServer) -> None:
    count = 4
    token = slow_server.token.get_secret_value()
    async with httpx.AsyncClient(base_url=slow_server.base_url, headers=bearer(token)) as client:
        started = time.perf_counter()
        responses = await asyncio.gather(
            *(client.post("/plants", json={"id": i, "name": f"Fern {i}"}) for i in range(count))
        )
        elapsed = time.perf_counter() - started
    assert [response.status_code for response in responses] == [200] * count
    assert elapsed >= DELAY
    # One after another would take count * DELAY (1.6 s); side by side, about one DELAY.
    assert elapsed < 3 * DELAY
    assert stored_ids(slow_server.db_path) == list(range(count))


@pytest.mark.parametrize("delay", [-0.1, float("nan")])
def test_a_delay_below_zero_is_refused(tmp_path: Path, delay: float) -> None:
    with pytest.raises(ValueError, match="delay"):
        create_app(db_path=tmp_path / "plants.sqlite3", token=SecretStr("t"), delay=delay)


@pytest.mark.parametrize("delay", ["-1", "60.5", "soon"])
def test_serve_refuses_a_delay_outside_0_to_60(tmp_path: Path, delay: str) -> None:
    result = CliRunner().invoke(
        main, ["serve", "--port", "0", "--db", str(tmp_path / "p.sqlite3"), "--delay", delay]
    )
    assert result.exit_code == 2
    assert "--delay" in result.output
    assert not (tmp_path / "p.sqlite3").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="sends SIGINT")
def test_serve_delay_answers_late(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "plantstore_tui", "serve", "--port", "0", "--delay", "0.4"]
    command += ["--db", str(tmp_path / "plants.sqlite3"), "--token-env", "DELAY_TEST_TOKEN"]
    env = {**os.environ, "DELAY_TEST_TOKEN": "delay-test-token"}
    with subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        assert process.stdout is not None
        announced = []
        for line in process.stdout:
            announced.append(line)
            if "listening on " in line:
                break
        else:
            pytest.fail(f"serve did not start: {process.communicate(timeout=10)[1]}")
        base_url = announced[-1].split("listening on ", 1)[1].strip()
        started = time.perf_counter()
        response = httpx.post(
            f"{base_url}/plants",
            json={"id": 1, "name": "Fern"},
            headers=bearer("delay-test-token"),
        )
        elapsed = time.perf_counter() - started
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=10)
    assert response.status_code == 200
    assert elapsed >= 0.4
    assert "Every POST /plants is answered after 0.4 s." in "".join(announced)
    assert process.returncode == 0, stderr
