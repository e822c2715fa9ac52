"""`Outcome`: the one result of a send, rendered by every front end.

A send ends in exactly one of `Created`, `Rejected` (the server answered and said no) or `Failed`
(no usable answer). Each says what it means for the plant and what to try next, in words.
"""

from __future__ import annotations

import email.utils
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypeAlias

from plantstore_tui.core.plant.text import QUOTED, shorten

if TYPE_CHECKING:
    from plantstore_tui.core.plant.models import ApiError, NewPlant, Plant


class PlantFate(StrEnum):
    """What an outcome means for the plant in the store."""

    CREATED = "created"
    NOT_CREATED = "not created"
    UNKNOWN = "unknown"


class FailureKind(StrEnum):
    """Why a send got no usable answer."""

    INVALID_URL = "invalid_url"
    INVALID_TOKEN = "invalid_token"  # noqa: S105 (a kind of failure, not a secret)
    CANNOT_CONNECT = "cannot_connect"
    TLS = "tls"
    TIMEOUT = "timeout"
    CONNECTION_DROPPED = "connection_dropped"
    REDIRECT = "redirect"
    TOO_LARGE = "too_large"
    INVALID_RESPONSE = "invalid_response"
    CANCELLED = "cancelled"
    PROXY = "proxy"

    @property
    def words(self) -> str:
        """The kind as an operator reads it ("invalid answer", not `invalid_response`)."""
        return _KIND_WORDS[self]


