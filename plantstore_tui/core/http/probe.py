"""`probe`: one request, exactly as given, and the spec's reading of its answer.

A probe is `POST /plants`, the spec's one operation, unless it names another method or a path
under the base URL (`GET /plants`, `/openapi.json`: what the spec does not describe is read by
HTTP alone). Its body is sent byte for byte, JSON or not; its token is the profile's, none, or a
fixed wrong one; its headers may add to or replace the client's. The request still goes through the
client (`ProbeTransport` rewrites it on its way out), so it has the profile's TLS, proxy and limits,
and its answer is read by the same rules as a plant's: `Outcome` says what it means for a plant,
`conformance` how it departs from the spec. A probe is never a plant of the queue.
"""

from __future__ import annotations

import json
import secrets
import string
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import httpx
from pydantic import SecretStr

from plantstore_tui.core.http.client import HEADERS, PlantStoreClient, one_connection
from plantstore_tui.core.http.conformance import (
    SPEC_STATUSES,
    http_reading,
    off_spec,
    status_reading,
)
from plantstore_tui.core.http.probe_transport import KEEP, ProbeTransport, Seen
from plantstore_tui.core.http.target import Target, redact_bytes
from plantstore_tui.core.http.timings import Timings
from plantstore_tui.core.http.tls import CABundleError
from plantstore_tui.core.http.urls import token_problem
from plantstore_tui.core.http.wire import Wire, wire_of
from plantstore_tui.core.plant.models import ApiError, NewPlant, Plant
from plantstore_tui.core.plant.outcome import (
    Created,
    Failed,
    Outcome,
    PlantFate,
    cancelled,
    fate_sentence,
)

# The wrong token `--token wrong` sends: fixed, so that a case replays the same request.
WRONG_TOKEN = "plantstore-tui-wrong-token"  # noqa: S105 (a token meant to be refused)
_WRONG = f"Bearer {WRONG_TOKEN}"
_STAND_IN = "stand-in-never-sent"
# The client builds a request from a NewPlant; the probe transport replaces its body.
_PLACEHOLDER = NewPlant(id=0, name="plantstore-tui probe")
# The spec's one operation: what a probe sends unless told another method or path.
SPEC_METHOD = "POST"
SPEC_PATH = "/plants"
# Methods that change nothing on a server that follows HTTP (RFC 9110, 9.2.1).
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
# RFC 9110's token characters: what a method may be made of.
_TOKEN = frozenset(string.ascii_letters + string.digits + "!#$%&'*+-.^_`|~")
_PATH_LIMIT = 2048


class TokenChoice(StrEnum):
    """Which Authorization a probe sends."""

    PROFILE = "profile"
    NONE = "none"
    WRONG = "wrong"


class Shape(StrEnum):
    """What the answer's body is, in the spec's terms."""

    PLANT = "Plant"
    ERROR = "Error"
    NEITHER = "neither"


@dataclass(frozen=True, slots=True)
class ProbeRequest:
    """One request as the tester gives it: the body's bytes, the token choice, extra headers,
    the method and the path under the base URL (its query string as typed)."""

    body: bytes
    token: TokenChoice = TokenChoice.PROFILE
    # Added to the client's headers; one of the same name (Content-Type) replaces the client's.
    headers: tuple[tuple[str, str], ...] = ()
    method: str = SPEC_METHOD
    path: str = SPEC_PATH

    @property
    def in_spec(self) -> bool:
        """True for the spec's one operation, `POST /plants` (a query string or not)."""
        return spec_operation(self.method, self.path)

    @property
    def line(self) -> str:
        """The method and path, as a request line names them: `GET /plants`."""
        return f"{self.method} {self.path}"

    def url(self, base_url: str) -> str:
        """Where it goes: the path under the base URL."""
        return base_url.rstrip("/") + self.path

    @property
    def bodyless(self) -> bool:
        """True when it goes with no body and so none of the client's Content-Type (the spec's
        operation always sends its own)."""
        return not (self.in_spec or self.body)

    @property
    def sends_token(self) -> bool:
        """True when the target's token goes with the request: the token choice is the
        profile's, and no Authorization header given replaces it."""
        given = any(name.lower() == "authorization" for name, _ in self.headers)
        return self.token is TokenChoice.PROFILE and not given

    @property
    def credential(self) -> bool:
        """True when an Authorization goes with it: the token's choice, or one given."""
        given = any(name.lower() == "authorization" for name, _ in self.headers)
        return given or self.token is not TokenChoice.NONE

    @property
    def may_create(self) -> bool:
        """Whether it could create a plant, or change anything, on a deployment that follows
        the spec and HTTP: `POST /plants` with a JSON object, or a method HTTP does not call
        safe, sent with the target's own token (a protected profile asks first)."""
        if not self.sends_token:
            return False
        if not self.in_spec:
            return self.method.upper() not in SAFE_METHODS
        try:
            return isinstance(json.loads(self.body), dict)
        except (ValueError, RecursionError):
            return False


