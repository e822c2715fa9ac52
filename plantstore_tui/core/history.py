"""The history: every send remembered in `history.sqlite3` in the user data directory.

A row is written before the request goes out (state `sending`, fate unknown) and settled when the
outcome is known, so a process killed mid-send leaves a row saying the plant may or may not exist.
The file is SQLite in WAL mode with a busy timeout, so several running instances (two TUIs, a loop
of `add`) write side by side and lose no row. It never holds the token, nor any header.

`History` raises `HistoryError` with words for every SQLite or file failure; the front ends use it
through `Journal` (core/journal.py), which turns history off for the run instead of failing a send.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from plantstore_tui.core.config_files import data_dir
from plantstore_tui.core.history_records import (
    COLUMNS,
    OUTCOMES,
    HistoryEntry,
    HistoryFilter,
    body_bytes,
    entry_from_row,
    format_time,
    utc_now,
)

__all__ = [
    "BUSY_TIMEOUT_SECONDS",
    "DEFAULT_LIMIT",
    "OUTCOMES",
    "SCHEMA_VERSION",
    "History",
    "HistoryEntry",
    "HistoryError",
    "HistoryFilter",
    "body_bytes",
    "format_time",
    "history_path",
    "open_for_reading",
    "utc_now",
]

if TYPE_CHECKING:
    from plantstore_tui.core.models import NewPlant
    from plantstore_tui.core.outcome import Outcome

HISTORY_FILE = "history.sqlite3"
DEFAULT_LIMIT = 100_000
# How long a write waits for another instance's write before history is turned off for the run.
BUSY_TIMEOUT_SECONDS = 5.0
_PRIVATE_MODE = 0o600

# Each migration takes the schema from its index to the next version; never edit a released one.
_MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE sends (
        entry INTEGER PRIMARY KEY AUTOINCREMENT,
        time TEXT NOT NULL,
        source TEXT NOT NULL,
        profile TEXT,
        base_url TEXT NOT NULL,
        plant_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        tag TEXT,
        body BLOB NOT NULL,
        log_ref TEXT,
        state TEXT NOT NULL DEFAULT 'sending',
        outcome TEXT,
        status INTEGER,
        response TEXT,
        elapsed_ms REAL,
        kind TEXT,
        fate TEXT NOT NULL DEFAULT 'unknown',
        message TEXT,
        plant TEXT,
        error TEXT
    );
    CREATE INDEX sends_by_target_and_id ON sends (base_url, plant_id);
    CREATE INDEX sends_by_profile ON sends (profile, entry);
    """,
)
SCHEMA_VERSION = len(_MIGRATIONS)


