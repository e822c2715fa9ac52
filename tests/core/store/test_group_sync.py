"""Group commit: takes committed while an fsync runs are made durable together by the next."""

from __future__ import annotations

import threading
from pathlib import Path

from plantstore_tui.core.store.database import StoreError
from plantstore_tui.core.store.group_sync import GroupSync

DEADLINE = 10


def test_takes_written_while_a_sync_runs_share_the_next_one() -> None:
    started, release, all_told = threading.Event(), threading.Event(), threading.Event()
    syncs: list[int] = []
    told: list[tuple[int, str | None]] = []

    def sync() -> None:
        syncs.append(len(syncs))
        started.set()
        assert release.wait(DEADLINE)

    def on_synced(upto: int, problem: str | None) -> None:
        told.append((upto, problem))
        if upto == 4:
            all_told.set()

    group = GroupSync(sync)
    group.on_synced = on_synced
    group.written(1)
    assert started.wait(DEADLINE)
    # The first fsync is on its way: these three wait for the next one, together.
    for entry in (2, 3, 4):
        group.written(entry)
    release.set()
    assert all_told.wait(DEADLINE)
    group.close()
    assert told == [(1, None), (4, None)]
    assert len(syncs) == 2


def test_a_refused_sync_is_told_with_its_words() -> None:
    told: list[tuple[int, str | None]] = []

    def refused() -> None:
        raise StoreError(Path("plantstore.sqlite3"), "cannot be synced (No space left on device)")

    group = GroupSync(refused)
    group.on_synced = lambda upto, problem: told.append((upto, problem))
    group.written(7)
    group.close()  # waits for the thread: what was written is synced (or said) first
    assert told == [(7, "plantstore.sqlite3: cannot be synced (No space left on device)")]
