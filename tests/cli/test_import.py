"""`plantstore-tui import` against the real reference server (and a misbehaving one).

Files are written by the tests; what arrived is read from the server's own database, so "never
twice" is checked where it matters: a row sent twice would be refused as a duplicate id there.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from burst_support import stored_plants
from click.testing import CliRunner, Result
from import_support import expected, ledger_rows, plants, wait_for_line, write_csv
from misbehaving import MisbehavingServer, ReceivedRequest, Send, json_response, response
from pty_support import wait_until
from pydantic import SecretStr

from plantstore_tui.cli import main
from plantstore_tui.server.runner import BackgroundServer

DEADLINE = 60.0


def run_import(*args: str, token: str, base_url: str | None = None) -> Result:
    env = {"PLANTSTORE_TOKEN": token, "PLANTSTORE_PROFILE": None, "PLANTSTORE_BASE_URL": None}
    argv = ["import", *args]
    if base_url is not None:
        argv += ["--base-url", base_url]
    return CliRunner().invoke(main, argv, env=env)


def token_of(server: BackgroundServer) -> str:
    return server.token.get_secret_value()


def stored(server: BackgroundServer) -> list[tuple[int, str, str | None]]:
    return sorted(stored_plants(server.db_path))


# --- formats ------------------------------------------------------------------------------------


def test_a_csv_file_is_imported_whole(reference_server: BackgroundServer, tmp_path: Path) -> None:
    rows = plants(50)
    path = write_csv(tmp_path / "plants.csv", rows)
    result = run_import(
        str(path), token=token_of(reference_server), base_url=reference_server.base_url
    )
    assert result.exit_code == 0, result.output
    assert "50 created, 0 rejected" in result.stdout
    assert "\x1b" not in result.output  # no terminal: no progress bar, no escape codes
    assert stored(reference_server) == expected(rows)


def test_tsv_with_a_bom_odd_quoting_and_mapped_columns(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    path = tmp_path / "export.tsv"
    path.write_bytes(
        "\ufeffPlant name\tPlant no\tLabel\tNotes\n"
        'Monstera "Thai Constellation"\t1\tindoor\tx\n'
        '"Ivy, the climber"\t2\t\ty\n'
        '"Quoted ""twice"""\t3\tshade\tz\n'.encode()
    )
    result = run_import(
        str(path),
        "--column",
        "name=Plant name",
        "--column",
        "id=Plant no",
        "--column",
        "tag=Label",
        token=token_of(reference_server),
        base_url=reference_server.base_url,
    )
    assert result.exit_code == 0, result.output
    assert stored(reference_server) == [
        (1, 'Monstera "Thai Constellation"', "indoor"),
        (2, "Ivy, the climber", None),
        (3, 'Quoted "twice"', "shade"),
    ]


