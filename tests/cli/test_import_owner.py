"""One import of a batch at a time: two `plantstore-tui import` processes on one data directory
against the real reference server (slowed, so the first is still sending when the second
starts). The second, `--resume` or `--restart` refuses naming the live one and sends nothing; once
the first is killed, `--resume` takes its batch over and sends each remaining row once.

What arrived is read from the server's own database, and each import's summary counts what it
sent: a row sent twice would be refused there as a duplicate id.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from burst_support import stored_plants
from import_support import ledger_rows, plants, write_csv
from pty_support import wait_until

from plantstore_tui.server.runner import BackgroundServer

DEADLINE = 90.0
ROWS = 2000


def _command(path: Path, server: BackgroundServer, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "plantstore_tui",
        "import",
        str(path),
        "--base-url",
        server.base_url,
        *args,
    ]


def _env(server: BackgroundServer) -> dict[str, str]:
    return {**os.environ, "PLANTSTORE_TOKEN": server.token.get_secret_value()}


def _start(
    path: Path, server: BackgroundServer, *args: str, output: int = subprocess.PIPE
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        _command(path, server, *args),
        env=_env(server),
        stdout=output,
        stderr=output,
        cwd=path.parent,
    )


def _run(path: Path, server: BackgroundServer, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        _command(path, server, *args),
        env=_env(server),
        capture_output=True,
        text=True,
        cwd=path.parent,
        timeout=DEADLINE,
        check=False,
    )


def _stored_ids(server: BackgroundServer) -> list[int]:
    return [plant_id for plant_id, _, _ in stored_plants(server.db_path)]


def test_two_imports_of_one_file_at_once_send_each_row_once(
    start_slow_server: Callable[[float], BackgroundServer], tmp_path: Path
) -> None:
    server = start_slow_server(0.02)
    path = write_csv(tmp_path / "plants.csv", plants(ROWS))
    processes = [_start(path, server, "--json") for _ in range(2)]
    ended = []
    try:
        for process in processes:
            out, err = process.communicate(timeout=DEADLINE)
            ended.append((process.returncode, process.pid, out.decode(), err.decode()))
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    ended.sort()
    (won, winner, summary, _), (lost, _, refusal, said) = ended
    assert (won, lost) == (0, 4), ended
    assert json.loads(summary)["created"] == ROWS
    # The refusal names the import that runs, and nothing of its rows is called unknown.
    words = json.loads(refusal)["message"]
    assert "is being imported" in words
    assert f"pid {winner}" in words
    assert "unknown" not in words
    assert "Nothing was sent" in words, said
    ids = _stored_ids(server)
    assert sorted(ids) == list(range(1, ROWS + 1))


def test_resume_refuses_while_the_import_lives_and_takes_over_once_it_is_killed(
    start_slow_server: Callable[[float], BackgroundServer], tmp_path: Path
) -> None:
    server = start_slow_server(0.02)
    rows = plants(ROWS)
    line_of = {plant_id: line for line, (_, plant_id, _) in enumerate(rows, start=2)}
    path = write_csv(tmp_path / "plants.csv", rows)
    # At 100 rows a second: 20 s, still sending while the others are refused.
    first = _start(path, server, "--rate", "100", output=subprocess.DEVNULL)
    try:
        # Demonstrably mid-way: plants stored, and rows of its batch in the ledger.
        wait_until(lambda: len(_stored_ids(server)) >= 100, DEADLINE, what="100 plants stored")
        for flags in (["--resume"], ["--restart"], []):
            refused = _run(path, server, *flags)
            assert refused.returncode == 4, (flags, refused.stderr)
            words = refused.stderr
            assert "is being imported" in words, (flags, words)
            assert f"pid {first.pid}" in words
            assert "rows settled" in words
            assert "unknown" not in words
            assert "Nothing was sent" in words
        assert first.poll() is None, "the first import ended before it could be refused"
        first.send_signal(signal.SIGKILL)
        first.wait(DEADLINE)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    left = {row.line: row.state for row in ledger_rows() if row.line is not None}
    created = {line for line, state in left.items() if state == "created"}
    unknown = {line for line, state in left.items() if state == "sending"}
    assert created | unknown == set(left)

    report = tmp_path / "resumed.jsonl"
    resumed = _run(path, server, "--resume", "--json", "--report", str(report))
    assert resumed.returncode == (3 if unknown else 0), resumed.stderr
    summary = json.loads(resumed.stdout)
    assert (summary["rejected"], summary["failed"], summary["unknown"]) == (0, 0, 0)
    assert summary["unknown_skipped"] == len(unknown)
    sent = {json.loads(line)["line"] for line in report.read_text().splitlines()}
    assert sent == set(line_of.values()) - created - unknown
    # Each row once in the store: those created before, and those the resume sent.
    ids = _stored_ids(server)
    assert len(ids) == len(set(ids))
    assert {line_of[plant_id] for plant_id in ids} - unknown == created | sent
