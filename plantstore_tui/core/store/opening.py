"""Opening the ledger: the file created and migrated, the previous release's files carried
over, the plants of instances that ended handed to the operator, and this instance's session
started; or, to list and show only, opened read-only when it cannot be written.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from plantstore_tui.core.store.carry_over import carry_over_previous_release
from plantstore_tui.core.store.database import (
    Database,
    StoreError,
    connect,
    connect_in_memory,
    ledger_path,
)
from plantstore_tui.core.store.ledger import DEFAULT_LIMIT, Ledger
from plantstore_tui.core.store.old_release import previous_release_files
from plantstore_tui.core.store.sessions import start_session, sweep

if TYPE_CHECKING:
    from plantstore_tui.core.store.carry_over import CarryOver


def open_ledger(
    program: str,
    *,
    path: Path | None = None,
    limit: int = DEFAULT_LIMIT,
    memory_if_unusable: bool = False,
    carry_over: bool = True,
) -> Ledger:
    """Open the ledger for an instance of `program` (tui, add, import, check): the file created
    and migrated, the previous release's files carried over, the plants of ended instances
    handed to the operator, this instance's session started.

    With `memory_if_unusable`, a file that cannot be used gives a ledger in memory whose
    `problem` says why (a send must not be refused for it); otherwise `StoreError`.
    """
    target = ledger_path() if path is None else path
    try:
        db = connect(target)
    except StoreError as exc:
        if not memory_if_unusable:
            raise
        memory = connect_in_memory()
        return Ledger(memory, start_session(memory, program), limit=limit, problem=str(exc))
    try:
        carried = _carried_over(db) if carry_over else None
        handed = sweep(db)
        session = start_session(db, program)
    except StoreError:
        db.close()
        raise
    ledger = Ledger(db, session, limit=limit)
    ledger.handed_over, ledger.carried = handed, carried
    ledger.prune()
    return ledger


def open_for_reading(path: Path | None = None) -> Ledger | None:
    """The ledger to list and show, or None when there is none yet; `StoreError` if unusable.

    A file this user may read but not write (or a read-only disk) can still be listed.
    """
    target = ledger_path() if path is None else path
    if not target.exists() and not previous_release_files(target.parent):
        return None
    try:
        db = connect(target)
    except StoreError as exc:
        try:
            db = connect(target, readonly=True)
        except StoreError:
            raise exc from None
        return Ledger(db, None)
    try:
        carried = _carried_over(db)
        sweep(db)
    except StoreError:
        db.close()
        raise
    ledger = Ledger(db, None)
    ledger.carried = carried
    return ledger


def open_unchanged(path: Path | None = None) -> Ledger | None:
    """The ledger opened read-only, changing nothing (no migration, no carry-over, no sweep), for
    a glance such as shell completion; None when there is none yet, `StoreError` if unusable."""
    target = ledger_path() if path is None else path
    if not target.exists():
        return None
    return Ledger(connect(target, readonly=True), None)


def _carried_over(db: Database) -> CarryOver | None:
    """The previous release's files taken in; None when the data directory holds none."""
    if db.in_memory or not previous_release_files(db.path.parent):
        return None
    return carry_over_previous_release(db)