class HistoryError(Exception):
    """The history file cannot be opened, read or written; the message names the file and why."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def history_path() -> Path:
    """`history.sqlite3` in the user data directory (`PLANTSTORE_DATA_DIR` if set)."""
    return data_dir() / HISTORY_FILE


class History:
    """The `sends` table of one history file; every method raises `HistoryError` on failure.

    One connection, shared by the threads of one process under a lock (the TUI writes from a
    worker thread so a busy file never holds up the screen).
    """

    def __init__(
        self,
        path: Path | None = None,
        *,
        limit: int = DEFAULT_LIMIT,
        readonly: bool = False,
        timeout: float | None = None,
    ) -> None:
        self.path = path if path is not None else history_path()
        self.limit = limit
        self._lock = threading.Lock()
        wait = BUSY_TIMEOUT_SECONDS if timeout is None else timeout
        self._connection = self._open(readonly, wait)

    def _open(self, readonly: bool, timeout: float) -> sqlite3.Connection:
        if readonly:
            if not self.path.exists():
                raise HistoryError(self.path, "there is no history yet")
            uri = self.path.resolve().as_uri() + "?mode=ro"
            return self._checked(
                lambda: sqlite3.connect(uri, uri=True, timeout=timeout, check_same_thread=False),
                False,
            )
        self._create_private()
        return self._checked(
            lambda: sqlite3.connect(self.path, timeout=timeout, check_same_thread=False), True
        )

    def _create_private(self) -> None:
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            # Created 0600 before SQLite opens it: SQLite gives its -wal and -shm files the same
            # mode as the database.
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, _PRIVATE_MODE)
        except OSError as exc:
            raise HistoryError(self.path, f"cannot be opened ({exc.strerror})") from None
        try:
            if os.fstat(fd).st_mode & 0o077:
                os.fchmod(fd, _PRIVATE_MODE)
        except OSError:
            pass  # not ours to change (another user's file we may write): leave its mode be
        finally:
            os.close(fd)

    def _checked(
        self, connect: Callable[[], sqlite3.Connection], writable: bool
    ) -> sqlite3.Connection:
        try:
            connection = connect()
        except sqlite3.Error as exc:
            raise HistoryError(self.path, _reason(exc)) from None
        try:
            # Deleted rows are overwritten, not left in free pages (`history clear` means it).
            connection.execute("PRAGMA secure_delete=ON")
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise HistoryError(
                    self.path,
                    f"written by a newer plantstore-tui (schema {version}; this one knows "
                    f"{SCHEMA_VERSION}); it is left as it is",
                )
            if writable:
                if _wal_mode(connection) != "wal":
                    raise HistoryError(self.path, "cannot be put in WAL mode")
                connection.execute("PRAGMA synchronous=NORMAL")
                self._migrate(connection, version)
            elif version < SCHEMA_VERSION:
                raise HistoryError(self.path, "has an older schema; open it once writable")
            connection.execute(f"SELECT {COLUMNS} FROM sends LIMIT 0")  # noqa: S608 (constants)
        except sqlite3.Error as exc:
            connection.close()
            raise HistoryError(self.path, _reason(exc)) from None
        except HistoryError:
            connection.close()
            raise
        return connection

    def _migrate(self, connection: sqlite3.Connection, version: int) -> None:
        if version == SCHEMA_VERSION:
            return
        # BEGIN IMMEDIATE: two instances starting on a new file must not both create the table.
        connection.execute("BEGIN IMMEDIATE")
        try:
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            for migration in _MIGRATIONS[version:]:
                for statement in migration.split(";"):
                    if statement.strip():
                        connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise

    def close(self) -> None:
        """Close the file."""
        with self._lock, contextlib.suppress(sqlite3.Error):
            self._connection.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                with self._connection:
                    yield self._connection
            except sqlite3.Error as exc:
                raise HistoryError(self.path, _reason(exc)) from None

    def begin(
        self,
        *,
        source: str,
        profile: str | None,
        base_url: str,
        plant: NewPlant,
        log_ref: str | None = None,
        at: datetime | None = None,
    ) -> int:
        """Record a send about to go out (fate unknown until settled); returns its entry number."""
        values = (
            format_time(at or utc_now()),
            source,
            profile,
            base_url,
            plant.id,
            plant.name,
            plant.tag,
            body_bytes(plant),
            log_ref,
        )
        with self._transaction() as connection:
            cursor = connection.execute(
                "INSERT INTO sends (time, source, profile, base_url, plant_id, name, tag, body, "
                "log_ref) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            )
            entry = cursor.lastrowid
            assert entry is not None
            # AUTOINCREMENT numbers never come back, so this keeps the newest `limit` rows
            # without counting the table.
            connection.execute("DELETE FROM sends WHERE entry <= ?", (entry - self.limit,))
        return entry

    def settle(self, entry: int, outcome: Outcome, *, redact: Callable[[str], str] = str) -> None:
        """Record how a send ended; `redact` takes out of every text anything it must not keep."""
        from plantstore_tui.core.outcome import Created, Rejected, outcome_to_json

        answer = outcome_to_json(outcome)
        plant = error = None
        if isinstance(outcome, Created):
            plant = redact(json.dumps(answer["plant"], ensure_ascii=False))
        elif isinstance(outcome, Rejected) and answer["error"] is not None:
            error = redact(json.dumps(answer["error"], ensure_ascii=False))
        with self._transaction() as connection:
            connection.execute(
                "UPDATE sends SET state = 'settled', outcome = ?, status = ?, response = ?, "
                "elapsed_ms = ?, kind = ?, fate = ?, message = ?, plant = ?, error = ? "
                "WHERE entry = ?",
                (
                    answer["outcome"],
                    answer["status"],
                    redact(outcome.body),
                    answer["elapsed_ms"],
                    answer["kind"],
                    answer["fate"],
                    redact(answer["message"]),
                    plant,
                    error,
                    entry,
                ),
            )

    def set_log_ref(self, entry: int, log_ref: str) -> None:
        """Name the front end's own record of the send (e.g. its log entry)."""
        with self._transaction() as connection:
            connection.execute("UPDATE sends SET log_ref = ? WHERE entry = ?", (log_ref, entry))

    def query(
        self, where: HistoryFilter | None = None, *, limit: int | None = None, offset: int = 0
    ) -> list[HistoryEntry]:
        """Matching sends, newest first."""
        condition, values = (where or HistoryFilter()).where()
        # Built from constant fragments only: every value the operator gave is a bound parameter.
        sql = f"SELECT {COLUMNS} FROM sends WHERE {condition} ORDER BY entry DESC"  # noqa: S608
        if limit is not None:
            sql += " LIMIT ? OFFSET ?"
            values = [*values, limit, offset]
        with self._transaction() as connection:
            return [entry_from_row(row) for row in connection.execute(sql, values)]

    def count(self, where: HistoryFilter | None = None) -> int:
        """How many sends match."""
        condition, values = (where or HistoryFilter()).where()
        with self._transaction() as connection:
            found: int = connection.execute(
                f"SELECT count(*) FROM sends WHERE {condition}",  # noqa: S608 (as in query)
                values,
            ).fetchone()[0]
        return found

    def get(self, entry: int) -> HistoryEntry | None:
        """One send by its entry number."""
        found = self.query(HistoryFilter(entry=entry))
        return found[0] if found else None

    def profiles(self) -> list[str]:
        """The profile names that appear in the history."""
        with self._transaction() as connection:
            rows = connection.execute(
                "SELECT DISTINCT profile FROM sends WHERE profile IS NOT NULL ORDER BY profile"
            )
            return [row[0] for row in rows]

    def clear(self, *, profile: str | None = None, before: datetime | None = None) -> int:
        """Delete sends (of one profile, older than a moment, or all); returns how many."""
        clauses, values = ["1"], list[Any]()
        if profile is not None:
            clauses.append("profile = ?")
            values.append(profile)
        if before is not None:
            clauses.append("time < ?")
            values.append(format_time(before))
        with self._transaction() as connection:
            condition = " AND ".join(clauses)
            cursor = connection.execute(f"DELETE FROM sends WHERE {condition}", values)  # noqa: S608
            return cursor.rowcount

    def sent_before(self, base_url: str, plant_id: int) -> list[HistoryEntry]:
        """Earlier sends of this id to this base URL that created it or may have, newest first."""
        with self._transaction() as connection:
            rows = connection.execute(
                f"SELECT {COLUMNS} FROM sends WHERE base_url = ? AND plant_id = ? "  # noqa: S608
                "AND fate IN ('created', 'unknown') ORDER BY entry DESC LIMIT 5",
                (base_url, plant_id),
            )
            return [entry_from_row(row) for row in rows]


