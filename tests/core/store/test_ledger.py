"""The ledger (core/store): a row for every plant taken and every outcome, bounded without losing
a plant somebody still has to deal with, private, shared by instances through their sessions, and
never in the way of a send (corrupt, locked, read-only or missing files)."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import stat
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from ledger_support import (
    ENTRY_KEYS,
    all_rows,
    as_before,
    created,
    data_dir,
    failed,
    ledger_file,
    new_row,
    opened,
    read_only,
    rejected,
    take_settled,
)
from misbehaving import (
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
    status_429,
    status_500,
)
from pydantic import SecretStr

from plantstore_tui.core.http.client import PlantStoreClient
from plantstore_tui.core.http.target import Limits, Target
from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.plant.models import NewPlant, Plant
from plantstore_tui.core.plant.outcome import (
    Created,
    FailureKind,
    Outcome,
    PlantFate,
    outcome_to_json,
)
from plantstore_tui.core.plant.text import SHOWN
from plantstore_tui.core.sending.queue import QueuedPlant, SendQueue
from plantstore_tui.core.store import (
    HistoryFilter,
    PlantState,
    StoreError,
    open_for_reading,
    open_ledger,
    open_unchanged,
)
from plantstore_tui.core.store import database as database_module
from plantstore_tui.core.store.batches import Batches
from plantstore_tui.core.store.ledger import DEFAULT_LIMIT
from plantstore_tui.core.store.recorder import Recorder
from plantstore_tui.core.store.rows import NewRow
from plantstore_tui.core.store.schema import MIGRATIONS, SCHEMA_VERSION
from plantstore_tui.core.store.settings import (
    HistorySettings,
    duplicate_warning,
    history_settings,
)
from plantstore_tui.server.runner import BackgroundServer

CANARY = "CANARY-ledger-5e1a9c3f7b2d4e60"
QUICK = Limits(connect=2.0, read=0.5, deadline=1.0)


def target_of(base_url: str, token: str = CANARY, profile: str | None = None) -> Target:
    return Target(
        base_url=base_url, token=SecretStr(token), token_source="the test", profile=profile
    )


@dataclass
class Recorded:
    """One send recorded as `add` records it."""

    outcome: Outcome
    entry: int | None
    told: list[str]
    # Whether the recorder was still recording once the send was settled.
    active: bool


async def send_recorded(target: Target, plant: NewPlant) -> Recorded:
    """One send through the client, recorded as `add` records it (with source `test`)."""
    told: list[str] = []
    recorder = Recorder.open("test", target.profile, warn=told.append)
    try:
        entry = recorder.begin(target, plant)
        async with PlantStoreClient(target.base_url, target.token, limits=target.limits) as client:
            outcome = await client.create_plant(plant)
        recorder.settle(entry, outcome, target)
        return Recorded(outcome, entry, told, recorder.active)
    finally:
        recorder.close()


# Every outcome and failure kind -----------------------------------------------------------------


async def test_a_created_send_is_one_settled_row_with_the_exact_body_sent() -> None:
    async with MisbehavingServer(spec_like) as server:
        plant = NewPlant(id=7, name='Fern "Ø" $x', tag="indoor")
        recorded = await send_recorded(target_of(server.base_url), plant)
        sent = server.requests[0].body
    assert (recorded.told, recorded.active, recorded.outcome.status) == ([], True, 200)
    [row] = all_rows()
    assert row.entry == recorded.entry
    assert row.body == sent == plant.body_bytes()
    assert (row.outcome, row.status, row.fate, row.kind) == ("created", 200, "created", None)
    assert row.state is PlantState.CREATED
    assert row.settled
    assert not row.needs_attention
    assert row.plant == {"name": 'Fern "Ø" $x', "tag": "indoor"}
    assert json.loads(row.response or "") == row.plant
    assert row.source == "test"
    assert row.base_url == server.base_url
    assert row.typed == FormTexts(name='Fern "Ø" $x', id="7", tag="indoor")


SCRIPTS: list[tuple[str, Sequence[Action], str, str | None, str, PlantState]] = [
    (
        "rejected 400",
        [Send(json_response(400, {"error": 5, "message": "no"}))],
        "rejected",
        None,
        "not created",
        PlantState.REJECTED,
    ),
    # With a Retry-After the server says it did not process it: safe to send again.
    ("rate limited", status_429(), "rejected", None, "not created", PlantState.FAILED),
    ("rejected 500", status_500(), "rejected", None, "unknown", PlantState.UNKNOWN),
    ("not a plant", empty_200(), "failed", "invalid_response", "unknown", PlantState.UNKNOWN),
    (
        "redirect",
        redirect_to("http://example.invalid/x"),
        "failed",
        "redirect",
        "not created",
        PlantState.FAILED,
    ),
    ("too large", oversized(2 * 1024 * 1024), "failed", "too_large", "unknown", PlantState.UNKNOWN),
    ("dropped", [Reset()], "failed", "connection_dropped", "unknown", PlantState.UNKNOWN),
    ("timeout", [Hang()], "failed", "timeout", "unknown", PlantState.UNKNOWN),
]


@pytest.mark.parametrize(
    ("script", "outcome", "kind", "fate", "state"),
    [
        pytest.param(script, outcome, kind, fate, state, id=name)
        for name, script, outcome, kind, fate, state in SCRIPTS
    ],
)
async def test_every_outcome_and_failure_kind_is_recorded(
    script: Sequence[Action], outcome: str, kind: str | None, fate: str, state: PlantState
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
    assert (row.outcome, row.fate, row.state) == (outcome, fate, state)
    if kind is not None:
        assert row.kind == kind


async def test_cannot_connect_and_a_bad_token_are_recorded(closed_port: int) -> None:
    await send_recorded(target_of(f"http://127.0.0.1:{closed_port}"), NewPlant(id=1, name="A"))
    await send_recorded(
        target_of(f"http://127.0.0.1:{closed_port}", token="has space"), NewPlant(id=2, name="B")
    )
    kinds = [(row.kind, row.fate, row.state) for row in all_rows()]
    assert kinds == [
        ("invalid_token", "not created", PlantState.FAILED),
        ("cannot_connect", "not created", PlantState.FAILED),
    ]


async def test_a_cancelled_send_in_the_queue_is_recorded_as_unknown() -> None:
    async with MisbehavingServer([Hang()]) as server:
        target = target_of(server.base_url)
        with opened("tui") as ledger:
            row = new_row("Slow", "3", source="tui", state=PlantState.QUEUED)
            entry = ledger.take(row)
            client = PlantStoreClient(target.base_url, target.token)
            changes: list[PlantState] = []
            queue = SendQueue(
                client, lambda p: changes.append(p.state), ledger.for_target(target.token)
            )
            runner = asyncio.create_task(queue.run())
            queued = QueuedPlant(
                number=entry,
                texts=row.texts,
                plant=row.plant,
                base_url=target.base_url,
                profile=None,
                queued_at=datetime.now(UTC),
            )
            queue.put(queued)
            await server.wait_for_requests(1)
            # The row says sending before any answer: written before the request went out.
            sending = ledger.get(entry)
            assert sending is not None
            assert (sending.state, sending.settled, sending.fate) == (
                PlantState.SENDING,
                False,
                "unknown",
            )
            queue.cancel_current()
            queue.close_when_empty()
            await runner
            await client.aclose()
            [settled] = all_rows()
            assert (settled.outcome, settled.kind, settled.fate) == (
                "failed",
                "cancelled",
                "unknown",
            )
            assert settled.state is PlantState.UNKNOWN
            assert [plant.entry for plant in ledger.attention()] == [entry]
    assert changes == [PlantState.QUEUED, PlantState.SENDING, PlantState.UNKNOWN]


def test_an_unsettled_row_says_the_outcome_is_unknown() -> None:
    with opened() as ledger:
        ledger.take(new_row("A"))
    [row] = all_rows()
    answer = row.to_json()
    assert answer["outcome"] is None
    assert answer["fate"] == "unknown"
    assert answer["state"] == "unknown", "a send whose instance ended may exist already"
    assert "it may exist already" in answer["message"]
    assert set(answer) == {*outcome_to_json(created(NewPlant(id=1, name="A"))), *ENTRY_KEYS}


def test_a_row_still_being_sent_by_a_live_instance_says_no_outcome_yet() -> None:
    with opened() as ledger:
        entry = ledger.take(new_row("A"))
        row = ledger.get(entry)
    assert row is not None
    assert (row.state, row.outcome, row.fate) == (PlantState.SENDING, None, "unknown")
    assert "No outcome recorded" in row.message


# Token ----------------------------------------------------------------------------------------


def echo_everything(request: Any) -> list[Action]:
    # A server that echoes the request, headers and all, in its body and in an Error message.
    raw = request.raw.decode("latin-1")
    return [Send(json_response(400, {"error": 1, "message": raw}))]


async def test_the_token_is_in_no_byte_of_the_data_directory_even_when_a_server_echoes_it() -> None:
    async with MisbehavingServer(echo_everything) as server:
        await send_recorded(target_of(server.base_url), NewPlant(id=5, name="Echo"))
        assert CANARY.encode() in server.requests[0].raw
    [row] = all_rows()
    assert "[token]" in (row.response or "")
    assert "[token]" in row.message
    assert CANARY not in json.dumps(row.error)
    files = [path for path in data_dir().rglob("*") if path.is_file()]
    assert ledger_file() in files
    for path in files:
        assert CANARY.encode() not in path.read_bytes(), path


# Bounded and private --------------------------------------------------------------------------


def test_the_oldest_rows_go_past_the_limit() -> None:
    with opened(limit=3) as ledger:
        for number in range(5):
            take_settled(ledger, new_row("A", str(number)))
        assert ledger.prune() == 2
        assert [row.plant_id for row in ledger.query()] == [4, 3, 2]
    with opened(limit=1):
        pass  # opening trims too
    assert [row.plant_id for row in all_rows()] == [4]


def test_the_limit_counts_rows_kept_not_entry_numbers() -> None:
    with opened(limit=3) as ledger:
        kept = [take_settled(ledger, new_row("Kept", str(number))) for number in range(3)]
        # Sent with history off: each row goes once settled, leaving its entry number unused.
        for number in range(3, 8):
            take_settled(ledger, new_row("Not kept", str(number), keep=False))
        assert ledger.prune() == 0
        assert [row.entry for row in ledger.query()] == kept[::-1]
        take_settled(ledger, new_row("Newest", "8"))
        assert ledger.prune() == 1
        assert [row.plant_id for row in ledger.query()] == [8, 2, 1]


def test_the_limit_never_prunes_a_row_somebody_still_has_to_deal_with() -> None:
    with opened("tui", limit=1) as ledger:
        waiting = take_settled(ledger, new_row("Refused", "1", source="tui"), rejected_of("1"))
        queued = ledger.take(new_row("Queued", "2", source="tui", state=PlantState.QUEUED))
        in_flight = ledger.take(new_row("Flying", "3"))
        batch = Batches(ledger).start(
            sha256="ab" * 32, base_url="http://h", profile=None, file_name="plants.csv", rows=2
        )
        [line_one, line_two] = Batches(ledger).advance(
            [], [new_row("L1", "4", source="import", batch=batch.id, line=line) for line in (1, 2)]
        )
        Batches(ledger).advance([(line_one, created_of("4"))], [])
        for number in range(5, 9):
            take_settled(ledger, new_row("Done", str(number)))
        assert ledger.prune() == 3
        kept = {row.entry for row in ledger.query()}
        assert kept == {waiting, queued, in_flight, line_one, line_two, max(kept)}
        # Dealt with: the operator dismissed it, the batch finished. Then they may go.
        assert ledger.release(waiting, "Dismissed by the test.")
        Batches(ledger).advance([(line_two, created_of("4"))], [])
        assert Batches(ledger).finish(batch)
        assert ledger.prune() == 3
        assert {row.entry for row in ledger.query()} == {queued, in_flight, max(kept)}


def created_of(plant_id: str) -> Outcome:
    return created(NewPlant(id=int(plant_id), name="A"))


def rejected_of(plant_id: str) -> Outcome:
    return rejected(NewPlant(id=int(plant_id), name="A"))


def write_profiles(text: str) -> None:
    config = Path(os.environ["PLANTSTORE_CONFIG_DIR"])
    config.mkdir(parents=True)
    (config / "profiles.toml").write_text(text)


def test_history_limit_and_history_false_are_read_from_profiles_toml(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_profiles(
        "history_limit = 2\n\n"
        '[profiles.quiet]\nbase_url = "http://127.0.0.1:9"\nhistory = false\n\n'
        '[profiles.loud]\nbase_url = "http://127.0.0.1:9"\n'
    )
    assert history_settings("quiet").enabled is False
    loud = history_settings("loud")
    assert (loud.enabled, loud.limit) == (True, 2)
    assert history_settings(None).enabled
    monkeypatch.setenv("PLANTSTORE_NO_HISTORY", "1")
    assert history_settings("loud") == history_settings("quiet")
    assert (history_settings(None).enabled, history_settings(None).limit) == (False, 2)


def test_without_profiles_toml_the_history_settings_are_the_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert history_settings(None) == HistorySettings(enabled=True, limit=DEFAULT_LIMIT)
    assert history_settings("anything") == history_settings(None)
    monkeypatch.setenv("PLANTSTORE_NO_HISTORY", "1")
    assert history_settings(None) == HistorySettings(enabled=False, limit=DEFAULT_LIMIT)


@pytest.mark.parametrize("why", ["profile", "environment"])
async def test_with_history_off_a_send_is_kept_only_until_it_is_settled(
    why: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile = None
    if why == "profile":
        write_profiles('[profiles.quiet]\nbase_url = "http://127.0.0.1:9"\nhistory = false\n')
        profile = "quiet"
    else:
        monkeypatch.setenv("PLANTSTORE_NO_HISTORY", "1")
    async with MisbehavingServer(spec_like) as server:
        target = target_of(server.base_url, profile=profile)
        told: list[str] = []
        recorder = Recorder.open("add", profile, warn=told.append)
        try:
            entry = recorder.begin(target, NewPlant(id=1, name="Quiet"))
            # Until its fate is known it is in the ledger: a crash now must not lose it.
            assert [row.entry for row in all_rows()] == [entry]
            async with PlantStoreClient(target.base_url, target.token) as client:
                recorder.settle(
                    entry, await client.create_plant(NewPlant(id=1, name="Quiet")), target
                )
            assert recorder.active
        finally:
            recorder.close()
    assert told == []
    assert all_rows() == []


def test_the_files_are_private_even_with_a_lax_umask() -> None:
    old = os.umask(0)
    try:
        with opened() as ledger:
            ledger.take(new_row())
            modes = {path.name: stat.S_IMODE(path.stat().st_mode) for path in data_dir().rglob("*")}
    finally:
        os.umask(old)
    assert stat.S_IMODE(ledger_file().stat().st_mode) == 0o600
    assert modes.pop("sessions") == 0o700
    assert modes.pop(ledger_file().name) == 0o600
    # WAL and shared memory, and this instance's session lock: all 0600.
    assert len(modes) == 3
    assert set(modes.values()) == {0o600}


def test_clear_by_profile_and_before() -> None:
    with opened() as ledger:
        old = datetime.now(UTC) - timedelta(days=10)
        for profile, at in (("a", old), ("a", None), ("b", old), (None, None)):
            take_settled(ledger, new_row(profile=profile, at=at))
        assert ledger.clear(profile="a", before=datetime.now(UTC) - timedelta(days=1)) == 1
        assert ledger.count() == 3
        assert ledger.clear(profile="b") == 1
        assert ledger.profiles() == ["a"]
        assert ledger.clear() == 2
        assert ledger.count() == 0


def test_clear_never_deletes_a_pending_row_or_a_row_of_an_unfinished_batch() -> None:
    with opened("tui") as ledger:
        refused = take_settled(ledger, new_row("Refused", "1", source="tui"), rejected_of("1"))
        unknown = take_settled(
            ledger,
            new_row("Maybe", "2", source="tui"),
            failed(NewPlant(id=2, name="Maybe"), FailureKind.TIMEOUT, PlantFate.UNKNOWN),
        )
        queued = ledger.take(new_row("Queued", "3", source="tui", state=PlantState.QUEUED))
        held = ledger.take(new_row("Held", "4", source="tui", state=PlantState.QUEUED))
        ledger.hold([held], "Held by the test.")
        in_flight = ledger.take(new_row("Flying", "5", source="add"))
        take_settled(ledger, new_row("Created", "6", source="tui"))
        take_settled(ledger, new_row("Refused by add", "7"), rejected_of("7"))
        batch = Batches(ledger).start(
            sha256="cd" * 32, base_url="http://h", profile=None, file_name="plants.csv", rows=1
        )
        [line] = Batches(ledger).advance(
            [], [new_row("L", "8", source="import", batch=batch.id, line=1)]
        )
        Batches(ledger).advance([(line, created_of("8"))], [])
        pending = {refused, unknown, queued, held, in_flight, line}

        assert ledger.clear() == 2
        assert {row.entry for row in ledger.query()} == pending
        assert ledger.clear(before=datetime.now(UTC) + timedelta(days=1)) == 0

        assert Batches(ledger).finish(batch)
        assert ledger.release(refused, "Dismissed by the test.")
        assert ledger.clear() == 2
        assert {row.entry for row in ledger.query()} == pending - {line, refused}


def test_a_restarted_import_leaves_the_earlier_unfinished_batch_to_the_history() -> None:
    with opened("import") as ledger:
        batches = Batches(ledger)
        earlier = batches.start(
            sha256="ef" * 32, base_url="http://h", profile=None, file_name="a.csv", rows=2
        )
        [line] = batches.advance([], [new_row("L", "9", source="import", batch=earlier.id, line=1)])
        batches.advance([(line, rejected_of("9"))], [])
        other = batches.start(
            sha256="01" * 32, base_url="http://h", profile=None, file_name="b.csv", rows=1
        )
        assert ledger.clear() == 0  # both unfinished: kept
        restarted = batches.start(
            sha256="ef" * 32,
            base_url="http://h",
            profile=None,
            file_name="a.csv",
            rows=2,
            replacing=earlier.id,
        )
        assert batches.latest("ef" * 32, "http://h") == restarted
        # The restarted file's earlier batch is history now; another file's is still kept.
        assert ledger.clear() == 1
        latest_other = batches.latest("01" * 32, "http://h")
        assert latest_other is not None
        assert not latest_other.finished
        assert other.id == latest_other.id


def test_filters_and_text_search() -> None:
    with opened() as ledger:
        for number, name in enumerate(["Monstera", "Fern 100%", "Fern_x"]):
            take_settled(ledger, new_row(name, str(number)))
        ledger.take(new_row("Fern in flight", "3"))
        assert [row.name for row in ledger.query(HistoryFilter(text="fern"))] == [
            "Fern in flight",
            "Fern_x",
            "Fern 100%",
        ]
        assert [row.name for row in ledger.query(HistoryFilter(text="%"))] == ["Fern 100%"]
        assert [row.name for row in ledger.query(HistoryFilter(text="_"))] == ["Fern_x"]
        assert ledger.count(HistoryFilter(plant_id=0)) == 1
        assert ledger.count(HistoryFilter(state=PlantState.CREATED)) == 3
        assert [row.plant_id for row in ledger.query(HistoryFilter(state=PlantState.SENDING))] == [
            3
        ]
        assert ledger.count(HistoryFilter(outcome="created", text="fern")) == 2
        assert [row.plant_id for row in ledger.query(limit=2, offset=1)] == [2, 1]


def test_entries_numbered_from_what_is_typed_newest_first() -> None:
    assert open_unchanged() is None
    assert not data_dir().exists()
    with opened() as ledger:
        for number in range(1, 13):
            take_settled(ledger, new_row("Fern", str(number)))
    reader = open_unchanged()
    assert reader is not None
    try:
        assert reader.db.readonly
        assert [row.entry for row in reader.numbered("1", limit=10)] == [12, 11, 10, 1]
        assert [row.entry for row in reader.numbered("", limit=3)] == [12, 11, 10]
        # Only digits: a LIKE wildcard or another script's digit finds nothing.
        for typed in ("%", "_", "1%", "\u00b9", "x"):
            assert reader.numbered(typed, limit=10) == []
    finally:
        reader.close()


# A ledger that cannot be used never stops a send ----------------------------------------------


async def off_and_told(shared: BackgroundServer, plant_id: int, sends: int = 2) -> list[str]:
    """`sends` sends recorded by one recorder: each created, recording off, the words said."""
    told: list[str] = []
    target = target_of(shared.base_url, token=shared.token.get_secret_value())
    recorder = Recorder.open("add", None, warn=told.append)
    try:
        async with PlantStoreClient(target.base_url, target.token) as client:
            for number in range(sends):
                plant = NewPlant(id=plant_id, name=f"Sent anyway {number}")
                entry = recorder.begin(target, plant)
                outcome = await client.create_plant(plant)
                recorder.settle(entry, outcome, target)
                assert entry is None
                # The first send went through; the second is refused by the server as a
                # duplicate id: either way it was sent.
                assert outcome.status == (200 if number == 0 else 400)
        assert not recorder.active
    finally:
        recorder.close()
    return told


async def test_a_corrupt_file_is_left_alone_and_the_send_goes_on(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    data_dir().mkdir(parents=True)
    garbage = b"this is not SQLite at all\n" * 100
    ledger_file().write_bytes(garbage)
    told = await off_and_told(shared_reference_server, plant_id)
    assert len(told) == 1
    assert told[0].startswith("History is off for this run")
    assert str(ledger_file()) in told[0]
    assert "not a plantstore-tui ledger" in told[0]
    assert told[0].endswith("Sends go on.")
    assert ledger_file().read_bytes() == garbage


async def test_a_read_only_file_turns_recording_off_once(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    with opened():
        pass
    before = ledger_file().read_bytes()
    with read_only(ledger_file()):
        told = await off_and_told(shared_reference_server, plant_id)
        # What it holds can still be listed.
        reader = open_for_reading()
        assert reader is not None
        assert reader.count() == 0
        reader.close()
    assert len(told) == 1
    assert "History is off for this run" in told[0]
    assert str(ledger_file()) in told[0]
    assert ledger_file().read_bytes() == before


@pytest.fixture
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """A write waits 0.2 s for another program's lock instead of 5 s."""
    defaults = database_module.connect.__kwdefaults__
    assert defaults is not None
    assert defaults["timeout"] == database_module.BUSY_TIMEOUT_SECONDS
    monkeypatch.setitem(defaults, "timeout", 0.2)


