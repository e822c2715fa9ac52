"""Group commit: the takes of a burst made durable together, by the ledger's own thread.

A take is committed at once without waiting for the disk (it survives a killed process as soon
as `Ledger.take` returns) and handed to this thread, which makes the write-ahead log survive a
power cut with one small durable commit (`Database.sync`: SQLite syncs the log, never a
descriptor of ours). Takes committed while a sync runs wait for the next one, together: a burst
of 200 plants costs a handful of syncs, a plant typed alone one, and nobody waits for any of
them. Whoever shows a plant as taken waits for `on_synced` to name it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from plantstore_tui.core.store.database import StoreError

# The highest ledger entry now durable, and why the disk refused, if it did (the entries are
# committed all the same: a killed process keeps them).
OnSynced = Callable[[int, str | None], None]


class GroupSync:
    """One thread that makes commits durable, a group at a time, in the order written."""

    def __init__(self, sync: Callable[[], None]) -> None:
        self._sync = sync
        self._changed = threading.Condition()
        self._written = 0
        self._synced = 0
        self._closing = False
        self._thread: threading.Thread | None = None
        self.on_synced: OnSynced | None = None
        """Told, in this thread, each time a group is durable."""

    def written(self, entry: int) -> None:
        """A commit up to `entry` waits for the disk: the next fsync covers it."""
        with self._changed:
            self._written = max(self._written, entry)
            if self._thread is None and not self._closing:
                self._thread = threading.Thread(target=self._run, name="ledger-sync", daemon=True)
                self._thread.start()
            self._changed.notify()

    def _run(self) -> None:
        while True:
            with self._changed:
                while self._written <= self._synced and not self._closing:
                    self._changed.wait()
                if self._written <= self._synced:
                    return  # closing, and nothing left to sync
                upto = self._written
            problem = None
            try:
                self._sync()
            except StoreError as exc:
                problem = str(exc)
            with self._changed:
                self._synced = max(self._synced, upto)
                self._changed.notify_all()
            told = self.on_synced
            if told is not None:
                told(upto, problem)

    def close(self) -> None:
        """Make what is written durable, then end the thread."""
        with self._changed:
            self._closing = True
            thread = self._thread
            self._changed.notify_all()
        if thread is not None:
            thread.join()
