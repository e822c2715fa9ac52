"""`check`: is this deployment right? Probes of `POST /plants` judged against the spec.

By default every probe sends a body a spec-following server cannot store as a plant (no `name`, or
an `id` that is not an integer), so even a deployment that ignores the token creates nothing; one
that answers 200 anyway fails, and the report says what it accepted. Only `CreatePlan` creates.
"""

from __future__ import annotations

import json
import math
import secrets
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

import httpx

from plantstore_tui.core.config.hosts import is_loopback_host
from plantstore_tui.core.http.client import CABundleError, PlantStoreClient, tls_context
from plantstore_tui.core.http.conformance import is_json_media_type, media_type
from plantstore_tui.core.http.target import Limits, Target
from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.core.plant.outcome import Failed, FailureKind, Outcome, Rejected
from plantstore_tui.core.plant.text import shorten

# No single probe waits longer than this, whatever the profile allows: the check is bounded.
PROBE_DEADLINE = 10.0
EXPIRY_WARNING_DAYS = 14
# A p95 past this makes an operator wait at every send: worth a warning, not a failure.
SLOW_P95_MS = 1000.0
_TAG = "plantstore-tui-check"
_REFUSED_TOKEN = frozenset({401, 403})
# What a proxy or load balancer says when the deployment behind it does not answer.
_GATEWAY = frozenset({502, 503, 504})
_GATEWAY_WHY = (
    "A proxy or load balancer answered in the deployment's place: check that the deployment "
    "behind it is running."
)
# Placeholder the client needs to build a request; the probe transport replaces its body.
_PLACEHOLDER = NewPlant(id=0, name="plantstore-tui check")


class Verdict(StrEnum):
    """What one probe says about the deployment, from best to worst."""

    PASS = "pass"  # noqa: S105 (a verdict, not a secret)
    WARN = "warn"
    FAIL = "fail"


