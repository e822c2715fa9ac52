"""Judging the check's answers: what each one says about the deployment, as a row of the report."""

from __future__ import annotations

import math
import ssl
import time
from collections.abc import Mapping
from typing import Any

import httpx

from plantstore_tui.core.http.check_report import ProbeResult, Verdict
from plantstore_tui.core.http.conformance import is_json_media_type, media_type, token_refused
from plantstore_tui.core.http.hosts import is_loopback_host
from plantstore_tui.core.http.probe_transport import Seen
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.plant.outcome import Failed, FailureKind, Outcome, Rejected
from plantstore_tui.core.plant.text import shorten

EXPIRY_WARNING_DAYS = 14
# What a proxy or load balancer says when the deployment behind it does not answer.
_GATEWAY = frozenset({502, 503, 504})
_GATEWAY_WHY = (
    "A proxy or load balancer answered in the deployment's place: check that the deployment "
    "behind it is running."
)


def reached(outcome: Outcome) -> bool:
    """False when no answer came at all (a TLS failure still reached the deployment)."""
    return not (isinstance(outcome, Failed) and outcome.status is None and not _is_tls(outcome))


def _is_tls(outcome: Outcome) -> bool:
    return isinstance(outcome, Failed) and outcome.kind is FailureKind.TLS


def _timed(outcome: Outcome) -> str:
    status = "no status" if outcome.status is None else str(outcome.status)
    ms = "" if outcome.elapsed_ms is None else f" in {outcome.elapsed_ms:.0f} ms"
    return status + ms


# What to try when a probe got no usable answer and the send's advice was only about the plant.
_FIXES = {
    FailureKind.TIMEOUT: "Check that the deployment is running and not overloaded.",
    FailureKind.CONNECTION_DROPPED: (
        "The deployment, or a proxy in front of it, closed the connection before answering: "
        "look in its log."
    ),
}
_CHECK_RUNNING = "Check that the deployment is running and that the base URL is right."


def _fix(outcome: Failed) -> str:
    """What to try about the deployment: a probe carries no plant, so nothing is said of
    sending one again."""
    return outcome.remedy or _FIXES.get(outcome.kind, _CHECK_RUNNING)


def opening(first: Outcome) -> tuple[ProbeResult, ...] | None:
    """The report when the first request got no answer at all: nothing else can be probed."""
    if not isinstance(first, Failed) or first.status is not None:
        return None
    if _is_tls(first):
        connected = ProbeResult("reachable", Verdict.PASS, "a TCP connection was opened")
        return connected, ProbeResult("tls", Verdict.FAIL, first.message, _fix(first))
    return (ProbeResult("reachable", Verdict.FAIL, first.message, _fix(first)),)


def reachable_result(first: Outcome) -> ProbeResult:
    """The `reachable` row, from the first answer."""
    if first.status in _GATEWAY:
        return ProbeResult("reachable", Verdict.FAIL, f"answered {_timed(first)}", _GATEWAY_WHY)
    return ProbeResult("reachable", Verdict.PASS, f"answered {_timed(first)}")


def tls_result(target: Target, seen: Seen) -> ProbeResult:
    """The `tls` row: plain http, or the protocol and the certificate's issuer and expiry."""
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


def _body_words(outcome: Outcome, seen: Seen) -> str:
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
    return ProbeResult(name, Verdict.FAIL, outcome.message, _fix(outcome))


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


def token_result(name: str, what: str, outcome: Outcome, seen: Seen) -> ProbeResult:
    """A row for a request without the right token: it passes when the token is refused."""
    if outcome.status is not None and 200 <= outcome.status < 300:
        return _accepted(name, f"without a name, sent {what}", outcome)
    if isinstance(outcome, Failed):
        return _no_answer(name, outcome)
    words = f"{outcome.status} with {_body_words(outcome, seen)}"
    if token_refused(outcome.status):
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


def refusal_result(name: str, what: str, outcome: Outcome, seen: Seen) -> ProbeResult:
    """A row for a body the spec refuses: it passes on 400 with the spec's Error."""
    if outcome.status is not None and 200 <= outcome.status < 300:
        return _accepted(name, what, outcome)
    if isinstance(outcome, Failed):
        return _no_answer(name, outcome)
    words = f"{outcome.status} with {_body_words(outcome, seen)}"
    spec = "The spec answers a body it refuses with 400 and an Error {error, message}."
    if token_refused(outcome.status):
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
