"""The ledger's file: created race-free by any number of processes, migrated in order, one error.

`plantstore.sqlite3` in the data directory, mode 0600, WAL. Every commit is synchronous=FULL:
WAL with FULL survives a power cut (NORMAL survives a killed process, not the lost write cache),
and a plant the screen showed as taken must survive both: a take is committed at NORMAL and made
durable by the ledger's group commit (`group_sync.py`) before any front end shows it. Every
SQLite or file failure becomes a `StoreError` whose words name the file.

Many processes share the file; a process holds one connection to it, whoever uses it, and never
a descriptor of its own while that connection may hold locks (docs/ledger.md).
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from plantstore_tui.core.config.files import data_dir
from plantstore_tui.core.errors import PlantStoreError
from plantstore_tui.core.store.schema import MIGRATIONS, SCHEMA_VERSION, migrate

LEDGER_FILE = "plantstore.sqlite3"
# How long a write waits for another instance's write before it fails in words.
BUSY_TIMEOUT_SECONDS = 5.0
# SQLite's page cache, KiB. Its default fills up at every start on a ledger with a long history
# (trimming it to its limit walks the newest rows) and stays held for the run; the pages the
# ledger reads again are a handful per write, and the operating system's cache serves a history
# screen's scans as fast.
CACHE_KIB = 256
_PRIVATE_MODE = 0o600
_MEMORY = Path(":memory:")


class StoreError(PlantStoreError):
    """The ledger cannot be opened, read or written; the message names the file and why."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def ledger_path() -> Path:
    """`plantstore.sqlite3` in the user data directory (`PLANTSTORE_DATA_DIR` if set)."""
    return data_dir() / LEDGER_FILE


class _Connection:
    """The one SQLite connection this process holds on a ledger file, and who uses it."""

    def __init__(self, key: Path, connection: sqlite3.Connection, *, readonly: bool) -> None:
        self.key = key
        self.connection = connection
        self.readonly = readonly
        self.lock = threading.RLock()
        self.durable = True
        self.users = 0


# Every ledger connection of this process, by the file's resolved path. SQLite's locks on a file
# are the process's (POSIX advisory locks): a second connection, or any descriptor of our own,
# whose close drops them lets another process take itself for the file's last user and delete
# the write-ahead log still in use (docs/ledger.md). So the threads and the Ledger objects of a
# process share one connection, and the file is only ever touched through it.
_OPEN: dict[Path, _Connection] = {}
_OPEN_LOCK = threading.Lock()


class Database:
    """One user's handle on the process's connection to the ledger, shared under a lock."""

    def __init__(self, path: Path, shared: _Connection, *, readonly: bool) -> None:
        self.path = path
        self.readonly = readonly
        self._shared = shared
        self._closed = False

    @property
    def in_memory(self) -> bool:
        """True for a ledger kept in memory only (the file could not be used)."""
        return self.path == _MEMORY

    @contextmanager
    def write(self, *, durable: bool = True) -> Iterator[sqlite3.Connection]:
        """One transaction that holds the file's write lock from its start (BEGIN IMMEDIATE).

        Durable (the default), its commit waits for the disk (synchronous=FULL). Otherwise it
        survives a killed process but maybe not a power cut: only for a write whose loss leaves
        the row in a safe state (a send's outcome: lost, the plant reads as fate unknown), or
        one that `sync` makes durable before anybody relies on it (a take: `group_sync.py`).
        """
        shared = self._shared
        with shared.lock:
            connection = shared.connection
            try:
                if durable != shared.durable:
                    level = "FULL" if durable else "NORMAL"
                    connection.execute(f"PRAGMA synchronous = {level}")
                    shared.durable = durable
                connection.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreError(self.path, reason(exc)) from None
            try:
                yield connection
                connection.execute("COMMIT")
            except BaseException as exc:
                with contextlib.suppress(sqlite3.Error):
                    connection.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise StoreError(self.path, reason(exc)) from None
                raise

    def sync(self) -> None:
        """Make every commit so far survive a power cut, as a durable commit would.

        A durable commit syncs the whole write-ahead log, the pages that commits with
        `durable=False` left there included: one small durable write does it, through SQLite,
        never through a descriptor of our own on its files (docs/ledger.md).
        """
        if self.in_memory:
            return
        with self.write() as connection:
            connection.execute(
                "INSERT INTO syncs (id, count) VALUES (1, 1) "
                "ON CONFLICT (id) DO UPDATE SET count = count + 1"
            )

    def version(self) -> int:
        """A number that changes each time another process commits to the file."""
        with self.read() as connection:
            return int(connection.execute("PRAGMA data_version").fetchone()[0])

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """The connection, for queries (each statement sees one snapshot)."""
        with self._shared.lock:
            try:
                yield self._shared.connection
            except sqlite3.Error as exc:
                raise StoreError(self.path, reason(exc)) from None

    def close(self) -> None:
        """Let go of the file: the connection closes with its last user in this process."""
        if self._closed:
            return
        self._closed = True
        _release(self._shared)


def connect(
    path: Path | None = None, *, readonly: bool = False, timeout: float = BUSY_TIMEOUT_SECONDS
) -> Database:
    """Open (and create, and migrate) the ledger at `path` (default `ledger_path()`): the
    process's connection to it, opened by its first user."""
    target = ledger_path() if path is None else path
    key = Path(os.path.realpath(target))
    with _OPEN_LOCK:
        shared = _OPEN.get(key)
        if shared is None or (shared.readonly and not readonly):
            opened = _open_readonly(target, timeout) if readonly else _open(target, timeout)
            shared = _Connection(key, opened, readonly=readonly)
            # A read-only connection already open goes on for its users; this one is shared from
            # now on (both are SQLite's, whose locks survive the other's close).
            _OPEN[key] = shared
        shared.users += 1
    return Database(target, shared, readonly=readonly or shared.readonly)