def _wal_mode(connection: sqlite3.Connection) -> str:
    """Put the file in WAL mode; its journal mode after."""
    # Two instances opening a new file at once: the switch to WAL needs the file to itself, and
    # SQLite says "locked" at once instead of waiting for the other to finish its own switch.
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    while True:
        try:
            return str(connection.execute("PRAGMA journal_mode=WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _reason(exc: sqlite3.Error) -> str:
    name = getattr(exc, "sqlite_errorname", "")
    match name:
        case "SQLITE_BUSY" | "SQLITE_LOCKED":
            return "locked by another program for too long"
        case "SQLITE_READONLY" | "SQLITE_READONLY_DBMOVED":
            return "cannot be written (read-only)"
        case "SQLITE_NOTADB" | "SQLITE_CORRUPT":
            return "is not a history database (corrupt?); it is left as it is"
        case "SQLITE_CANTOPEN":
            return "cannot be opened"
        case "SQLITE_FULL":
            return "the disk is full"
    return f"{exc} (left as it is)"


def open_for_reading(path: Path | None = None) -> History | None:
    """The history to list and show, or None when there is none yet; `HistoryError` if unusable."""
    target = path if path is not None else history_path()
    if not target.exists():
        return None
    try:
        return History(target)
    except HistoryError as exc:
        # A file this user may read but not write (or a read-only disk) can still be listed.
        try:
            return History(target, readonly=True)
        except HistoryError:
            raise exc from None