def test_json_lines_with_numbers_or_strings_for_ids(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    path = tmp_path / "plants.jsonl"
    path.write_text(
        '{"name": "Aloë", "id": 7, "tag": "succulent"}\n\n{"name": "Fern", "id": "8"}\n'
        '{"name": "Pilea", "id": 9, "tag": null}\n',
        encoding="utf-8",
    )
    result = run_import(
        str(path), token=token_of(reference_server), base_url=reference_server.base_url
    )
    assert result.exit_code == 0, result.output
    assert stored(reference_server) == [
        (7, "Aloë", "succulent"),
        (8, "Fern", None),
        (9, "Pilea", None),
    ]


def test_standard_input_needs_a_format_and_is_imported(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    text = "name,id\nFern,11\nIvy,12\n"
    env = {"PLANTSTORE_TOKEN": token_of(reference_server)}
    base = ["import", "-", "--base-url", reference_server.base_url]
    refused = CliRunner().invoke(main, base, input=text, env=env)
    assert refused.exit_code == 2
    assert "use --format csv, tsv or jsonl" in refused.output
    result = CliRunner().invoke(main, [*base, "--format", "csv"], input=text, env=env)
    assert result.exit_code == 0, result.output
    assert stored(reference_server) == [(11, "Fern", None), (12, "Ivy", None)]


# --- validated first ------------------------------------------------------------------------------


def test_ten_thousand_rows_with_bad_rows_at_known_lines_send_nothing(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    rows: list[tuple[object, object, object]] = list(plants(10_000))
    # Line numbers: the header is line 1, so row k is on line k + 2.
    bad = {
        102: ("Bad id", "12x", ""),
        2_502: ("", 2_501, ""),
        5_002: ("Tab\there", 5_001, ""),
        7_502: ("Too big", "9223372036854775808", ""),
        9_999: ("Repeated", 17, ""),
    }
    for line, row in bad.items():
        rows[line - 2] = row
    path = write_csv(tmp_path / "big.csv", rows)
    result = run_import(
        str(path), token=token_of(reference_server), base_url=reference_server.base_url
    )
    assert result.exit_code == 2
    lines = [line for line in result.stderr.splitlines() if line.startswith(f"{path}:")][:-1]
    assert [int(line.split(":")[1]) for line in lines] == sorted(bad)
    assert f"{path}:102: id: ID must be a whole number" in result.stderr
    assert f"{path}:2502: name: Name is required" in result.stderr
    assert (
        f"{path}:5002: name: Name has a control character (U+0009) at position 4" in result.stderr
    )
    assert f"{path}:7502: id: ID must be between" in result.stderr
    assert f"{path}:9999: id: id 17 is given twice in the file (first on line 18)" in result.stderr
    assert "5 bad rows of 10,000; nothing was sent" in result.stderr
    assert stored(reference_server) == []


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b'name,id\nFern,1\n"Ivy,2\n', "bad.csv:3: malformed: unexpected end of data"),
        (b"name,id\nFern,1\nIv\xffy,2\n", "bad.csv:3: not UTF-8 text"),
        (b"label,id\nFern,1\n", "bad.csv:1: no 'name' column (or map one: --column name=COLUMN)"),
        (b"", "bad.csv: the file is empty"),
    ],
    ids=["quoting", "utf-8", "missing-column", "empty"],
)
def test_a_malformed_file_is_named_with_its_line_and_nothing_is_sent(
    reference_server: BackgroundServer, tmp_path: Path, content: bytes, words: str
) -> None:
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    result = run_import(
        str(path), token=token_of(reference_server), base_url=reference_server.base_url
    )
    assert result.exit_code == 2, result.output
    assert words in result.output
    assert "Traceback" not in result.output
    assert stored(reference_server) == []


def test_a_bad_json_line_is_listed_with_the_others(tmp_path: Path) -> None:
    path = tmp_path / "plants.jsonl"
    path.write_text('{"name": "A", "id": 1}\nnot json\n{"name": "B", "id": true}\n[1]\n')
    result = run_import(str(path), "--dry-run", token="unused")
    assert result.exit_code == 2
    assert f"{path}:2: json: not JSON" in result.stderr
    assert f"{path}:3: id: must be a whole number or a string, not true" in result.stderr
    assert f"{path}:4: json: not an object but list" in result.stderr


