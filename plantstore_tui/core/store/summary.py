"""The shift at a glance: what came of the plants taken since a moment, counted from the ledger
(`history summary`), in all, per hour of local time, and per operator."""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any

from plantstore_tui.core.plant.text import plural
from plantstore_tui.core.store.ledger import ATTENTION, Ledger
from plantstore_tui.core.store.operator import UNKNOWN
from plantstore_tui.core.store.records import PlantState, format_time, parse_time, utc_now

_HOUR = timedelta(hours=1)
# One row per plant taken since the moment (and to the target): only what the counts need. A
# plant sent again from needs attention is counted by the row that took its place.
_ROWS = (
    "SELECT state, queued_at, settled_at, status, error, operator, host, verified, "  # noqa: S608
    f"({ATTENTION}) FROM plants WHERE queued_at >= ? AND sent_again_as IS NULL"
)


@dataclass(frozen=True, slots=True)
class Rejections:
    """How many plants were rejected with one Error code (None: an answer without an Error)."""

    code: int | None
    count: int


@dataclass(frozen=True, slots=True)
class Counts:
    """What came of a set of plants."""

    taken: int
    created: int
    rejected: int
    attention: int
    """Needing attention now, as the TUI's needs attention counts it."""
    unknown: int
    """Of unknown fate: they may or may not be in the store."""
    rejected_by_code: tuple[Rejections, ...]
    """The rejected, by the Error's code, the most frequent first."""
    answered: int
    """How many had an answer (the times below are theirs)."""
    median_ms: float | None
    """The median time from the take (Enter) to the answer; None with no answer."""
    p95_ms: float | None
    """The 95th percentile (nearest rank) of the same."""
    verified: int = 0
    """Keyed twice and compared (verified entry)."""
    corrected: int = 0
    """The fields the operator corrected in them (where their two keyings differed)."""

    def rejected_words(self) -> str:
        """`5 (error 1003: 4, no Error: 1)`."""
        codes = ", ".join(
            f"{'no Error' if one.code is None else f'error {one.code}'}: {one.count:,}"
            for one in self.rejected_by_code
        )
        return f"{self.rejected:,}" + (f" ({codes})" if codes else "")

    def rows(self, answer_label: str = "From Enter to the answer") -> list[tuple[str, str]]:
        """The counts after `taken`, as (label, words) rows: the CLI's table and F7 alike; the
        verified ones only when some plant was keyed twice."""
        rows = [
            ("Created", f"{self.created:,}"),
            ("Rejected", self.rejected_words()),
            ("Needing attention", f"{self.attention:,}"),
            ("Fate unknown", f"{self.unknown:,}"),
            (answer_label, self.answer_words()),
        ]
        if self.verified:
            corrected = plural(self.corrected, "field")
            rows.append(("Verified", f"{self.verified:,} ({corrected} corrected)"))
        return rows

    def answer_words(self) -> str:
        """The time from Enter to the answer: `median 84 ms, 95th percentile 1.2 s (39
        answers)`."""
        if self.median_ms is None or self.p95_ms is None:
            return "no answer yet"
        return (
            f"median {duration_words(self.median_ms)}, 95th percentile "
            f"{duration_words(self.p95_ms)} ({plural(self.answered, 'answer')})"
        )


@dataclass(frozen=True, slots=True)
class Hour:
    """One hour of local time: plants taken in it that were created, and rejected."""

    start: datetime
    """The hour's first moment, local time with its offset."""
    created: int
    rejected: int


@dataclass(frozen=True, slots=True)
class OperatorCounts:
    """What came of the plants one operator took (`unknown`: not known)."""

    user: str
    host: str
    counts: Counts


@dataclass(frozen=True, slots=True)
class Summary:
    """The plants taken since `since` (to `base_url` only, when given)."""

    since: datetime
    base_url: str | None
    counts: Counts
    by_hour: tuple[Hour, ...]
    """From the hour of the first plant taken to that of the last, an hour with none included."""
    by_operator: tuple[OperatorCounts, ...]
    """By user, then host."""

    @classmethod
    def empty(cls, since: datetime, base_url: str | None = None) -> Summary:
        """The summary of a ledger with no plants (none yet)."""
        return cls(since, base_url, _counts(()), (), ())


