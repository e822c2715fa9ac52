"""`history summary`: the shift at a glance, from outside: plants sent with `add` to a reference
server (created and rejected), plants held in a TUI's needs attention, and what the command says
of them in JSON, CSV and words, which agrees with the ledger."""

from __future__ import annotations

import csv
import getpass
import io
import json
import socket
import sqlite3
from collections import Counter
from contextlib import closing
from datetime import datetime, time
from typing import Any

import pytest
from click.testing import CliRunner, Result
from ledger_support import ledger_file, new_row, opened

from plantstore_tui.cli import main
from plantstore_tui.core.store import PlantState
from plantstore_tui.core.store.records import parse_time
from plantstore_tui.core.store.summary import local_hour
from plantstore_tui.server.runner import BackgroundServer

SUMMARY_KEYS = {"taken", "created", "rejected", "attention", "unknown", "by_hour"}


def run(*args: str, token: str | None = None) -> Result:
    result = CliRunner().invoke(main, list(args), env={"PLANTSTORE_TOKEN": token})
    assert "Traceback" not in result.output
    return result


def summary_json(*args: str) -> dict[str, Any]:
    result = run("history", "summary", "--json", *args)
    assert result.exit_code == 0, result.output
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def a_shift(server: BackgroundServer) -> None:
    """Three plants created and two rejected (their ids taken already) by `add`, as an operator
    sends them, and two plants a TUI left held in needs attention."""
    token = server.token.get_secret_value()
    for number in (1, 2, 3):
        sent = run(
            "add", "--name", "Fern", "--id", str(number), "--base-url", server.base_url, token=token
        )
        assert sent.exit_code == 0, sent.output
    for number in (1, 2):
        refused = run(
            "add", "--name", "Rose", "--id", str(number), "--base-url", server.base_url, token=token
        )
        assert refused.exit_code == 1, refused.output
    with opened("tui") as ledger:
        held = [
            ledger.take(
                new_row(
                    name,
                    str(number),
                    source="tui",
                    state=PlantState.QUEUED,
                    base_url=server.base_url,
                )
            )
            for number, name in ((4, "Ivy"), (5, "Oak"))
        ]
        ledger.hold(held, "Put aside by the operator.")


def the_ledger() -> list[tuple[str, str, int, int]]:
    """(state, queued_at, held, status or 0) of every plant, read from the file."""
    with closing(sqlite3.connect(ledger_file())) as connection:
        return connection.execute(
            "SELECT state, queued_at, held, coalesce(status, 0) FROM plants ORDER BY entry"
        ).fetchall()


def test_summary_json_agrees_with_the_ledger_for_a_shift_of_created_rejected_and_held_plants(
    reference_server: BackgroundServer,
) -> None:
    a_shift(reference_server)

    found = summary_json("--since", "today")

    assert set(found) >= SUMMARY_KEYS
    rows = the_ledger()
    states = Counter(state for state, _, _, _ in rows)
    assert (found["taken"], found["created"], found["rejected"]) == (
        len(rows),
        states["created"],
        states["rejected"],
    )
    assert (found["taken"], found["created"], found["rejected"]) == (7, 3, 2)
    assert found["attention"] == sum(held for _, _, held, _ in rows) == 2
    assert found["unknown"] == states["unknown"] == 0
    assert found["rejected_by_code"] == [{"code": 1003, "count": 2}]
    # Per hour of local time, with its offset: the hours of the rows' takes.
    hours: dict[str, Counter[str]] = {}
    for state, queued_at, _, _ in rows:
        hour = parse_time(queued_at).astimezone().replace(minute=0, second=0, microsecond=0)
        hours.setdefault(hour.isoformat(), Counter())[state] += 1
    assert [(one["hour"], one["created"], one["rejected"]) for one in found["by_hour"]] == [
        (hour, counted["created"], counted["rejected"]) for hour, counted in sorted(hours.items())
    ]
    assert all(
        datetime.fromisoformat(one["hour"]).utcoffset() is not None for one in found["by_hour"]
    )
    # The five answered, timed from the take to the answer.
    assert found["answered"] == sum(1 for *_, status in rows if status) == 5
    assert 0 < found["median_ms"] <= found["p95_ms"]