def test_a_dry_run_validates_and_sends_nothing(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    path = write_csv(
        tmp_path / "plants.csv", [("Fern", 1, "a", "x")], header=("name", "id", "tag", "notes")
    )
    result = run_import(
        str(path), "--dry-run", token=token_of(reference_server), base_url=reference_server.base_url
    )
    assert result.exit_code == 0, result.output
    assert "1 plant, every row valid" in result.stdout
    assert "Nothing was sent (dry run)" in result.stdout
    assert "Columns not read: notes" in result.stdout
    assert "line 2: id 1, name 'Fern', tag 'a'" in result.stdout
    assert stored(reference_server) == []


# --- never twice --------------------------------------------------------------------------------


def test_a_second_run_of_the_same_file_asks_for_resume_or_restart(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    rows = plants(20)
    path = write_csv(tmp_path / "plants.csv", rows)
    token, url = token_of(reference_server), reference_server.base_url
    assert run_import(str(path), token=token, base_url=url).exit_code == 0
    again = run_import(str(path), token=token, base_url=url)
    assert again.exit_code == 2
    assert "was imported to" in again.output
    assert "20 created" in again.output
    resumed = run_import(str(path), "--resume", "--json", token=token, base_url=url)
    assert resumed.exit_code == 0, resumed.output
    summary = json.loads(resumed.stdout)
    assert (summary["skipped"], summary["to_send"], summary["created"]) == (20, 0, 0)
    restarted = run_import(str(path), "--restart", token=token, base_url=url)
    assert restarted.exit_code == 0, restarted.output  # every id is known as created: none sent
    assert "0 created, 0 rejected" in restarted.stdout
    assert "20 created before, skipped" in restarted.stdout
    again = run_import(str(path), "--restart", "--resend-created", token=token, base_url=url)
    assert again.exit_code == 1  # sent on purpose: every row is now a duplicate id
    assert "0 created, 20 rejected" in again.stdout
    assert stored(reference_server) == expected(rows)


def test_a_report_has_one_line_per_row(reference_server: BackgroundServer, tmp_path: Path) -> None:
    rows = plants(3)
    reference_path = write_csv(tmp_path / "first.csv", rows[:1])
    run_import(
        str(reference_path), token=token_of(reference_server), base_url=reference_server.base_url
    )
    path = write_csv(tmp_path / "plants.csv", rows)
    report = tmp_path / "report.jsonl"
    result = run_import(
        str(path),
        "--report",
        str(report),
        "--resend-created",
        token=token_of(reference_server),
        base_url=reference_server.base_url,
    )
    assert result.exit_code == 1
    lines = sorted(
        (json.loads(line) for line in report.read_text().splitlines()), key=lambda r: r["line"]
    )
    assert [(r["line"], r["id"], r["outcome"], r["status"], r["error"]) for r in lines] == [
        (2, 1, "rejected", 400, 1003),
        (3, 2, "created", 200, None),
        (4, 3, "created", 200, None),
    ]


def _import_process(
    path: Path, server: BackgroundServer, tmp_path: Path, *args: str
) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PLANTSTORE_TOKEN": token_of(server),
        "PLANTSTORE_DATA_DIR": os.environ["PLANTSTORE_DATA_DIR"],
    }
    command = [
        sys.executable,
        "-m",
        "plantstore_tui",
        "import",
        str(path),
        "--base-url",
        server.base_url,
        *args,
    ]
    return subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path
    )


@pytest.fixture
def slow_server(start_slow_server: Callable[[float], BackgroundServer]) -> BackgroundServer:
    return start_slow_server(0.02)


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGINT], ids=["kill-9", "ctrl-c"])
def test_a_batch_stopped_halfway_resumes_without_sending_any_row_twice(
    slow_server: BackgroundServer, tmp_path: Path, signum: signal.Signals
) -> None:
    rows = plants(400)
    ids_by_line = {line: plant_id for line, (_, plant_id, _) in enumerate(rows, start=2)}
    path = write_csv(tmp_path / "plants.csv", rows)
    process = _import_process(path, slow_server, tmp_path, "--concurrency", "4")
    try:
        wait_until(
            lambda: len(stored_plants(slow_server.db_path)) >= 60, DEADLINE, what="60 plants stored"
        )
        process.send_signal(signum)
        out, err = process.communicate(timeout=DEADLINE)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    if signum == signal.SIGINT:
        assert process.returncode == 130, err
        assert b"Stopping: no more rows are sent" in err
        assert b"To send the rows not yet sent: plantstore-tui import" in out
    else:
        assert process.returncode == -signal.SIGKILL
    # Where each line stands in the ledger as the process left it.
    left = {row.line: row.state for row in ledger_rows() if row.line is not None}
    if signum == signal.SIGINT:
        # Stopped: what went out settled, what was marked sending but never went out was taken
        # back.
        assert set(left.values()) == {"created"}
    else:
        # Killed: the rows in flight, and those marked for the next request slots, are still
        # marked sending: their fate is unknown, so a resume leaves them out.
        assert set(left.values()) <= {"created", "sending"}
        assert 0 < len(left) < len(rows)

    report = tmp_path / "resumed.jsonl"
    resumed = run_import(
        str(path),
        "--resume",
        "--json",
        "--report",
        str(report),
        token=token_of(slow_server),
        base_url=slow_server.base_url,
    )
    summary = json.loads(resumed.stdout)
    # Rows of unknown fate are left out, counted, and keep the exit from saying "all created".
    left_unknown = sum(1 for state in left.values() if state == "sending")
    assert resumed.exit_code == (3 if left_unknown else 0), resumed.output
    assert summary["unknown_skipped"] == left_unknown
    parts = ("created", "rejected", "failed", "unknown", "not_sent", "done_before")
    assert sum(summary[part] for part in parts) + left_unknown == summary["rows"] == len(rows)
    # A row sent twice would be refused as a duplicate id: none is.
    assert (summary["rejected"], summary["failed"], summary["unknown"]) == (0, 0, 0)
    # The resume sends exactly the lines the ledger had no row of: never a row twice.
    sent_again = {json.loads(line)["line"] for line in report.read_text().splitlines()}
    assert sent_again == set(ids_by_line) - set(left)
    # No row unaccounted for: every plant in the store was in the ledger before it went out.
    ids = [plant_id for plant_id, _, _ in stored_plants(slow_server.db_path)]
    assert len(ids) == len(set(ids))
    assert set(ids) <= {ids_by_line[line] for line in set(left) | sent_again}
    created = {line for line, state in left.items() if state == "created"}
    assert {ids_by_line[line] for line in created | sent_again} <= set(ids)
    # Every line ends created, or unknown (in flight, or marked, when it died) and listed.
    unknown = {line for line, state in left.items() if state == "sending"}
    assert created | sent_again | unknown == set(ids_by_line)
    if unknown:
        rows = "1 row" if len(unknown) == 1 else f"{len(unknown)} rows"
        assert f"{rows} whose fate is unknown" in resumed.stderr
        listed = [line for line in resumed.stderr.splitlines() if f"{path.name}:" in line]
        assert {int(line.split(f"{path.name}:")[1].split(":")[0]) for line in listed} <= unknown


