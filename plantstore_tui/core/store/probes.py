"""Probes in the ledger: each request sent by hand (`plantstore-tui probe`, the TUI's probe
screen) and its answer, in a table of their own.

A probe is never a row of `plants`: it is never in the queue, never sent again by itself, never
in needs attention. Never the token either: the row keeps the token's choice (profile, none,
wrong); an Authorization given as a header is kept masked as the probe showed it, and the
target's token is taken out of every text kept. A probe is addressed as `p` and its number
(`p12`), which no plant's entry can be confused with.

`record_probe(target, answer, warn=...)` opens the ledger as every one-shot front end does
(`Recorder.open`), writes the probe and closes it: a plain function, safe to call from a thread.
A front end that holds the ledger open calls `write_probe(ledger, target, answer)`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from plantstore_tui.core.http.probe import (
    SPEC_METHOD,
    SPEC_PATH,
    ProbeRequest,
    Reading,
    Shape,
    TokenChoice,
)
from plantstore_tui.core.http.timings import Timings
from plantstore_tui.core.plant.outcome import PlantFate
from plantstore_tui.core.store.database import StoreError
from plantstore_tui.core.store.operator import this_operator
from plantstore_tui.core.store.recorder import Recorder, off_message
from plantstore_tui.core.store.records import format_time, parse_time

if TYPE_CHECKING:
    from plantstore_tui.core.http.probe import ProbeAnswer
    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.store.ledger import Ledger

# How a probe is named wherever plants are named by their entry number (`history export p12`).
PREFIX = "p"
SOURCE = "probe"

Headers = tuple[tuple[str, str], ...]

_COLUMNS = (
    "number, sent_at, source, profile, base_url, url, proxy, body, token, headers, sent_headers, "
    "status, message, answer_headers, answer_body, elapsed_ms, shape, listed, fate, off_spec, "
    "method, path, timings"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ProbeEntry:
    """One probe as the ledger keeps it."""

    number: int
    time: datetime
    source: str
    profile: str | None
    base_url: str
    url: str
    proxy: str | None
    body: bytes
    token: TokenChoice
    # The headers given (an Authorization masked), and every header as the probe showed them.
    headers: Headers
    sent_headers: Headers
    status: int | None
    # Why no answer came (None when one did).
    message: str | None
    answer_headers: Headers
    answer_body: str
    elapsed_ms: float | None
    shape: Shape | None
    fate: PlantFate
    off_spec: tuple[str, ...]
    method: str = SPEC_METHOD
    # Under the base URL, its query string as typed.
    path: str = SPEC_PATH

    @property
    def request(self) -> ProbeRequest:
        """The request as it was kept (the token's choice, an Authorization given masked)."""
        return ProbeRequest(self.body, self.token, self.headers, self.method, self.path)

    # Where its time went (None: no request went out, or kept before timings were).
    timings: Timings | None = None

    @property
    def listed(self) -> bool:
        """True when the spec lists its status (200, 400, of POST /plants); read from the
        status, so that a probe kept by an older release that called a 401 listed is read
        right."""
        return self.reading.listed

    @property
    def reading(self) -> Reading:
        """The spec's reading of its answer, as the probe read it (`.words` says it)."""
        return Reading(
            self.shape, self.status, self.fate, self.off_spec, in_spec=self.request.in_spec
        )

    @property
    def label(self) -> str:
        """How the history names it: `p12`."""
        return f"{PREFIX}{self.number}"

    def to_json(self) -> dict[str, Any]:
        """The probe as `history --probes --json` prints it."""
        return {
            "probe": self.label,
            "time": self.time.isoformat(),
            "source": self.source,
            "profile": self.profile,
            "base_url": self.base_url,
            "url": self.url,
            "proxy": self.proxy,
            "request": {
                "method": self.method,
                "path": self.path,
                "body": self.body.decode("utf-8", errors="replace"),
                "token": self.token.value,
                "headers": [list(pair) for pair in self.headers],
                "sent_headers": [list(pair) for pair in self.sent_headers],
            },
            "status": self.status,
            "message": self.message,
            "headers": [list(pair) for pair in self.answer_headers],
            "body": self.answer_body,
            "elapsed_ms": self.elapsed_ms,
            "verdict": {
                "shape": None if self.shape is None else self.shape.value,
                "listed": self.listed,
                "fate": self.fate.value if self.request.in_spec else None,
                "off_spec": list(self.off_spec),
            },
            "timings": None if self.timings is None else self.timings.to_json(),
        }


def parse_label(text: str) -> int | None:
    """The probe's number in `p12` (`P12` too), or None when `text` does not name a probe."""
    head, digits = text[:1], text[1:]
    if head.lower() != PREFIX or not (digits.isascii() and digits.isdigit()):
        return None
    return int(digits)


def write_probe(
    ledger: Ledger, target: Target, answer: ProbeAnswer, *, source: str = SOURCE
) -> int:
    """Keep one probe in `ledger` (committed when this returns); its number. `StoreError` when
    the ledger cannot be written. `answer` is as the probe showed it (its request masked, the
    token taken out); the ledger's redaction is the same, applied again to whatever is kept."""
    redact = ledger.for_target(target.token).redact

    def kept(pairs: Headers) -> str:
        return json.dumps([[name, redact(value)] for name, value in pairs], ensure_ascii=False)

    reading = answer.reading
    operator = this_operator()
    values = (
        ledger.session_id,
        source,
        format_time(answer.started),
        target.profile,
        target.base_url,
        answer.url,
        answer.outcome.proxy,
        answer.request.body,
        answer.request.token.value,
        kept(answer.request.headers),
        kept(answer.sent_headers),
        answer.status,
        None if answer.answered else redact(answer.outcome.headline),
        kept(answer.headers),
        redact(answer.body),
        answer.elapsed_ms,
        None if reading.shape is None else reading.shape.value,
        int(reading.listed),
        reading.fate.value,
        json.dumps([redact(mark) for mark in reading.off_spec], ensure_ascii=False),
        operator.user,
        operator.host,
        answer.request.method,
        answer.request.path,
        None if answer.timings is None else json.dumps(answer.timings.to_json()),
    )
    with ledger.db.write() as connection:
        cursor = connection.execute(
            "INSERT INTO probes (session, source, sent_at, profile, base_url, url, proxy, body, "
            "token, headers, sent_headers, status, message, answer_headers, answer_body, "
            "elapsed_ms, shape, listed, fate, off_spec, operator, host, method, path, timings) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            values,
        )
        number = cursor.lastrowid
        # As many probes as the ledger keeps plants, the oldest going first.
        connection.execute(
            "DELETE FROM probes WHERE number <= "
            "(SELECT number FROM probes ORDER BY number DESC LIMIT 1 OFFSET ?)",
            (ledger.limit,),
        )
    assert number is not None
    return number


def record_probe(
    target: Target,
    answer: ProbeAnswer,
    *,
    warn: Callable[[str], None],
    source: str = SOURCE,
) -> int | None:
    """Keep one probe in the ledger, opened as every one-shot front end opens it; its number, or
    None when it was not kept: history off for the profile, or a ledger that cannot be written
    (`warn` is told why, in words). Never raises `StoreError`; blocks, so call it off the event
    loop."""
    recorder = Recorder.open(source, target.profile, warn=warn)
    try:
        ledger = recorder.ledger
        if ledger is None or not recorder.keeps:
            return None
        try:
            return write_probe(ledger, target, answer, source=source)
        except StoreError as exc:
            warn(off_message(exc))
            return None
    finally:
        recorder.close()


def _where(
    profile: str | None,
    base_url: str | None,
    since: datetime | None,
    before: datetime | None = None,
) -> tuple[str, list[Any]]:
    clauses, values = ["1"], list[Any]()
    if profile is not None:
        clauses.append("profile = ?")
        values.append(profile)
    if base_url is not None:
        clauses.append("base_url = ?")
        values.append(base_url)
    if since is not None:
        clauses.append("sent_at >= ?")
        values.append(format_time(since))
    if before is not None:
        clauses.append("sent_at < ?")
        values.append(format_time(before))
    return " AND ".join(clauses), values


def list_probes(
    ledger: Ledger,
    *,
    profile: str | None = None,
    base_url: str | None = None,
    since: datetime | None = None,
    limit: int | None = None,
) -> list[ProbeEntry]:
    """The probes kept, newest first (of one profile or base URL, since a moment, if given)."""
    condition, values = _where(profile, base_url, since)
    if limit is not None:
        condition += " ORDER BY number DESC LIMIT ?"
        values.append(limit)
    else:
        condition += " ORDER BY number DESC"
    return _select(ledger, condition, values)


def count_probes(
    ledger: Ledger,
    *,
    profile: str | None = None,
    base_url: str | None = None,
    since: datetime | None = None,
) -> int:
    """How many probes match."""
    condition, values = _where(profile, base_url, since)
    with ledger.db.read() as connection:
        found: int = connection.execute(
            f"SELECT count(*) FROM probes WHERE {condition}",  # noqa: S608 (constant SQL)
            values,
        ).fetchone()[0]
    return found


def get_probe(ledger: Ledger, number: int) -> ProbeEntry | None:
    """One probe by its number."""
    found = _select(ledger, "number = ?", [number])
    return found[0] if found else None


def numbered_probes(ledger: Ledger, digits: str, *, limit: int) -> list[ProbeEntry]:
    """The newest probes whose numbers start with `digits` (any probe when it is empty); none
    when `digits` is not digits (shell completion of `p12`)."""
    if digits and not (digits.isascii() and digits.isdigit()):
        return []
    return _select(
        ledger, "CAST(number AS TEXT) LIKE ? ORDER BY number DESC LIMIT ?", [f"{digits}%", limit]
    )


def clear_probes(
    ledger: Ledger, *, profile: str | None = None, before: datetime | None = None
) -> int:
    """Delete probes (of one profile, older than a moment, or all); how many."""
    condition, values = _where(profile, None, None, before)
    with ledger.db.write() as connection:
        cursor = connection.execute(f"DELETE FROM probes WHERE {condition}", values)  # noqa: S608
        return cursor.rowcount


def _pairs(text: str) -> Headers:
    return tuple((str(name), str(value)) for name, value in json.loads(text))


def _select(ledger: Ledger, condition: str, values: Sequence[Any]) -> list[ProbeEntry]:
    sql = f"SELECT {_COLUMNS} FROM probes WHERE {condition}"  # noqa: S608 (constant SQL)
    with ledger.db.read() as connection:
        rows = connection.execute(sql, tuple(values)).fetchall()
    return [
        ProbeEntry(
            number=row[0],
            time=parse_time(row[1]),
            source=row[2],
            profile=row[3],
            base_url=row[4],
            url=row[5],
            proxy=row[6],
            body=bytes(row[7]),
            token=TokenChoice(row[8]),
            headers=_pairs(row[9]),
            sent_headers=_pairs(row[10]),
            status=row[11],
            message=row[12],
            answer_headers=_pairs(row[13]),
            answer_body=row[14],
            elapsed_ms=row[15],
            shape=None if row[16] is None else Shape(row[16]),
            fate=PlantFate(row[18]),
            off_spec=tuple(json.loads(row[19])),
            method=row[20],
            path=row[21],
            timings=None if row[22] is None else Timings.from_json(json.loads(row[22])),
        )
        for row in rows
    ]
