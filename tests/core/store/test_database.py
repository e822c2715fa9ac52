"""The ledger's file as SQLite opens it: what each connection is set to."""

from __future__ import annotations

from pathlib import Path

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
