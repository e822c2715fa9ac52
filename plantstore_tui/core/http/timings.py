"""Where one request's time went: the phases httpcore reports through its `trace` extension
(connecting, the TLS handshake, writing the request, waiting for the answer's headers, reading its
body), as curl's `-w` times them.

`PhaseTrace` is handed to httpcore as the request's `trace` and notes when each event came;
`Timings` is what it makes of them once the exchange is over: typed, frozen, in milliseconds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

# httpcore names each event `<prefix>.<step>.<started|complete|failed>`; the prefix is the layer
# (`connection`, `http11`, `http2`, `proxy`), the step what follows.
_STEPS = {
    "connect_tcp": "connect",
    "connect_unix_socket": "connect",
    "start_tls": "tls",
    "send_request_headers": "request",
    "send_request_body": "request_body",
    "receive_response_headers": "headers",
    "receive_response_body": "body",
}
_VERSIONS = {"http11": "HTTP/1.1", "http2": "HTTP/2"}


class Phase(StrEnum):
    """One phase of an exchange, in the order it happens."""

    CONNECT = "connect"
    TLS = "tls"
    REQUEST = "request"
    FIRST_BYTE = "first_byte"
    BODY = "body"

    @property
    def label(self) -> str:
        """The phase as every front end names it."""
        return _LABELS[self]


_LABELS = {
    Phase.CONNECT: "connect",
    Phase.TLS: "TLS",
    Phase.REQUEST: "request",
    Phase.FIRST_BYTE: "first byte",
    Phase.BODY: "body",
}
REUSED_WORDS = "reused connection"
STOPPED_WORDS = "stopped here"
OTHER_WORDS = "the client's own work between phases"


@dataclass(frozen=True, slots=True, kw_only=True)
class Timings:
    """Where one exchange's time went, in milliseconds (None: the phase did not happen).

    connect: the TCP connection (None on a kept connection: `reused`); tls: the handshake (None
    over plain http); request: writing the request line, headers and body; first_byte: from the
    request written to the answer's headers read; body: from those headers to the body's last
    byte read; total: from the request handed to the connection to the body read (or the
    exchange's end). `stopped`: the phase under way when an exchange ended short (None: it
    finished)."""

    connect_ms: float | None = None
    tls_ms: float | None = None
    request_ms: float | None = None
    first_byte_ms: float | None = None
    body_ms: float | None = None
    total_ms: float | None = None
    reused: bool = False
    stopped: Phase | None = None

    def phases(self) -> tuple[tuple[Phase, float | None], ...]:
        """Each phase, in order, with its milliseconds."""
        return (
            (Phase.CONNECT, self.connect_ms),
            (Phase.TLS, self.tls_ms),
            (Phase.REQUEST, self.request_ms),
            (Phase.FIRST_BYTE, self.first_byte_ms),
            (Phase.BODY, self.body_ms),
        )

    @property
    def other_ms(self) -> float | None:
        """What no phase accounts for: the client's own work before and between the phases
        (the first request of a process loads its network code). None without a total."""
        if self.total_ms is None:
            return None
        return max(0.0, self.total_ms - sum(ms for _, ms in self.phases() if ms is not None))

    def words(self, phase: Phase) -> str:
        """What to say beside a phase besides its time: reused, stopped here, or why it has
        none ("" when its time says all)."""
        if phase is self.stopped:
            return STOPPED_WORDS
        if phase is Phase.CONNECT and self.reused:
            return REUSED_WORDS
        if dict(self.phases())[phase] is not None:
            return ""
        if phase is Phase.TLS and self.stopped is not Phase.CONNECT:
            return "plain http" if not self.reused else "none on this connection"
        return "not reached" if self.stopped is not None else "not read"

    def to_json(self) -> dict[str, Any]:
        """The keys of `probe --json`'s `timings`, kept as such in the history."""
        return {
            "connect_ms": _rounded(self.connect_ms),
            "tls_ms": _rounded(self.tls_ms),
            "request_ms": _rounded(self.request_ms),
            "first_byte_ms": _rounded(self.first_byte_ms),
            "body_ms": _rounded(self.body_ms),
            "total_ms": _rounded(self.total_ms),
            "reused": self.reused,
            "stopped": None if self.stopped is None else self.stopped.value,
        }

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> Timings:
        """`to_json`'s object read back (as the history keeps it)."""
        stopped = value.get("stopped")
        return cls(
            connect_ms=value.get("connect_ms"),
            tls_ms=value.get("tls_ms"),
            request_ms=value.get("request_ms"),
            first_byte_ms=value.get("first_byte_ms"),
            body_ms=value.get("body_ms"),
            total_ms=value.get("total_ms"),
            reused=bool(value.get("reused")),
            stopped=None if stopped is None else Phase(stopped),
        )