def spec_operation(method: str, path: str) -> bool:
    """True for the spec's one operation, `POST /plants` (a query string or not)."""
    return method == SPEC_METHOD and path.split("?", 1)[0] in (SPEC_PATH, f"{SPEC_PATH}/")


def parse_method(text: str) -> str:
    """A method in capitals, as the client (httpx) sends every method, or ValueError saying
    what is wrong with it."""
    method = text.strip().upper()
    if not method:
        raise ValueError("the method is empty: give one such as GET or POST")
    if not set(method) <= _TOKEN:
        raise ValueError(f"{method!r} is not a method: letters, digits and !#$%&'*+-.^_`|~ only")
    return method


def parse_path(text: str) -> str:
    """A path under the base URL, with its query string as typed (`/plants?limit=5`), or
    ValueError saying what is wrong with it."""
    path = text.strip()
    if not path.startswith("/"):
        raise ValueError(
            f"{path!r} is not a path: give it from the base URL on, starting with / "
            "(e.g. /plants or /openapi.json)"
        )
    if path.startswith("//"):
        raise ValueError(f"{path!r} names another host: give a path under the base URL")
    if len(path) > _PATH_LIMIT:
        raise ValueError(f"the path is longer than {_PATH_LIMIT:,} characters")
    if not path.isascii() or not path.isprintable() or " " in path:
        raise ValueError(
            f"{path!r} cannot be sent: a path is ASCII with no spaces (percent-encode others)"
        )
    if "#" in path:
        raise ValueError(f"{path!r} holds a fragment (#...), which is never sent: leave it out")
    return path


def parse_header(text: str) -> tuple[str, str]:
    """`Name: value` as a pair, or ValueError saying what is wrong with it."""
    name, colon, value = text.partition(":")
    name = name.strip()
    if not colon or not name:
        raise ValueError(f"{text!r} is not a header: give it as NAME:VALUE")
    try:
        # Only what HTTP can carry: a header is sent as bytes.
        name.encode("ascii")
        value.strip().encode("latin-1")
    except UnicodeEncodeError:
        raise ValueError(f"{text!r} cannot be sent: a header is ASCII text") from None
    if any(char in name for char in ' \t()<>@,;\\"/[]?={}') or not name.isprintable():
        raise ValueError(f"{name!r} is not a header name")
    if name.lower() in ("host", "content-length"):
        raise ValueError(f"{name} is set by the request itself and cannot be given")
    return name, value.strip()


