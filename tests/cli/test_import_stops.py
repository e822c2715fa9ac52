"""`plantstore-tui import` stops like the TUI's queue: a refused token (401, 403) stops it at once
and leaves every row it did not get through unsent (a `--resume` with a good token sends each
once), server errors in a row stop it as transport failures do, and rows whose ids the ledger
knows as created on the target are left out (listed, counted by `--dry-run`) unless
`--resend-created`.

Each run is a real `python -m plantstore_tui import` process; what arrived is counted on the
server: the reference server's database, or the requests a scripted one received.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from burst_support import stored_plants
from import_support import expected, ledger_rows, plants, write_csv
from misbehaving import ReceivedRequest, Send, ServerThread, json_response, status_500

from plantstore_tui.server.runner import BackgroundServer

DEADLINE = 60.0
GOOD = "token-the-deployment-takes-now"
OLD = "token-that-expires-mid-file"


def run_import(path: Path, url: str, *args: str, token: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PLANTSTORE_TOKEN": token}
    for name in ("PLANTSTORE_PROFILE", "PLANTSTORE_BASE_URL"):
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "plantstore_tui", "import", str(path), "--base-url", url, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        check=False,
    )


def stored(server: BackgroundServer) -> list[tuple[int, str, str | None]]:
    return sorted(stored_plants(server.db_path))


# --- a refused token ----------------------------------------------------------------------------


def test_a_token_refused_from_the_first_row_sends_nothing_more_and_a_resume_sends_every_row_once(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    rows = plants(100)
    path = write_csv(tmp_path / "plants.csv", rows)
    url = reference_server.base_url

    refused = run_import(path, url, token="an-expired-token-0000")

    assert refused.returncode == 3, refused.stdout + refused.stderr
    assert f"The token was refused (401) at {path}:2 (id 1): 100 rows not sent" in refused.stdout
    assert "fix the token" in refused.stdout
    assert "--resume" in refused.stdout
    assert "0 rejected" in refused.stdout
    assert "100 not sent: the token was refused" in refused.stdout
    assert f"  {path}:2: id 1: not sent: the token was refused (401)" in refused.stdout
    # Nothing is done in the ledger: no row is rejected, none created.
    assert {row.state for row in ledger_rows()} <= {"failed"}
    assert len(ledger_rows()) <= 8  # the requests in flight at the first 401, at most

    resumed = run_import(path, url, "--resume", token=reference_server.token.get_secret_value())

    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "100 created, 0 rejected" in resumed.stdout
    assert stored(reference_server) == expected(rows)


def _rotates_after(accepted: int) -> tuple[Any, Counter[int], list[str]]:
    """A deployment whose token is replaced after `accepted` requests: the old one is refused
    from then on. Each id it created is counted, each token it saw listed."""
    created: Counter[int] = Counter()
    tokens: list[str] = []
    lock = threading.Lock()

    def script(request: ReceivedRequest) -> list[Any]:
        given = request.headers.get("authorization", "").removeprefix("Bearer ")
        with lock:
            tokens.append("old" if given == OLD else "good" if given == GOOD else "other")
            valid = {OLD, GOOD} if len(tokens) <= accepted else {GOOD}
            if given not in valid:
                error = {"error": 1401, "message": "Missing or invalid token"}
                return [Send(json_response(401, error))]
            plant = request.json()
            if created[plant["id"]]:
                return [Send(json_response(400, {"error": 1003, "message": "already exists"}))]
            created[plant["id"]] += 1
        stored = {key: plant[key] for key in ("name", "tag") if key in plant}
        return [Send(json_response(200, stored))]

    return script, created, tokens


def test_a_token_refused_mid_file_stops_at_once_and_a_resume_sends_the_rest_once(
    tmp_path: Path,
) -> None:
    rows = plants(300)
    path = write_csv(tmp_path / "plants.csv", rows)
    script, created, tokens = _rotates_after(40)
    with ServerThread(script) as server:
        refused = run_import(path, server.base_url, "--concurrency", "4", "--json", token=OLD)
        first_run = Counter(tokens)
        resumed = run_import(path, server.base_url, "--resume", token=GOOD)

    assert refused.returncode == 3, refused.stdout + refused.stderr
    summary = json.loads(refused.stdout)
    assert summary["stopped"] == "token refused"
    assert summary["created"] == 40
    assert summary["rejected"] == 0
    # Only the requests in flight when the first 401 came back went out with the refused token.
    assert 1 <= summary["refused"] == first_run["old"] - 40 <= 4
    assert summary["refused"] + summary["not_sent"] == 260
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "260 created, 0 rejected" in resumed.stdout
    assert "40 done before, skipped" in resumed.stdout
    # Every row of the file created once, none sent twice.
    assert created == Counter({plant_id: 1 for _, plant_id, _ in rows})


def test_a_forbidden_token_stops_the_import_the_same_way(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "plants.csv", plants(50))
    error = {"error": 1403, "message": "not allowed to add plants"}
    with ServerThread(lambda _: [Send(json_response(403, error))]) as server:
        result = run_import(path, server.base_url, "--concurrency", "1", token=OLD)
        sent = len(server.requests)

    assert result.returncode == 3, result.stdout + result.stderr
    assert sent == 1
    assert f"The token was refused (403) at {path}:2 (id 1): 50 rows not sent" in result.stdout


# --- server errors ------------------------------------------------------------------------------


def test_a_deployment_answering_500_stops_after_five_in_a_row(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "plants.csv", plants(50))
    with ServerThread(lambda _: status_500()) as server:
        one = run_import(path, server.base_url, "--concurrency", "1", token=OLD)
        sent_one_at_a_time = len(server.requests)

    assert one.returncode == 3, one.stdout + one.stderr
    assert sent_one_at_a_time == 5
    assert "5 unknown, 45 not sent" in one.stdout
    assert "server errors (5xx) in a row" in one.stdout
    assert "45 rows after them not sent" in one.stdout


def test_server_errors_stop_an_import_with_requests_in_flight_too(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "plants.csv", plants(200))
    with ServerThread(lambda _: status_500()) as server:
        result = run_import(path, server.base_url, "--json", token=OLD)
        sent = len(server.requests)

    assert result.returncode == 3, result.stdout + result.stderr
    summary = json.loads(result.stdout)
    assert summary["stopped"] == "server errors"
    # Five beyond one per request in flight, and those in flight then (8 at the default).
    assert sent <= 5 + 7 + 7
    assert summary["unknown"] == sent
    assert summary["not_sent"] == 200 - sent


# --- rows created before ------------------------------------------------------------------------


def test_an_edited_file_sends_only_the_rows_whose_ids_are_not_known_as_created(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    token, url = reference_server.token.get_secret_value(), reference_server.base_url
    rows = plants(30)
    first = run_import(write_csv(tmp_path / "plants.csv", rows), url, token=token)
    assert first.returncode == 0, first.stdout + first.stderr
    # Edited: one name changed, the last id replaced by a new one.
    edited = [*rows[:29], ("Plant 31", 31, "")]
    edited[4] = ("Plant five, renamed", 5, "bulk")
    path = write_csv(tmp_path / "plants.csv", edited)

    dry = run_import(path, url, "--dry-run", token=token)
    dry_json = run_import(path, url, "--dry-run", "--json", token=token)
    result = run_import(path, url, token=token)

    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert f"29 rows have an id this ledger knows as created on {url}" in dry.stdout
    assert "1 row would be sent" in dry.stdout
    # The rows shown as they would be sent are the ones that would go.
    assert "line 31: id 31, name 'Plant 31'" in dry.stdout
    assert "line 2: id 1," not in dry.stdout
    assert json.loads(dry_json.stdout)["created_before"] == 29
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 created, 0 rejected" in result.stdout
    assert "29 created before, skipped" in result.stdout
    assert f"29 rows of {path} have an id this ledger knows as created on {url}" in result.stderr
    assert f"{path}:2: id 1 ('Plant 1')" in result.stderr
    assert "... and 24 more" in result.stderr
    assert stored(reference_server) == expected([*rows, ("Plant 31", 31, "")])


def test_resend_created_sends_the_rows_created_before_anyway(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    token, url = reference_server.token.get_secret_value(), reference_server.base_url
    rows = plants(10)
    run_import(write_csv(tmp_path / "first.csv", rows[:5]), url, token=token)
    path = write_csv(tmp_path / "plants.csv", rows)

    result = run_import(path, url, "--resend-created", "--json", token=token)

    assert result.returncode == 1, result.stdout + result.stderr
    summary = json.loads(result.stdout)
    assert (summary["created"], summary["rejected"], summary["created_before"]) == (5, 5, 0)
    assert stored(reference_server) == expected(rows)
