"""`add --wait`: one plant is one row of the ledger, however many tries it took, with the tries
counted in it (history, history show, --json)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from typing import Any

from click.testing import CliRunner
from ledger_support import all_rows
from misbehaving import MisbehavingServer, ReceivedRequest, Send, json_response

from plantstore_tui.cli import main


def _busy_twice() -> tuple[list[int], Any]:
    received: list[int] = []

    def script(request: ReceivedRequest) -> list[Any]:
        received.append(request.json()["id"])
        if len(received) <= 2:
            headers = [("Retry-After", "1")]
            return [Send(json_response(503, {"error": 503, "message": "later"}, headers=headers))]
        return [Send(json_response(200, {"name": request.json()["name"]}))]

    return received, script


def _add(base_url: str) -> subprocess.CompletedProcess[str]:
    command = ["add", "--name", "Ivy", "--id", "43", "--base-url", base_url, "--wait", "30"]
    return subprocess.run(
        [sys.executable, "-m", "plantstore_tui", *command, "--json"],
        env={**os.environ, "PLANTSTORE_TOKEN": "token-of-a-busy-server"},
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
        stdin=subprocess.DEVNULL,
    )


async def test_add_wait_keeps_one_row_per_plant_with_its_tries() -> None:
    received, script = _busy_twice()
    async with MisbehavingServer(script) as server:
        done = await asyncio.to_thread(_add, server.base_url)
    assert done.returncode == 0, done.stderr
    assert received == [43, 43, 43]
    [row] = all_rows()
    assert (row.plant_id, row.state.value, row.tries) == (43, "created", 3)
    assert json.loads(done.stdout)["entry"] == row.entry
    shown = CliRunner().invoke(main, ["history", "show", str(row.entry), "--json"])
    assert json.loads(shown.stdout)["tries"] == 3
    words = CliRunner().invoke(main, ["history", "show", str(row.entry)])
    assert "3 tries" in words.stdout
