"""`Ledger`: every plant a front end took, from queued to its fate, and the views of it.

The send queue is this instance's queued rows; needs attention is a query (rejected, failed,
unknown or held, not dismissed, of this instance or of one that is gone); the history is the
whole table; an import batch is its rows (`Batches`). Every method raises `StoreError`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from plantstore_tui.core.http.target import redact
from plantstore_tui.core.store import rows
from plantstore_tui.core.store.database import (
    Database,
)
from plantstore_tui.core.store.group_sync import GroupSync, OnSynced
from plantstore_tui.core.store.records import (
    COLUMNS,
    LISTED_COLUMNS,
    HistoryEntry,
    HistoryFilter,
    PlantState,
    entry_from_row,
    format_time,
)
from plantstore_tui.core.store.sessions import Session, end_session

if TYPE_CHECKING:
    from pydantic import SecretStr

    from plantstore_tui.core.plant.id_range import IdRange
    from plantstore_tui.core.plant.outcome import Outcome
    from plantstore_tui.core.store.carry_over import CarryOver

DEFAULT_LIMIT = 100_000
# How often (in sends settled) a long run trims the ledger to its limit.
_PRUNE_EVERY = 1_000
# A row somebody still has to deal with: never cleared, never pruned.
_PROTECTED = (
    "(state IN ('queued', 'sending') OR (source = 'tui' AND dismissed = 0 AND state != 'created') "
    "OR (batch IS NOT NULL AND batch NOT IN (SELECT id FROM batches WHERE finished = 1)))"
)
# A plant needs attention (the TUI's F4, its count in the status line, `history summary`).
ATTENTION = (
    "dismissed = 0 AND source = 'tui' AND state != 'created' "
    "AND (state IN ('rejected', 'failed', 'unknown') OR held = 1)"
)


class Ledger:
    """The open ledger of one instance: its session, its plants, and every view of them.

    Safe to use from several threads of one process (the TUI settles sends in a worker thread).
    """

    def __init__(
        self,
        db: Database,
        session: Session | None,
        *,
        limit: int = DEFAULT_LIMIT,
        problem: str | None = None,
    ) -> None:
        self.db = db
        self.session = session
        self.limit = limit
        self.problem = problem
        """Why this ledger is kept in memory only (its file could not be used), else None."""
        self.handed_over = 0
        """Plants of instances that had ended, handed to the operator when this one opened."""
        self.carried: CarryOver | None = None
        """What the previous release left, taken in when this one opened."""
        self._settled = 0
        self._group = GroupSync(db.sync)
        # A first keying of verified entry is kept in `keyings` (written only then).
        self._keying = False

    @property
    def path(self) -> Path:
        """The file (or `:memory:`)."""
        return self.db.path

    @property
    def session_id(self) -> int | None:
        """This instance's session, if it has one (a reader has none)."""
        return None if self.session is None else self.session.id

    def close(self) -> None:
        """End this instance's session (what it left unsettled waits for the operator)."""
        self._group.close()
        session, self.session = self.session, None
        if session is not None:
            end_session(self.db, session)
        self.db.close()

    # Writing ----------------------------------------------------------------------------------

    def take(self, row: rows.NewRow) -> int:
        """Write a plant this instance took: committed when this returns (a killed process keeps
        it), durable against a power cut once the group commit's thread says so (`on_synced`:
        takes of a burst share one fsync); a send's durable `sending` comes first in any case.
        A first keying this instance kept (`keep_keying`) goes in the same transaction.
        """
        with self.db.write(durable=False) as connection:
            entry = rows.insert(connection, row, self.session_id)
            if self._keying:
                connection.execute("DELETE FROM keyings WHERE session = ?", (self.session_id,))
        self._keying = False
        self._group.written(entry)
        return entry

    def keep_keying(self, row: rows.NewRow) -> None:
        """Keep verified entry's first keying of a plant until its second keying is taken (a
        killed process keeps it: the next start offers it in needs attention, held)."""
        session = self.session_id
        if session is None:
            return
        with self.db.write(durable=False) as connection:
            rows.keep_keying(connection, row, session)
        self._keying = True

    def drop_keying(self) -> None:
        """Forget the first keying this instance kept (nothing was taken of it)."""
        if not self._keying:
            return
        with self.db.write(durable=False) as connection:
            connection.execute("DELETE FROM keyings WHERE session = ?", (self.session_id,))
        self._keying = False

    @property
    def on_synced(self) -> OnSynced | None:
        """Told (in the group commit's thread) the highest entry durable, each time a group is."""
        return self._group.on_synced

    @on_synced.setter
    def on_synced(self, told: OnSynced | None) -> None:
        self._group.on_synced = told

    def sending(self, entry: int) -> None:
        """Its request is about to go out (committed before it does)."""
        with self.db.write() as connection:
            rows.mark_sending(connection, entry)

    def settle(self, entry: int, outcome: Outcome, *, redact: rows.Redact = str) -> PlantState:
        """How its send ended; a row kept only until settled goes once nobody needs it.

        Not durable against a power cut: lost, the row stays `sending` and reads as fate
        unknown, which is true. `sending` itself is durable: lost, a plant that went out would
        read as never sent.
        """
        with self.db.write(durable=False) as connection:
            state = rows.settle(connection, entry, outcome, redact)
            connection.execute(
                "DELETE FROM plants WHERE entry = ? AND keep = 0 AND batch IS NULL "
                "AND (source != 'tui' OR state = 'created')",
                (entry,),
            )
        # Here, not in `take`: the TUI settles in a worker thread, but takes on the UI thread.
        self._settled += 1
        if self._settled % _PRUNE_EVERY == 0:
            self.prune()
        return state

    def hold(self, entries: Iterable[int], note: str) -> None:
        """Put plants that did not go out aside: never sent until the operator loads them into
        the form. A plant taken as `sending` (the queue was idle) but held before its request
        went out is queued again."""
        with self.db.write() as connection:
            connection.executemany(
                # A plant marked sending whose request never went: that try is not counted.
                "UPDATE plants SET held = 1, note = ?, state = 'queued', sent_at = NULL, "
                "tries = tries - (state = 'sending') "
                "WHERE entry = ? AND state IN ('queued', 'sending')",
                [(note, entry) for entry in entries],
            )

    def requeue(self, entry: int) -> None:
        """A plant marked sending that certainly never left (the deployment could not be reached,
        or said it did not process it): queued again, to go when its queue sends it."""
        with self.db.write() as connection:
            connection.execute(
                "UPDATE plants SET state = 'queued', sent_at = NULL "
                "WHERE entry = ? AND state = 'sending'",
                (entry,),
            )

    def retarget(self, entries: Iterable[int], base_url: str, profile: str | None) -> None:
        """Plants taken before their target was resolved: where they go, once it is."""
        with self.db.write() as connection:
            connection.executemany(
                "UPDATE plants SET base_url = ?, profile = ? WHERE entry = ? AND state = 'queued'",
                [(base_url, profile, entry) for entry in entries],
            )

    def keep_settled(self, entries: Iterable[int], keep: bool) -> None:
        """Whether these plants stay in the history once settled (the profile's history switch)."""
        with self.db.write() as connection:
            connection.executemany(
                "UPDATE plants SET keep = ? WHERE entry = ?",
                [(int(keep), entry) for entry in entries],
            )

    def for_target(self, token: SecretStr | None) -> TargetLedger:
        """This ledger as one target's sends write it."""
        return TargetLedger(self, token)

    def release(self, entry: int, note: str, *, again: int | None = None) -> bool:
        """The operator dealt with it (dismissed, loaded into the form, or sent again as the
        row `again`); False if another instance already had."""
        with self.db.write() as connection:
            taken = connection.execute(
                "UPDATE plants SET dismissed = 1, note = ?, sent_again_as = ? "
                "WHERE entry = ? AND dismissed = 0",
                (note, again, entry),
            ).rowcount
            connection.execute("DELETE FROM plants WHERE entry = ? AND keep = 0", (entry,))
        return taken == 1

    def release_all(self, entries: Iterable[int], note: str) -> None:
        """Dismiss several plants at once (quit and drop them)."""
        for entry in entries:
            self.release(entry, note)

    def prune(self) -> int:
        """Trim the oldest rows past the limit (never a row somebody has to deal with)."""
        # The newest `limit` rows stay: entry numbers have gaps (rows cleared, rows of a profile
        # whose history is off gone once settled), so they cannot be counted by subtraction.
        with self.db.write() as connection:
            return connection.execute(
                f"DELETE FROM plants WHERE entry <= (SELECT entry FROM plants "  # noqa: S608
                f"ORDER BY entry DESC LIMIT 1 OFFSET ?) AND NOT {_PROTECTED}",
                (self.limit,),
            ).rowcount

    def clear(self, *, profile: str | None = None, before: datetime | None = None) -> int:
        """Delete rows (of one profile, older than a moment, or all), never one somebody still
        has to deal with; how many."""
        clauses, values = [f"NOT {_PROTECTED}"], list[Any]()
        if profile is not None:
            clauses.append("profile = ?")
            values.append(profile)
        if before is not None:
            clauses.append("queued_at < ?")
            values.append(format_time(before))
        with self.db.write() as connection:
            condition = " AND ".join(clauses)
            cursor = connection.execute(f"DELETE FROM plants WHERE {condition}", values)  # noqa: S608
            return cursor.rowcount

    # Views ------------------------------------------------------------------------------------

    def attention(self) -> list[HistoryEntry]:
        """Needs attention: this instance's plants (and those of instances that are gone) that
        did not go through or were held, not dismissed, oldest first."""
        return self._select(
            f"{ATTENTION} AND (session IS NULL OR session = ?) ORDER BY entry",
            (self.session_id,),
            listed=True,
        )

    def attention_count(self) -> int:
        """How many plants need attention here."""
        with self.db.read() as connection:
            found: int = connection.execute(
                f"SELECT count(*) FROM plants WHERE {ATTENTION} "  # noqa: S608
                "AND (session IS NULL OR session = ?)",
                (self.session_id,),
            ).fetchone()[0]
        return found

    def pending(self) -> list[HistoryEntry]:
        """Every plant typed into a TUI that waits for an operator or is still on its way,
        oldest first (with no TUI running: exactly what the next one shows in needs attention)."""
        return self._select(
            "dismissed = 0 AND source = 'tui' AND state != 'created' ORDER BY entry", ()
        )

    def open_rows(self) -> list[HistoryEntry]:
        """This instance's plants still queued (not held) or in flight, in the order taken."""
        return self._select(
            "session = ? AND dismissed = 0 AND held = 0 AND state IN ('queued', 'sending') "
            "ORDER BY entry",
            (self.session_id,),
        )

    def last_created_id(self, base_url: str) -> int | None:
        """The id of the plant most recently created on this target, if any."""
        return self._last_id(base_url, "state = 'created'")

    def last_typed_id(self, base_url: str, within: IdRange | None = None) -> int | None:
        """The id of the plant most recently typed in the TUI's form for this target, if any;
        `within`: of the plants typed with an id of that range."""
        return self._last_id(base_url, "typed = 1", within)

    def _last_id(self, base_url: str, condition: str, within: IdRange | None = None) -> int | None:
        ids = "" if within is None else " AND plant_id BETWEEN ? AND ?"
        with self.db.read() as connection:
            row = connection.execute(
                f"SELECT plant_id FROM plants WHERE base_url = ? AND {condition}{ids} "  # noqa: S608
                "ORDER BY entry DESC LIMIT 1",
                (base_url, *(within or ())),
            ).fetchone()
        return None if row is None else int(row[0])

    def sent_before(self, base_url: str, plant_id: int) -> list[HistoryEntry]:
        """Earlier sends of this id to this base URL that created it or may have, newest first."""
        return self._select(
            "base_url = ? AND plant_id = ? AND state IN ('created', 'unknown', 'sending') "
            "ORDER BY entry DESC LIMIT 5",
            (base_url, plant_id),
        )

    def query(
        self,
        where: HistoryFilter | None = None,
        *,
        limit: int | None = None,
        offset: int = 0,
        listed: bool = False,
    ) -> list[HistoryEntry]:
        """Matching rows, newest first; `listed`, with what a server sent read only as far as a
        list shows it (`LISTED_COLUMNS`)."""
        condition, values = (where or HistoryFilter()).where()
        suffix = " ORDER BY entry DESC"
        if limit is not None:
            suffix += " LIMIT ? OFFSET ?"
            values = [*values, limit, offset]
        return self._select(condition + suffix, values, listed=listed)

    def count(self, where: HistoryFilter | None = None) -> int:
        """How many rows match."""
        condition, values = (where or HistoryFilter()).where()
        with self.db.read() as connection:
            found: int = connection.execute(
                f"SELECT count(*) FROM plants WHERE {condition}",  # noqa: S608 (constant SQL)
                values,
            ).fetchone()[0]
        return found

    def get(self, entry: int) -> HistoryEntry | None:
        """One row by its entry number."""
        found = self._select("entry = ?", (entry,))
        return found[0] if found else None

    def numbered(self, prefix: str, *, limit: int) -> list[HistoryEntry]:
        """The newest rows whose entry number starts with the digits `prefix` (any row when it is
        empty), read as a list shows them; none when `prefix` is not digits."""
        if prefix and not (prefix.isascii() and prefix.isdigit()):
            return []
        return self._select(
            "CAST(entry AS TEXT) LIKE ? ORDER BY entry DESC LIMIT ?",
            (f"{prefix}%", limit),
            listed=True,
        )

    def profiles(self) -> list[str]:
        """The profile names that appear in the ledger."""
        with self.db.read() as connection:
            rows_ = connection.execute(
                "SELECT DISTINCT profile FROM plants WHERE profile IS NOT NULL ORDER BY profile"
            )
            return [row[0] for row in rows_]

    def _select(
        self, condition: str, values: Iterable[Any], *, listed: bool = False
    ) -> list[HistoryEntry]:
        # Every caller passes constant SQL; every value is a bound parameter.
        columns = LISTED_COLUMNS if listed else COLUMNS
        sql = f"SELECT {columns} FROM plants WHERE {condition}"  # noqa: S608
        with self.db.read() as connection:
            return [entry_from_row(row) for row in connection.execute(sql, tuple(values))]


class TargetLedger:
    """The ledger as the sends to one target write it: a server that echoed the token back has
    it taken out of every text kept."""

    def __init__(self, ledger: Ledger, token: SecretStr | None) -> None:
        self.ledger = ledger
        self._token = token

    def redact(self, text: str) -> str:
        """`text` without the token (`core.http.target.redact`, the one redaction)."""
        return redact(text, self._token)

    def sending(self, entry: int) -> None:
        """Its request is about to go out."""
        self.ledger.sending(entry)

    def settle(self, entry: int, outcome: Outcome) -> PlantState:
        """How its send ended."""
        return self.ledger.settle(entry, outcome, redact=self.redact)

    def hold(self, entries: list[int], note: str) -> None:
        """Put plants that did not go out aside."""
        self.ledger.hold(entries, note)

    def requeue(self, entry: int) -> None:
        """A plant that certainly never left waits in line again."""
        self.ledger.requeue(entry)