def test_a_server_that_goes_away_is_waited_for_and_the_import_goes_on(tmp_path: Path) -> None:
    token = SecretStr(secrets.token_urlsafe(32))
    db = tmp_path / "plants.sqlite3"
    server = BackgroundServer(token=token, db_path=db, delay=0.02)
    server.start()
    port = int(server.base_url.rsplit(":", 1)[1])
    rows = plants(300)
    ids_by_line = {line: plant_id for line, (_, plant_id, _) in enumerate(rows, start=2)}
    path = write_csv(tmp_path / "plants.csv", rows)
    process = _import_process(path, server, tmp_path, "--concurrency", "2", "--json")
    try:
        wait_until(lambda: len(stored_plants(db)) >= 40, DEADLINE, what="40 plants stored")
        server.stop()
        assert process.stderr is not None
        wait_for_line(process.stderr, "Waiting: deployment unreachable since")
        with BackgroundServer(token=token, db_path=db, port=port):
            out, err = process.communicate(timeout=DEADLINE)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    summary = json.loads(out)
    # The requests cut off when it went away may have arrived: unknown, never sent again.
    assert summary["unknown"] <= 2
    assert process.returncode == (3 if summary["unknown"] else 0), err
    assert summary["created"] + summary["unknown"] == 300
    assert (summary["rejected"], summary["failed"], summary["not_sent"]) == (0, 0, 0)
    unknown = {row.line for row in ledger_rows() if row.state == "unknown"}
    assert len(unknown) == summary["unknown"]
    ids = [plant_id for plant_id, _, _ in stored_plants(db)]
    assert len(ids) == len(set(ids))
    assert {ids_by_line[line] for line in set(ids_by_line) - unknown} <= set(ids)


def _retry_once(seen: dict[int, int]) -> Any:
    def script(request: ReceivedRequest) -> list[Any]:
        plant_id = request.json()["id"]
        seen[plant_id] = seen.get(plant_id, 0) + 1
        if seen[plant_id] == 1:
            return [Send(response(429, b"slow down", headers=[("Retry-After", "0")]))]
        sent = request.json()
        return [Send(json_response(200, {"name": sent["name"]}))]

    return script


async def test_a_429_with_retry_after_is_sent_again_after_the_wait(tmp_path: Path) -> None:
    seen: dict[int, int] = {}
    path = write_csv(tmp_path / "plants.csv", plants(5))
    async with MisbehavingServer(_retry_once(seen)) as server:
        result = await asyncio.to_thread(
            run_import,
            str(path),
            "--json",
            token="token-for-a-busy-server",
            base_url=server.base_url,
        )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["created"], summary["retries"]) == (5, 5)
    assert seen == dict.fromkeys(range(1, 6), 2)


