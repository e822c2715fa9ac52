"""The previous release's files, taken into the ledger once: `history.sqlite3`,
`import-journal.sqlite3` and `recovery/recovery-*.json` in the same data directory.

They are read, never changed or deleted; each file taken is recorded in the ledger so a second
start does not take it again. A file that cannot be read is named in words and skipped (and
named again on the next start, until it is readable or removed).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plantstore_tui.core.plant.form import FormErrors
from plantstore_tui.core.plant.models import parse_new_plant
from plantstore_tui.core.store.database import Database
from plantstore_tui.core.store.old_files import (
    Unreadable,
    import_names,
    open_old,
    read_recovery,
    utc_time,
)
from plantstore_tui.core.store.old_release import (
    OLD_HISTORY,
    OLD_JOURNAL,
    OLD_RECOVERY_DIR,
    previous_release_files,
)
from plantstore_tui.core.store.records import PlantState, format_time, utc_now
from plantstore_tui.core.store.rows import INSERT_COLUMNS, SETTLE_COLUMNS
from plantstore_tui.core.store.sessions import QUEUED_WHEN_ENDED, SENDING_WHEN_ENDED

_UNSETTLED_NOTE = "No outcome recorded: plantstore-tui ended during the send; it may exist already."
_JOURNAL_NOTE = "Carried over from the import journal, which kept the id only."


@dataclass(slots=True)
class CarryOver:
    """What was taken in on this open, and the files that could not be read."""

    plants: int = 0
    files: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def carry_over_previous_release(db: Database) -> CarryOver:
    """Take in every file of the previous release not taken before (never changing them)."""
    report = CarryOver()
    if db.in_memory:
        return report
    directory = db.path.parent
    found = previous_release_files(directory)
    if not found:
        return report
    with db.read() as connection:
        done = {row[0] for row in connection.execute("SELECT name FROM carried_over")}
    waiting = [name for name in found if name not in done]
    if not waiting:
        return report
    with db.write() as connection:
        # Read again under the write lock: another instance may have taken them meanwhile.
        done = {row[0] for row in connection.execute("SELECT name FROM carried_over")}
        waiting = [name for name in waiting if name not in done]
        for name in waiting:
            if name.startswith(OLD_RECOVERY_DIR):
                _take(connection, report, name, _reader(_recovery, connection, directory / name))
        in_flight = _recovered_in_flight(connection)
        if OLD_JOURNAL in waiting:
            _take(
                connection,
                report,
                OLD_JOURNAL,
                lambda: _journal(connection, directory / OLD_JOURNAL, directory / OLD_HISTORY),
            )
        journal_carried = OLD_JOURNAL in waiting or OLD_JOURNAL in done
        if OLD_HISTORY in waiting:
            _take(
                connection,
                report,
                OLD_HISTORY,
                lambda: _history(connection, directory / OLD_HISTORY, journal_carried, in_flight),
            )
    return report


def _reader(
    read: Callable[[sqlite3.Connection, Path], int], connection: sqlite3.Connection, path: Path
) -> Callable[[], int]:
    return lambda: read(connection, path)


def _take(
    connection: sqlite3.Connection, report: CarryOver, name: str, read: Callable[[], int]
) -> None:
    connection.execute("SAVEPOINT carry")
    try:
        plants = read()
    except (Unreadable, sqlite3.Error, OSError, UnicodeDecodeError) as exc:
        connection.execute("ROLLBACK TO carry")
        connection.execute("RELEASE carry")
        words = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        report.problems.append(f"{name}: cannot be read ({words}); skipped, left as it is")
        return
    connection.execute(
        "INSERT INTO carried_over (name, carried_at, plants) VALUES (?, ?, ?)",
        (name, format_time(utc_now()), plants),
    )
    connection.execute("RELEASE carry")
    report.plants += plants
    report.files.append(name)


# The columns a front end writes (rows.py), and the operator's say that only a carried row sets.
_COLUMNS = frozenset({*INSERT_COLUMNS.split(", "), *SETTLE_COLUMNS, "dismissed"})


def _insert(connection: sqlite3.Connection, **values: Any) -> None:
    """One carried plant; a column not named keeps its default (NULL, or 0 for the flags)."""
    names = sorted(values)
    assert set(names) <= _COLUMNS, set(names) - _COLUMNS
    marks = ", ".join("?" for _ in names)
    # Column names from the fixed set above; every value is a bound parameter.
    connection.execute(
        f"INSERT INTO plants ({', '.join(names)}) VALUES ({marks})",  # noqa: S608
        [values[name] for name in names],
    )


def _plant_columns(
    profile: str | None, base_url: str, plant_id: int, name: str, tag: str | None
) -> dict[str, Any]:
    """Where a carried plant went and its fields; the old files kept no form text, so the texts
    are the values."""
    return {
        "profile": profile,
        "base_url": base_url,
        "name_text": name,
        "id_text": str(plant_id),
        "tag_text": tag or "",
        "plant_id": plant_id,
        "name": name,
        "tag": tag,
    }


def _settled_state(outcome: str | None, fate: str | None) -> PlantState:
    if outcome == "created":
        return PlantState.CREATED
    if fate == "not created":
        return PlantState.REJECTED if outcome == "rejected" else PlantState.FAILED
    return PlantState.UNKNOWN


def _history(
    connection: sqlite3.Connection,
    path: Path,
    journal_carried: bool,
    in_flight: set[tuple[str, int, str]],
) -> int:
    old = open_old(path)
    try:
        found = old.execute(
            "SELECT time, source, profile, base_url, plant_id, name, tag, body, log_ref, state, "
            "outcome, status, response, elapsed_ms, kind, fate, message, plant, error "
            "FROM sends ORDER BY entry"
        ).fetchall()
    finally:
        old.close()
    taken = 0
    for row in found:
        (time, source, profile, base_url, plant_id, name, tag, body, log_ref, state) = row[:10]
        outcome, status, response, elapsed_ms, kind, fate, message, plant, error = row[10:]
        if source == "import" and journal_carried:
            continue  # the journal's rows stand for these, with their batch and line
        settled = state == "settled"
        new_state = _settled_state(outcome, fate) if settled else PlantState.UNKNOWN
        # The previous release showed a settled send to the operator when it ended; a send it
        # never settled was never offered again: that one waits for the operator now, unless
        # a recovery file already brought it back.
        pending = not settled and source == "tui" and (base_url, plant_id, name) not in in_flight
        _insert(
            connection,
            source=source,
            **_plant_columns(profile, base_url, plant_id, name, tag),
            body=bytes(body),
            state=new_state.value,
            dismissed=int(not pending),
            note=None if settled else _UNSETTLED_NOTE,
            log_ref=log_ref,
            queued_at=time,
            sent_at=time,
            settled_at=time if settled else None,
            outcome=outcome,
            status=status,
            response=response,
            elapsed_ms=elapsed_ms,
            kind=kind,
            fate=fate if settled else "unknown",
            message=message,
            plant=plant,
            error=error,
        )
        taken += 1
    return taken


def _journal(connection: sqlite3.Connection, path: Path, history_path: Path) -> int:
    names = import_names(history_path)
    old = open_old(path)
    try:
        batches = old.execute(
            "SELECT id, sha256, base_url, profile, file_name, rows, started_at FROM batches "
            "ORDER BY id"
        ).fetchall()
        lines = old.execute(
            "SELECT batch_id, line, plant_id, state, status, message, updated_at "
            "FROM batch_rows ORDER BY batch_id, line"
        ).fetchall()
    finally:
        old.close()
    renumbered: dict[int, tuple[int, str, str | None]] = {}
    for batch_id, sha256, base_url, profile, file_name, count, started in batches:
        done = sum(1 for row in lines if row[0] == batch_id and row[3] in ("created", "rejected"))
        cursor = connection.execute(
            "INSERT INTO batches (sha256, base_url, profile, file_name, rows, started_at, "
            "finished) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (sha256, base_url, profile, file_name, count, utc_time(started), int(done >= count)),
        )
        assert cursor.lastrowid is not None
        renumbered[batch_id] = (cursor.lastrowid, base_url, profile)
    for batch_id, line, plant_id, state, status, message, updated in lines:
        batch, base_url, profile = renumbered[batch_id]
        name, tag, body = names.get((base_url, plant_id), ("", None, b"null"))
        new_state = PlantState.UNKNOWN if state == "sending" else PlantState(state)
        outcome = {"created": "created", "rejected": "rejected"}.get(state, "failed")
        when = utc_time(updated)
        note = _JOURNAL_NOTE if body == b"null" else None
        if state == "sending":
            note = SENDING_WHEN_ENDED
        _insert(
            connection,
            source="import",
            **_plant_columns(profile, base_url, plant_id, name, tag),
            body=body,
            state=new_state.value,
            dismissed=1,
            note=note,
            batch=batch,
            line=line,
            queued_at=when,
            sent_at=when,
            settled_at=None if state == "sending" else when,
            outcome=None if state == "sending" else outcome,
            status=status,
            fate={"created": "created", "rejected": "not created", "failed": "not created"}.get(
                state, "unknown"
            ),
            message=message or None,
        )
    return len(lines)


def _recovered_in_flight(connection: sqlite3.Connection) -> set[tuple[str, int, str]]:
    found = connection.execute(
        "SELECT base_url, plant_id, name FROM plants WHERE source = 'tui' AND session IS NULL "
        "AND note = ?",
        (SENDING_WHEN_ENDED,),
    )
    return {(url, plant_id, name) for url, plant_id, name in found}


def _recovery(connection: sqlite3.Connection, path: Path) -> int:
    plants = read_recovery(path)
    for number, item in enumerate(plants, 1):
        parsed = parse_new_plant(name=item["name"], id=item["id"], tag=item["tag"])
        if isinstance(parsed, FormErrors):
            words = "; ".join(parsed.errors.values())
            raise Unreadable(f"plant {number} no longer makes a plant: {words}")
        state = item["state"]
        held = state in ("queued", "held")
        new_state = PlantState.QUEUED if held else PlantState(state)
        note = {"queued": QUEUED_WHEN_ENDED, "sending": SENDING_WHEN_ENDED}.get(
            state, item["reason"] or None
        )
        if state == "sending":
            new_state = PlantState.UNKNOWN
        when = utc_time(item["queued_at"])
        _insert(
            connection,
            source="tui",
            profile=item["profile"],
            base_url=item["base_url"],
            name_text=item["name"],
            id_text=item["id"],
            tag_text=item["tag"],
            plant_id=parsed.id,
            name=parsed.name,
            tag=parsed.tag,
            body=parsed.body_bytes(),
            state=new_state.value,
            held=int(held),
            note=note,
            queued_at=when,
            fate="unknown" if new_state is PlantState.UNKNOWN else None,
            message=item["reason"] or None,
        )
    return len(plants)