def test_by_operator_names_who_took_the_plants(reference_server: BackgroundServer) -> None:
    a_shift(reference_server)
    found = summary_json("--since", "8h", "--by", "operator")
    assert [
        (one["operator"], one["host"], one["taken"], one["created"]) for one in found["by_operator"]
    ] == [(getpass.getuser(), socket.gethostname(), 7, 3)]
    shown = run("history", "summary", "--by", "operator")
    assert shown.exit_code == 0, shown.output
    assert getpass.getuser() in shown.output


def test_a_target_counts_only_its_own_plants(reference_server: BackgroundServer) -> None:
    a_shift(reference_server)
    assert summary_json("--target", reference_server.base_url + "/")["taken"] == 7
    assert summary_json("--target", "http://127.0.0.1:9")["taken"] == 0
    bad = run("history", "summary", "--target", "ftp://127.0.0.1")
    assert bad.exit_code == 2
    assert "Traceback" not in bad.output


def test_csv_prints_the_hours_for_a_spreadsheet(reference_server: BackgroundServer) -> None:
    a_shift(reference_server)
    printed = run("history", "summary", "--csv")
    assert printed.exit_code == 0, printed.output
    rows = list(csv.DictReader(io.StringIO(printed.stdout)))
    assert rows
    assert list(rows[0]) == ["hour", "created", "rejected"]
    assert sum(int(row["created"]) for row in rows) == 3
    assert sum(int(row["rejected"]) for row in rows) == 2
    assert all(datetime.fromisoformat(row["hour"]).utcoffset() is not None for row in rows)


def test_the_words_show_the_counts_and_the_hours_as_rows(
    reference_server: BackgroundServer,
) -> None:
    a_shift(reference_server)
    shown = run("history", "summary", "--since", "1h")
    assert shown.exit_code == 0, shown.output
    text = shown.output
    for words in (
        "7 plants taken",
        "Created",
        "Rejected",
        "error 1003: 2",
        "Needing attention",
        "Hour",
    ):
        assert words in text, text
    for hour in {local_hour(parse_time(queued_at)) for _, queued_at, _, _ in the_ledger()}:
        assert f"{hour:%Y-%m-%d %H:00 %z}" in text, text


def test_since_today_is_local_midnight() -> None:
    midnight = datetime.combine(datetime.now().astimezone().date(), time()).astimezone()
    assert summary_json("--since", "today")["since"] == midnight.isoformat()
    assert summary_json()["since"] == midnight.isoformat()
    assert summary_json("--since", "TODAY")["since"] == midnight.isoformat()


def test_no_history_yet_is_a_summary_of_nothing() -> None:
    found = summary_json()
    assert {
        key: found[key] for key in ("taken", "created", "rejected", "attention", "unknown")
    } == {
        "taken": 0,
        "created": 0,
        "rejected": 0,
        "attention": 0,
        "unknown": 0,
    }
    assert found["by_hour"] == []
    assert run("history", "summary").exit_code == 0


@pytest.mark.parametrize("since", ["last tuesday", "2026-13-40", ""])
def test_a_since_that_is_no_moment_is_a_usage_error_in_words(since: str) -> None:
    said = run("history", "summary", "--since", since)
    assert said.exit_code == 2
    assert "--since" in said.output
    as_json = run("history", "summary", "--since", since, "--json")
    assert as_json.exit_code == 2
    assert json.loads(as_json.stdout)["outcome"] == "usage error"


def test_json_and_csv_exclude_each_other() -> None:
    both = run("history", "summary", "--json", "--csv")
    assert both.exit_code == 2
    assert "not both" in both.output


def test_a_corrupt_ledger_is_a_configuration_problem() -> None:
    ledger_file().parent.mkdir(parents=True, exist_ok=True)
    ledger_file().write_bytes(b"garbage" * 10)
    said = run("history", "summary")
    assert said.exit_code == 4
    assert "cannot be read" in said.output
