"""Import batches in the ledger: one file (by its SHA-256) sent to one base URL, and its rows.

A row of a file may be sent more than once (a resume sends again the rows that failed): each
send is a row of the ledger, and the line's latest row says where the line stands. Rows are
written a group at a time: one transaction settles the rows that came back and marks the next
group `sending`, and it is committed before any of that group's requests goes out. A row the
deployment did not take (it could not be reached, or said 429 or 503) is settled as failed while
the import waits, and marked sending again, in a later group, before it goes again.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.store import rows
from plantstore_tui.core.store.records import PlantState, format_time, parse_time, utc_now

if TYPE_CHECKING:
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


@dataclass(frozen=True, slots=True)
class BatchCounts:
    """How many lines of a batch stand where (a line still `sending` counts as unknown)."""

    created: int = 0
    rejected: int = 0
    failed: int = 0
    unknown: int = 0

    @property
    def journaled(self) -> int:
        """Lines the ledger has (every other line was never sent)."""
        return self.created + self.rejected + self.failed + self.unknown


class Batches:
    """The import batches of one ledger."""

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger
        self._db = ledger.db

    def start(
        self, *, sha256: str, base_url: str, profile: str | None, file_name: str, rows: int
    ) -> Batch:
        """Record a new batch. An earlier unfinished batch of the same file to the same target
        is never resumed after this one (a restart): its rows are history from now on, no longer
        kept from `history clear` and the row limit."""
        started = utc_now()
        with self._db.write() as connection:
            superseded = [
                batch_id
                for (batch_id,) in connection.execute(
                    "SELECT id FROM batches WHERE sha256 = ? AND base_url = ? AND finished = 0",
                    (sha256, base_url),
                )
            ]
            for batch_id in superseded:
                connection.execute("UPDATE batches SET finished = 1 WHERE id = ?", (batch_id,))
                connection.execute("DELETE FROM plants WHERE batch = ? AND keep = 0", (batch_id,))
            cursor = connection.execute(
                "INSERT INTO batches (sha256, base_url, profile, file_name, rows, started_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (sha256, base_url, profile, file_name, rows, format_time(started)),
            )
        assert cursor.lastrowid is not None
        return Batch(cursor.lastrowid, sha256, base_url, profile, file_name, rows, started)

    def latest(self, sha256: str, base_url: str) -> Batch | None:
        """The newest batch of this file to this target, if any."""
        with self._db.read() as connection:
            row = connection.execute(
                "SELECT id, sha256, base_url, profile, file_name, rows, started_at, finished "
                "FROM batches WHERE sha256 = ? AND base_url = ? ORDER BY id DESC LIMIT 1",
                (sha256, base_url),
            ).fetchone()
        if row is None:
            return None
        batch_id, sha, url, profile, file_name, count, started, finished = row
        started_at = parse_time(started)
        return Batch(batch_id, sha, url, profile, file_name, count, started_at, bool(finished))

    def _latest_rows(self, batch: Batch) -> list[tuple[int, int, PlantState, str]]:
        with self._db.read() as connection:
            found = connection.execute(_LATEST, (batch.id,)).fetchall()
        return [
            (line, plant_id, PlantState(state), message or note or "")
            for line, plant_id, state, message, note in found
        ]

    def counts(self, batch: Batch) -> BatchCounts:
        """Where the lines of the batch stand."""
        tally = dict.fromkeys(PlantState, 0)
        for _, _, state, _ in self._latest_rows(batch):
            tally[state] += 1
        return BatchCounts(
            created=tally[PlantState.CREATED],
            rejected=tally[PlantState.REJECTED],
            failed=tally[PlantState.FAILED],
            unknown=sum(tally[state] for state in _UNKNOWN_WORDS),
        )

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
    ) -> list[int]:
        """One commit: the rows that came back settled, the next group marked sending (new
        rows, and the rows of `again` that go again), and the rows marked sending that never
        went out (`withdrawn`) taken back out of the ledger; the entries of the new rows, in
        order.

        A few statements whatever the group's size, not one a row: run in a writer thread, each
        statement hands the interpreter's lock over to the thread that sends, and back.
        """
        if not settled and not to_send and not withdrawn and not again:
            return []
        session = self._ledger.session_id
        answers = [(entry, *rows.settle_values(outcome, redact)[1]) for entry, outcome in settled]
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
