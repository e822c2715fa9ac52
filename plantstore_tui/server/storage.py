"""Plants in a SQLite file: the id is the primary key, so a plant is stored at most once.

One connection, opened on first use and kept: opening one per plant cost more than the insert.
Calls come from a thread pool, so the connection is shared under a lock (SQLite writes one at a
time anyway).
"""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing
from pathlib import Path

from plantstore_tui.core.errors import PlantStoreError
from plantstore_tui.core.plant.models import NewPlant

# How long a write waits for another writer (another request, or a second server on the same
# file) before giving up with "database is locked".
BUSY_TIMEOUT_SECONDS = 5.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS plants (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    tag TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
)
"""


class StorageUnavailable(PlantStoreError, OSError):
    """The database cannot be opened, read or written (locked too long, read-only, corrupt...)."""

    # An OSError too: whoever opens the server's file catches it with the file's other errors.


class DuplicateId(PlantStoreError):
    """A plant with this id is already stored."""

    def __init__(self, plant_id: int) -> None:
        super().__init__(f"A plant with id {plant_id} already exists")
        self.plant_id = plant_id


class PlantStorage:
    """The `plants` table of one SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        try:
            with closing(self._connect()) as connection:
                # WAL lets readers and the one writer proceed together, and it is a property of
                # the file: setting it once at creation is enough.
                connection.execute("PRAGMA journal_mode=WAL")
                with connection:
                    connection.execute(_SCHEMA)
        except sqlite3.Error as exc:
            raise StorageUnavailable(f"cannot use {path} as a plant database: {exc}") from None

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_SECONDS, check_same_thread=False
        )
        # In WAL mode NORMAL loses no committed plant when the process dies, only on power loss,
        # and it saves an fsync per plant.
        connection.execute("PRAGMA synchronous=NORMAL")
        return connection

    def add(self, plant: NewPlant) -> None:
        """Store a new plant, or raise `DuplicateId`; blocking, so run it in a worker thread."""
        try:
            with self._lock:
                if self._connection is None:
                    self._connection = self._connect()
                with self._connection:
                    self._connection.execute(
                        "INSERT INTO plants (id, name, tag) VALUES (?, ?, ?)",
                        (plant.id, plant.name, plant.tag),
                    )
        except sqlite3.IntegrityError as exc:
            if exc.sqlite_errorname == "SQLITE_CONSTRAINT_PRIMARYKEY":
                raise DuplicateId(plant.id) from None
            raise StorageUnavailable(f"the database refused the plant: {exc}") from None
        except sqlite3.Error as exc:
            raise StorageUnavailable(str(exc)) from None

    def close(self) -> None:
        """Close the kept connection (a later call opens it again)."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None