_KIND_WORDS = {
    FailureKind.INVALID_URL: "unusable base URL",
    FailureKind.INVALID_TOKEN: "unusable token",
    FailureKind.CANNOT_CONNECT: "cannot connect",
    FailureKind.TLS: "TLS failed",
    FailureKind.TIMEOUT: "timed out",
    FailureKind.CONNECTION_DROPPED: "connection dropped",
    FailureKind.REDIRECT: "redirected",
    FailureKind.TOO_LARGE: "answer too large",
    FailureKind.INVALID_RESPONSE: "invalid answer",
    FailureKind.CANCELLED: "cancelled",
    FailureKind.PROXY: "proxy failed",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Created:
    """The server created the plant and answered with a `Plant`."""

    url: str
    sent: NewPlant
    status: int
    elapsed_ms: float
    plant: Plant
    body: str
    # How the answer departs from the spec (core.conformance), shown beside it, never instead.
    off_spec: tuple[str, ...] = ()
    # The proxy the send went through, without user or password; None: straight to the target.
    proxy: str | None = None

    @property
    def fate(self) -> PlantFate:
        """Always created."""
        return PlantFate.CREATED

    @property
    def headline(self) -> str:
        """One line for the log."""
        return f"Created plant {self.sent.id} ({shorten(self.plant.name, QUOTED, what='name')})"

    @property
    def advice(self) -> str:
        """Nothing to do."""
        return ""


_STATUS_ADVICE = {
    400: "Correct the plant and send it again.",
    401: "The token was refused: check the profile's token, or ask for a new one.",
    403: "The token is not allowed to add plants: ask for one that is.",
    404: "Nothing answers at /plants here: check the base URL (it is the part before /plants).",
    405: "This address does not accept POST /plants: check the base URL.",
    409: "The plant conflicts with one already stored: check the id.",
    413: "The server found the request too large: shorten the name or the tag.",
    415: "The server does not accept JSON here: check the base URL.",
    422: "Correct the plant and send it again.",
    429: "The server is rate limiting: wait a moment, then send again.",
    503: "The deployment is unavailable for now and did not store the plant: send it later.",
}
# The last words of the advice for a plant that may have arrived; a front end that sends no plant
# (the check) leaves them out: `Failed.remedy`.
RESEND_ADVICE = "Check the store before sending this plant again."
# Answers by which a deployment says it did not process the request: the plant may go again later.
NOT_PROCESSED_STATUSES = frozenset({429, 503})
# Failures before the request was written: the plant certainly never left.
_NEVER_LEFT = frozenset(
    {FailureKind.CANNOT_CONNECT, FailureKind.TLS, FailureKind.PROXY, FailureKind.TIMEOUT}
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Rejected:
    """The server answered with an error status; `error` is set if the body is an Error."""

    url: str
    sent: NewPlant
    status: int
    elapsed_ms: float
    error: ApiError | None
    body: str
    body_problem: str | None = None
    retry_after: str | None = None
    off_spec: tuple[str, ...] = ()
    proxy: str | None = None

    @property
    def fate(self) -> PlantFate:
        """A 4xx or a 503 means the server did not store the plant; after another 5xx nobody
        can say."""
        if self.status < 500 or self.status in NOT_PROCESSED_STATUSES:
            return PlantFate.NOT_CREATED
        return PlantFate.UNKNOWN

    @property
    def headline(self) -> str:
        """One line for the log."""
        if self.error is not None:
            message = shorten(self.error.message, what="message")
            return f"Rejected with {self.status}: error {self.error.error}: {message}"
        return f"Rejected with {self.status}: the body is not an Error ({self.body_problem})"

    @property
    def advice(self) -> str:
        """What to try next."""
        if self.status >= 500 and self.status not in NOT_PROCESSED_STATUSES:
            return (
                "The server failed while handling the plant: check the store before sending again."
            )
        advice = _STATUS_ADVICE.get(self.status, "The server refused the plant.")
        if self.status in NOT_PROCESSED_STATUSES and self.retry_after:
            advice += f" (Retry-After: {self.retry_after})"
        return advice


@dataclass(frozen=True, slots=True, kw_only=True)
class Failed:
    """No usable answer: `message` says what happened, `fate` what it means for the plant."""

    url: str
    sent: NewPlant
    kind: FailureKind
    message: str
    fate: PlantFate
    advice: str
    status: int | None = None
    elapsed_ms: float | None = None
    location: str | None = None
    body: str = ""
    off_spec: tuple[str, ...] = ()
    proxy: str | None = None

    @property
    def headline(self) -> str:
        """One line for the log."""
        return self.message

    @property
    def remedy(self) -> str:
        """The advice less what it says of sending this plant again: what to try about the
        deployment, for words about a request that carried no plant (the check's probes)."""
        return self.advice.removesuffix(RESEND_ADVICE).strip()


Outcome: TypeAlias = Created | Rejected | Failed


def not_processed(outcome: Outcome) -> bool:
    """True when the deployment certainly did not take the plant and may take it later: it could
    not be reached before the request was written, or it answered 429 or 503."""
    match outcome:
        case Failed():
            return outcome.fate is PlantFate.NOT_CREATED and outcome.kind in _NEVER_LEFT
        case Rejected():
            return outcome.status in NOT_PROCESSED_STATUSES
        case Created():
            return False


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds a Retry-After header asks to wait (a number or an HTTP date); None if unusable."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def asked_wait(outcome: Outcome) -> float | None:
    """Seconds the deployment asked to wait before the next try (a 429's or 503's Retry-After)."""
    if isinstance(outcome, Rejected) and outcome.status in NOT_PROCESSED_STATUSES:
        return retry_after_seconds(outcome.retry_after)
    return None


def outcome_name(outcome: Outcome) -> str:
    """`created`, `rejected` or `failed`."""
    match outcome:
        case Created():
            return "created"
        case Rejected():
            return "rejected"
        case Failed():
            return "failed"


def fate_sentence(fate: PlantFate) -> str:
    """The plant's fate as a sentence an operator can act on."""
    match fate:
        case PlantFate.CREATED:
            return "The plant was created."
        case PlantFate.NOT_CREATED:
            return "The plant was not created."
        case PlantFate.UNKNOWN:
            return "The plant may or may not have been created."


def outcome_to_json(outcome: Outcome) -> dict[str, Any]:
    """The `add --json` object of design.md."""
    plant: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    kind: str | None = None
    status: int | None
    match outcome:
        # mode="json": a NaN or Infinity a server sent would otherwise print as invalid JSON.
        case Created():
            plant, status = outcome.plant.as_received(), outcome.status
        case Rejected():
            status = outcome.status
            error = None if outcome.error is None else outcome.error.as_received()
        case Failed():
            kind, status = outcome.kind.value, outcome.status
    return {
        "outcome": outcome_name(outcome),
        "status": status,
        "elapsed_ms": None if outcome.elapsed_ms is None else round(outcome.elapsed_ms, 3),
        "sent": outcome.sent.to_body(),
        "plant": plant,
        "error": error,
        "kind": kind,
        "message": outcome.headline,
        "fate": outcome.fate.value,
        "off_spec": list(outcome.off_spec),
        "proxy": outcome.proxy,
    }


def cancelled(url: str, sent: NewPlant, elapsed_ms: float | None) -> Failed:
    """The operator cancelled a send that may already have reached the server."""
    return Failed(
        url=url,
        sent=sent,
        kind=FailureKind.CANCELLED,
        message="Cancelled before the server answered",
        fate=PlantFate.UNKNOWN,
        advice=RESEND_ADVICE,
        elapsed_ms=elapsed_ms,
    )
