"""Helpers for the ledger and history tests: rows taken as a front end takes them, settled with
real outcomes, and the ledger file of the isolated data directory."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.plant.models import ApiError, NewPlant, Plant, parse_new_plant
from plantstore_tui.core.plant.outcome import (
    Created,
    Failed,
    FailureKind,
    Outcome,
    PlantFate,
    Rejected,
)
from plantstore_tui.core.store import (
    LEDGER_FILE,
    HistoryEntry,
    Ledger,
    PlantState,
    open_for_reading,
    open_ledger,
)
from plantstore_tui.core.store.rows import NewRow
from plantstore_tui.core.store.schema import MIGRATIONS

BASE_URL = "http://127.0.0.1:9"
# What a history entry's JSON adds to the outcome's JSON (`add --json`).
ENTRY_KEYS = frozenset(
    {
        "entry",
        "time",
        "source",
        "profile",
        "base_url",
        "state",
        "held",
        "dismissed",
        "note",
        "batch",
        "line",
        "tries",
        "verified",
        "sent_again_as",
    }
)


def data_dir() -> Path:
    """The isolated data directory of this test (conftest sets PLANTSTORE_DATA_DIR)."""
    return Path(os.environ["PLANTSTORE_DATA_DIR"])


def ledger_file() -> Path:
    """The ledger in that directory."""
    return data_dir() / LEDGER_FILE


# What undoes each migration after the first: a ledger file as an older release wrote it.
_UNDONE = {
    "plants.proxy": ["ALTER TABLE plants DROP COLUMN proxy"],
    "plants.off_spec": ["ALTER TABLE plants DROP COLUMN off_spec"],
    "plants.typed": ["DROP INDEX plants_typed", "ALTER TABLE plants DROP COLUMN typed"],
    "plants.tries": ["ALTER TABLE plants DROP COLUMN tries"],
    "plants.operator": [
        "ALTER TABLE plants DROP COLUMN host",
        "ALTER TABLE plants DROP COLUMN operator",
    ],
    "plants.verified": ["ALTER TABLE plants DROP COLUMN verified"],
    "keyings": ["DROP TABLE keyings"],
    "probes": ["DROP TABLE probes"],
    "syncs": ["DROP TABLE syncs"],
    "reservations": ["DROP TABLE reservations"],
    "plants.sent_again_as": ["ALTER TABLE plants DROP COLUMN sent_again_as"],
    "batches.owner": ["ALTER TABLE batches DROP COLUMN owner"],
    "probes.method, probes.path": [
        "ALTER TABLE probes DROP COLUMN method",
        "ALTER TABLE probes DROP COLUMN path",
    ],
    "probes.timings": ["ALTER TABLE probes DROP COLUMN timings"],
}


def as_before(migration: str) -> None:
    """Make the ledger file as it was before `migration` and the ones after it (closed)."""
    names = [step.name for step in MIGRATIONS]
    assert set(names[1:]) == set(_UNDONE), "a new migration needs its undoing here"
    before = names.index(migration)
    with closing(sqlite3.connect(ledger_file())) as connection, connection:
        for name in reversed(names[before:]):
            for statement in _UNDONE[name]:
                connection.execute(statement)
        connection.execute("DELETE FROM migrations WHERE version > ?", (before,))
        connection.execute(f"PRAGMA user_version = {before}")


def all_rows() -> list[HistoryEntry]:
    """Every row of the ledger, newest first, read as `history` reads it (none: no ledger)."""
    ledger = open_for_reading()
    if ledger is None:
        return []
    try:
        return ledger.query()
    finally:
        ledger.close()


@contextmanager
def opened(program: str = "test", **options: Any) -> Iterator[Ledger]:
    """The ledger as an instance of `program` opens it, closed (its session ended) after."""
    ledger = open_ledger(program, **options)
    try:
        yield ledger
    finally:
        ledger.close()


def created(plant: NewPlant, base_url: str = BASE_URL) -> Created:
    """The server created `plant`."""
    answer = Plant(name=plant.name) if plant.tag is None else Plant(name=plant.name, tag=plant.tag)
    return Created(
        url=f"{base_url}/plants",
        sent=plant,
        status=200,
        elapsed_ms=1.5,
        plant=answer,
        body=json.dumps(answer.as_received()),
    )


def rejected(
    plant: NewPlant, status: int = 400, base_url: str = BASE_URL, message: str | None = None
) -> Rejected:
    """The server refused `plant` with an Error body (saying `message`, if given)."""
    error = ApiError(error=1003, message=message or f"refused with {status}")
    return Rejected(
        url=f"{base_url}/plants",
        sent=plant,
        status=status,
        elapsed_ms=2.5,
        error=error,
        body=json.dumps(error.as_received()),
    )


def failed(
    plant: NewPlant,
    kind: FailureKind = FailureKind.CANNOT_CONNECT,
    fate: PlantFate = PlantFate.NOT_CREATED,
    base_url: str = BASE_URL,
) -> Failed:
    """No usable answer for `plant`."""
    return Failed(
        url=f"{base_url}/plants",
        sent=plant,
        kind=kind,
        message=f"Failed: {kind.value}",
        fate=fate,
        advice="Try again.",
    )


def new_row(
    name: str = "Fern",
    id: str = "1",
    tag: str = "",
    *,
    source: str = "add",
    state: PlantState = PlantState.SENDING,
    base_url: str = BASE_URL,
    profile: str | None = None,
    keep: bool = True,
    at: datetime | None = None,
    batch: int | None = None,
    line: int | None = None,
) -> NewRow:
    """A plant as a front end takes it: the fields exactly as typed, parsed as every front end
    parses them."""
    plant = parse_new_plant(name=name, id=id, tag=tag)
    assert isinstance(plant, NewPlant), plant
    return NewRow(
        source=source,
        texts=FormTexts(name=name, id=id, tag=tag),
        plant=plant,
        base_url=base_url,
        profile=profile,
        state=state,
        keep=keep,
        at=at,
        batch=batch,
        line=line,
    )


def take_settled(ledger: Ledger, row: NewRow, outcome: Outcome | None = None) -> int:
    """Take `row` and settle it (created unless told otherwise); its entry."""
    entry = ledger.take(row)
    ledger.settle(entry, created(row.plant, row.base_url) if outcome is None else outcome)
    return entry


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


def ledger_rows(data: Path) -> list[tuple[str, str, str, str, int]]:
    """(name, id, tag as typed, state, held) of every plant in the ledger in `data`, in the order
    taken, read as another process reads the file: committed rows only, read-only. None yet
    while the program has not made its ledger (no file, or its tables not yet committed)."""
    path = data / LEDGER_FILE
    if not path.exists():
        return []
    uri = path.resolve().as_uri() + "?mode=ro"
    with closing(sqlite3.connect(uri, uri=True)) as connection:
        try:
            return connection.execute(
                "SELECT name_text, id_text, tag_text, state, held FROM plants ORDER BY entry"
            ).fetchall()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return []
            raise
