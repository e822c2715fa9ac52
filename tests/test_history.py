"""The history journal: a row for every send and every outcome, bounded, private, and never in the
way of a send (corrupt, locked, read-only or missing files)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
import stat
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from plantstore_tui.core import history as history_module
from plantstore_tui.core.client import PlantStoreClient
from plantstore_tui.core.history import History, HistoryError, HistoryFilter, body_bytes
from plantstore_tui.core.journal import Journal, duplicate_warning, history_settings
from plantstore_tui.core.models import NewPlant
from plantstore_tui.core.outcome import outcome_to_json
from plantstore_tui.core.send_queue import QueuedPlant, SendQueue, SendState
from plantstore_tui.core.target import Limits, Target
from plantstore_tui.server.runner import BackgroundServer
from tests.misbehaving import (
    Action,
    Hang,
    MisbehavingServer,
    Reset,
    Send,
    empty_200,
    json_response,
    oversized,
    redirect_to,
    spec_like,
    status_500,
)

CANARY = "CANARY-history-5e1a9c3f7b2d4e60"
QUICK = Limits(connect=2.0, read=0.5, deadline=1.0)


def target_of(base_url: str, token: str = CANARY, profile: str | None = None) -> Target:
    return Target(
        base_url=base_url, token=SecretStr(token), token_source="the test", profile=profile
    )


def data_dir() -> Path:
    return Path(os.environ["PLANTSTORE_DATA_DIR"])


def history_file() -> Path:
    return data_dir() / "history.sqlite3"


async def send_recorded(target: Target, plant: NewPlant, warn: Any = None) -> Journal:
    """One send through the client, recorded as `add` records it."""
    journal = Journal.open("test", target.profile, warn=warn)
    entry = journal.begin(target, plant)
    async with PlantStoreClient(target.base_url, target.token, limits=target.limits) as client:
        outcome = await client.create_plant(plant)
    journal.settle(entry, outcome, target.token)
    return journal


def all_rows() -> list[Any]:
    store = History()
    try:
        return store.query()
    finally:
        store.close()


# Every outcome and failure kind -----------------------------------------------------------------


async def test_a_created_send_is_one_settled_row_with_the_exact_body_sent() -> None:
    async with MisbehavingServer(spec_like) as server:
        plant = NewPlant(id=7, name='Fern "Ø" $x', tag="indoor")
        await send_recorded(target_of(server.base_url, profile=None), plant)
        sent = server.requests[0].body
    [row] = all_rows()
    assert row.body == sent == body_bytes(plant)
    assert (row.outcome, row.status, row.fate, row.kind) == ("created", 200, "created", None)
    assert row.settled
    assert row.plant == {"name": 'Fern "Ø" $x', "tag": "indoor"}
    assert json.loads(row.response or "") == row.plant
    assert row.source == "test"
    assert row.base_url == server.base_url


SCRIPTS: list[tuple[str, Sequence[Action], str, str | None, str]] = [
    (
        "rejected 400",
        [Send(json_response(400, {"error": 5, "message": "no"}))],
        "rejected",
        None,
        "not created",
    ),
    ("rejected 500", status_500(), "rejected", None, "unknown"),
    ("not a plant", empty_200(), "failed", "invalid_response", "unknown"),
    ("redirect", redirect_to("http://example.invalid/x"), "failed", "redirect", "not created"),
    ("too large", oversized(2 * 1024 * 1024), "failed", "too_large", "unknown"),
    ("dropped", [Reset()], "failed", "connection_dropped", "unknown"),
    ("timeout", [Hang()], "failed", "timeout", "unknown"),
]


@pytest.mark.parametrize(
    ("script", "outcome", "kind", "fate"),
    [
        pytest.param(script, outcome, kind, fate, id=name)
        for name, script, outcome, kind, fate in SCRIPTS
    ],
)
async def test_every_outcome_and_failure_kind_is_recorded(
    script: Sequence[Action], outcome: str, kind: str | None, fate: str
) -> None:
    async with MisbehavingServer(script) as server:
        target = Target(
            base_url=server.base_url,
            token=SecretStr(CANARY),
            token_source="the test",
            limits=QUICK,
        )
        await send_recorded(target, NewPlant(id=1, name="Fern"))
    [row] = all_rows()
    assert row.settled
    assert (row.outcome, row.fate) == (outcome, fate)
    if kind is not None:
        assert row.kind == kind


async def test_cannot_connect_and_a_bad_token_are_recorded(closed_port: int) -> None:
    await send_recorded(target_of(f"http://127.0.0.1:{closed_port}"), NewPlant(id=1, name="A"))
    await send_recorded(
        target_of(f"http://127.0.0.1:{closed_port}", token="has space"), NewPlant(id=2, name="B")
    )
    kinds = [(row.kind, row.fate) for row in all_rows()]
    assert kinds == [("invalid_token", "not created"), ("cannot_connect", "not created")]


async def test_a_cancelled_send_in_the_queue_is_recorded_as_unknown() -> None:
    async with MisbehavingServer([Hang()]) as server:
        target = target_of(server.base_url)
        journal = Journal.open("tui", None)
        client = PlantStoreClient(target.base_url, target.token)
        changes: list[SendState] = []
        queue = SendQueue(client, lambda p: changes.append(p.state), journal.for_target(target))
        runner = asyncio.create_task(queue.run())
        plant = NewPlant(id=3, name="Slow")
        queued = QueuedPlant(
            number=1,
            texts=None,  # type: ignore[arg-type]
            plant=plant,
            base_url=target.base_url,
            profile=None,
            queued_at=datetime.now(UTC),
        )
        queue.put(queued)
        await server.wait_for_requests(1)
        # The row is there before any answer: written before the request went out.
        [row] = all_rows()
        assert (row.settled, row.fate, row.log_ref) == (False, "unknown", "log #1")
        assert queued.history_entry == row.entry
        queue.cancel_current()
        queue.close_when_empty()
        await runner
        await client.aclose()
    [row] = all_rows()
    assert (row.outcome, row.kind, row.fate) == ("failed", "cancelled", "unknown")


def test_an_unsettled_row_says_the_outcome_is_unknown() -> None:
    store = History()
    store.begin(source="add", profile=None, base_url="http://h", plant=NewPlant(id=1, name="A"))
    [row] = store.query()
    store.close()
    answer = row.to_json()
    assert answer["outcome"] is None
    assert answer["fate"] == "unknown"
    assert "No outcome recorded" in answer["message"]
    assert set(answer) == {
        *outcome_to_json_keys(),
        "entry",
        "time",
        "source",
        "profile",
        "base_url",
    }


def outcome_to_json_keys() -> set[str]:
    from plantstore_tui.core.models import Plant
    from plantstore_tui.core.outcome import Created

    created = Created(
        url="u",
        sent=NewPlant(id=1, name="A"),
        status=200,
        elapsed_ms=1,
        plant=Plant(name="A"),
        body="",
    )
    return set(outcome_to_json(created))


# Token ----------------------------------------------------------------------------------------


def echo_everything(request: Any) -> list[Action]:
    # A server that echoes the request, headers and all, in its body and in an Error message.
    raw = request.raw.decode("latin-1")
    return [Send(json_response(400, {"error": 1, "message": raw}))]


async def test_the_token_is_in_no_byte_of_the_database_even_when_a_server_echoes_it() -> None:
    async with MisbehavingServer(echo_everything) as server:
        journal = await send_recorded(target_of(server.base_url), NewPlant(id=5, name="Echo"))
        assert CANARY.encode() in server.requests[0].raw
        assert journal.history is not None
        journal.history.close()
    [row] = all_rows()
    assert "[token]" in row.response
    for path in data_dir().iterdir():
        assert CANARY.encode() not in path.read_bytes(), path


# Bounded and private --------------------------------------------------------------------------


def test_the_oldest_rows_go_past_the_limit() -> None:
    store = History(limit=3)
    for number in range(5):
        store.begin(
            source="add", profile=None, base_url="http://h", plant=NewPlant(id=number, name="A")
        )
    assert [row.plant_id for row in store.query()] == [4, 3, 2]
    store.close()


def test_history_limit_and_history_false_are_read_from_profiles_toml() -> None:
    config = Path(os.environ["PLANTSTORE_CONFIG_DIR"])
    config.mkdir(parents=True)
    (config / "profiles.toml").write_text(
        "history_limit = 2\n\n"
        '[profiles.quiet]\nbase_url = "http://127.0.0.1:9"\nhistory = false\n\n'
        '[profiles.loud]\nbase_url = "http://127.0.0.1:9"\n'
    )
    assert history_settings("quiet").enabled is False
    loud = history_settings("loud")
    assert (loud.enabled, loud.limit) == (True, 2)
    assert history_settings(None).enabled


def test_no_history_in_the_environment_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANTSTORE_NO_HISTORY", "1")
    journal = Journal.open("add", None)
    assert not journal.active
    assert journal.problem is None
    assert journal.begin(target_of("http://h"), NewPlant(id=1, name="A")) is None
    assert not history_file().exists()


def test_the_file_is_private_even_with_a_lax_umask() -> None:
    old = os.umask(0)
    try:
        History().close()
    finally:
        os.umask(old)
    assert stat.S_IMODE(history_file().stat().st_mode) == 0o600


def test_clear_by_profile_and_before() -> None:
    store = History()
    old = datetime.now(UTC) - timedelta(days=10)
    for profile, at in (("a", old), ("a", None), ("b", old), (None, None)):
        store.begin(
            source="add",
            profile=profile,
            base_url="http://h",
            plant=NewPlant(id=1, name="A"),
            at=at,
        )
    assert store.clear(profile="a", before=datetime.now(UTC) - timedelta(days=1)) == 1
    assert store.count() == 3
    assert store.clear(profile="b") == 1
    assert store.clear() == 2
    store.close()


def test_filters_and_text_search() -> None:
    store = History()
    for number, name in enumerate(["Monstera", "Fern 100%", "Fern_x"]):
        store.begin(
            source="add", profile=None, base_url="http://h", plant=NewPlant(id=number, name=name)
        )
    assert [row.name for row in store.query(HistoryFilter(text="fern"))] == ["Fern_x", "Fern 100%"]
    assert [row.name for row in store.query(HistoryFilter(text="%"))] == ["Fern 100%"]
    assert [row.name for row in store.query(HistoryFilter(text="_"))] == ["Fern_x"]
    assert store.count(HistoryFilter(plant_id=0)) == 1
    store.close()


# A history that cannot be used never stops a send ------------------------------------------


async def off_and_told(shared: BackgroundServer, plant_id: int) -> list[str]:
    told: list[str] = []
    target = target_of(shared.base_url, token=shared.token.get_secret_value())
    journal = await send_recorded(target, NewPlant(id=plant_id, name="Sent anyway"), told.append)
    assert not journal.active
    return told


async def test_a_corrupt_file_is_left_alone_and_the_send_goes_on(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    data_dir().mkdir(parents=True)
    garbage = b"this is not SQLite at all\n" * 100
    history_file().write_bytes(garbage)
    told = await off_and_told(shared_reference_server, plant_id)
    assert len(told) == 1
    assert "History is off for this run" in told[0]
    assert str(history_file()) in told[0]
    assert "not a history database" in told[0]
    assert history_file().read_bytes() == garbage


@contextmanager
def read_only(path: Path) -> Iterator[None]:
    """Make `path` unwritable, even for root (immutable), or skip if this machine cannot."""
    if os.geteuid() != 0:
        path.chmod(0o400)
        try:
            yield
        finally:
            path.chmod(0o600)
        return
    if shutil.which("chattr") is None:
        pytest.skip("root, and no chattr to make a file immutable")
    made = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
    if made.returncode != 0:
        pytest.skip("root, and this file system cannot make a file immutable")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


async def test_a_read_only_file_turns_history_off_once(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    History().close()
    before = history_file().read_bytes()
    with read_only(history_file()):
        told = await off_and_told(shared_reference_server, plant_id)
    assert len(told) == 1
    assert "History is off for this run" in told[0]
    assert history_file().read_bytes() == before


async def test_a_locked_file_turns_history_off_once(
    shared_reference_server: BackgroundServer, plant_id: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history_module, "BUSY_TIMEOUT_SECONDS", 0.2)
    History().close()
    holder = sqlite3.connect(history_file())
    holder.execute("BEGIN EXCLUSIVE")
    try:
        told = await off_and_told(shared_reference_server, plant_id)
    finally:
        holder.rollback()
        holder.close()
    assert len(told) == 1
    assert "locked" in told[0]


async def test_a_data_dir_that_cannot_be_made_turns_history_off(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    data_dir().parent.mkdir(parents=True, exist_ok=True)
    data_dir().write_text("a file where the directory should be")
    told = await off_and_told(shared_reference_server, plant_id)
    assert len(told) == 1
    assert "cannot be opened" in told[0]


def test_a_missing_data_dir_is_created_private() -> None:
    assert not data_dir().exists()
    History().close()
    assert stat.S_IMODE(data_dir().stat().st_mode) == 0o700


def test_a_newer_schema_is_refused_and_left_alone() -> None:
    History().close()
    with sqlite3.connect(history_file()) as connection:
        connection.execute("PRAGMA user_version = 99")
    connection.close()
    before = history_file().read_bytes()
    with pytest.raises(HistoryError, match="newer plantstore-tui"):
        History()
    assert history_file().read_bytes() == before


def test_migrations_bring_an_empty_file_to_the_current_schema() -> None:
    data_dir().mkdir(parents=True)
    sqlite3.connect(history_file()).close()
    History().close()
    with sqlite3.connect(history_file()) as connection:
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
    connection.close()
    assert (version, mode) == (history_module.SCHEMA_VERSION, "wal")


# The duplicate guard --------------------------------------------------------------------------


def test_the_duplicate_warning_names_the_created_send_first() -> None:
    store = History()
    base = "http://h"
    at = datetime(2026, 11, 20, 9, 12, tzinfo=UTC)
    entry = store.begin(
        source="add", profile=None, base_url=base, plant=NewPlant(id=42, name="A"), at=at
    )
    assert "may have been created here" in (duplicate_warning(store.sent_before(base, 42)) or "")
    store.settle(entry, created_outcome(42))
    store.begin(source="add", profile=None, base_url=base, plant=NewPlant(id=42, name="A"))
    words = duplicate_warning(store.sent_before(base, 42), now=at)
    local = at.astimezone()
    assert words == f"plant 42 was created here at {local:%H:%M} (history)"
    assert store.sent_before("http://elsewhere", 42) == []
    store.close()


def created_outcome(plant_id: int) -> Any:
    from plantstore_tui.core.models import Plant
    from plantstore_tui.core.outcome import Created

    return Created(
        url="http://h/plants",
        sent=NewPlant(id=plant_id, name="A"),
        status=200,
        elapsed_ms=1.0,
        plant=Plant(name="A"),
        body=json.dumps({"name": "A"}),
    )