def _rounded(ms: float | None) -> float | None:
    return None if ms is None else round(ms, 3)


@dataclass(slots=True)
class PhaseTrace:
    """httpcore's `trace` callback for one exchange: notes when each step starts and ends."""

    # perf_counter() as the request was handed to the connection; None: never handed.
    began: float | None = None
    # When the exchange ended with an exception before an answer came (None: it did not).
    raised: float | None = None
    # Each step's start and end (the last of each: a proxy's CONNECT comes first), and whether
    # it failed.
    started: dict[str, float] = field(default_factory=dict)
    ended: dict[str, float] = field(default_factory=dict)
    failed: set[str] = field(default_factory=set)
    last: float | None = None
    # The HTTP version the exchange's events name (`http11`: HTTP/1.1).
    version: str | None = None

    def begin(self) -> None:
        """The request is handed to the connection now."""
        self.began = time.perf_counter()

    def fail(self) -> None:
        """The exchange ended with an exception before any answer."""
        self.raised = self.last = time.perf_counter()

    async def __call__(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's trace callback (an async one, for an async transport)."""
        now = time.perf_counter()
        layer, _, rest = event.partition(".")
        name, _, state = rest.rpartition(".")
        self.last = now
        self.version = _VERSIONS.get(layer, self.version)
        step = _STEPS.get(name)
        if step is None:
            return
        if state == "started":
            self.started[step] = now
            self.ended.pop(step, None)
            self.failed.discard(step)
        else:
            self.ended[step] = now
            if state == "failed":
                self.failed.add(step)

    def timings(self) -> Timings | None:
        """What the trace makes of the exchange so far; None when no request was handed on."""
        if self.began is None:
            return None
        began = self.began

        def span(start: float | None, end: float | None) -> float | None:
            if start is None or end is None:
                return None
            return (end - start) * 1000

        started, ended = self.started, self.ended
        written = ended.get("request_body")
        headers = None if "headers" in self.failed else ended.get("headers")
        body = None if "body" in self.failed else ended.get("body")
        end = body if body is not None else (self.last if self.last is not None else began)
        return Timings(
            connect_ms=span(started.get("connect"), ended.get("connect")),
            tls_ms=span(started.get("tls"), ended.get("tls")),
            request_ms=span(started.get("request"), written),
            first_byte_ms=span(written, headers),
            body_ms=span(headers, body),
            total_ms=(end - began) * 1000,
            reused="connect" not in started and "request" in started,
            stopped=self._stopped(),
        )

    def _stopped(self) -> Phase | None:
        # The last phase begun, when it did not end well; a phase that failed and was followed
        # by another (a request the server cut short, then answered) is no stop.
        order = (
            (Phase.BODY, ("body",)),
            (Phase.FIRST_BYTE, ("headers",)),
            (Phase.REQUEST, ("request", "request_body")),
            (Phase.TLS, ("tls",)),
            (Phase.CONNECT, ("connect",)),
        )
        for phase, steps in order:
            if steps[0] not in self.started:
                continue
            if any(step in self.failed or step not in self.ended for step in steps):
                return phase
            if self.raised is None or phase is Phase.BODY:
                return None
            # Ended well, and the exchange failed before the next phase began.
            return Phase.REQUEST if phase in (Phase.CONNECT, Phase.TLS) else _NEXT[phase]
        # Nothing begun: the exchange failed before connecting (at a proxy, in the pool).
        return Phase.CONNECT if self.raised is not None else None


_NEXT = {Phase.REQUEST: Phase.FIRST_BYTE, Phase.FIRST_BYTE: Phase.BODY}