@contextmanager
def locked_by_another_program() -> Iterator[None]:
    holder = sqlite3.connect(ledger_file(), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        holder.execute("ROLLBACK")
        holder.close()


@pytest.mark.usefixtures("short_busy_timeout")
async def test_a_file_locked_before_the_run_turns_recording_off_once(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    with opened():
        pass
    with locked_by_another_program():
        told = await off_and_told(shared_reference_server, plant_id)
    assert len(told) == 1
    assert "History is off for this run" in told[0]
    assert "locked by another program for too long" in told[0]
    assert all_rows() == []
    # The session that could not be written left no lock behind.
    assert list((data_dir() / "sessions").iterdir()) == []


@pytest.mark.usefixtures("short_busy_timeout")
async def test_a_file_locked_during_the_run_turns_recording_off_once(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    told: list[str] = []
    server = shared_reference_server
    target = target_of(server.base_url, token=server.token.get_secret_value())
    recorder = Recorder.open("add", None, warn=told.append)
    try:
        assert recorder.active
        async with PlantStoreClient(target.base_url, target.token) as client:
            with locked_by_another_program():
                for name in ("First", "Second"):
                    plant = NewPlant(id=plant_id, name=name)
                    entry = recorder.begin(target, plant)
                    assert entry is None
                    recorder.settle(entry, await client.create_plant(plant), target)
        assert not recorder.active
    finally:
        recorder.close()
    assert len(told) == 1
    assert "locked by another program for too long" in told[0]
    assert all_rows() == []


async def test_a_data_dir_that_cannot_be_made_turns_recording_off(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    data_dir().parent.mkdir(parents=True, exist_ok=True)
    data_dir().write_text("a file where the directory should be")
    told = await off_and_told(shared_reference_server, plant_id)
    assert len(told) == 1
    assert "cannot be opened" in told[0]
    assert data_dir().read_text() == "a file where the directory should be"


def test_a_missing_data_dir_is_created_private() -> None:
    assert not data_dir().exists()
    with opened():
        pass
    assert stat.S_IMODE(data_dir().stat().st_mode) == 0o700


def test_a_newer_schema_is_refused_and_left_alone() -> None:
    with opened():
        pass
    with sqlite3.connect(ledger_file()) as connection:
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 98}")
    connection.close()
    before = ledger_file().read_bytes()
    with pytest.raises(StoreError, match="newer plantstore-tui"):
        open_ledger("test")
    with pytest.raises(StoreError, match="newer plantstore-tui"):
        open_for_reading()
    assert ledger_file().read_bytes() == before


def test_migrations_bring_an_empty_file_to_the_current_schema() -> None:
    data_dir().mkdir(parents=True)
    sqlite3.connect(ledger_file()).close()
    assert ledger_file().stat().st_size == 0
    with opened():
        pass
    with sqlite3.connect(ledger_file()) as connection:
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
        applied = connection.execute("SELECT version, name FROM migrations ORDER BY version")
        migrations = applied.fetchall()
    connection.close()
    assert (version, mode) == (SCHEMA_VERSION, "wal")
    assert migrations == [(number, step.name) for number, step in enumerate(MIGRATIONS, 1)]
    assert migrations[0] == (1, "plants, sessions, batches")


def test_a_second_open_applies_no_migration_again() -> None:
    with opened():
        pass
    with opened():
        pass
    with sqlite3.connect(ledger_file()) as connection:
        count = connection.execute("SELECT count(*) FROM migrations").fetchone()[0]
    connection.close()
    assert count == len(MIGRATIONS)


def test_a_file_of_the_first_schema_gains_the_proxy_and_keeps_its_rows() -> None:
    # A ledger as the release before proxies left it: only the first migration applied.
    data_dir().mkdir(parents=True)
    with sqlite3.connect(ledger_file()) as connection:
        MIGRATIONS[0].apply(connection)
        connection.execute(
            "CREATE TABLE migrations "
            "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        connection.execute("INSERT INTO migrations VALUES (1, 'plants, sessions, batches', 'x')")
        connection.execute("PRAGMA user_version = 1")
    connection.close()
    with opened("old") as ledger:
        old = take_settled(ledger, new_row("Old"))
    plant = NewPlant(id=2, name="New")
    through = replace(created(plant), proxy="http://proxy.corp:3128")
    with opened() as ledger:
        new = take_settled(ledger, new_row("New", "2"), through)
    rows = {row.entry: row for row in all_rows()}
    assert rows[old].proxy is None
    assert rows[old].name == "Old"
    assert rows[new].proxy == "http://proxy.corp:3128"
    assert rows[new].to_json()["proxy"] == "http://proxy.corp:3128"


def test_every_commit_is_synchronous_full() -> None:
    with opened() as ledger, ledger.db.read() as connection:
        # 2 is FULL: a plant shown as taken survives a power cut, not just a killed process.
        assert connection.execute("PRAGMA synchronous").fetchone()[0] == 2
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


# Instances, needs attention, and the views ----------------------------------------------------


def test_each_instance_sees_its_own_plants_and_the_orphans_in_needs_attention() -> None:
    with opened("tui") as gone:
        orphan = take_settled(gone, new_row("Orphan", "1", source="tui"), rejected_of("1"))
    first = open_ledger("tui")
    with opened("tui") as second:
        assert first.session_id != second.session_id
        mine = take_settled(first, new_row("First's", "2", source="tui"), rejected_of("2"))
        theirs = take_settled(second, new_row("Second's", "3", source="tui"), rejected_of("3"))
        assert [plant.entry for plant in first.attention()] == [orphan, mine]
        assert [plant.entry for plant in second.attention()] == [orphan, theirs]
        assert first.attention_count() == second.attention_count() == 2
        # The orphan has no session; the live plants are their instance's.
        assert [plant.session for plant in second.attention()] == [None, second.session_id]
        first.close()
        assert [plant.entry for plant in second.attention()] == [orphan, mine, theirs]
        handed = second.get(mine)
        assert handed is not None
        assert handed.session is None
        # Every TUI plant still waiting, whoever took it (what `history --pending` lists).
        assert [plant.entry for plant in second.pending()] == [orphan, mine, theirs]


def test_an_instance_that_ended_hands_its_unsettled_plants_to_the_operator() -> None:
    with opened("tui") as gone:
        queued = gone.take(new_row("Queued", "1", source="tui", state=PlantState.QUEUED))
        in_flight = gone.take(new_row("Flying", "2", source="tui"))
    with opened("tui") as next_one:
        waiting = {plant.entry: plant for plant in next_one.attention()}
        assert set(waiting) == {queued, in_flight}
        assert waiting[queued].held
        assert waiting[queued].state is PlantState.QUEUED
        assert "queued when plantstore-tui ended" in (waiting[queued].note or "")
        assert waiting[in_flight].state is PlantState.UNKNOWN
        assert "may exist already" in (waiting[in_flight].note or "")
        assert next_one.open_rows() == []


def test_release_is_done_once_whichever_instance_does_it() -> None:
    with opened("tui") as first, opened("tui") as second:
        entry = take_settled(first, new_row("Refused", "1", source="tui"), rejected_of("1"))
        assert first.release(entry, "Dismissed.")
        assert not first.release(entry, "Dismissed again.")
        assert not second.release(entry, "Dismissed by the other.")
        released = first.get(entry)
        assert released is not None
        assert (released.dismissed, released.note) == (True, "Dismissed.")
        assert first.attention() == []
        assert first.pending() == []


def test_last_created_id_is_the_latest_created_on_that_target() -> None:
    with opened() as ledger:
        assert ledger.last_created_id("http://h") is None
        take_settled(ledger, new_row("A", "5", base_url="http://h"))
        take_settled(ledger, new_row("B", "9", base_url="http://h"))
        take_settled(ledger, new_row("C", "3", base_url="http://h"))
        take_settled(ledger, new_row("D", "12", base_url="http://h"), rejected_of("12"))
        ledger.take(new_row("E", "13", base_url="http://h"))
        take_settled(ledger, new_row("F", "40", base_url="http://elsewhere"))
        # The latest created, not the largest: the operator may be filling a gap.
        assert ledger.last_created_id("http://h") == 3
        assert ledger.last_created_id("http://elsewhere") == 40
        assert ledger.last_created_id("http://nowhere") is None


# The duplicate guard --------------------------------------------------------------------------


def test_the_duplicate_warning_names_the_created_send_first() -> None:
    base = "http://h"
    at = datetime(2026, 11, 20, 9, 12, tzinfo=UTC)
    with opened() as ledger:
        entry = ledger.take(new_row("A", "42", base_url=base, at=at))
        assert "may have been created here" in (
            duplicate_warning(ledger.sent_before(base, 42)) or ""
        )
        ledger.settle(entry, created_of("42"))
        ledger.take(new_row("A", "42", base_url=base))
        words = duplicate_warning(ledger.sent_before(base, 42), now=at)
        assert ledger.sent_before("http://elsewhere", 42) == []
        take_settled(ledger, new_row("A", "43", base_url=base), rejected_of("43"))
        assert duplicate_warning(ledger.sent_before(base, 43)) is None
    local = at.astimezone()
    assert words == f"plant 42 was created here at {local:%H:%M} (history)"


# What a server sent: kept whole, listed bounded; the off-spec marks kept ----------------------

HUGE_NAME = "S" * 1_048_560


def huge_created(row: NewRow) -> Created:
    answer = Plant(name=HUGE_NAME)
    return Created(
        url=f"{row.base_url}/plants",
        sent=row.plant,
        status=200,
        elapsed_ms=1.0,
        plant=answer,
        body=json.dumps(answer.as_received()),
        off_spec=("the server stored name 'S…', not 'Rose' as sent",),
    )


def test_a_list_reads_only_the_start_of_what_a_server_sent_and_show_reads_it_whole() -> None:
    body = json.dumps({"name": HUGE_NAME})
    with opened() as ledger:
        first = new_row("Rose", "1")
        entry = take_settled(ledger, first, huge_created(first))
        second = new_row("Tulip", "2", source="tui")
        take_settled(ledger, second, rejected(second.plant, message="M" * 1_000_000))
        listed = {found.entry: found for found in ledger.query(listed=True)}
        whole = ledger.get(entry)
        [waiting] = ledger.attention()
    found = listed[entry]
    assert (len(found.response or ""), found.response_chars) == (SHOWN, len(body))
    assert found.plant is None  # too long for a list: `history show` reads it
    assert (
        found.received == f"{body[:SHOWN]}… (the body: {len(body):,} characters, first 200 shown)"
    )
    assert whole is not None
    assert (whole.response, whole.plant) == (body, {"name": HUGE_NAME})
    assert whole.received == found.received
    assert len(waiting.response or "") == SHOWN
    assert waiting.error is None
    assert "(message: 1,000,000 characters, first 200 shown)" in waiting.message


def test_the_off_spec_marks_are_kept_and_listed() -> None:
    with opened() as ledger:
        row = new_row("Rose", "1")
        entry = take_settled(ledger, row, huge_created(row))
        plain = take_settled(ledger, new_row("Fern", "2"))
        kept, fine = ledger.get(entry), ledger.get(plain)
    assert kept is not None
    assert fine is not None
    assert kept.off_spec == ("the server stored name 'S…', not 'Rose' as sent",)
    assert kept.to_json()["off_spec"] == ["the server stored name 'S…', not 'Rose' as sent"]
    assert (fine.off_spec, fine.to_json()["off_spec"]) == ((), [])


def test_a_file_of_the_schema_before_gains_the_off_spec_column() -> None:
    with opened() as ledger:
        entry = take_settled(ledger, new_row("Fern", "1"))
    as_before("plants.off_spec")
    with opened() as ledger:
        found = ledger.get(entry)
    assert found is not None
    # Settled before the marks were kept: not known, rather than none.
    assert (found.off_spec, found.to_json()["off_spec"]) == (None, None)