def test_on_a_terminal_a_progress_bar_shows_the_counts(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    from pty_support import PtyProcess

    path = write_csv(tmp_path / "plants.csv", plants(200))
    env = {"PLANTSTORE_TOKEN": token_of(reference_server)}
    command = [sys.executable, "-m", "plantstore_tui", "import", str(path)]
    with PtyProcess([*command, "--base-url", reference_server.base_url], env=env) as terminal:
        assert terminal.wait_exit(DEADLINE) == 0
        screen = terminal.screen_text()
    assert "200/200" in screen
    assert "✔ 200  ✖ 0  ⚠ 0  ? 0" in screen
    assert "200 created, 0 rejected" in screen


def test_every_row_sent_is_in_the_history_with_source_import_its_batch_and_line(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    path = write_csv(tmp_path / "plants.csv", plants(3))
    token = token_of(reference_server)
    result = run_import(str(path), "--json", token=token, base_url=reference_server.base_url)
    assert result.exit_code == 0, result.output
    batch = json.loads(result.stdout)["batch"]
    listed = CliRunner().invoke(main, ["history", "--json"], env={"PLANTSTORE_TOKEN": None})
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.stdout)
    assert sorted(
        (row["source"], row["batch"], row["line"], row["sent"]["id"], row["outcome"])
        for row in rows
    ) == [
        ("import", batch, 2, 1, "created"),
        ("import", batch, 3, 2, "created"),
        ("import", batch, 4, 3, "created"),
    ]
    assert token not in listed.stdout


def test_with_history_off_the_rows_go_once_the_batch_is_done_and_it_is_never_sent_again(
    reference_server: BackgroundServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLANTSTORE_NO_HISTORY", "1")
    path = write_csv(tmp_path / "plants.csv", plants(5))
    token, url = token_of(reference_server), reference_server.base_url
    assert run_import(str(path), token=token, base_url=url).exit_code == 0
    assert ledger_rows() == []
    again = run_import(str(path), token=token, base_url=url)
    assert again.exit_code == 2
    assert "every row done" in again.output
    resumed = run_import(
        str(path), "--resume", "--resend-unknown", "--json", token=token, base_url=url
    )
    assert resumed.exit_code == 0, resumed.output
    summary = json.loads(resumed.stdout)
    assert (summary["to_send"], summary["skipped"]) == (0, 5)
    assert stored(reference_server) == expected(plants(5))


def _stores_another_name_for(plant_id: int) -> Any:
    def script(request: ReceivedRequest) -> list[Any]:
        sent = request.json()
        name = "Someone Else" if sent["id"] == plant_id else sent["name"]
        return [
            Send(
                json_response(
                    200, {"name": name, **({"tag": sent["tag"]} if "tag" in sent else {})}
                )
            )
        ]

    return script


async def test_a_row_the_server_stored_as_another_name_is_listed_off_the_spec(
    tmp_path: Path,
) -> None:
    path = write_csv(tmp_path / "plants.csv", plants(3))
    report = tmp_path / "report.jsonl"
    async with MisbehavingServer(_stores_another_name_for(2)) as server:
        human = await asyncio.to_thread(
            run_import,
            str(path),
            "--report",
            str(report),
            token="token-for-a-server-that-stores-another",
            base_url=server.base_url,
        )
        as_json = await asyncio.to_thread(
            run_import,
            str(path),
            "--restart",
            "--resend-created",
            "--json",
            token="token-for-a-server-that-stores-another",
            base_url=server.base_url,
        )
    mark = "the server stored name 'Someone Else', not 'Plant 2' as sent"
    assert human.exit_code == 0, human.output
    assert "3 created (1 off the spec)" in human.stdout
    assert f"plants.csv:3: id 2: created: off spec: {mark}" in human.stdout
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert sorted((line["id"], tuple(line["off_spec"])) for line in lines) == [
        (1, ()),
        (2, (mark,)),
        (3, ()),
    ]
    assert json.loads(as_json.stdout)["created_off_spec"] == 1
