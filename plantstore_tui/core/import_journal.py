"""The import journal: which rows of which file went to which target, so none is sent twice.

A batch is one file (by its SHA-256) sent to one base URL. Each row is written as `sending` and
committed before its request goes out, then settled with what came back. After a crash, a kill
or a lost network, the journal says exactly which rows are done, which were never sent, and
which were in flight (their fate unknown). SQLite in WAL mode: a commit survives the process
being killed, and each row costs two small transactions. The file lives in the data directory,
mode 0600; it never holds a token or a header, only rows' lines, ids and what the server said.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

from plantstore_tui.core.config_files import data_dir

JOURNAL_NAME = "import-journal.sqlite3"
_SCHEMA_VERSION = 1
_BUSY_TIMEOUT_MS = 10_000


class RowState(StrEnum):
    """Where a row of a batch stands."""

    SENDING = "sending"
    CREATED = "created"
    REJECTED = "rejected"
    FAILED = "failed"
    """No usable answer, and the plant was not created: safe to send again."""
    UNKNOWN = "unknown"
    """It may or may not be in the store."""


# Rows in these states are never sent again by --resume.
DONE_STATES = frozenset({RowState.CREATED, RowState.REJECTED})


class JournalError(Exception):
    """The journal cannot be opened or written; the message names the file."""


@dataclass(frozen=True, slots=True)
class Batch:
    """One file sent to one target."""

    id: int
    sha256: str
    base_url: str
    profile: str | None
    file_name: str
    rows: int
    started_at: datetime


@dataclass(frozen=True, slots=True)
class BatchCounts:
    """How many rows of a batch stand where."""

    created: int = 0
    rejected: int = 0
    failed: int = 0
    unknown: int = 0

    @property
    def journaled(self) -> int:
        """Rows the journal has (every other row was never sent)."""
        return self.created + self.rejected + self.failed + self.unknown


def journal_path() -> Path:
    """`<data dir>/import-journal.sqlite3`."""
    return data_dir() / JOURNAL_NAME


def _now() -> str:
    return datetime.now(UTC).isoformat()


class ImportJournal:
    """The journal file, open; a context manager that closes it."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or journal_path()
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not self.path.exists():
                # Created private: nothing in it is secret, but what was sent where is nobody's
                # business but the operator's.
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            self._db = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_MS / 1000)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._migrate()
        except (OSError, sqlite3.Error) as exc:
            raise JournalError(f"The import journal {self.path} cannot be used: {exc}") from None

    def _migrate(self) -> None:
        (version,) = self._db.execute("PRAGMA user_version").fetchone()
        if version > _SCHEMA_VERSION:
            raise sqlite3.DatabaseError(
                f"it was written by a newer plantstore-tui (schema {version}); it is left as it is"
            )
        if version == 0:
            with self._db:
                self._db.executescript(
                    """
                    CREATE TABLE batches (
                        id INTEGER PRIMARY KEY,
                        sha256 TEXT NOT NULL,
                        base_url TEXT NOT NULL,
                        profile TEXT,
                        file_name TEXT NOT NULL,
                        rows INTEGER NOT NULL,
                        started_at TEXT NOT NULL
                    );
                    CREATE INDEX batches_by_file ON batches (sha256, base_url);
                    CREATE TABLE batch_rows (
                        batch_id INTEGER NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
                        line INTEGER NOT NULL,
                        plant_id INTEGER NOT NULL,
                        state TEXT NOT NULL,
                        status INTEGER,
                        message TEXT NOT NULL DEFAULT '',
                        updated_at TEXT NOT NULL,
                        PRIMARY KEY (batch_id, line)
                    ) WITHOUT ROWID;
                    PRAGMA user_version = 1;
                    """
                )

    def close(self) -> None:
        """Close the file."""
        self._db.close()

    def __enter__(self) -> ImportJournal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def latest_batch(self, sha256: str, base_url: str) -> Batch | None:
        """The newest batch of this file to this target, if any."""
        row = self._db.execute(
            "SELECT id, sha256, base_url, profile, file_name, rows, started_at FROM batches "
            "WHERE sha256 = ? AND base_url = ? ORDER BY id DESC LIMIT 1",
            (sha256, base_url),
        ).fetchone()
        if row is None:
            return None
        batch_id, sha, url, profile, file_name, rows, started = row
        return Batch(batch_id, sha, url, profile, file_name, rows, datetime.fromisoformat(started))

    def start_batch(
        self, *, sha256: str, base_url: str, profile: str | None, file_name: str, rows: int
    ) -> Batch:
        """Record a new batch."""
        started = _now()
        with self._write():
            cursor = self._db.execute(
                "INSERT INTO batches (sha256, base_url, profile, file_name, rows, started_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (sha256, base_url, profile, file_name, rows, started),
            )
        assert cursor.lastrowid is not None
        return Batch(
            cursor.lastrowid,
            sha256,
            base_url,
            profile,
            file_name,
            rows,
            datetime.fromisoformat(started),
        )

    def settled_lines(self, batch: Batch, *, resend_unknown: bool) -> set[int]:
        """Lines not to send again: done, and (unless `resend_unknown`) unknown or in flight."""
        states = [state.value for state in DONE_STATES]
        if not resend_unknown:
            states += [RowState.UNKNOWN.value, RowState.SENDING.value]
        marks = ", ".join("?" for _ in states)
        return {
            line
            for (line,) in self._db.execute(
                f"SELECT line FROM batch_rows WHERE batch_id = ? AND state IN ({marks})",  # noqa: S608 (placeholders only)
                (batch.id, *states),
            )
        }

    def unknown_rows(self, batch: Batch) -> list[tuple[int, int, str]]:
        """(line, id, message) of every row whose fate is unknown, in flight included."""
        return list(
            self._db.execute(
                "SELECT line, plant_id, message FROM batch_rows "
                "WHERE batch_id = ? AND state IN (?, ?) ORDER BY line",
                (batch.id, RowState.UNKNOWN.value, RowState.SENDING.value),
            )
        )

    def counts(self, batch: Batch) -> BatchCounts:
        """How many rows of the batch stand where (a row still `sending` counts as unknown)."""
        found = dict(
            self._db.execute(
                "SELECT state, COUNT(*) FROM batch_rows WHERE batch_id = ? GROUP BY state",
                (batch.id,),
            ).fetchall()
        )
        return BatchCounts(
            created=found.get(RowState.CREATED.value, 0),
            rejected=found.get(RowState.REJECTED.value, 0),
            failed=found.get(RowState.FAILED.value, 0),
            unknown=found.get(RowState.UNKNOWN.value, 0) + found.get(RowState.SENDING.value, 0),
        )

    def sending(self, batch: Batch, line: int, plant_id: int) -> None:
        """Record, durably, that the row's request is about to go out."""
        with self._write():
            self._db.execute(
                "INSERT INTO batch_rows (batch_id, line, plant_id, state, updated_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (batch_id, line) DO UPDATE SET "
                "state = excluded.state, status = NULL, message = '', "
                "updated_at = excluded.updated_at",
                (batch.id, line, plant_id, RowState.SENDING.value, _now()),
            )

    def settle(
        self, batch: Batch, line: int, state: RowState, status: int | None, message: str
    ) -> None:
        """Record what became of the row's request."""
        with self._write():
            self._db.execute(
                "UPDATE batch_rows SET state = ?, status = ?, message = ?, updated_at = ? "
                "WHERE batch_id = ? AND line = ?",
                (state.value, status, message, _now(), batch.id, line),
            )

    @contextlib.contextmanager
    def _write(self) -> Iterator[None]:
        try:
            with self._db:
                yield
        except sqlite3.Error as exc:
            raise JournalError(f"The import journal {self.path} cannot be written: {exc}") from None
