"""`history` on the command line (list, --pending, show, export, clear), `add`'s rows and
duplicate warning, a crash mid-send, and two processes writing the ledger at once."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import given
from hypothesis import strategies as st
from ledger_support import (
    ENTRY_KEYS,
    all_rows,
    created,
    failed,
    ledger_file,
    new_row,
    opened,
    read_only,
    rejected,
    take_settled,
)
from misbehaving import Close, Hang, MisbehavingServer, Send, ServerThread, json_response

from plantstore_tui.cli import main
from plantstore_tui.cli.history import parse_moment
from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.core.plant.outcome import FailureKind, Outcome, PlantFate
from plantstore_tui.core.store import PlantState
from plantstore_tui.core.store.batches import Batches
from plantstore_tui.core.store.records import pending_words
from plantstore_tui.core.store.schema import SCHEMA_VERSION
from plantstore_tui.server.runner import BackgroundServer

CANARY = "CANARY-history-cli-0b7d2e94c1a35f86"
# The keys of add --json (design.md), off_spec included since the check work, proxy since
# issue 17.
ADD_JSON_KEYS = {
    "proxy",
    "outcome",
    "status",
    "elapsed_ms",
    "sent",
    "plant",
    "error",
    "kind",
    "message",
    "off_spec",
}
HISTORY_KEYS = ADD_JSON_KEYS | {"fate"} | ENTRY_KEYS


def run(*args: str, token: str | None = None, **env: str | None) -> Result:
    return CliRunner().invoke(main, list(args), env={"PLANTSTORE_TOKEN": token, **env})


def add(
    server: BackgroundServer,
    plant_id: int,
    *args: str,
    token: str | None = None,
    **env: str | None,
) -> Result:
    secret = token if token is not None else server.token.get_secret_value()
    return run(
        "add",
        "--name",
        "Fern",
        "--id",
        str(plant_id),
        "--base-url",
        server.base_url,
        *args,
        token=secret,
        **env,
    )


def history_json(*args: str) -> list[dict[str, Any]]:
    result = run("history", "--json", *args)
    assert result.exit_code == 0, result.output
    answer: list[dict[str, Any]] = json.loads(result.stdout)
    return answer


def test_add_records_each_send_and_lists_it_newest_first(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    assert add(shared_reference_server, plant_id).exit_code == 0
    again = add(shared_reference_server, plant_id)
    assert again.exit_code == 1
    assert "history #2" in again.stdout
    entries = history_json()
    assert [(e["entry"], e["outcome"], e["fate"], e["state"]) for e in entries] == [
        (2, "rejected", "not created", "rejected"),
        (1, "created", "created", "created"),
    ]
    assert set(entries[0]) == HISTORY_KEYS
    assert entries[1]["source"] == "add"
    assert entries[1]["base_url"] == shared_reference_server.base_url
    assert entries[1]["sent"] == {"id": plant_id, "name": "Fern"}
    assert entries[1]["plant"] == {"name": "Fern"}
    assert (entries[1]["held"], entries[1]["dismissed"], entries[1]["batch"]) == (
        False,
        False,
        None,
    )
    assert entries[0]["error"]["error"] == 1003
    table = run("history")
    assert table.exit_code == 0
    lines = table.stdout.splitlines()
    assert lines[0].split()[:5] == ["#", "time", "source", "profile", "target"]
    assert lines[1].split()[0] == "2"
    assert "rejected" in lines[1]
    # Where each went: host and port, whatever the profile.
    host_port = shared_reference_server.base_url.removeprefix("http://")
    assert lines[1].split()[5] == host_port


def test_add_warns_of_an_id_created_here_and_still_sends(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    assert add(shared_reference_server, plant_id).exit_code == 0
    again = add(shared_reference_server, plant_id, "--json")
    assert f"plant {plant_id} was created here at" in again.stderr
    assert "(history)" in again.stderr
    assert json.loads(again.stdout)["outcome"] == "rejected"


def test_the_filters(
    shared_reference_server: BackgroundServer, plant_id: int, another_plant_id: int
) -> None:
    add(shared_reference_server, plant_id)
    add(shared_reference_server, plant_id)
    add(shared_reference_server, another_plant_id, token="wrong-token")
    assert [e["entry"] for e in history_json("--outcome", "created")] == [1]
    assert [e["entry"] for e in history_json("--outcome", "rejected", "--limit", "1")] == [3]
    # --id is the plant's id, as `add --id` means it (an entry is `history show ENTRY`).
    assert [e["entry"] for e in history_json("--id", str(plant_id))] == [2, 1]
    assert [e["entry"] for e in history_json("--id", str(another_plant_id))] == [3]
    assert history_json("--id", "3") == []
    assert [e["entry"] for e in history_json("--state", "created")] == [1]
    assert [e["entry"] for e in history_json("--state", "rejected")] == [3, 2]
    assert [e["entry"] for e in history_json("--state", "rejected", "--id", str(plant_id))] == [2]
    assert history_json("--state", "unknown") == []
    assert len(history_json("--base-url", shared_reference_server.base_url + "/")) == 3
    assert history_json("--base-url", "http://127.0.0.1:9") == []
    assert history_json("--profile", "nope") == []
    assert len(history_json("--since", "1h")) == 3
    tomorrow = (datetime.now() + timedelta(days=1)).strftime("%Y-%m-%d")
    assert history_json("--since", tomorrow) == []
    bad = run("history", "--since", "last tuesday")
    assert bad.exit_code == 2
    assert "neither a date" in bad.output
    unknown_state = run("history", "--state", "lost")
    assert unknown_state.exit_code == 2
    assert "'lost' is not one of" in unknown_state.output


def test_show_has_the_body_received_and_export_needs_a_known_entry(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    add(shared_reference_server, plant_id)
    shown = run("history", "show", "1")
    assert shown.exit_code == 0
    assert 'received: {"name":"Fern"}' in shown.stdout
    assert "state: created" in shown.stdout
    assert "typed:" not in shown.stdout, "typed as sent: nothing more to say"
    as_json = json.loads(run("history", "show", "1", "--json").stdout)
    assert as_json["response"] == '{"name":"Fern"}'
    assert as_json["state"] == "created"
    assert set(as_json) == HISTORY_KEYS | {"response", "log_ref"}
    missing = run("history", "export", "99", "--as", "curl")
    assert missing.exit_code == 2
    assert "No send #99" in missing.output
    assert run("history", "show", "99").exit_code == 2


def test_a_number_past_64_bits_is_refused_in_words() -> None:
    with opened() as ledger:
        take_settled(ledger, new_row())
    huge = str(2**63)
    for args in (
        ("history", "--id", huge),
        ("history", "--pending", "--id", huge),
        ("history", "show", huge),
        ("history", "export", huge, "--as", "curl"),
    ):
        refused = run(*args)
        assert refused.exit_code == 2, refused.output
        assert f"{huge} is not a 64-bit integer" in refused.output
    assert history_json("--id", str(-(2**63))) == []
    assert len(history_json("--limit", str(10**30))) == 1


def test_no_history_yet() -> None:
    assert history_json() == []
    assert run("history").stdout == "No history yet.\n"
    assert run("history", "--pending").stdout == "Nothing waits for an operator.\n"
    assert json.loads(run("history", "--pending", "--json").stdout) == []
    assert run("history", "clear", "--yes").stdout == "The history is empty.\n"
    assert not ledger_file().exists()


def test_an_answer_that_is_not_http_is_told_in_words_by_add_and_by_the_history() -> None:
    with ServerThread([Send(b"SPROING 999 whatever\r\n\r\n"), Close()]) as server:
        sent = run(
            "add", "--name", "Fern", "--id", "7", "--base-url", server.base_url, token=CANARY
        )
    assert sent.exit_code == 3, sent.output
    assert "The answer is not valid HTTP: its status line reads 'SPROING 999 whatever'" in (
        sent.output
    )
    listed = run("history")
    assert "failed: invalid answer (fate unknown)" in listed.output
    for said in (sent.output, listed.output):
        assert "bytearray" not in said
        assert "b'" not in said
        assert "invalid_response" not in said


def test_a_zero_width_character_in_a_name_is_shown_escaped_by_add_and_the_history(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    token = shared_reference_server.token.get_secret_value()
    name = "Ro\u200bse"
    base = ["--id", str(plant_id), "--base-url", shared_reference_server.base_url]
    sent = run("add", "--name", name, *base, token=token)
    assert sent.exit_code == 0, sent.output
    assert f"Created plant {plant_id} (Ro\\u200bse)" in sent.output
    listed = run("history", "--id", str(plant_id))
    shown = run("history", "show", listed.output.splitlines()[1].split()[0])
    assert "Ro\\u200bse" in listed.output
    assert "Ro\\u200bse" in shown.output
    for said in (sent.output, listed.output, shown.output):
        assert "\u200b" not in said


def test_clear(shared_reference_server: BackgroundServer, plant_id: int) -> None:
    add(shared_reference_server, plant_id)
    add(shared_reference_server, plant_id)
    # Without a terminal to ask on, nothing goes without --yes.
    refused = run("history", "clear")
    assert refused.exit_code == 2
    assert "Nothing was deleted: without a terminal to ask on, clear needs --yes" in refused.output
    assert len(history_json()) == 2
    cleared = run("history", "clear", "--before", "2000-01-01", "--yes")
    assert "Deleted 0 sends" in cleared.stdout
    cleared = run("history", "clear", "--yes")
    assert "Deleted 2 sends" in cleared.stdout
    assert "Kept" not in cleared.stdout
    assert history_json() == []


def created_of(plant_id: int) -> Outcome:
    return created(NewPlant(id=plant_id, name="L"))


def rejected_of(plant_id: int) -> Outcome:
    return rejected(NewPlant(id=plant_id, name="A"))


def test_clear_keeps_pending_plants_and_the_rows_of_an_unfinished_import() -> None:
    with opened("tui") as ledger:
        refused = take_settled(ledger, new_row("Refused", "1", source="tui"), rejected_of(1))
        take_settled(ledger, new_row("Created", "2", source="tui"))
        take_settled(ledger, new_row("By add", "3"), rejected_of(3))
        batch = Batches(ledger).start(
            sha256="ef" * 32, base_url="http://h", profile=None, file_name="plants.csv", rows=2
        )
        lines = Batches(ledger).advance(
            [],
            [
                new_row("L", str(3 + line), source="import", batch=batch.id, line=line)
                for line in (1, 2)
            ],
        )
        Batches(ledger).advance([(entry, created_of(4)) for entry in lines], [])
    cleared = run("history", "clear", "--yes")
    assert cleared.exit_code == 0, cleared.output
    assert "Deleted 2 sends" in cleared.stdout
    assert "Kept 3: pending, or of an import not finished." in cleared.stdout
    assert sorted(e["entry"] for e in history_json()) == [refused, *lines]
    imported = history_json("--state", "created")
    assert [(e["batch"], e["line"]) for e in imported] == [(batch.id, 2), (batch.id, 1)]

    with opened("tui") as ledger:
        assert Batches(ledger).finish(batch)
        assert ledger.release(refused, "Dismissed by the test.")
    cleared = run("history", "clear", "--yes")
    assert "Deleted 3 sends" in cleared.stdout
    assert history_json() == []


def test_a_profile_with_history_off_keeps_no_row_of_an_add(
    shared_reference_server: BackgroundServer, plant_id: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QUIET_TOKEN", shared_reference_server.token.get_secret_value())
    config = Path(os.environ["PLANTSTORE_CONFIG_DIR"])
    config.mkdir(parents=True)
    (config / "profiles.toml").write_text(
        f'[profiles.quiet]\nbase_url = "{shared_reference_server.base_url}"\n'
        'token_env = "QUIET_TOKEN"\nhistory = false\n'
    )
    sent = run("add", "--name", "Quiet", "--id", str(plant_id), "--profile", "quiet", "--json")
    assert sent.exit_code == 0, sent.output
    assert json.loads(sent.stdout)["outcome"] == "created"
    again = run("add", "--name", "Quiet", "--id", str(plant_id), "--profile", "quiet")
    assert again.exit_code == 1
    assert "history #" not in again.stdout
    assert "History is off" not in again.output, "off by choice: nothing to warn of"
    assert history_json() == []
    assert all_rows() == []


def test_no_history_in_the_environment_keeps_no_row(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    result = add(shared_reference_server, plant_id, "--json", PLANTSTORE_NO_HISTORY="1")
    assert result.exit_code == 0
    assert result.stderr == ""
    assert history_json() == []


def test_a_corrupt_file_is_said_once_left_alone_and_the_send_goes_on(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    ledger_file().parent.mkdir(parents=True)
    ledger_file().write_bytes(b"garbage" * 10)
    sent = add(shared_reference_server, plant_id, "--json")
    assert sent.exit_code == 0
    assert json.loads(sent.stdout)["outcome"] == "created"
    assert sent.stderr.count("History is off for this run") == 1
    assert sent.stderr.count("left as it is") == 1, "no sentence twice"
    assert str(ledger_file()) in sent.stderr
    listed = run("history")
    assert listed.exit_code == 4
    assert "cannot be read" in listed.output
    assert run("history", "clear", "--yes").exit_code == 4
    assert ledger_file().read_bytes() == b"garbage" * 10


def test_a_newer_ledger_is_not_read_and_left_alone() -> None:
    with opened():
        pass
    with sqlite3.connect(ledger_file()) as connection:
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    connection.close()
    before = ledger_file().read_bytes()
    listed = run("history")
    assert listed.exit_code == 4
    assert "newer plantstore-tui" in listed.output
    assert ledger_file().read_bytes() == before


def test_a_read_only_ledger_is_listed_and_not_cleared() -> None:
    with opened() as ledger:
        take_settled(ledger, new_row("Kept", "1"))
    with read_only(ledger_file()):
        assert [e["sent"]["name"] for e in history_json()] == ["Kept"]
        cleared = run("history", "clear", "--yes")
        assert cleared.exit_code == 4
        assert "cannot be changed" in cleared.output
    assert len(history_json()) == 1


def test_the_token_is_in_no_output_and_no_file(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    add(shared_reference_server, plant_id, token=CANARY)
    outputs = [
        run("history").output,
        run("history", "--json").output,
        run("history", "show", "1").output,
        run("history", "show", "1", "--json").output,
        run("history", "export", "1", "--as", "curl").output,
        run("history", "export", "1", "--as", "httpie").output,
    ]
    assert all(CANARY not in output for output in outputs)
    files = [path for path in ledger_file().parent.rglob("*") if path.is_file()]
    assert ledger_file() in files
    for path in files:
        assert CANARY.encode() not in path.read_bytes()


# --pending: what waits for an operator -----------------------------------------------------


def tui_plants_left_waiting() -> dict[str, int]:
    """What a TUI that ended leaves: a refused plant, one that may exist, one still queued; and
    what does not wait (created, dismissed, sent by `add`)."""
    with opened("tui") as ledger:
        entries = {
            "refused": take_settled(
                ledger, new_row(" Fern ", " +7 ", " shade ", source="tui"), rejected_of(7)
            ),
            "maybe": take_settled(
                ledger,
                new_row("Palm", "8", source="tui"),
                failed(NewPlant(id=8, name="Palm"), FailureKind.TIMEOUT, PlantFate.UNKNOWN),
            ),
            "queued": ledger.take(new_row("Ivy", "007", source="tui", state=PlantState.QUEUED)),
        }
        take_settled(ledger, new_row("Created", "9", source="tui"))
        dismissed = take_settled(ledger, new_row("Gone", "10", source="tui"), rejected_of(10))
        assert ledger.release(dismissed, "Dismissed.")
        take_settled(ledger, new_row("By add", "7"), rejected_of(7))
    return entries


def test_pending_lists_what_waits_for_an_operator_exactly_as_typed() -> None:
    entries = tui_plants_left_waiting()
    pending = json.loads(run("history", "--pending", "--json").stdout)
    assert [e["entry"] for e in pending] == [
        entries["refused"],
        entries["maybe"],
        entries["queued"],
    ]
    refused, maybe, queued = pending
    assert refused["typed"] == {"name": " Fern ", "id": " +7 ", "tag": " shade "}
    assert refused["sent"] == {"id": 7, "name": "Fern", "tag": "shade"}
    assert (refused["state"], refused["held"], refused["source"]) == ("rejected", False, "tui")
    assert set(refused) == HISTORY_KEYS | {"typed"}
    assert (maybe["state"], maybe["fate"]) == ("unknown", "unknown")
    assert queued["typed"] == {"name": "Ivy", "id": "007", "tag": ""}
    assert (queued["state"], queued["held"]) == ("queued", True)
    assert "queued when plantstore-tui ended" in queued["note"]

    table = run("history", "--pending")
    assert table.exit_code == 0
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["#", "queued", "state", "target", "id", "name", "tag", "why"]
    assert " +7 " in lines[1]
    # entry, the date and time it was queued, its state
    assert lines[1].split()[3] == "rejected"
    assert "fate unknown" in lines[2]
    assert lines[3].split()[3] == "held"
    assert " 007 " in lines[3]
    assert lines[-1].startswith("(3 plants: the TUI's needs attention (F4)")


def test_pending_names_each_plants_profile_and_host_and_port() -> None:
    with opened("tui") as ledger:
        row = new_row("Yew", "3", source="tui", base_url="https://plants.example", profile="prod")
        take_settled(ledger, row, rejected_of(3))
    lines = run("history", "--pending").stdout.splitlines()
    assert " prod · plants.example:443 " in lines[1]


def test_pending_words_are_the_ones_every_pending_view_shows() -> None:
    # The one wording of core.store.records, which the TUI's needs attention (F4) shows too.
    entries = tui_plants_left_waiting()
    rows = {row.entry: row for row in all_rows()}
    lines = run("history", "--pending").stdout.splitlines()[1:4]
    words = [pending_words(rows[entries[key]]) for key in ("refused", "maybe", "queued")]
    assert words == ["rejected", "fate unknown", "held"]
    for line, said in zip(lines, words, strict=True):
        assert f" {said} " in line


def test_pending_takes_the_filters() -> None:
    entries = tui_plants_left_waiting()
    # " +7 " and "007" are both plant 7.
    by_id = json.loads(run("history", "--pending", "--json", "--id", "7").stdout)
    assert [e["entry"] for e in by_id] == [entries["refused"], entries["queued"]]
    by_state = json.loads(run("history", "--pending", "--json", "--state", "queued").stdout)
    assert [e["entry"] for e in by_state] == [entries["queued"]]
    assert json.loads(run("history", "--pending", "--json", "--profile", "prod").stdout) == []
    assert run("history", "--pending", "--id", "99").stdout == "Nothing waits for an operator.\n"


def test_show_says_what_was_typed_when_it_differs_from_what_was_sent() -> None:
    entries = tui_plants_left_waiting()
    shown = run("history", "show", str(entries["refused"]))
    assert shown.exit_code == 0
    assert "typed: name ' Fern ', id ' +7 ', tag ' shade '" in shown.stdout
    assert "state: rejected" in shown.stdout
    as_json = json.loads(run("history", "show", str(entries["queued"]), "--json").stdout)
    assert (as_json["state"], as_json["held"]) == ("queued", True)


@pytest.mark.parametrize(
    ("text", "back"),
    [("90s", timedelta(seconds=90)), ("2h", timedelta(hours=2)), ("1w2d", timedelta(days=9))],
)
def test_durations_reach_back_from_now(text: str, back: timedelta) -> None:
    now = datetime(2026, 11, 23, 12, tzinfo=UTC)
    assert parse_moment(text, now=now) == now - back


def test_a_date_is_local_midnight() -> None:
    moment = parse_moment("2026-11-20")
    assert moment.tzinfo is not None
    assert (moment.hour, moment.minute) == (0, 0)


# Crash mid-send, and two processes at once ----------------------------------------------------


def _env(token: str) -> dict[str, str]:
    return {**os.environ, "PLANTSTORE_TOKEN": token}


async def test_a_process_killed_mid_send_leaves_an_unknown_row() -> None:
    async with MisbehavingServer([Hang()]) as server:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "plantstore_tui",
            "add",
            "--name",
            "Lost",
            "--id",
            "77",
            "--base-url",
            server.base_url,
            env=_env(CANARY),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            async with asyncio.timeout(30):
                await server.wait_for_requests(1)
        finally:
            process.kill()
            await process.wait()
    [entry] = await asyncio.to_thread(history_json)
    assert entry["outcome"] is None
    assert (entry["state"], entry["fate"]) == ("unknown", "unknown")
    assert entry["sent"] == {"id": 77, "name": "Lost"}
    assert "it may exist already" in entry["message"]
    assert "unknown" in (await asyncio.to_thread(run, "history")).stdout
    assert await asyncio.to_thread(history_json, "--state", "unknown") == [entry]


SENDER = textwrap.dedent(
    """
    import asyncio, os, sys
    from pydantic import SecretStr
    from plantstore_tui.core.http.client import PlantStoreClient
    from plantstore_tui.core.plant.models import NewPlant
    from plantstore_tui.core.store.recorder import Recorder
    from plantstore_tui.core.http.target import Target

    def off(message):
        sys.exit(message)

    async def main(base_url, first, count):
        token = SecretStr(os.environ["PLANTSTORE_TOKEN"])
        target = Target(base_url=base_url, token=token, token_source="env")
        recorder = Recorder.open("add", None, warn=off)
        try:
            async with PlantStoreClient(base_url, token) as client:
                for plant_id in range(first, first + count):
                    plant = NewPlant(id=plant_id, name=f"plant {plant_id}")
                    entry = recorder.begin(target, plant)
                    recorder.settle(entry, await client.create_plant(plant), target)
        finally:
            recorder.close()

    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
    """
)


def test_two_processes_of_500_sends_each_lose_no_row(reference_server: BackgroundServer) -> None:
    token = reference_server.token.get_secret_value()
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", SENDER, reference_server.base_url, str(first), "500"],
            env=_env(token),
            stderr=subprocess.PIPE,
            text=True,
        )
        for first in (1, 10_001)
    ]
    for process in processes:
        _, errors = process.communicate(timeout=300)
        assert process.returncode == 0, errors
    rows = all_rows()
    assert len(rows) == 1000
    assert {row.plant_id for row in rows} == {*range(1, 501), *range(10_001, 10_501)}
    assert all(row.state is PlantState.CREATED and row.outcome == "created" for row in rows)
    assert len({row.entry for row in rows}) == 1000


@given(
    st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from("smhdw")), min_size=1, max_size=5)
)
def test_any_duration_reaches_back_by_the_sum_of_its_parts(parts: list[tuple[int, str]]) -> None:
    now = datetime(2026, 11, 23, 12, tzinfo=UTC)
    units = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}
    text = "".join(f"{amount}{unit}" for amount, unit in parts)
    seconds = sum(amount * units[unit] for amount, unit in parts)
    assert parse_moment(text, now=now) == now - timedelta(seconds=seconds)


@given(st.text(max_size=30))
def test_any_text_is_a_moment_or_a_value_error(text: str) -> None:
    try:
        moment = parse_moment(text)
    except ValueError:
        return
    assert moment.tzinfo is not None


async def test_a_name_stored_instead_is_off_spec_in_the_history_and_show_has_the_body_whole() -> (
    None
):
    huge = "S" * 1_048_500
    async with MisbehavingServer([Send(json_response(200, {"name": huge}))]) as server:
        added = await asyncio.to_thread(
            run, "add", "--name", "Rose", "--id", "5", "--base-url", server.base_url, token=CANARY
        )
    assert added.exit_code == 0, added.output
    mark = (
        f"the server stored name '{'S' * 60}…' (1,048,500 characters, first 60 shown), "
        "not 'Rose' as sent"
    )
    [entry] = history_json()
    assert entry["off_spec"] == [mark]
    listed = run("history")
    assert listed.exit_code == 0
    assert len(listed.stdout) < 1000
    shown = run("history", "show", str(entry["entry"]))
    assert f"  off spec: {mark}" in shown.stdout
    # The whole answer stays reachable.
    assert f'  received: {{"name": "{huge}"}}' in shown.stdout