_RANK = {Verdict.PASS: 0, Verdict.WARN: 1, Verdict.FAIL: 2}


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """One row of the report: the probe, its verdict, what was seen, why it matters."""

    probe: str
    verdict: Verdict
    seen: str
    why: str = ""
    figures: Mapping[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """This row as `check --json` prints it."""
        row: dict[str, Any] = {
            "probe": self.probe,
            "verdict": self.verdict.value,
            "seen": self.seen,
            "why": self.why,
        }
        if self.figures:
            row["figures"] = dict(self.figures)
        return row


@dataclass(frozen=True, slots=True)
class CheckReport:
    """Every probe's result; `reachable` is False when no answer came at all."""

    base_url: str
    results: tuple[ProbeResult, ...]
    reachable: bool = True

    @property
    def verdict(self) -> Verdict:
        """The worst verdict of any probe."""
        return max((result.verdict for result in self.results), key=_RANK.__getitem__)

    def to_json(self) -> dict[str, Any]:
        """The one object `check --json` prints."""
        return {
            "base_url": self.base_url,
            "verdict": self.verdict.value,
            "reachable": self.reachable,
            "probes": [result.to_json() for result in self.results],
        }


@dataclass(frozen=True, slots=True)
class CreatePlan:
    """`--create`: send `samples` valid plants, with the first ids of `ids`."""

    ids: range
    samples: int = 5

    def plants(self) -> list[NewPlant]:
        """The plants to send, named so an operator can find them in the store."""
        return [
            NewPlant(id=plant_id, name=f"plantstore-tui check {plant_id}", tag=_TAG)
            for plant_id in self.ids[: self.samples]
        ]


@dataclass(slots=True)
class _Seen:
    """What the transport saw of the last answer that the Outcome does not keep."""

    content_type: str | None = None
    tls_version: str | None = None
    certificate: Mapping[str, Any] | None = None


_KEEP = object()


class _ProbeTransport(httpx.AsyncBaseTransport):
    """Sends the next request with the body and Authorization a probe sets, and notes the answer."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self._inner = inner
        self.body: bytes | None = None
        # _KEEP: the client's own; None: no Authorization at all; a str: this header value.
        self.authorization: object = _KEEP
        self.seen = _Seen()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Rewrite the request as the probe asks, send it, and note the TLS session and type."""
        headers = [
            (name, value)
            for name, value in request.headers.raw
            if name.lower() != b"content-length"
            and not (self.authorization is not _KEEP and name.lower() == b"authorization")
        ]
        if isinstance(self.authorization, str):
            headers.append((b"Authorization", self.authorization.encode("ascii")))
        content = self.body if self.body is not None else request.content
        rewritten = httpx.Request(
            request.method,
            request.url,
            headers=headers,
            content=content,
            extensions=request.extensions,
        )
        self.seen = _Seen()
        response = await self._inner.handle_async_request(rewritten)
        self.seen.content_type = response.headers.get("Content-Type")
        stream = response.extensions.get("network_stream")
        ssl_object = stream.get_extra_info("ssl_object") if stream is not None else None
        if isinstance(ssl_object, ssl.SSLObject | ssl.SSLSocket):
            self.seen.tls_version = ssl_object.version()
            self.seen.certificate = ssl_object.getpeercert() or None
        return response

    async def aclose(self) -> None:
        """Close the wrapped transport."""
        await self._inner.aclose()


# Hook for the history journal: called with every Outcome of a --create send, as it arrives.
OnSent = Callable[[Outcome], None]


async def run_check(
    target: Target,
    *,
    create: CreatePlan | None = None,
    on_sent: OnSent | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> CheckReport:
    """Probe the target and judge every answer; creates plants only with `create`."""
    limits = target.limits
    limits = Limits(
        connect=min(limits.connect, PROBE_DEADLINE),
        read=min(limits.read, PROBE_DEADLINE),
        deadline=min(limits.deadline, PROBE_DEADLINE),
        max_body=limits.max_body,
    )
    if transport is None:
        try:
            transport = httpx.AsyncHTTPTransport(verify=tls_context(target.ca_bundle))
        except CABundleError as exc:
            advice = "Correct the profile's ca_bundle (or --ca-bundle)."
            return CheckReport(
                target.base_url, (ProbeResult("tls", Verdict.FAIL, str(exc), advice),)
            )
    probe = _ProbeTransport(transport)
    async with PlantStoreClient(
        target.base_url, target.token, limits=limits, transport=probe
    ) as client:

        async def send(body: bytes | None, authorization: object = _KEEP) -> Outcome:
            probe.body, probe.authorization = body, authorization
            return await client.create_plant(_PLACEHOLDER)

        first = await send(b"{}", None)
        opening = _opening(first)
        if opening is not None:
            return CheckReport(target.base_url, opening, reachable=_reached(first))
        results = [
            _reachable_result(first),
            _tls_result(target, probe.seen),
            _token_result("no token", "without Authorization", first, probe.seen),
        ]
        wrong = "Bearer " + _wrong_token(target)
        outcome = await send(b"{}", wrong)
        results.append(_token_result("wrong token", "with a wrong token", outcome, probe.seen))
        nameless = json.dumps({"id": 0, "tag": _TAG}).encode()
        outcome = await send(nameless)
        results.append(_refusal_result("missing name", "without a name", outcome, probe.seen))
        bad_id = json.dumps({"id": "not-a-number", "name": "plantstore-tui check"}).encode()
        outcome = await send(bad_id)
        results.append(
            _refusal_result("id not an integer", "whose id is not an integer", outcome, probe.seen)
        )
        if create is not None:
            probe.body, probe.authorization = None, _KEEP
            results.extend(await _create(client, create, on_sent))
    return CheckReport(target.base_url, tuple(results))


def _wrong_token(target: Target) -> str:
    while True:
        token = secrets.token_urlsafe(24)
        if token != target.token.get_secret_value():
            return token


def _reached(outcome: Outcome) -> bool:
    return not (isinstance(outcome, Failed) and outcome.status is None and not _is_tls(outcome))


def _is_tls(outcome: Outcome) -> bool:
    return isinstance(outcome, Failed) and outcome.kind is FailureKind.TLS


def _timed(outcome: Outcome) -> str:
    status = "no status" if outcome.status is None else str(outcome.status)
    ms = "" if outcome.elapsed_ms is None else f" in {outcome.elapsed_ms:.0f} ms"
    return status + ms


def _opening(first: Outcome) -> tuple[ProbeResult, ...] | None:
    """The report when the first request got no answer at all: nothing else can be probed."""
    if not isinstance(first, Failed) or first.status is not None:
        return None
    if _is_tls(first):
        reached = ProbeResult("reachable", Verdict.PASS, "a TCP connection was opened")
        return reached, ProbeResult("tls", Verdict.FAIL, first.message, first.advice)
    return (ProbeResult("reachable", Verdict.FAIL, first.message, first.advice),)


def _reachable_result(first: Outcome) -> ProbeResult:
    if first.status in _GATEWAY:
        return ProbeResult("reachable", Verdict.FAIL, f"answered {_timed(first)}", _GATEWAY_WHY)
    return ProbeResult("reachable", Verdict.PASS, f"answered {_timed(first)}")


def _tls_result(target: Target, seen: _Seen) -> ProbeResult:
    url = httpx.URL(target.base_url)
    if url.scheme == "http":
        if is_loopback_host(url.host):
            return ProbeResult("tls", Verdict.PASS, "plain http on loopback: nothing leaves here")
        return ProbeResult(
            "tls",
            Verdict.WARN,
            f"plain http to {url.host}",
            "The token crosses the network unencrypted: serve the deployment over https://.",
        )
    certificate = seen.certificate or {}
    issuer = _issuer(certificate)
    words = f"{seen.tls_version or 'TLS'}, certificate issued by {issuer}"
    not_after = certificate.get("notAfter")
    if not isinstance(not_after, str):
        return ProbeResult("tls", Verdict.PASS, words + ", verified")
    days = math.floor((ssl.cert_time_to_seconds(not_after) - time.time()) / 86400)
    words += f", expires in {days} days ({not_after})"
    if days < 0:
        return ProbeResult("tls", Verdict.FAIL, words, "Renew the certificate.")
    if days < EXPIRY_WARNING_DAYS:
        return ProbeResult(
            "tls", Verdict.WARN, words, "Renew the certificate before it expires: sends will fail."
        )
    if seen.tls_version in ("TLSv1", "TLSv1.1"):
        return ProbeResult("tls", Verdict.WARN, words, "Offer TLS 1.2 or later.")
    return ProbeResult("tls", Verdict.PASS, words)


def _issuer(certificate: Mapping[str, Any]) -> str:
    names: dict[str, str] = {}
    for rdn in certificate.get("issuer", ()):
        for key, value in rdn:
            names.setdefault(key, value)
    return names.get("organizationName") or names.get("commonName") or "an unnamed issuer"


def _body_words(outcome: Outcome, seen: _Seen) -> str:
    """What kind of body came back, in the words an operator would use."""
    body = getattr(outcome, "body", "")
    kind = media_type(seen.content_type)
    if isinstance(outcome, Rejected) and outcome.error is not None:
        return f"the spec's Error (error {outcome.error.error})"
    if kind == "text/html" or body.lstrip()[:15].lower().startswith(("<!doctype", "<html")):
        return "an HTML page"
    if kind == "application/problem+json":
        return "a problem+json body, not the spec's Error"
    if not body.strip():
        return "an empty body"
    if is_json_media_type(seen.content_type):
        return f"a JSON body that is not the spec's Error ({shorten(body, 120)})"
    return f"a {kind or 'unlabelled'} body that is not the spec's Error"


def _no_answer(name: str, outcome: Failed) -> ProbeResult:
    if outcome.kind is FailureKind.REDIRECT:
        where = outcome.location or "no Location"
        return ProbeResult(
            name,
            Verdict.FAIL,
            f"a redirect ({outcome.status}) to {where}",
            "A POST must be answered where it was sent: use the address it redirects to as "
            "the base URL, or fix the deployment's routing.",
        )
    return ProbeResult(name, Verdict.FAIL, outcome.message, outcome.advice)


def _accepted(name: str, what: str, outcome: Outcome) -> ProbeResult:
    # A 200 whose body could not be read is still an acceptance; what went wrong is said too.
    unread = f"; {outcome.message}" if isinstance(outcome, Failed) else ""
    return ProbeResult(
        name,
        Verdict.FAIL,
        f"it accepted a plant {what} ({outcome.status}{unread})",
        "The spec's server refuses such a body with 400: look in the store for a bad plant, "
        "and make the deployment validate what it stores.",
    )


def _token_result(name: str, what: str, outcome: Outcome, seen: _Seen) -> ProbeResult:
    if outcome.status is not None and 200 <= outcome.status < 300:
        return _accepted(name, f"without a name, sent {what}", outcome)
    if isinstance(outcome, Failed):
        return _no_answer(name, outcome)
    words = f"{outcome.status} with {_body_words(outcome, seen)}"
    if outcome.status in _REFUSED_TOKEN:
        return ProbeResult(name, Verdict.PASS, f"refused: {words}")
    if outcome.status == 400:
        return ProbeResult(
            name,
            Verdict.FAIL,
            f"answered {words}: the body was judged, the token was not refused",
            "A deployment that ignores the token answers the same way: refuse a request "
            f"{what} with 401 before reading its body.",
        )
    return ProbeResult(
        name,
        Verdict.FAIL,
        f"answered {words}",
        f"A request {what} should be refused with 401 (or 403).",
    )


def _refusal_result(name: str, what: str, outcome: Outcome, seen: _Seen) -> ProbeResult:
    if outcome.status is not None and 200 <= outcome.status < 300:
        return _accepted(name, what, outcome)
    if isinstance(outcome, Failed):
        return _no_answer(name, outcome)
    words = f"{outcome.status} with {_body_words(outcome, seen)}"
    spec = "The spec answers a body it refuses with 400 and an Error {error, message}."
    if outcome.status in _REFUSED_TOKEN:
        return ProbeResult(
            name,
            Verdict.FAIL,
            f"the token was refused: {words}",
            "Check the profile's token, or ask for a new one.",
        )
    if outcome.status == 400 and not outcome.off_spec:
        return ProbeResult(name, Verdict.PASS, f"refused: {words}")
    marks = f" ({'; '.join(outcome.off_spec)})" if outcome.off_spec else ""
    if outcome.status in _GATEWAY:
        spec = _GATEWAY_WHY
    elif outcome.status >= 500:
        spec = "The deployment failed on a body it should refuse. " + spec
    return ProbeResult(name, Verdict.FAIL, f"answered {words}{marks}", spec)


async def _create(
    client: PlantStoreClient, plan: CreatePlan, on_sent: OnSent | None
) -> list[ProbeResult]:
    problems: list[str] = []
    latencies: list[float] = []
    plants = plan.plants()
    for plant in plants:
        outcome = await client.create_plant(plant)
        if on_sent is not None:
            on_sent(outcome)
        if outcome.elapsed_ms is not None and outcome.status is not None:
            latencies.append(outcome.elapsed_ms)
        problem = _create_problem(plant, outcome)
        if problem is not None:
            problems.append(problem)
            # One refused or lost plant says enough; the rest could only repeat it.
            break
    if problems:
        created = ProbeResult(
            "create",
            Verdict.FAIL,
            "; ".join(problems),
            "A valid plant should be answered 200 with the Plant as sent (application/json). "
            "If the id was taken, choose a free --ids range.",
        )
    else:
        created = ProbeResult(
            "create",
            Verdict.PASS,
            f"{len(plants)} plants created (ids {plants[0].id}-{plants[-1].id}), each answered "
            "200 with a Plant echoing its name and tag",
        )
    return [created, _latency(latencies)] if latencies else [created]


def _create_problem(plant: NewPlant, outcome: Outcome) -> str | None:
    if isinstance(outcome, Failed):
        return f"plant {plant.id}: {outcome.message}"
    if isinstance(outcome, Rejected):
        return f"plant {plant.id} was refused: {outcome.headline}"
    marks = list(outcome.off_spec)
    if outcome.plant.name != plant.name:
        marks.append(f"the name came back as {outcome.plant.name!r}")
    if outcome.plant.tag != plant.tag:
        marks.append(f"the tag came back as {outcome.plant.tag!r}")
    if marks:
        return f"plant {plant.id} was created, but " + "; ".join(marks)
    return None


def _percentile(values: list[float], fraction: float) -> float:
    # Nearest rank: a real measured value, never one interpolated between two sends.
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def _latency(latencies: list[float]) -> ProbeResult:
    figures = {
        "p50_ms": round(_percentile(latencies, 0.5), 1),
        "p95_ms": round(_percentile(latencies, 0.95), 1),
        "max_ms": round(max(latencies), 1),
        "samples": float(len(latencies)),
    }
    seen = (
        f"p50 {figures['p50_ms']:.1f} ms, p95 {figures['p95_ms']:.1f} ms, "
        f"max {figures['max_ms']:.1f} ms over {len(latencies)} sends"
    )
    if figures["p95_ms"] > SLOW_P95_MS:
        return ProbeResult(
            "latency",
            Verdict.WARN,
            seen,
            "Operators wait this long at every send: look at the deployment's load.",
            figures,
        )
    return ProbeResult("latency", Verdict.PASS, seen, figures=figures)


def with_limits(target: Target, deadline: float) -> Target:
    """The target with every wait capped at `deadline` seconds (`check --timeout`)."""
    limits = target.limits
    capped = Limits(
        connect=min(limits.connect, deadline),
        read=min(limits.read, deadline),
        deadline=deadline,
        max_body=limits.max_body,
    )
    return replace(target, limits=capped)
