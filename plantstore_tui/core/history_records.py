"""What the history keeps of one send (`HistoryEntry`), how sends are picked (`HistoryFilter`),
and the exact bytes and times it records."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from plantstore_tui.core.models import NewPlant

OUTCOMES = ("created", "rejected", "failed")
# Fixed width in UTC, so times compare as text in SQL (--since, clear --before).
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
# A row begun and never settled: in flight in some running instance, or its process died.
INTERRUPTED = "No outcome recorded: still being sent, or plantstore-tui ended during the send"
# The columns of the sends table, in the order `entry_from_row` reads them.
COLUMNS = (
    "entry, time, source, profile, base_url, plant_id, name, tag, body, log_ref, state, outcome, "
    "status, response, elapsed_ms, kind, fate, message, plant, error"
)


def body_bytes(plant: NewPlant) -> bytes:
    """The exact JSON body the client sends for `plant` (httpx's own encoding of `json=`)."""
    return json.dumps(
        plant.to_body(), ensure_ascii=False, separators=(",", ":"), allow_nan=False
    ).encode("utf-8")


def utc_now() -> datetime:
    """Now, in UTC (the history's clock; shown in local time)."""
    return datetime.now(UTC)


def format_time(moment: datetime) -> str:
    """A fixed-width UTC timestamp that sorts as text."""
    return moment.astimezone(UTC).strftime(_TIME_FORMAT)


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryEntry:
    """One send as the history keeps it; `outcome` is None while unsettled (or interrupted)."""

    entry: int
    time: datetime
    source: str
    profile: str | None
    base_url: str
    plant_id: int
    name: str
    tag: str | None
    body: bytes
    log_ref: str | None
    settled: bool
    outcome: str | None
    status: int | None
    response: str | None
    elapsed_ms: float | None
    kind: str | None
    fate: str
    message: str
    plant: Any
    error: Any

    @property
    def url(self) -> str:
        """Where it was posted."""
        return f"{self.base_url}/plants"

    def sent(self) -> Any:
        """The body sent, parsed."""
        return json.loads(self.body)

    def to_json(self) -> dict[str, Any]:
        """The keys of `add --json`, plus entry, time, source, profile and base_url."""
        return {
            "entry": self.entry,
            "time": format_time(self.time),
            "source": self.source,
            "profile": self.profile,
            "base_url": self.base_url,
            "outcome": self.outcome,
            "status": self.status,
            "elapsed_ms": self.elapsed_ms,
            "sent": self.sent(),
            "plant": self.plant,
            "error": self.error,
            "kind": self.kind,
            "message": self.message,
            "fate": self.fate,
            # Not kept: judging an answer needs its Content-Type, which the history does not hold.
            "off_spec": None,
        }


def entry_from_row(row: Sequence[Any]) -> HistoryEntry:
    (entry, time, source, profile, base_url, plant_id, name, tag, body, log_ref, state) = row[:11]
    outcome, status, response, elapsed_ms, kind, fate, message, plant, error = row[11:]
    return HistoryEntry(
        entry=entry,
        time=datetime.strptime(time, _TIME_FORMAT).replace(tzinfo=UTC),
        source=source,
        profile=profile,
        base_url=base_url,
        plant_id=plant_id,
        name=name,
        tag=tag,
        body=bytes(body),
        log_ref=log_ref,
        settled=state == "settled",
        outcome=outcome,
        status=status,
        response=response,
        elapsed_ms=elapsed_ms,
        kind=kind,
        fate=fate,
        message=message if message is not None else INTERRUPTED,
        plant=None if plant is None else json.loads(plant),
        error=None if error is None else json.loads(error),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryFilter:
    """Which sends to list: every field left None matches all."""

    profile: str | None = None
    base_url: str | None = None
    entry: int | None = None
    plant_id: int | None = None
    outcome: str | None = None
    since: datetime | None = None
    text: str | None = None

    def where(self) -> tuple[str, list[Any]]:
        """The SQL condition and its parameters."""
        clauses: list[str] = []
        values: list[Any] = []
        for column, value in (
            ("profile", self.profile),
            ("base_url", self.base_url),
            ("entry", self.entry),
            ("plant_id", self.plant_id),
            ("outcome", self.outcome),
        ):
            if value is not None:
                clauses.append(f"{column} = ?")
                values.append(value)
        if self.since is not None:
            clauses.append("time >= ?")
            values.append(format_time(self.since))
        if self.text:
            # Plain substring search: % and _ typed by the operator match themselves.
            pattern = "%" + self.text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            pattern += "%"
            clauses.append(
                "(name LIKE ? ESCAPE '\\' OR tag LIKE ? ESCAPE '\\' OR CAST(plant_id AS TEXT) "
                "LIKE ? ESCAPE '\\' OR message LIKE ? ESCAPE '\\')"
            )
            values.extend([pattern] * 4)
        return (" AND ".join(clauses) or "1"), values