def connect_in_memory() -> Database:
    """A ledger that lives as long as this process: for a run whose file cannot be used."""
    connection = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    migrate(connection)
    shared = _Connection(_MEMORY, connection, readonly=False)
    shared.users = 1
    return Database(_MEMORY, shared, readonly=False)


def _release(shared: _Connection) -> None:
    with _OPEN_LOCK:
        shared.users -= 1
        if shared.users > 0:
            return
        if _OPEN.get(shared.key) is shared:
            del _OPEN[shared.key]
    with shared.lock, contextlib.suppress(sqlite3.Error):
        shared.connection.close()


class _NewerSchema(PlantStoreError):
    """The file was written by a newer release."""


def _open(path: Path, timeout: float) -> sqlite3.Connection:
    _create_private(path)
    try:
        connection = sqlite3.connect(
            path, timeout=timeout, check_same_thread=False, isolation_level=None
        )
    except sqlite3.Error as exc:
        raise StoreError(path, reason(exc)) from None
    try:
        _prepare(connection, timeout)
        migrate(connection)
    except sqlite3.Error as exc:
        connection.close()
        raise StoreError(path, reason(exc)) from None
    except _NewerSchema as exc:
        connection.close()
        raise StoreError(path, str(exc)) from None
    return connection


def _open_readonly(path: Path, timeout: float) -> sqlite3.Connection:
    if not path.exists():
        raise StoreError(path, "there is no ledger yet")
    uri = path.resolve().as_uri() + "?mode=ro"
    try:
        connection = sqlite3.connect(
            uri, uri=True, timeout=timeout, check_same_thread=False, isolation_level=None
        )
        version = connection.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.Error as exc:
        raise StoreError(path, reason(exc)) from None
    if version != SCHEMA_VERSION:
        connection.close()
        newer = version > SCHEMA_VERSION
        words = "a newer" if newer else "an older"
        raise StoreError(path, f"has {words} schema ({version}); open it once writable")
    return connection


def _create_private(path: Path) -> None:
    """The file made 0600 before SQLite opens it (SQLite gives its -wal and -shm the same mode),
    or found unusable in words (SQLite opens a file it cannot write read-only, saying nothing).

    Called only while this process holds no connection to it, so the descriptor closed here
    holds no lock of ours; a file that exists is never opened here at all.
    """
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        if not path.exists():
            # No O_EXCL: any number of processes may be creating it at the same moment.
            os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, _PRIVATE_MODE))
    except OSError as exc:
        raise StoreError(path, f"cannot be opened ({exc.strerror})") from None
    if not os.access(path, os.R_OK):
        raise StoreError(path, f"cannot be opened ({os.strerror(errno.EACCES)})")
    if not os.access(path, os.W_OK):
        raise StoreError(path, "cannot be written (read-only)")
    try:
        if path.stat().st_mode & 0o077:
            path.chmod(_PRIVATE_MODE)
    except OSError:
        pass  # not ours to change (another user's file we may write): leave its mode be


def _prepare(connection: sqlite3.Connection, timeout: float) -> None:
    connection.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
    # Deleted rows are overwritten, not left in free pages (`history clear` means it).
    connection.execute("PRAGMA secure_delete = ON")
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise _NewerSchema(
            f"written by a newer plantstore-tui (schema {version}; this one knows "
            f"{SCHEMA_VERSION}: {MIGRATIONS[-1].name})"
        )
    if _wal_mode(connection, timeout) != "wal":
        raise sqlite3.OperationalError("cannot be put in WAL mode")
    connection.execute("PRAGMA synchronous = FULL")
    connection.execute("PRAGMA foreign_keys = ON")
    connection.execute(f"PRAGMA cache_size = -{CACHE_KIB}")


def _wal_mode(connection: sqlite3.Connection, timeout: float) -> str:
    """Put the file in WAL mode; its journal mode after."""
    # Several instances opening a new file at once: the switch to WAL needs the file to itself,
    # and SQLite says "locked" at once instead of waiting for the other to finish its switch.
    deadline = time.monotonic() + timeout
    while True:
        try:
            return str(connection.execute("PRAGMA journal_mode = WAL").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def reason(exc: sqlite3.Error) -> str:
    """An SQLite failure in an operator's words."""
    name = getattr(exc, "sqlite_errorname", "")
    match name:
        case "SQLITE_BUSY" | "SQLITE_LOCKED" | "SQLITE_BUSY_SNAPSHOT":
            return "locked by another program for too long"
        case "SQLITE_READONLY" | "SQLITE_READONLY_DBMOVED" | "SQLITE_READONLY_DIRECTORY":
            return "cannot be written (read-only)"
        case "SQLITE_NOTADB" | "SQLITE_CORRUPT":
            return "is not a plantstore-tui ledger (corrupt?)"
        case "SQLITE_CANTOPEN":
            return "cannot be opened"
        case "SQLITE_FULL":
            return "the disk is full"
        case "SQLITE_IOERR" | "SQLITE_IOERR_WRITE" | "SQLITE_IOERR_FSYNC":
            return f"cannot be written (input/output error: {exc})"
    return str(exc)
