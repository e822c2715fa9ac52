"""The statements that write a plant's row, shared by single sends and import windows."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.plant.outcome import Created, Rejected, outcome_to_json
from plantstore_tui.core.store.operator import this_operator
from plantstore_tui.core.store.records import PlantState, format_time, state_of, utc_now

if TYPE_CHECKING:
    from plantstore_tui.core.plant.models import NewPlant
    from plantstore_tui.core.plant.outcome import Outcome

Redact = Callable[[str], str]


@dataclass(frozen=True, slots=True, kw_only=True)
class NewRow:
    """A plant a front end takes: what is written before anything is acknowledged or sent."""

    source: str
    texts: FormTexts
    plant: NewPlant
    base_url: str
    profile: str | None
    state: PlantState = PlantState.QUEUED
    keep: bool = True
    held: bool = False
    note: str | None = None
    log_ref: str | None = None
    batch: int | None = None
    line: int | None = None
    at: datetime | None = None
    typed: bool = False
    """Typed in the TUI's form (not loaded into it from needs attention or the history)."""
    verified: int | None = None
    """Keyed twice and compared (verified entry): how many fields the operator corrected;
    None when it was keyed once."""


# The columns a new row is written with, in the order of `insert_values` (an import window
# writes many rows in one statement with them: batches.py).
INSERT_COLUMNS = (
    "session, source, profile, base_url, name_text, id_text, tag_text, plant_id, name, tag, body, "
    "state, held, keep, note, log_ref, batch, line, queued_at, sent_at, typed, tries, "
    "operator, host, verified"
)
_MARKS = ", ".join("?" for _ in INSERT_COLUMNS.split(", "))
_INSERT = f"INSERT INTO plants ({INSERT_COLUMNS}) VALUES ({_MARKS})"  # noqa: S608
# Verified entry's first keying, one an instance (schema.py `keyings`).
_KEEP_KEYING = f"INSERT OR REPLACE INTO keyings ({INSERT_COLUMNS}) VALUES ({_MARKS})"  # noqa: S608
# What a first keying becomes when its instance ended before its second keying.
KEYING_WHEN_ENDED = (
    "Keyed once, not verified: plantstore-tui ended before its second keying. Load it to key "
    "it again, or dismiss it."
)


def insert_values(row: NewRow, session: int | None) -> tuple[Any, ...]:
    """The values of `INSERT_COLUMNS` for one new row."""
    now = format_time(row.at or utc_now())
    taker = this_operator()
    return (
        session,
        row.source,
        row.profile,
        row.base_url,
        row.texts.name,
        row.texts.id,
        row.texts.tag,
        row.plant.id,
        row.plant.name,
        row.plant.tag,
        row.plant.body_bytes(),
        row.state.value,
        int(row.held),
        int(row.keep),
        row.note,
        row.log_ref,
        row.batch,
        row.line,
        now,
        now if row.state is PlantState.SENDING else None,
        int(row.typed),
        int(row.state is PlantState.SENDING),
        taker.user,
        taker.host,
        row.verified,
    )


def keep_keying(db: sqlite3.Connection, row: NewRow, session: int) -> None:
    """Keep an instance's first keying (in place of the one before, if any)."""
    db.execute(_KEEP_KEYING, insert_values(row, session))


def insert(db: sqlite3.Connection, row: NewRow, session: int | None) -> int:
    """Write one new row; its entry number."""
    cursor = db.execute(_INSERT, insert_values(row, session))
    entry = cursor.lastrowid
    assert entry is not None
    return entry


# The columns a settled row is written with, in the order of `settle_values`.
SETTLE_COLUMNS = (
    "state",
    "settled_at",
    "outcome",
    "status",
    "response",
    "elapsed_ms",
    "kind",
    "fate",
    "message",
    "plant",
    "error",
    "proxy",
    "off_spec",
)
_SETTLE = (
    f"UPDATE plants SET {', '.join(f'{name} = ?' for name in SETTLE_COLUMNS)} "  # noqa: S608
    "WHERE entry = ?"
)


# A try going out (the first or another): sending, as if an earlier answer had never come, and
# counted. Its one placeholder is the time it goes.
SENDING = "state = 'sending', sent_at = ?, tries = tries + 1, " + ", ".join(
    f"{name} = NULL" for name in SETTLE_COLUMNS if name != "state"
)


def mark_sending(db: sqlite3.Connection, entry: int, *, only_queued: bool = False) -> bool:
    """The request is about to go out; with `only_queued`, only if the row is still queued and
    not held. Whether the row was marked."""
    condition = " AND state = 'queued' AND held = 0" if only_queued else ""
    return (
        db.execute(
            f"UPDATE plants SET {SENDING} WHERE entry = ?{condition}",  # noqa: S608
            (format_time(utc_now()), entry),
        ).rowcount
        == 1
    )


def settle_values(outcome: Outcome, redact: Redact) -> tuple[PlantState, tuple[Any, ...]]:
    """The state an outcome leaves the row in, and the values of `SETTLE_COLUMNS`; `redact`
    takes out of every text what must not be kept."""
    answer = outcome_to_json(outcome)
    plant = error = None
    if isinstance(outcome, Created):
        plant = redact(json.dumps(answer["plant"], ensure_ascii=False))
    elif isinstance(outcome, Rejected) and answer["error"] is not None:
        error = redact(json.dumps(answer["error"], ensure_ascii=False))
    state = state_of(outcome)
    return state, (
        state.value,
        format_time(utc_now()),
        answer["outcome"],
        answer["status"],
        redact(outcome.body),
        answer["elapsed_ms"],
        answer["kind"],
        answer["fate"],
        redact(answer["message"]),
        plant,
        error,
        outcome.proxy,
        redact(json.dumps(answer["off_spec"], ensure_ascii=False)),
    )


def settle(db: sqlite3.Connection, entry: int, outcome: Outcome, redact: Redact) -> PlantState:
    """Write how the send ended; `redact` takes out of every text what must not be kept."""
    state, values = settle_values(outcome, redact)
    db.execute(_SETTLE, (*values, entry))
    return state
