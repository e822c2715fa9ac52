"""Which running instance owns which plants: a session row, held by a lock on a file.

A pid alone cannot say whether an instance is alive (pids are reused), so each session holds an
exclusive `flock` on its own file in `<data dir>/sessions/` for as long as it runs. The kernel
lets go of it however the process ends, `kill -9` included: a session whose file is missing or
can be locked is gone, and `sweep` hands its unsettled plants to the operator.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

from plantstore_tui.core.store.database import Database, StoreError
from plantstore_tui.core.store.records import format_time, parse_time, utc_now
from plantstore_tui.core.store.rows import INSERT_COLUMNS

SESSIONS_DIR = "sessions"
_LOCK_SUFFIX = ".lock"
QUEUED_WHEN_ENDED = "Not sent: it was queued when plantstore-tui ended."
# The ledger cannot tell the two apart: a process that ended, or one that could not write the
# answer it had (a full disk), leave the same row.
SENDING_WHEN_ENDED = (
    "No answer was recorded for its send: plantstore-tui ended during it, or could not write "
    "the ledger (a full disk, say): it may exist already."
)


@dataclass(slots=True)
class Session:
    """This instance's session: its row and the lock that says it is alive."""

    id: int
    lock_path: Path | None
    _fd: int | None

    def release(self) -> None:
        """Let go of the lock and its file (the row is removed by `end_session`)."""
        fd, self._fd = self._fd, None
        if self.lock_path is not None:
            with contextlib.suppress(OSError):
                self.lock_path.unlink()
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)


def start_session(db: Database, program: str) -> Session:
    """Register this instance; its lock is held until `end_session` or the process ends."""
    # os.urandom is what secrets.token_hex reads; the secrets module would bring hmac along.
    lock_name = f"{os.getpid()}-{os.urandom(8).hex()}"
    lock_path: Path | None = None
    fd: int | None = None
    if not db.in_memory:
        directory = db.path.parent / SESSIONS_DIR
        lock_path = directory / f"{lock_name}{_LOCK_SUFFIX}"
        try:
            directory.mkdir(mode=0o700, exist_ok=True)
            # Locked before the row exists: a session row always has a live lock or none.
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if fd is not None:
                os.close(fd)
            raise StoreError(lock_path, f"cannot be locked ({exc.strerror})") from None
    try:
        with db.write() as connection:
            cursor = connection.execute(
                "INSERT INTO sessions (lock_name, pid, program, started_at) VALUES (?, ?, ?, ?)",
                (lock_name, os.getpid(), program, format_time(utc_now())),
            )
    except BaseException:
        # No row names this lock: let go of it and its file, or nothing ever would.
        Session(0, lock_path, fd).release()
        raise
    assert cursor.lastrowid is not None
    return Session(cursor.lastrowid, lock_path, fd)


def end_session(db: Database, session: Session) -> None:
    """Remove the session: what it left unsettled is swept like a dead session's."""
    with contextlib.suppress(StoreError):
        _orphan(db, [session.id])
    session.release()


class LiveSession(NamedTuple):
    """A running instance, as its session row names it."""

    id: int
    pid: int
    program: str
    started_at: datetime


def live_session(db: Database, connection: sqlite3.Connection, session: int) -> LiveSession | None:
    """The session `session` if its instance still runs (its lock held), else None; read on
    `connection`, so that a write transaction can decide on it."""
    found = connection.execute(
        "SELECT lock_name, pid, program, started_at FROM sessions WHERE id = ?", (session,)
    ).fetchone()
    if found is None:
        return None
    lock_name, pid, program, started_at = found
    if not db.in_memory and not _alive(
        db.path.parent / SESSIONS_DIR / f"{lock_name}{_LOCK_SUFFIX}"
    ):
        return None
    return LiveSession(session, pid, program, parse_time(started_at))


def _alive(path: Path) -> bool:
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # cannot tell: leave it be
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def sweep(db: Database) -> int:
    """End the sessions whose instance is gone: their plants in flight become unknown, their
    queued plants wait for the operator; how many plants were handed over."""
    if db.in_memory:
        return 0
    directory = db.path.parent / SESSIONS_DIR
    with db.read() as connection:
        rows = connection.execute("SELECT id, lock_name FROM sessions").fetchall()
    dead = [
        (session, directory / f"{name}{_LOCK_SUFFIX}")
        for session, name in rows
        if not _alive(directory / f"{name}{_LOCK_SUFFIX}")
    ]
    if not dead:
        return 0
    handed = _orphan(db, [session for session, _ in dead])
    for _, path in dead:
        with contextlib.suppress(OSError):
            path.unlink()
    return handed


def _orphan(db: Database, sessions: list[int]) -> int:
    marks = ", ".join("?" for _ in sessions)
    with db.write() as connection:
        # A first keying whose second never came is a plant the screen took: held.
        connection.execute(
            f"INSERT INTO plants ({INSERT_COLUMNS}) "  # noqa: S608
            f"SELECT {INSERT_COLUMNS} FROM keyings WHERE session IN ({marks})",
            sessions,
        )
        connection.execute(f"DELETE FROM keyings WHERE session IN ({marks})", sessions)  # noqa: S608
        connection.execute(f"DELETE FROM reservations WHERE session IN ({marks})", sessions)  # noqa: S608
        # Only constant fragments and placeholders in these statements.
        handed = connection.execute(
            f"UPDATE plants SET state = 'unknown', note = ?, fate = 'unknown' "  # noqa: S608
            f"WHERE session IN ({marks}) AND state = 'sending'",
            (SENDING_WHEN_ENDED, *sessions),
        ).rowcount
        handed += connection.execute(
            f"UPDATE plants SET held = 1, note = ? "  # noqa: S608
            f"WHERE session IN ({marks}) AND state = 'queued' AND held = 0",
            (QUEUED_WHEN_ENDED, *sessions),
        ).rowcount
        # A run whose history was off keeps nothing a front end other than the TUI left.
        connection.execute(
            f"DELETE FROM plants WHERE session IN ({marks}) AND keep = 0 "  # noqa: S608
            "AND source IN ('add', 'check')",
            sessions,
        )
        connection.execute(
            f"UPDATE plants SET session = NULL WHERE session IN ({marks})",  # noqa: S608
            sessions,
        )
        connection.execute(f"DELETE FROM sessions WHERE id IN ({marks})", sessions)  # noqa: S608
    return handed
