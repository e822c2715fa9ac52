"""The ledger's file as SQLite opens it: what each connection is set to."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from plantstore_tui.core.store.database import CACHE_KIB, connect


def test_the_page_cache_stays_small(tmp_path: Path) -> None:
    # SQLite's default (2 MiB) filled at every start on a ledger with a long history and was
    # held for the whole run: 1.9 MiB of the TUI's peak RSS over 100,000 plants.
    db = connect(tmp_path / "ledger.sqlite3")
    try:
        with db.read() as connection:
            kib = -connection.execute("PRAGMA cache_size").fetchone()[0]
    finally:
        db.close()
    assert kib == CACHE_KIB <= 256


def descriptors_on(path: Path) -> int:
    """How many descriptors this process holds on `path` (Linux's /proc)."""
    return sum(1 for fd in Path("/proc/self/fd").iterdir() if _target(fd) == str(path))


def _target(fd: Path) -> str | None:
    try:
        return os.readlink(fd)
    except FileNotFoundError:
        return None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/fd")
def test_a_process_holds_one_connection_to_the_ledger_whoever_opens_it(tmp_path: Path) -> None:
    # A second connection's close, or a descriptor of our own, is how the locks of the first
    # were dropped (SQLite's "How To Corrupt", 2.2): every user shares the one connection.
    path = tmp_path / "ledger.sqlite3"
    first = connect(path)
    second = connect(path)
    with first.write() as connection:
        connection.execute("INSERT INTO syncs VALUES (1, 0)")
    assert descriptors_on(path) == 1
    first.close()
    first.close()  # twice: still one user let go
    with second.read() as connection:
        assert connection.execute("SELECT count FROM syncs").fetchone() == (0,)
    second.sync()
    with second.read() as connection:
        # The sync is a durable write, through SQLite's own descriptors.
        assert connection.execute("SELECT count FROM syncs").fetchone() == (1,)
    second.close()
    assert descriptors_on(path) == 0
    third = connect(path)
    with third.read() as connection:
        assert connection.execute("SELECT count FROM syncs").fetchone() == (1,)
    third.close()
