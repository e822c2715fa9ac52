"""What the ledger keeps of one plant (`HistoryEntry`), its one state enum, how rows are picked
(`HistoryFilter`), and the exact bytes and times it records."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.plant.outcome import (
    Created,
    FailureKind,
    PlantFate,
    Rejected,
    not_processed,
)
from plantstore_tui.core.plant.text import BLOCK_SHOWN, SHOWN, shorten

if TYPE_CHECKING:
    from plantstore_tui.core.plant.outcome import Outcome

# Fixed width in UTC, so times compare as text in SQL (--since, clear --before).
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
OUTCOMES = ("created", "rejected", "failed")


class PlantState(StrEnum):
    """Where a plant stands, from the moment a front end took it."""

    QUEUED = "queued"
    """Taken, not yet sent."""
    SENDING = "sending"
    """The request is on its way; its fate is not known yet."""
    CREATED = "created"
    """The server created it."""
    REJECTED = "rejected"
    """The server refused it (it was not created)."""
    FAILED = "failed"
    """No usable answer, and it was not created: safe to send again."""
    UNKNOWN = "unknown"
    """It may or may not be in the store."""


# A plant in one of these states did not go through (or may not have).
ATTENTION_STATES = frozenset({PlantState.REJECTED, PlantState.FAILED, PlantState.UNKNOWN})
# Not settled yet: still somebody's to send.
OPEN_STATES = frozenset({PlantState.QUEUED, PlantState.SENDING})


class Source(StrEnum):
    """Which front end took the plant."""

    TUI = "tui"
    ADD = "add"
    IMPORT = "import"
    CHECK = "check"


def state_of(outcome: Outcome) -> PlantState:
    """The state an outcome leaves a plant in (one rule for every front end)."""
    if isinstance(outcome, Created):
        return PlantState.CREATED
    if isinstance(outcome, Rejected):
        if not_processed(outcome):
            return PlantState.FAILED
        return PlantState.REJECTED if outcome.fate is PlantFate.NOT_CREATED else PlantState.UNKNOWN
    return PlantState.FAILED if outcome.fate is PlantFate.NOT_CREATED else PlantState.UNKNOWN


def utc_now() -> datetime:
    """Now, in UTC (the ledger's clock; shown in local time)."""
    return datetime.now(UTC)


def format_time(moment: datetime) -> str:
    """A fixed-width UTC timestamp that sorts as text."""
    return moment.astimezone(UTC).strftime(_TIME_FORMAT)


def parse_time(text: str) -> datetime:
    """A timestamp written by `format_time`."""
    return datetime.strptime(text, _TIME_FORMAT).replace(tzinfo=UTC)


# A row taken and never settled, whose words were never written.
INTERRUPTED = "No outcome recorded: still being sent, or plantstore-tui ended during the send"
# The columns `entry_from_row` reads, in its order: every column whole (`history show`).
COLUMNS = (
    "entry, queued_at, source, profile, base_url, plant_id, name, tag, body, log_ref, state, "
    "outcome, status, response, elapsed_ms, kind, fate, message, plant, error, held, dismissed, "
    "note, name_text, id_text, tag_text, batch, line, session, proxy, off_spec, length(response), "
    "tries, verified, sent_again_as"
)
# The same for a list (history, needs attention): what a server sent is read only as far as a
# list shows it, so a page of megabyte answers opens at once. The response's start (its length
# read beside it), the message's, and the Plant or Error only when short.
LISTED_COLUMNS = (
    COLUMNS.replace(" response,", f" substr(response, 1, {SHOWN}),")
    .replace(" message,", f" substr(message, 1, {BLOCK_SHOWN}),")
    .replace(" plant,", f" CASE WHEN length(plant) <= {BLOCK_SHOWN} THEN plant END,")
    .replace(" error,", f" CASE WHEN length(error) <= {BLOCK_SHOWN} THEN error END,")
)


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryEntry:
    """One plant as the ledger keeps it; `outcome` is None until it is settled."""

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
    state: PlantState
    outcome: str | None
    status: int | None
    response: str | None
    elapsed_ms: float | None
    kind: str | None
    fate: str
    message: str
    plant: Any
    error: Any
    held: bool
    dismissed: bool
    note: str | None
    # The three fields as the operator gave them: typed, or read from a file.
    typed: FormTexts
    batch: int | None
    line: int | None
    session: int | None
    # The proxy the send went through (no user or password); None: direct.
    proxy: str | None
    # How the answer departed from the spec; None for a row settled before the ledger kept it.
    off_spec: tuple[str, ...] | None
    # The response's length in characters: more than `len(response)` in a listed row.
    response_chars: int
    # How many times its request went out (0: not yet); one row for a plant however many.
    tries: int
    # Keyed twice and compared (verified entry): how many fields the operator corrected; None
    # when it was keyed once.
    verified: int | None = None
    # Sent again from needs attention: the entry of the row that took its place (the plant's
    # fate is that row's); None when it was not.
    sent_again_as: int | None = None

    @property
    def received(self) -> str:
        """The response as a list or a screen shows it: its start, its full size named."""
        return shorten(self.response or "", what="the body", size=self.response_chars)

    @property
    def settled(self) -> bool:
        """True once the send ended (whatever its outcome)."""
        return self.state not in OPEN_STATES

    @property
    def never_sent(self) -> bool:
        """True when it was held before its request went out: sending it is its first send."""
        return self.held and self.state is PlantState.QUEUED

    @property
    def needs_attention(self) -> bool:
        """True when the plant did not go through (or may not have), or was held back."""
        return not self.dismissed and (self.state in ATTENTION_STATES or self.held)

    @property
    def url(self) -> str:
        """Where it was (or is to be) posted."""
        return f"{self.base_url}/plants"

    def sent(self) -> Any:
        """The body sent, parsed."""
        return json.loads(self.body)

    def to_json(self) -> dict[str, Any]:
        """The keys of `add --json`, plus entry, time, source, profile, base_url and state."""
        return {
            "entry": self.entry,
            "time": format_time(self.time),
            "source": self.source,
            "profile": self.profile,
            "base_url": self.base_url,
            "state": self.state.value,
            "held": self.held,
            "dismissed": self.dismissed,
            "outcome": self.outcome,
            "status": self.status,
            "elapsed_ms": self.elapsed_ms,
            "sent": self.sent(),
            "plant": self.plant,
            "error": self.error,
            "kind": self.kind,
            "message": self.message,
            "fate": self.fate,
            "note": self.note,
            "batch": self.batch,
            "line": self.line,
            "proxy": self.proxy,
            # None for a row settled before the ledger kept the marks.
            "off_spec": None if self.off_spec is None else list(self.off_spec),
            "tries": self.tries,
            "verified": self.verified,
            "sent_again_as": self.sent_again_as,
        }


def entry_from_row(row: Sequence[Any]) -> HistoryEntry:
    """A row of `COLUMNS`."""
    (entry, queued_at, source, profile, base_url, plant_id, name, tag, body, log_ref) = row[:10]
    (state, outcome, status, response, elapsed_ms, kind, fate, message, plant, error) = row[10:20]
    (held, dismissed, note, name_text, id_text, tag_text, batch, line, session, proxy) = row[20:30]
    (off_spec, response_chars, tries, verified, sent_again_as) = row[30:]
    return HistoryEntry(
        entry=entry,
        time=parse_time(queued_at),
        source=source,
        profile=profile,
        base_url=base_url,
        plant_id=plant_id,
        name=name,
        tag=tag,
        body=bytes(body),
        log_ref=log_ref,
        state=PlantState(state),
        outcome=outcome,
        status=status,
        response=response,
        elapsed_ms=elapsed_ms,
        kind=kind,
        fate=fate or "unknown",
        message=message if message is not None else (note or _open_words(state)),
        plant=None if plant is None else json.loads(plant),
        error=None if error is None else json.loads(error),
        held=bool(held),
        dismissed=bool(dismissed),
        note=note,
        typed=FormTexts(name=name_text, id=id_text, tag=tag_text),
        batch=batch,
        line=line,
        session=session,
        proxy=proxy,
        off_spec=None if off_spec is None else tuple(json.loads(off_spec)),
        response_chars=response_chars or 0,
        tries=tries,
        verified=verified,
        sent_again_as=sent_again_as,
    )


def outcome_words(entry: HistoryEntry) -> str:
    """Where a row stands, in the words every history view shows (CLI and TUI alike)."""
    if entry.sent_again_as is not None:
        return f"sent again as #{entry.sent_again_as}"
    if entry.never_sent:
        return "held (not sent)"
    if entry.outcome is None:
        return {PlantState.QUEUED: "queued", PlantState.SENDING: "sending"}.get(
            entry.state, "unknown (no outcome)"
        )
    if entry.outcome == "failed":
        fate = "fate unknown" if entry.fate == PlantFate.UNKNOWN else entry.fate
        return f"failed: {_kind_words(entry.kind)} ({fate})"
    if entry.state is PlantState.UNKNOWN:
        return f"{entry.outcome} (fate unknown)"
    return entry.outcome


def outcome_and_fate(entry: HistoryEntry) -> str:
    """The outcome, and what became of the plant where the outcome does not say it already:
    "created", "rejected (not created)", "failed: timeout (fate unknown)"."""
    words = outcome_words(entry)
    fate = "fate unknown" if entry.fate == PlantFate.UNKNOWN else entry.fate
    if entry.outcome is None or entry.fate == entry.outcome or fate in words:
        return words
    return f"{words} ({fate})"


def _kind_words(kind: str | None) -> str:
    if kind is None:
        return "no reason recorded"
    try:
        return FailureKind(kind).words
    except ValueError:
        # A kind this version does not know (a newer one wrote the row): its name, in words.
        return kind.replace("_", " ")


def pending_words(entry: HistoryEntry) -> str:
    """Why a plant still needs the operator, in the words every pending view shows (CLI and TUI)."""
    if entry.held:
        return "held"
    return {PlantState.FAILED: "not sent", PlantState.UNKNOWN: "fate unknown"}.get(
        entry.state, entry.state.value
    )


def _open_words(state: str) -> str:
    if state == PlantState.QUEUED:
        return "Queued: not sent yet"
    return INTERRUPTED


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryFilter:
    """Which rows to list: every field left None matches all."""

    profile: str | None = None
    base_url: str | None = None
    entry: int | None = None
    plant_id: int | None = None
    outcome: str | None = None
    state: PlantState | None = None
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
            ("state", None if self.state is None else self.state.value),
        ):
            if value is not None:
                clauses.append(f"{column} = ?")
                values.append(value)
        if self.state is not None:
            # A held row sent again stands where its new send stands: listed by that state.
            clauses.append("sent_again_as IS NULL")
        if self.since is not None:
            clauses.append("queued_at >= ?")
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
