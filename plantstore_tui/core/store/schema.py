"""The ledger's schema: an ordered list of small named migrations, recorded in the file.

Each migration takes the schema from its position to the next; a released one is never edited.
`migrate` applies the missing ones under one write lock, so two instances starting on a new file
do not both create the tables, and records each in the `migrations` table and `user_version`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from typing import NamedTuple


class Migration(NamedTuple):
    """One step of the schema."""

    name: str
    apply: Callable[[sqlite3.Connection], None]


def _plants_sessions_batches(db: sqlite3.Connection) -> None:
    # One row per plant handed to a front end, from queued to its fate. `state` is the one
    # enum (records.PlantState); `held` and `dismissed` are the operator's say; `keep` is 0 for
    # a profile whose history is off (the row goes once the plant is settled and dealt with).
    # name_text, id_text and tag_text are the fields exactly as typed.
    db.execute(
        """
        CREATE TABLE plants (
            entry INTEGER PRIMARY KEY AUTOINCREMENT,
            session INTEGER,
            source TEXT NOT NULL,
            profile TEXT,
            base_url TEXT NOT NULL,
            name_text TEXT NOT NULL,
            id_text TEXT NOT NULL,
            tag_text TEXT NOT NULL,
            plant_id INTEGER NOT NULL,
            name TEXT NOT NULL,
            tag TEXT,
            body BLOB NOT NULL,
            state TEXT NOT NULL CHECK (state IN
                ('queued', 'sending', 'created', 'rejected', 'failed', 'unknown')),
            held INTEGER NOT NULL DEFAULT 0,
            dismissed INTEGER NOT NULL DEFAULT 0,
            keep INTEGER NOT NULL DEFAULT 1,
            note TEXT,
            log_ref TEXT,
            batch INTEGER,
            line INTEGER,
            queued_at TEXT NOT NULL,
            sent_at TEXT,
            settled_at TEXT,
            outcome TEXT,
            status INTEGER,
            response TEXT,
            elapsed_ms REAL,
            kind TEXT,
            fate TEXT,
            message TEXT,
            plant TEXT,
            error TEXT
        )
        """
    )
    db.execute("CREATE INDEX plants_by_target_and_id ON plants (base_url, plant_id)")
    db.execute("CREATE INDEX plants_by_profile ON plants (profile, entry)")
    db.execute("CREATE INDEX plants_by_batch ON plants (batch, line) WHERE batch IS NOT NULL")
    # Small: only the rows somebody still has to deal with.
    db.execute(
        "CREATE INDEX plants_open ON plants (session, state) "
        "WHERE dismissed = 0 AND state != 'created'"
    )
    db.execute(
        """
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            lock_name TEXT NOT NULL UNIQUE,
            pid INTEGER NOT NULL,
            program TEXT NOT NULL,
            started_at TEXT NOT NULL
        )
        """
    )
    db.execute(
        """
        CREATE TABLE batches (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            sha256 TEXT NOT NULL,
            base_url TEXT NOT NULL,
            profile TEXT,
            file_name TEXT NOT NULL,
            rows INTEGER NOT NULL,
            started_at TEXT NOT NULL,
            finished INTEGER NOT NULL DEFAULT 0
        )
        """
    )
    db.execute("CREATE INDEX batches_by_file ON batches (sha256, base_url)")
    # The previous release's files taken in, so a second start does not take them twice.
    db.execute(
        """
        CREATE TABLE carried_over (
            name TEXT PRIMARY KEY,
            carried_at TEXT NOT NULL,
            plants INTEGER NOT NULL
        )
        """
    )


def _plants_proxy(db: sqlite3.Connection) -> None:
    # The proxy a send went through (its URL without user or password); NULL: direct, or a
    # row settled before proxies were kept.
    db.execute("ALTER TABLE plants ADD COLUMN proxy TEXT")


def _off_spec(db: sqlite3.Connection) -> None:
    # How each answer departed from the spec (a JSON array of words, as in `add --json`); NULL
    # for a row settled before it was kept.
    db.execute("ALTER TABLE plants ADD COLUMN off_spec TEXT")


def _typed(db: sqlite3.Connection) -> None:
    # 1 for a plant typed in the TUI's form (not loaded from needs attention or the history):
    # the form's next id goes on from the last of them. A TUI row from before is taken as typed.
    db.execute("ALTER TABLE plants ADD COLUMN typed INTEGER NOT NULL DEFAULT 0")
    db.execute("UPDATE plants SET typed = 1 WHERE source = 'tui'")
    db.execute("CREATE INDEX plants_typed ON plants (base_url, entry) WHERE typed = 1")


def _tries(db: sqlite3.Connection) -> None:
    # How many times the plant's request went out (`add --wait`, import and the queue send a
    # plant the deployment did not take again, in the same row); a row sent before it was
    # counted is taken as sent once.
    db.execute("ALTER TABLE plants ADD COLUMN tries INTEGER NOT NULL DEFAULT 0")
    db.execute("UPDATE plants SET tries = 1 WHERE sent_at IS NOT NULL")


def _operator(db: sqlite3.Connection) -> None:
    # Who took the plant: the operating system's user and the host (operator.py). NULL: a plant
    # kept before they were written, whose operator is unknown.
    db.execute("ALTER TABLE plants ADD COLUMN operator TEXT")
    db.execute("ALTER TABLE plants ADD COLUMN host TEXT")


def _verified(db: sqlite3.Connection) -> None:
    # Verified entry: NULL for a plant keyed once; else keyed twice and compared, and how many
    # of its fields the operator corrected.
    db.execute("ALTER TABLE plants ADD COLUMN verified INTEGER")


def _keyings(db: sqlite3.Connection) -> None:
    # Verified entry's first keying of the plant an instance is keying, kept (at most one an
    # instance) until its second keying is taken; written as the plant row it becomes if the
    # instance ends first (sessions.py: held, in needs attention). The columns of a new plant.
    db.execute(
        "CREATE TABLE keyings (session INTEGER PRIMARY KEY, source TEXT NOT NULL, profile TEXT, "
        "base_url TEXT NOT NULL, name_text TEXT NOT NULL, id_text TEXT NOT NULL, "
        "tag_text TEXT NOT NULL, plant_id INTEGER NOT NULL, name TEXT NOT NULL, tag TEXT, "
        "body BLOB NOT NULL, state TEXT NOT NULL, held INTEGER NOT NULL, keep INTEGER NOT NULL, "
        "note TEXT, log_ref TEXT, batch INTEGER, line INTEGER, queued_at TEXT NOT NULL, "
        "sent_at TEXT, typed INTEGER NOT NULL, tries INTEGER NOT NULL, operator TEXT, host TEXT, "
        "verified INTEGER)"
    )


def _probes(db: sqlite3.Connection) -> None:
    # `plantstore-tui probe` and the TUI's probe screen: one request sent by hand, exactly as
    # given, and its answer. A table of its own, never rows of `plants`: a probe is never in the
    # queue, never sent again by itself, never in needs attention. Never the token: `token` is
    # the choice (profile, none, wrong); an Authorization given as a header is kept masked, and
    # the target's token is taken out of every text. The answer as shown (capped by the
    # client); `shape`, `listed`, `fate` and `off_spec` are the spec's reading of it (NULL
    # shape: no answer came, `message` says why). Headers are JSON arrays of [name, value].
    db.execute(
        """
        CREATE TABLE probes (
            number INTEGER PRIMARY KEY AUTOINCREMENT,
            session INTEGER,
            source TEXT NOT NULL,
            sent_at TEXT NOT NULL,
            profile TEXT,
            base_url TEXT NOT NULL,
            url TEXT NOT NULL,
            proxy TEXT,
            body BLOB NOT NULL,
            token TEXT NOT NULL CHECK (token IN ('profile', 'none', 'wrong')),
            headers TEXT NOT NULL,
            sent_headers TEXT NOT NULL,
            status INTEGER,
            message TEXT,
            answer_headers TEXT NOT NULL,
            answer_body TEXT NOT NULL,
            elapsed_ms REAL,
            shape TEXT,
            listed INTEGER NOT NULL,
            fate TEXT NOT NULL,
            off_spec TEXT NOT NULL,
            operator TEXT,
            host TEXT
        )
        """
    )
    db.execute("CREATE INDEX probes_by_profile ON probes (profile, number)")


def _syncs(db: sqlite3.Connection) -> None:
    # One row that the group commit (group_sync.py) changes in a durable transaction: its commit
    # syncs the write-ahead log, and with it the takes committed before it without waiting for
    # the disk. The file's own descriptors stay SQLite's (docs/ledger.md).
    db.execute("CREATE TABLE syncs (id INTEGER PRIMARY KEY CHECK (id = 1), count INTEGER NOT NULL)")


def _reservations(db: sqlite3.Connection) -> None:
    # The id each running instance offers or is about to send without being given one (the
    # TUI's next id, `add` without --id), so that no other instance hands it out: at most one a
    # session, gone with its session (reservations.py).
    db.execute(
        "CREATE TABLE reservations (base_url TEXT NOT NULL, plant_id INTEGER NOT NULL, "
        "session INTEGER NOT NULL, reserved_at TEXT NOT NULL, PRIMARY KEY (base_url, plant_id))"
    )
    db.execute("CREATE INDEX reservations_by_session ON reservations (session)")


def _sent_again_as(db: sqlite3.Connection) -> None:
    # A held plant sent again from needs attention is one plant in two rows: the held row
    # names the row of the send that took its place (whose fate is the plant's), so the
    # history shows it and the counts count the plant once. NULL: not sent again that way.
    db.execute("ALTER TABLE plants ADD COLUMN sent_again_as INTEGER")


def _batch_owner(db: sqlite3.Connection) -> None:
    # The session of the import sending the batch (sessions.id): one process at a time sends a
    # batch, and another takes it over only once that session is gone (its lock free). Taken
    # under the write lock (batches.py); NULL for a batch begun before it was kept.
    db.execute("ALTER TABLE batches ADD COLUMN owner INTEGER")


def _probe_method_path(db: sqlite3.Connection) -> None:
    # A probe may send another method, or to another path under the base URL (its query string
    # as typed); a probe kept before either could was POST /plants.
    db.execute("ALTER TABLE probes ADD COLUMN method TEXT NOT NULL DEFAULT 'POST'")
    db.execute("ALTER TABLE probes ADD COLUMN path TEXT NOT NULL DEFAULT '/plants'")


def _probe_timings(db: sqlite3.Connection) -> None:
    # Where each probe's time went (connect, TLS, request, first byte, body, total, whether the
    # connection was reused, where it stopped), as the JSON object of `probe --json`'s
    # `timings`. NULL: no request went out, or a probe kept before they were.
    db.execute("ALTER TABLE probes ADD COLUMN timings TEXT")


MIGRATIONS: tuple[Migration, ...] = (
    Migration("plants, sessions, batches", _plants_sessions_batches),
    Migration("plants.proxy", _plants_proxy),
    Migration("plants.off_spec", _off_spec),
    Migration("plants.typed", _typed),
    Migration("plants.tries", _tries),
    Migration("plants.operator", _operator),
    Migration("plants.verified", _verified),
    Migration("keyings", _keyings),
    Migration("probes", _probes),
    Migration("syncs", _syncs),
    Migration("reservations", _reservations),
    Migration("plants.sent_again_as", _sent_again_as),
    Migration("batches.owner", _batch_owner),
    Migration("probes.method, probes.path", _probe_method_path),
    Migration("probes.timings", _probe_timings),
)
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(db: sqlite3.Connection) -> None:
    """Apply every migration the file lacks, in order, in one transaction."""
    if db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        # Read again under the lock: another instance may have migrated meanwhile.
        version = db.execute("PRAGMA user_version").fetchone()[0]
        db.execute(
            "CREATE TABLE IF NOT EXISTS migrations "
            "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        for number, migration in enumerate(MIGRATIONS[version:], version + 1):
            migration.apply(db)
            db.execute(
                "INSERT INTO migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (number, migration.name, datetime.now(UTC).isoformat()),
            )
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
