"""Testing a target without creating a plant: send a body the spec's server must refuse.

`POST /plants` with `{}` lacks both required fields, so a deployment that follows the spec answers
400, and one that checks the bearer token first answers 401 or 403 to a refused token. Either way
no plant is created, which makes the test safe on a production deployment.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import httpx

from plantstore_tui.core.http.client import PlantStoreClient
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.http.tls import CABundleError, tls_context
from plantstore_tui.core.http.urls import plants_url
from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.core.plant.outcome import (
    Created,
    Failed,
    FailureKind,
    Outcome,
    PlantFate,
    Rejected,
)

PROBE_BODY = b"{}"
# Built only because the client sends NewPlants; the transport below sends PROBE_BODY instead.
_PLACEHOLDER = NewPlant(id=0, name="plantstore-tui profile test")
# The statuses a deployment uses when it checked the token and then refused the body.
_BODY_REFUSED = frozenset({400, 422})


class Verdict(StrEnum):
    """What a probe says about a target."""

    TOKEN_ACCEPTED = "token_accepted"  # noqa: S105 (a verdict, not a secret)
    TOKEN_REFUSED = "token_refused"  # noqa: S105 (a verdict, not a secret)
    INVALID_BODY_ACCEPTED = "invalid_body_accepted"
    UNEXPECTED_ANSWER = "unexpected_answer"
    NO_ANSWER = "no_answer"


@dataclass(frozen=True, slots=True)
class ProbeReport:
    """A probe's verdict in words, and the client's own account of the answer it got."""

    verdict: Verdict
    headline: str
    detail: str
    outcome: Outcome

    @property
    def ok(self) -> bool:
        """True when the deployment answered and did not refuse the token."""
        return self.verdict is Verdict.TOKEN_ACCEPTED


class _ProbeBodyTransport(httpx.AsyncBaseTransport):
    """Sends every request with PROBE_BODY in place of the body the client built."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Rebuild the request around PROBE_BODY (headers, timeouts and auth kept) and send it."""
        headers = [
            (name, value)
            for name, value in request.headers.raw
            if name.lower() != b"content-length"
        ]
        probe_request = httpx.Request(
            request.method,
            request.url,
            headers=headers,
            content=PROBE_BODY,
            extensions=request.extensions,
        )
        return await self._inner.handle_async_request(probe_request)

    async def aclose(self) -> None:
        """Close the wrapped transport."""
        await self._inner.aclose()


async def probe(
    target: Target, *, transport: httpx.AsyncBaseTransport | None = None
) -> ProbeReport:
    """POST `{}` to the target's /plants and say whether it answers and accepts the token."""
    try:
        inner = transport or httpx.AsyncHTTPTransport(verify=tls_context(target.ca_bundle))
    except CABundleError as exc:
        return judge(
            Failed(
                url=plants_url(target.base_url),
                sent=_PLACEHOLDER,
                kind=FailureKind.TLS,
                message=str(exc),
                fate=PlantFate.NOT_CREATED,
                advice="Correct the profile's ca_bundle (or --ca-bundle).",
            )
        )
    wrapped = _ProbeBodyTransport(inner)
    async with PlantStoreClient(
        target.base_url, target.token, limits=target.limits, transport=wrapped
    ) as client:
        outcome = await client.create_plant(_PLACEHOLDER)
    return judge(outcome)


def _error_words(outcome: Rejected) -> str:
    if outcome.error is not None:
        return f"error {outcome.error.error}: {outcome.error.message}"
    return f"a body that is not an Error ({outcome.body_problem})"


def _invalid_body_accepted(outcome: Outcome, status: int) -> ProbeReport:
    return ProbeReport(
        Verdict.INVALID_BODY_ACCEPTED,
        "WARNING: the deployment accepted an empty body, which the spec says it must refuse",
        f"It answered {status} to a body without a name or an id. The token was accepted, but "
        "this deployment does not check what it stores: look in the store for an empty plant.",
        outcome,
    )


def judge(outcome: Outcome) -> ProbeReport:
    """The verdict on the answer to a probe."""
    match outcome:
        case Created(status=status):
            return _invalid_body_accepted(outcome, status)
        case Rejected(status=status) if status in _BODY_REFUSED:
            note = "" if status == 400 else " (the spec says 400)"
            return ProbeReport(
                Verdict.TOKEN_ACCEPTED,
                "The deployment answers and did not refuse the token",
                f"It answered {status}{note} to an empty body, with {_error_words(outcome)}. "
                "No plant was created.",
                outcome,
            )
        case Rejected(status=401 | 403 as status):
            return ProbeReport(
                Verdict.TOKEN_REFUSED,
                "The deployment refused the token",
                f"It answered {status} with {_error_words(outcome)}. {outcome.advice}",
                outcome,
            )
        case Rejected(status=status):
            return ProbeReport(
                Verdict.UNEXPECTED_ANSWER,
                f"The deployment answered {status}, not what a Plant Store says to an empty body",
                f"It answered with {_error_words(outcome)}. {outcome.advice}",
                outcome,
            )
        case Failed(status=int() as status) if 200 <= status < 300:
            return _invalid_body_accepted(outcome, status)
        case Failed(kind=FailureKind.INVALID_URL | FailureKind.INVALID_TOKEN):
            return ProbeReport(
                Verdict.NO_ANSWER,
                "Nothing was sent",
                f"{outcome.message}. {outcome.advice}",
                outcome,
            )
        case Failed(
            kind=FailureKind.REDIRECT | FailureKind.TOO_LARGE | FailureKind.INVALID_RESPONSE
        ):
            return ProbeReport(
                Verdict.UNEXPECTED_ANSWER,
                "The deployment's answer is not a Plant Store's",
                f"{outcome.message}. {outcome.advice}",
                outcome,
            )
        case Failed(status=status):
            return ProbeReport(
                Verdict.NO_ANSWER,
                "No answer from the deployment"
                if status is None
                else f"No complete answer from the deployment (status {status})",
                f"{outcome.message}. {outcome.advice}",
                outcome,
            )