@dataclass(frozen=True, slots=True)
class Reading:
    """The spec's reading of an answer: its shape, its status as the spec and HTTP read it, and
    what it means for a plant (by the rules `check` and the TUI use)."""

    shape: Shape | None  # None: no answer came
    status: int | None
    fate: PlantFate
    off_spec: tuple[str, ...] = ()
    # False for a request the spec does not describe (another method or path): HTTP reads it.
    in_spec: bool = True

    @property
    def listed(self) -> bool:
        """True for the statuses the spec lists: 200 and 400 (for `POST /plants` only)."""
        return self.in_spec and self.status in SPEC_STATUSES

    @property
    def words(self) -> str:
        """The reading in one or two sentences."""
        if self.shape is None or self.status is None:
            return f"No answer came. {fate_sentence(self.fate) if self.in_spec else ''}".strip()
        body = "is neither a Plant nor an Error" if self.shape is Shape.NEITHER else "is a"
        if self.shape is not Shape.NEITHER:
            body += f"{'n' if self.shape is Shape.ERROR else ''} {self.shape.value}"
        if not self.in_spec:
            return (
                f"The body {body}; {http_reading(self.status)}. The spec describes only "
                f"{SPEC_METHOD} {SPEC_PATH}: it says nothing of this request."
            )
        return f"The body {body}; {status_reading(self.status)}. {fate_sentence(self.fate)}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ProbeAnswer:
    """What one probe sent and what came back, as every front end shows and keeps it: the
    target's token taken out of every text (`Target.redact`)."""

    # The request as shown: its body and headers without the token, an Authorization given
    # masked (`masked_header`).
    request: ProbeRequest
    url: str
    started: datetime
    # The request's headers as shown: Authorization as `Bearer …` and at most 4 characters.
    sent_headers: tuple[tuple[str, str], ...]
    status: int | None
    headers: tuple[tuple[str, str], ...] = ()
    body: str = ""
    elapsed_ms: float | None = None
    # The client's reading of the answer, for its words when none came (`headline`, `advice`).
    outcome: Outcome
    reading: Reading
    # Said once beside the answer: the token is too short to be hidden in it (`Target.token_note`).
    note: str | None = None
    # Where the time went, and the exchange as it went on the wire (None: no request went out).
    timings: Timings | None = None
    wire: Wire | None = None

    @property
    def answered(self) -> bool:
        """True when a status came back, whatever it was."""
        return self.status is not None

    def to_json(self) -> dict[str, Any]:
        """The one object `probe --json` prints."""
        return {
            "url": self.url,
            "request": {
                "method": self.request.method,
                "path": self.request.path,
                "headers": [list(pair) for pair in self.sent_headers],
                "body": self.request.body.decode("utf-8", errors="replace"),
                "token": self.request.token.value,
            },
            "status": self.status,
            "headers": [list(pair) for pair in self.headers],
            "body": self.body,
            "elapsed_ms": None if self.elapsed_ms is None else round(self.elapsed_ms, 3),
            "verdict": {
                "shape": None if self.reading.shape is None else self.reading.shape.value,
                "listed": self.reading.listed,
                "fate": self.reading.fate.value if self.reading.in_spec else None,
                "off_spec": list(self.reading.off_spec),
                "words": self.reading.words,
            },
            "message": None if self.answered else self.outcome.headline,
            "timings": None if self.timings is None else self.timings.to_json(),
            "wire": None if self.wire is None else self.wire.to_json(),
        }


def shape_of(status: int, body: str) -> Shape:
    """Whether `body` is the spec's Plant or Error (a 2xx is read as a Plant first)."""
    models: tuple[type[Plant] | type[ApiError], ...] = (
        (Plant, ApiError) if 200 <= status < 300 else (ApiError, Plant)
    )
    for model in models:
        try:
            model.model_validate_json(body)
        except ValueError:
            continue
        return Shape.PLANT if model is Plant else Shape.ERROR
    return Shape.NEITHER


def read_answer(
    outcome: Outcome, body: str, content_type: str | None, *, in_spec: bool = True
) -> Reading:
    """The spec's reading of what the client made of an answer (`in_spec` False: of a request
    the spec does not describe, which nothing it says can mark off spec)."""
    if outcome.status is None:
        return Reading(None, None, fate=outcome.fate, in_spec=in_spec)
    if not in_spec:
        return Reading(shape_of(outcome.status, body), outcome.status, outcome.fate, (), False)
    marks = outcome.off_spec
    if isinstance(outcome, Created):
        # Only the answer's own departures: the client also held the Plant against the
        # placeholder it built, which is not what the probe sent.
        marks = off_spec(outcome.status, content_type, body.encode("utf-8"))
    return Reading(shape_of(outcome.status, body), outcome.status, outcome.fate, marks)


def authorization(target: Target, token: TokenChoice) -> object:
    """The probe transport's `authorization` for a token choice."""
    if token is TokenChoice.NONE:
        return None
    if token is TokenChoice.WRONG:
        if target.token.get_secret_value() != WRONG_TOKEN:
            return _WRONG
        return f"Bearer {secrets.token_urlsafe(24)}"
    return KEEP


def shown_request(target: Target, request: ProbeRequest) -> ProbeRequest:
    """The request as a probe shows and keeps it: the target's token taken out of its body and
    headers (names too), an Authorization given masked as a token is."""
    headers = tuple(
        (target.redact(name), target.redact(value))
        for name, value in (masked_header(name, value) for name, value in request.headers)
    )
    return replace(request, body=redact_bytes(request.body, target.token), headers=headers)


def shown_headers(target: Target, request: ProbeRequest) -> tuple[tuple[str, str], ...]:
    """Every header of the request as a probe shows them, `request` as `shown_request` made
    it: never the token, at most its last 4."""
    given = {name.lower() for name, _ in request.headers} | _dropped(request)
    shown = [(name, value) for name, value in HEADERS if name.lower() not in given]
    # An Authorization given as a header replaces the token choice's (masked already).
    shown.extend(request.headers)
    if "authorization" in given:
        return tuple(shown)
    if request.token is TokenChoice.WRONG:
        # Not a secret: the fixed value every wrong-token probe sends (unless it is the token).
        fixed = authorization(target, request.token) == _WRONG
        shown.append(("Authorization", _WRONG if fixed else "Bearer …"))
    elif request.token is TokenChoice.PROFILE:
        shown.append(("Authorization", f"Bearer {target.token_hint() or '…'}"))
    return tuple(shown)


