"""`plantstore-tui import` killed with SIGKILL mid-import: at most a row per request in flight and
one group ahead (a row a request) are left of unknown fate, 2 x --concurrency, every request the
server saw is among the rows the ledger knows of (created, or unknown: never sent again), and a
resume sends the rest once each.

The server answers slowly (a byte at a time) until the kill, so the kill lands mid-import; the
test kills when the server has seen N requests. Or it answers at once (so the import goes as fast
as it can, and would mark its largest groups), then holds every answer from some request on."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
from import_support import ledger_rows, plants, write_csv
from misbehaving import Drip, Hang, MisbehavingServer, ReceivedRequest, Send, json_response

CONCURRENCY = 8
ROWS = 400
DEADLINE = 60.0


def _slow_until_told(slow: list[bool]) -> Any:
    def script(request: ReceivedRequest) -> list[Any]:
        answer = json_response(200, {"name": request.json()["name"]})
        return [Drip(answer, 0.002)] if slow[0] else [Send(answer)]

    return script


async def _import(path: Path, url: str, *args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "plantstore_tui",
        "import",
        str(path),
        "--base-url",
        url,
        "--concurrency",
        str(CONCURRENCY),
        *args,
        env={**os.environ, "PLANTSTORE_TOKEN": "token-of-a-slow-server"},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


def _fast_then_silent(answered: int) -> Any:
    seen = [0]

    def script(request: ReceivedRequest) -> list[Any]:
        seen[0] += 1
        if seen[0] > answered:
            return [Hang()]
        return [Send(json_response(200, {"name": request.json()["name"]}))]

    return script


async def test_an_import_killed_after_going_fast_leaves_at_most_two_rows_per_request_unknown(
    tmp_path: Path,
) -> None:
    answered = 300
    path = write_csv(tmp_path / "plants.csv", plants(ROWS))
    async with MisbehavingServer(_fast_then_silent(answered)) as server:
        process = await _import(path, server.base_url)
        try:
            async with asyncio.timeout(DEADLINE):
                # Every request slot waits for an answer that never comes.
                await server.wait_for_requests(answered + CONCURRENCY)
        finally:
            process.send_signal(signal.SIGKILL)
            await process.wait()
    left = [row.state for row in ledger_rows() if row.line is not None]
    assert set(left) <= {"created", "sending"}
    # docs/import.md: at most 2 x --concurrency, however fast the deployment answered before.
    assert CONCURRENCY <= left.count("sending") <= 2 * CONCURRENCY
    assert left.count("created") >= answered - 2 * CONCURRENCY


@pytest.mark.parametrize("seen_before_kill", [9, 60])
async def test_a_killed_import_leaves_at_most_two_rows_per_request_unknown_and_resumes(
    tmp_path: Path, seen_before_kill: int
) -> None:
    rows = plants(ROWS)
    line_of = {plant_id: line for line, (_, plant_id, _) in enumerate(rows, start=2)}
    path = write_csv(tmp_path / "plants.csv", rows)
    slow = [True]
    async with MisbehavingServer(_slow_until_told(slow)) as server:
        process = await _import(path, server.base_url)
        try:
            async with asyncio.timeout(DEADLINE):
                await server.wait_for_requests(seen_before_kill)
        finally:
            process.send_signal(signal.SIGKILL)
            await process.wait()
        assert process.returncode == -signal.SIGKILL
        seen = {line_of[request.json()["id"]] for request in server.requests}
        assert len(seen) == len(server.requests)

        left = {row.line: row.state for row in ledger_rows() if row.line is not None}
        unknown = {line for line, state in left.items() if state == "sending"}
        created = {line for line, state in left.items() if state == "created"}
        assert set(left.values()) <= {"created", "sending"}
        # docs/import.md: at most 2 x --concurrency.
        assert len(unknown) <= 2 * CONCURRENCY
        # Nothing the server saw was unknown to the ledger: a resume sends none of it again.
        assert seen <= created | unknown

        slow[0] = False
        before = len(server.requests)
        report = tmp_path / "resumed.jsonl"
        resumed = await _import(
            path, server.base_url, "--resume", "--json", "--report", str(report)
        )
        async with asyncio.timeout(DEADLINE):
            out, err = await resumed.communicate()
        sent_again = [line_of[request.json()["id"]] for request in server.requests[before:]]
    said = err.decode()
    assert resumed.returncode == (3 if unknown else 0), said
    summary = json.loads(out)
    assert summary["unknown_skipped"] == len(unknown)
    if unknown:
        left_out = (
            "1 row whose fate is unknown is left out"
            if len(unknown) == 1
            else f"{len(unknown)} rows whose fate is unknown are left out"
        )
        assert left_out in said
    # The rest, once each, and nothing the ledger knew of.
    assert sorted(sent_again) == sorted(set(line_of.values()) - created - unknown)
    assert summary["created"] == len(sent_again)
    reported = {json.loads(line)["line"] for line in report.read_text().splitlines()}
    assert reported == set(sent_again)
