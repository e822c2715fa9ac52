"""`import` and `add --wait` while the deployment cannot be reached: they wait, say so on stderr,
and go on when it answers; a plant of unknown fate is never sent again.

The server is started on a port chosen first, once the client's stderr says it is waiting."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from burst_support import stored_plants
from import_support import ledger_rows, plants, wait_for_line, write_csv
from misbehaving import (
    MisbehavingServer,
    ReceivedRequest,
    Reset,
    Send,
    json_response,
    reserved_port,
)
from pydantic import SecretStr

from plantstore_tui.server.runner import BackgroundServer

DEADLINE = 60.0


def _start(command: list[str], token: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PLANTSTORE_TOKEN": token}
    return subprocess.Popen(
        [sys.executable, "-m", "plantstore_tui", *command],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _finish(process: subprocess.Popen[bytes]) -> tuple[str, str]:
    try:
        out, err = process.communicate(timeout=DEADLINE)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return out.decode(), err.decode()


def test_an_import_waits_for_a_deployment_that_is_down_and_sends_every_row_once_in_order(
    tmp_path: Path,
) -> None:
    token = SecretStr(secrets.token_urlsafe(32))
    rows = plants(30)
    path = write_csv(tmp_path / "plants.csv", rows)
    db = tmp_path / "plants.sqlite3"
    with reserved_port() as held:
        port = held.getsockname()[1]
        url = f"http://127.0.0.1:{port}"
        command = ["import", str(path), "--base-url", url, "--concurrency", "1", "--json"]
        process = _start(command, token.get_secret_value())
        try:
            assert process.stderr is not None
            said = wait_for_line(process.stderr, "Waiting: deployment unreachable since")
            assert "next try in" in said[-1]
            held.close()  # the deployment comes back, on its port
            server = BackgroundServer(token=token, db_path=db, port=port)
            server.start()
            try:
                out, err = _finish(process)
            finally:
                server.stop()
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert process.returncode == 0, err
    assert "The deployment answers again: going on." in err
    summary = json.loads(out)
    assert (summary["created"], summary["failed"], summary["unknown"]) == (30, 0, 0)
    # Each plant once, and in the order of the file.
    assert stored_plants(db) == [(plant_id, name, tag or None) for name, plant_id, tag in rows]
    assert {row.state for row in ledger_rows()} == {"created"}


def test_an_import_given_no_wait_stops_at_once(tmp_path: Path, closed_port: int) -> None:
    path = write_csv(tmp_path / "plants.csv", plants(30))
    process = _start(
        [
            "import",
            str(path),
            "--base-url",
            f"http://127.0.0.1:{closed_port}",
            "--concurrency",
            "1",
            "--give-up-after",
            "0",
        ],
        "token-never-used",
    )
    out, err = _finish(process)
    assert process.returncode == 3, err
    assert "Waiting:" not in err
    assert "the deployment stopped taking plants" in out
    # The row that went out never left, and failed; the rest were never sent.
    assert "1 not sent after a failure, 0 unknown, 29 not sent" in out


def _drops_the_first_request() -> tuple[list[int], Any]:
    received: list[int] = []

    def script(request: ReceivedRequest) -> list[Any]:
        received.append(request.json()["id"])
        if len(received) == 1:
            return [Reset()]  # read, then dropped: the plant may have been stored
        return [Send(json_response(200, {"name": request.json()["name"]}))]

    return received, script


async def test_an_import_never_sends_a_row_of_unknown_fate_again(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "plants.csv", plants(5))
    received, script = _drops_the_first_request()
    async with MisbehavingServer(script) as server:
        command = ["import", str(path), "--base-url", server.base_url, "--concurrency", "1"]
        process = _start([*command, "--json"], "token-of-a-dropping-server")
        out, err = await asyncio.to_thread(_finish, process)
    assert process.returncode == 3, err
    assert received == [1, 2, 3, 4, 5]
    summary = json.loads(out)
    assert (summary["created"], summary["unknown"]) == (4, 1)


# --- add --wait ---------------------------------------------------------------------------------


def test_add_waits_for_a_deployment_that_is_down_and_creates_the_plant_once(
    tmp_path: Path,
) -> None:
    token = SecretStr(secrets.token_urlsafe(32))
    db = tmp_path / "plants.sqlite3"
    with reserved_port() as held:
        port = held.getsockname()[1]
        command = ["add", "--name", "Fern", "--id", "41"]
        command += ["--base-url", f"http://127.0.0.1:{port}", "--json", "--wait", "30"]
        process = _start(command, token.get_secret_value())
        try:
            assert process.stderr is not None
            said = wait_for_line(process.stderr, "Waiting: deployment unreachable since")
            assert "next try in" in said[-1]
            held.close()  # the deployment comes back, on its port
            with BackgroundServer(token=token, db_path=db, port=port):
                out, err = _finish(process)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert process.returncode == 0, err
    # stdout holds the one JSON object, nothing else.
    assert json.loads(out)["outcome"] == "created"
    assert stored_plants(db) == [(41, "Fern", None)]


def test_add_without_wait_fails_at_once(closed_port: int) -> None:
    url = f"http://127.0.0.1:{closed_port}"
    process = _start(["add", "--name", "Fern", "--id", "42", "--base-url", url], "token-unused")
    out, err = _finish(process)
    assert process.returncode == 3, err
    assert "Waiting:" not in err
    assert "The plant was not created." in out


def _unavailable_once() -> tuple[list[int], Any]:
    received: list[int] = []

    def script(request: ReceivedRequest) -> list[Any]:
        received.append(request.json()["id"])
        if len(received) == 1:
            headers = [("Retry-After", "1")]
            return [Send(json_response(503, {"error": 503, "message": "later"}, headers=headers))]
        return [Send(json_response(200, {"name": request.json()["name"]}))]

    return received, script


async def test_add_waits_out_a_503_with_retry_after_then_creates() -> None:
    received, script = _unavailable_once()
    async with MisbehavingServer(script) as server:
        command = ["add", "--name", "Ivy", "--id", "43", "--base-url", server.base_url]
        process = _start([*command, "--wait", "30"], "token-of-a-busy-server")
        out, err = await asyncio.to_thread(_finish, process)
    assert process.returncode == 0, err
    assert "Waiting: deployment busy (503) since" in err
    assert received == [43, 43]
    assert "Created plant 43" in out


async def test_add_never_sends_a_plant_of_unknown_fate_again() -> None:
    received, script = _drops_the_first_request()
    async with MisbehavingServer(script) as server:
        command = ["add", "--name", "Moss", "--id", "44", "--base-url", server.base_url]
        process = _start([*command, "--wait", "30"], "token-of-a-dropping-server")
        out, err = await asyncio.to_thread(_finish, process)
    assert process.returncode == 3, err
    assert received == [44]
    assert "Waiting:" not in err
    assert "may or may not have been created" in out


def test_ctrl_c_while_waiting_stops_at_once_and_the_rows_that_never_left_stay_not_sent(
    tmp_path: Path, closed_port: int
) -> None:
    path = write_csv(tmp_path / "plants.csv", plants(30))
    url = f"http://127.0.0.1:{closed_port}"
    process = _start(["import", str(path), "--base-url", url, "--json"], "token-unused")
    try:
        assert process.stderr is not None
        wait_for_line(process.stderr, "Waiting: deployment unreachable since")
        process.send_signal(signal.SIGINT)
    finally:
        out, _ = _finish(process)
    assert process.returncode == 130
    summary = json.loads(out)
    assert (summary["created"], summary["unknown"]) == (0, 0)
    # The rows that went out never left (not sent after a failure), the others never went.
    assert summary["failed"] + summary["not_sent"] == 30
    assert {row.state for row in ledger_rows()} == {"failed"}