def _dropped(request: ProbeRequest) -> set[str]:
    # The client's headers a request leaves out.
    return {"content-type"} if request.bodyless else set()


def masked_header(name: str, value: str) -> tuple[str, str]:
    """A header as a probe shows and keeps it: an Authorization's credentials masked."""
    return (name, _masked(value)) if name.lower() == "authorization" else (name, value)


def _wire_header(name: str, value: str) -> tuple[str, str]:
    """A header as it went, shown as `shown_headers` shows it: the credentials masked, but the
    fixed wrong token, which is no secret."""
    if name.lower() == "authorization" and value != _WRONG:
        return name, _masked(value)
    return name, value


def _masked(value: str) -> str:
    scheme, _, credentials = value.partition(" ")
    if not credentials:
        scheme, credentials = "", scheme
    hint = f"…{credentials[-4:]}" if len(credentials) >= 12 else "…"
    return f"{scheme} {hint}".strip()


async def send_probe(
    target: Target,
    request: ProbeRequest,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    url: str | None = None,
) -> ProbeAnswer:
    """Send one probe to the target (to `url` instead of its path under the base URL: a
    redirect followed) and read its answer. Never raises on I/O."""
    url = url or request.url(target.base_url)
    started = datetime.now(UTC)
    probe: ProbeTransport | None = None
    try:
        probe = ProbeTransport(transport or one_connection(target))
    except CABundleError:
        # The client says why a CA file cannot be used, as for any send.
        pass
    else:
        probe.body = request.body
        probe.authorization = authorization(target, request.token)
        probe.headers = request.headers
        probe.method, probe.url = request.method, url
        probe.dropped = frozenset(name.encode("ascii") for name in _dropped(request))
    # A probe that sends no token of the target may have none (its token was not read): the
    # client is then given a stand-in, which the probe transport never sends. A token that was
    # read stays the client's, for the client to take its echo out of the answer; the probe
    # transport sends what the token choice says instead.
    sending = target
    if not request.sends_token and (probe is None or token_problem(target.token) is not None):
        sending = replace(target, token=SecretStr(_STAND_IN))
    async with PlantStoreClient.for_target(sending, transport=probe) as client:
        outcome = await client.create_plant(_PLACEHOLDER)
    body = "" if isinstance(outcome, Failed) and outcome.status is None else outcome.body
    seen = Seen() if probe is None else probe.seen
    reading = read_answer(outcome, body, seen.content_type, in_spec=request.in_spec)
    shown = shown_request(target, request)
    return ProbeAnswer(
        request=shown,
        url=url,
        started=started,
        sent_headers=shown_headers(target, shown),
        status=outcome.status,
        headers=tuple(
            (target.redact(name), target.redact(value))
            for name, value in (seen.headers if outcome.status is not None else ())
        ),
        body=target.redact(body),
        elapsed_ms=outcome.elapsed_ms,
        outcome=outcome,
        reading=replace(reading, off_spec=tuple(map(target.redact, reading.off_spec))),
        note=target.token_note,
        timings=None if probe is None else seen.timings(),
        wire=None if probe is None else wire_of(target, seen, _wire_header),
    )


def cancelled_probe(
    target: Target, request: ProbeRequest, started: datetime, elapsed_ms: float
) -> ProbeAnswer:
    """A probe stopped before its answer came (its screen was left): the request may have
    reached the deployment, so what came of it is unknown, and it is kept so."""
    outcome = cancelled(request.url(target.base_url), _PLACEHOLDER, elapsed_ms)
    shown = shown_request(target, request)
    return ProbeAnswer(
        request=shown,
        url=outcome.url,
        started=started,
        sent_headers=shown_headers(target, shown),
        status=None,
        elapsed_ms=elapsed_ms,
        outcome=outcome,
        reading=read_answer(outcome, "", None, in_spec=request.in_spec),
        note=target.token_note,
    )


def body_of_json(value: Any) -> bytes:
    """A case's or the form's JSON value as a probe's body, as `json.dumps` writes it."""
    return json.dumps(value, ensure_ascii=False).encode("utf-8")