@dataclass(frozen=True, slots=True)
class _Row:
    state: PlantState
    taken_at: datetime
    answer_ms: float | None
    error_code: int | None
    user: str
    host: str
    attention: bool
    # Verified entry: the fields corrected (None: keyed once).
    verified: int | None


def summarize(ledger: Ledger, since: datetime, base_url: str | None = None) -> Summary:
    """Count the plants taken since `since`, to `base_url` if given."""
    sql, values = _ROWS, [format_time(since)]
    if base_url is not None:
        sql += " AND base_url = ?"
        values.append(base_url)
    with ledger.db.read() as connection:
        found = [_row(values) for values in connection.execute(sql + " ORDER BY entry", values)]
    operators = sorted({(row.user, row.host) for row in found})
    return Summary(
        since=since,
        base_url=base_url,
        counts=_counts(found),
        by_hour=_hours(found),
        by_operator=tuple(
            OperatorCounts(
                user, host, _counts(row for row in found if row.user == user and row.host == host)
            )
            for user, host in operators
        ),
    )


def duration_words(ms: float) -> str:
    """`350 ms`, `4.2 s`, `12 min`: as a person reads a wait."""
    if ms < 1_000:
        return f"{ms:.0f} ms"
    if ms < 60_000:
        return f"{ms / 1_000:.1f} s"
    return f"{ms / 60_000:,.0f} min"


def local_midnight(now: datetime | None = None) -> datetime:
    """The start of today in local time, with the offset it had (`--since today`, F7)."""
    return datetime.combine((now or utc_now()).astimezone().date(), time()).astimezone()


def local_hour(moment: datetime) -> datetime:
    """The start of the hour of local time `moment` falls in, with its offset."""
    return moment.astimezone().replace(minute=0, second=0, microsecond=0)


def _row(values: Sequence[Any]) -> _Row:
    state, queued_at, settled_at, status, error, user, host, verified, attention = values
    taken_at = parse_time(queued_at)
    answer_ms = None
    if status is not None and settled_at is not None:
        answer_ms = (parse_time(settled_at) - taken_at) / timedelta(milliseconds=1)
    return _Row(
        state=PlantState(state),
        taken_at=taken_at,
        answer_ms=answer_ms,
        error_code=_code(error) if state == PlantState.REJECTED else None,
        user=user or UNKNOWN,
        host=host or UNKNOWN,
        attention=bool(attention),
        verified=verified,
    )


def _code(error: str | None) -> int | None:
    """The code of the Error kept as JSON (None: no Error, or not one with an integer code)."""
    if error is None:
        return None
    try:
        code = json.loads(error).get("error")
    except (ValueError, AttributeError):
        return None
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def _counts(rows: Iterable[_Row]) -> Counts:
    states: Counter[PlantState] = Counter()
    codes: Counter[int | None] = Counter()
    times: list[float] = []
    attention = verified = corrected = 0
    for row in rows:
        states[row.state] += 1
        attention += row.attention
        if row.verified is not None:
            verified += 1
            corrected += row.verified
        if row.state is PlantState.REJECTED:
            codes[row.error_code] += 1
        if row.answer_ms is not None:
            times.append(row.answer_ms)
    times.sort()
    return Counts(
        taken=states.total(),
        created=states[PlantState.CREATED],
        rejected=states[PlantState.REJECTED],
        attention=attention,
        unknown=states[PlantState.UNKNOWN],
        rejected_by_code=tuple(Rejections(code, count) for code, count in codes.most_common()),
        answered=len(times),
        median_ms=statistics.median(times) if times else None,
        p95_ms=times[math.ceil(0.95 * len(times)) - 1] if times else None,
        verified=verified,
        corrected=corrected,
    )


def _hours(rows: Sequence[_Row]) -> tuple[Hour, ...]:
    created: Counter[datetime] = Counter()
    rejected: Counter[datetime] = Counter()
    for row in rows:
        hour = local_hour(row.taken_at)
        created[hour] += row.state is PlantState.CREATED
        rejected[hour] += row.state is PlantState.REJECTED
    if not rows:
        return ()
    hours = []
    # Stepped in absolute time, each named in local time: a change of offset in the shift
    # (summer time) neither skips an hour nor counts one twice.
    hour, last = min(created), max(created)
    while hour <= last:
        hours.append(Hour(hour, created[hour], rejected[hour]))
        hour = local_hour(hour + _HOUR)
    return tuple(hours)
