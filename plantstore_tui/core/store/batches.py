"""Import batches in the ledger: one file (by its SHA-256) sent to one base URL, and its rows.

One import at a time sends a batch: its owner, the session of the import that began or took it
over. The owner is set under the ledger's write lock, and only while no other session that owns
a batch of the same file and target is alive (its lock held), so two imports that start at the
same instant cannot both send; a dead owner's batch is what a resume takes over.

A row of a file may be sent more than once (a resume sends again the rows that failed): each
send is a row of the ledger, and the line's latest row says where the line stands. Rows are
written a group at a time: one transaction settles the rows that came back and marks the next
group `sending`, and it is committed before any of that group's requests goes out. A row the
deployment did not take (it could not be reached, or said 429 or 503) is settled as failed while
the import waits, and marked sending again, in a later group, before it goes again.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from plantstore_tui.core.errors import PlantStoreError
from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.plant.text import visible
from plantstore_tui.core.store import rows
from plantstore_tui.core.store.records import PlantState, format_time, parse_time, utc_now
from plantstore_tui.core.store.sessions import LiveSession, live_session

if TYPE_CHECKING:
    import sqlite3

    from plantstore_tui.core.plant.outcome import Outcome
    from plantstore_tui.core.store.ledger import Ledger

# Never sent again by --resume.
DONE_STATES = frozenset({PlantState.CREATED, PlantState.REJECTED})
# Why a line's fate is unknown, when its row says nothing (in flight in a running instance);
# its keys are the states of a line whose fate is unknown, in flight included.
_UNKNOWN_WORDS = {
    PlantState.SENDING: "marked as being sent, and no answer is recorded: it may exist already",
    PlantState.QUEUED: "marked to be sent, and no answer is recorded: it may exist already",
    PlantState.UNKNOWN: "no answer is recorded: it may exist already",
}
# The latest row of each line of a batch.
_OF_LATEST = (
    "FROM plants WHERE entry IN (SELECT max(entry) FROM plants WHERE batch = ? GROUP BY line)"
)
_LATEST = f"SELECT line, plant_id, state, message, note {_OF_LATEST}"
_BATCH_COLUMNS = "id, sha256, base_url, profile, file_name, rows, started_at, finished"
_UNKNOWN = (
    f"SELECT line, plant_id, name, name_text, id_text, tag_text, state, message, note {_OF_LATEST} "
    f"AND state IN ({', '.join(repr(state.value) for state in _UNKNOWN_WORDS)}) ORDER BY line"
)


class UnknownRow(NamedTuple):
    """A line of a batch whose fate is unknown: its id, its name, why in words, and its texts as
    read from the file (to load it into the form)."""

    line: int
    plant_id: int
    name: str
    words: str
    texts: FormTexts


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
    finished: bool = False
    """Every line done (its rows may have gone since: history off, cleared, pruned)."""


def _batch(row: tuple[Any, ...]) -> Batch:
    batch_id, sha, url, profile, file_name, count, started, finished = row
    return Batch(batch_id, sha, url, profile, file_name, count, parse_time(started), bool(finished))


@dataclass(frozen=True, slots=True)
class BatchCounts:
    """How many lines of a batch stand where: a line still `sending` is in flight while its
    import lives, and unknown once it is gone."""

    created: int = 0
    rejected: int = 0
    failed: int = 0
    unknown: int = 0
    in_flight: int = 0

    @property
    def journaled(self) -> int:
        """Lines the ledger has (every other line was never sent)."""
        return self.created + self.rejected + self.failed + self.unknown + self.in_flight


@dataclass(frozen=True, slots=True)
class ImportOwner:
    """The live import that sends a batch: its process, and how far it is."""

    session: LiveSession
    batch: Batch
    counts: BatchCounts

    def words(self) -> str:
        """Which import it is, since when and how far, in one sentence for every front end."""
        batch, counts, session = self.batch, self.counts, self.session
        settled = counts.created + counts.rejected + counts.failed
        started = session.started_at.astimezone()
        return (
            f"{visible(batch.file_name)} is being imported to {visible(batch.base_url)} by "
            f"another process ({visible(session.program)}, pid {session.pid}, started "
            f"{started:%Y-%m-%d %H:%M:%S}): {settled:,} of {batch.rows:,} rows settled, "
            f"{counts.in_flight:,} in flight"
        )


class BatchInUse(PlantStoreError):
    """Another import that still runs on this data directory sends this file to this target;
    nothing was sent. Its words name it (`ImportOwner.words`)."""

    def __init__(self, owner: ImportOwner) -> None:
        self.reason = owner.words()
        super().__init__(f"{self.reason}. Nothing was sent")
        self.owner = owner


class BatchesChanged(PlantStoreError):
    """Another import of this file to this target began since the ledger was read: what to do
    must be decided again; nothing was sent."""

    def __init__(self, file_name: str) -> None:
        self.reason = (
            f"another import of {visible(file_name)} to this target began since it was checked: "
            "check it again"
        )
        super().__init__(f"{self.reason[0].upper()}{self.reason[1:]}. Nothing was sent")


class Batches:
    """The import batches of one ledger."""

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger
        self._db = ledger.db

    def start(
        self,
        *,
        sha256: str,
        base_url: str,
        profile: str | None,
        file_name: str,
        rows: int,
        replacing: int | None = None,
    ) -> Batch:
        """Record a new batch, owned by this instance's import. An earlier unfinished batch of
        the same file to the same target is never resumed after this one (a restart): its rows
        are history from now on, no longer kept from `history clear` and the row limit.

        `replacing` is the newest batch of the file to the target when the caller decided (None:
        there was none): `BatchesChanged` if another began since, `BatchInUse` while an import
        of an unfinished one lives.
        """
        started = utc_now()
        with self._db.write() as connection:
            latest = connection.execute(
                "SELECT max(id) FROM batches WHERE sha256 = ? AND base_url = ?", (sha256, base_url)
            ).fetchone()[0]
            unfinished = connection.execute(
                f"SELECT {_BATCH_COLUMNS}, owner FROM batches "  # noqa: S608 (constant)
                "WHERE sha256 = ? AND base_url = ? AND finished = 0",
                (sha256, base_url),
            ).fetchall()
            for row in unfinished:
                self._refuse_if_owned(connection, _batch(row[:-1]), row[-1])
            if latest != replacing:
                raise BatchesChanged(file_name)
            for row in unfinished:
                connection.execute("UPDATE batches SET finished = 1 WHERE id = ?", (row[0],))
                connection.execute("DELETE FROM plants WHERE batch = ? AND keep = 0", (row[0],))
            cursor = connection.execute(
                "INSERT INTO batches (sha256, base_url, profile, file_name, rows, started_at, "
                "owner) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (sha256, base_url, profile, file_name, rows, format_time(started), self._session),
            )
        assert cursor.lastrowid is not None
        return Batch(cursor.lastrowid, sha256, base_url, profile, file_name, rows, started)

    def take_over(self, batch: Batch) -> Batch:
        """Make this instance's import the owner of `batch` (to resume it), as it stands now:
        `BatchInUse` while its import lives, `BatchesChanged` if a newer batch of the file to
        the target began since it was read."""
        with self._db.write() as connection:
            row = connection.execute(
                f"SELECT {_BATCH_COLUMNS}, owner FROM batches WHERE id = ?",  # noqa: S608
                (batch.id,),
            ).fetchone()
            latest = connection.execute(
                "SELECT max(id) FROM batches WHERE sha256 = ? AND base_url = ?",
                (batch.sha256, batch.base_url),
            ).fetchone()[0]
            if row is None or latest != batch.id:
                raise BatchesChanged(batch.file_name)
            now = _batch(row[:-1])
            self._refuse_if_owned(connection, now, row[-1])
            connection.execute(
                "UPDATE batches SET owner = ? WHERE id = ?", (self._session, batch.id)
            )
        return now

    def _refuse_if_owned(
        self, connection: sqlite3.Connection, batch: Batch, owner: int | None
    ) -> None:
        found = self._live_owner(connection, batch, owner)
        if found is not None:
            raise BatchInUse(found)

    def _live_owner(
        self, connection: sqlite3.Connection, batch: Batch, owner: int | None
    ) -> ImportOwner | None:
        """The import of another session that sends `batch`, if it lives (read on
        `connection`, so that a write transaction can decide on it)."""
        if owner is None or owner == self._session:
            return None
        session = live_session(self._db, connection, owner)
        if session is None:
            return None
        found = connection.execute(_LATEST, (batch.id,)).fetchall()
        counts = _tally([PlantState(state) for *_, state, _, _ in found], live=True)
        return ImportOwner(session, batch, counts)

    @property
    def _session(self) -> int | None:
        return self._ledger.session_id

    def owner(self, batch: Batch) -> ImportOwner | None:
        """The import that sends `batch` now, if one lives."""
        with self._db.read() as connection:
            found = connection.execute(
                "SELECT owner FROM batches WHERE id = ?", (batch.id,)
            ).fetchone()
            return None if found is None else self._live_owner(connection, batch, found[0])

    def latest(self, sha256: str, base_url: str) -> Batch | None:
        """The newest batch of this file to this target, if any."""
        with self._db.read() as connection:
            row = connection.execute(
                f"SELECT {_BATCH_COLUMNS} FROM batches "  # noqa: S608 (constant)
                "WHERE sha256 = ? AND base_url = ? ORDER BY id DESC LIMIT 1",
                (sha256, base_url),
            ).fetchone()
        return None if row is None else _batch(row)

    def _latest_rows(self, batch: Batch) -> list[tuple[int, int, PlantState, str]]:
        with self._db.read() as connection:
            found = connection.execute(_LATEST, (batch.id,)).fetchall()
        return [
            (line, plant_id, PlantState(state), message or note or "")
            for line, plant_id, state, message, note in found
        ]

    def counts(self, batch: Batch, *, live: bool = False) -> BatchCounts:
        """Where the lines of the batch stand; `live`: its import runs (a line being sent is in
        flight, not unknown)."""
        return _tally([state for _, _, state, _ in self._latest_rows(batch)], live=live)

    def settled_lines(self, batch: Batch, *, resend_unknown: bool) -> set[int]:
        """Lines not to send again: done, and (unless `resend_unknown`) unknown or in flight."""
        keep = set(DONE_STATES)
        if not resend_unknown:
            keep |= set(_UNKNOWN_WORDS)
        return {line for line, _, state, _ in self._latest_rows(batch) if state in keep}

    def unknown_rows(self, batch: Batch) -> list[UnknownRow]:
        """Every line whose fate is unknown, in flight included, in line order."""
        with self._db.read() as connection:
            found = connection.execute(_UNKNOWN, (batch.id,)).fetchall()
        return [
            UnknownRow(
                line,
                plant_id,
                name,
                message or note or _UNKNOWN_WORDS[PlantState(state)],
                FormTexts(name=name_text, id=id_text, tag=tag_text),
            )
            for line, plant_id, name, name_text, id_text, tag_text, state, message, note in found
        ]

    def advance(
        self,
        settled: Sequence[tuple[int, Outcome]],
        to_send: Sequence[rows.NewRow],
        redact: rows.Redact = str,
        *,
        again: Sequence[int] = (),
        withdrawn: Sequence[int] = (),
        refused: Collection[int] = (),
    ) -> list[int]:
        """One commit: the rows that came back settled, the next group marked sending (new
        rows, and the rows of `again` that go again), and the rows marked sending that never
        went out (`withdrawn`) taken back out of the ledger; the entries of the new rows, in
        order. A settled row whose entry is in `refused` was answered by a refused token: it
        is failed (not taken, sent again by a resume), not rejected.

        A few statements whatever the group's size, not one a row: run in a writer thread, each
        statement hands the interpreter's lock over to the thread that sends, and back.
        """
        if not settled and not to_send and not withdrawn and not again:
            return []
        session = self._ledger.session_id
        answers: list[tuple[Any, ...]] = []
        for entry, outcome in settled:
            values = rows.settle_values(outcome, redact)[1]
            if entry in refused:
                values = (PlantState.FAILED.value, *values[1:])
            answers.append((entry, *values))
        new = [rows.insert_values(row, session) for row in to_send]
        with self._db.write() as connection:
            for chunk in _chunks(answers):
                connection.execute(_settle_many(len(chunk)), [v for row in chunk for v in row])
            sent_at = format_time(utc_now())
            for chunk in _chunks(list(again)):
                connection.execute(
                    f"UPDATE plants SET {rows.SENDING} "  # noqa: S608 (placeholders)
                    f"WHERE entry IN ({', '.join('?' * len(chunk))})",
                    [sent_at, *chunk],
                )
            for chunk in _chunks(list(withdrawn)):
                # Never sent: the line stands where it stood before (a resume sends it).
                connection.execute(
                    f"DELETE FROM plants WHERE state = 'sending' "  # noqa: S608 (placeholders)
                    f"AND entry IN ({', '.join('?' * len(chunk))})",
                    chunk,
                )
            entries: list[int] = []
            for chunk in _chunks(new):
                cursor = connection.execute(
                    _insert_many(len(chunk)), [v for row in chunk for v in row]
                )
                # One statement under the write lock: its rows' entries follow one another.
                last = cursor.lastrowid
                assert last is not None
                assert cursor.rowcount == len(chunk)
                entries.extend(range(last - len(chunk) + 1, last + 1))
            return entries

    def created_ids(self, base_url: str, ids: Iterable[int]) -> set[int]:
        """Those of `ids` this ledger knows as created on `base_url` (by any front end)."""
        found: set[int] = set()
        with self._db.read() as connection:
            for chunk in _chunks(sorted(set(ids))):
                found.update(
                    plant_id
                    for (plant_id,) in connection.execute(
                        "SELECT DISTINCT plant_id FROM plants "  # noqa: S608 (placeholders)
                        f"WHERE base_url = ? AND state = 'created' AND plant_id IN "
                        f"({', '.join('?' * len(chunk))})",
                        [base_url, *chunk],
                    )
                )
        return found

    def finish(self, batch: Batch) -> bool:
        """Mark the batch finished when every line is done; True if it is. The rows of a batch
        whose history is off go then."""
        if batch.finished:
            return True
        latest = self._latest_rows(batch)
        done = len(latest) >= batch.rows and all(state in DONE_STATES for _, _, state, _ in latest)
        if done:
            with self._db.write() as connection:
                connection.execute("UPDATE batches SET finished = 1 WHERE id = ?", (batch.id,))
                connection.execute("DELETE FROM plants WHERE batch = ? AND keep = 0", (batch.id,))
        return done


def _tally(states: list[PlantState], *, live: bool) -> BatchCounts:
    tally = dict.fromkeys(PlantState, 0)
    for state in states:
        tally[state] += 1
    in_flight = tally[PlantState.SENDING] if live else 0
    return BatchCounts(
        created=tally[PlantState.CREATED],
        rejected=tally[PlantState.REJECTED],
        failed=tally[PlantState.FAILED],
        unknown=sum(tally[state] for state in _UNKNOWN_WORDS) - in_flight,
        in_flight=in_flight,
    )


# Rows in one statement at most: SQLite takes 32,766 values in one (a new row has 21).
_ROWS_PER_STATEMENT = 500
_SETTLE_SET = ", ".join(
    f"{name} = v.column{index}" for index, name in enumerate(rows.SETTLE_COLUMNS, start=2)
)


def _chunks(values: list[Any]) -> Iterator[list[Any]]:
    for start in range(0, len(values), _ROWS_PER_STATEMENT):
        yield values[start : start + _ROWS_PER_STATEMENT]


def _placeholders(rows_: int, width: int) -> str:
    one = f"({', '.join('?' * width)})"
    return ", ".join([one] * rows_)


def _insert_many(count: int) -> str:
    values = _placeholders(count, rows.INSERT_COLUMNS.count(",") + 1)
    return f"INSERT INTO plants ({rows.INSERT_COLUMNS}) VALUES {values}"  # noqa: S608


def _settle_many(count: int) -> str:
    values = _placeholders(count, len(rows.SETTLE_COLUMNS) + 1)
    return (
        f"UPDATE plants SET {_SETTLE_SET} FROM (VALUES {values}) AS v "  # noqa: S608
        "WHERE plants.entry = v.column1"
    )
