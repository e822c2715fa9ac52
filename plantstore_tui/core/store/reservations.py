"""Ids handed out across processes: the id a running instance offers (the TUI's next id) or is
about to send without being given one (`add` without `--id`), reserved in the ledger.

A reservation belongs to a session; at most one a session. It is taken in the same transaction
that reads which ids are free (`core/sending/next_id.py`), so two instances on one data directory
never hand out the same id, and it goes with its session (ended, or found dead by its lock).
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from plantstore_tui.core.store.records import format_time, utc_now
from plantstore_tui.core.store.sessions import live_session

if TYPE_CHECKING:
    from plantstore_tui.core.store.database import Database


def held_by_others(
    db: Database, connection: sqlite3.Connection, base_url: str, session: int | None
) -> set[int]:
    """The ids on this target that other live instances hold; the reservations of instances
    that are gone are dropped (on `connection`, inside the caller's write transaction)."""
    rows = connection.execute(
        "SELECT plant_id, session FROM reservations WHERE base_url = ? AND session IS NOT ?",
        (base_url, session),
    ).fetchall()
    holders = {holder for _, holder in rows}
    alive = {holder for holder in holders if live_session(db, connection, holder) is not None}
    gone = holders - alive
    if gone:
        marks = ", ".join("?" for _ in gone)
        connection.execute(
            f"DELETE FROM reservations WHERE session IN ({marks})",  # noqa: S608
            sorted(gone),
        )
    return {plant_id for plant_id, holder in rows if holder in alive}


def hold(
    connection: sqlite3.Connection, session: int | None, base_url: str, plant_id: int | None
) -> None:
    """This session's reservation is now `plant_id` on `base_url` (None: it holds none)."""
    if session is None:
        return
    connection.execute("DELETE FROM reservations WHERE session = ?", (session,))
    if plant_id is not None:
        connection.execute(
            "INSERT INTO reservations (base_url, plant_id, session, reserved_at) "
            "VALUES (?, ?, ?, ?)",
            (base_url, plant_id, session, format_time(utc_now())),
        )
