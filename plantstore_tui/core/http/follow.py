"""A probe's redirects followed on purpose (`probe --follow`, the probe screen's switch): up to
`MAX_HOPS` of them, each request kept and shown, the way curl's `--location` follows them.

Each hop is a request of its own (`send_probe` to the Location, resolved against the URL it came
from). 301, 302 and 303 turn a request into a GET without a body (HEAD stays HEAD), as curl and
browsers do; 307 and 308 send the same method and body again. The token, or an Authorization
given as a header, goes only to the base URL's own origin (its scheme, host and port): a hop to
another origin goes without one, as curl's `--location` without `--location-trusted`, and so does
every hop after it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import httpx

from plantstore_tui.core.http.probe import (
    ProbeAnswer,
    ProbeRequest,
    TokenChoice,
    send_probe,
)
from plantstore_tui.core.plant.outcome import Failed

if TYPE_CHECKING:
    from plantstore_tui.core.http.target import Target

MAX_HOPS = 5
# The redirects HTTP defines with a Location to follow (RFC 9110, 15.4).
FOLLOWED = frozenset({301, 302, 303, 307, 308})
_TO_GET = frozenset({301, 302, 303})


@dataclass(frozen=True, slots=True)
class Followed:
    """Every request a probe sent, in order, each with its answer (the last is where it
    ended), and why it stopped following if it stopped before an answer that is not a
    redirect."""

    answers: tuple[ProbeAnswer, ...]
    stopped: str | None = None

    @property
    def last(self) -> ProbeAnswer:
        """The answer it ended on."""
        return self.answers[-1]

    def words(self) -> list[str]:
        """Each redirect followed, a line each, then the credential left behind and why it
        stopped, if it did (the request it ended on is shown whole after them); raw text, for a
        front end to escape."""
        lines = [
            f"Redirect {hop}: {answer.request.method} {answer.url} answered {answer.status}, "
            f"Location {_location(answer)}"
            for hop, answer in enumerate(self.answers[:-1], 1)
        ]
        for earlier, later in zip(self.answers, self.answers[1:], strict=False):
            if earlier.request.credential and not later.request.credential:
                lines.append(f"  The token was not sent to {later.url}: another origin.")
                break
        if self.stopped is not None:
            lines.append(f"Not followed further: {self.stopped}.")
        return lines

    def to_json(self) -> list[dict[str, Any]]:
        """Each redirect followed, for `--json`: where it went, what it was answered, and
        whether a credential went with it."""
        return [
            {
                "method": answer.request.method,
                "url": answer.url,
                "status": answer.status,
                "location": _location(answer),
                "authorization_sent": answer.request.credential,
            }
            for answer in self.answers[:-1]
        ]


def same_origin(one: str, other: str) -> bool:
    """Whether two URLs share scheme, host and port (a default port written or not)."""
    first, second = httpx.URL(one), httpx.URL(other)
    return _origin(first) == _origin(second)


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    default = {"http": 80, "https": 443}.get(url.scheme)
    return url.scheme, url.host.lower(), url.port or default


async def follow_probe(
    target: Target,
    request: ProbeRequest,
    *,
    hops: int = MAX_HOPS,
    transport: httpx.AsyncBaseTransport | None = None,
) -> Followed:
    """Send the probe, then each redirect it is answered with, up to `hops` of them."""
    answers = [await send_probe(target, request, transport=transport)]
    url = request.url(target.base_url)
    while True:
        answer = answers[-1]
        location = _location(answer)
        if answer.status not in FOLLOWED:
            return Followed(tuple(answers))
        if location is None:
            return Followed(tuple(answers), f"the {answer.status} gave no Location to follow")
        if len(answers) > hops:
            return Followed(tuple(answers), f"stopped after {hops} redirects, as it was told")
        try:
            following = httpx.URL(url).join(location)
        except httpx.InvalidURL:
            return Followed(tuple(answers), f"its Location cannot be followed: {location}")
        if following.scheme not in ("http", "https"):
            return Followed(tuple(answers), f"its Location is not HTTP: {location}")
        request = _next_request(request, answer.status or 0, target.base_url, str(following))
        url = str(following)
        answers.append(await send_probe(target, request, transport=transport, url=url))


def _location(answer: ProbeAnswer) -> str | None:
    outcome = answer.outcome
    location = outcome.location if isinstance(outcome, Failed) else None
    return location or None


def _next_request(request: ProbeRequest, status: int, base_url: str, url: str) -> ProbeRequest:
    if status in _TO_GET and request.method != "HEAD":
        request = replace(request, method="GET", body=b"")
    if not same_origin(base_url, url):
        # No credential leaves the base URL's origin: neither the token nor one given.
        headers = tuple((n, v) for n, v in request.headers if n.lower() != "authorization")
        request = replace(request, token=TokenChoice.NONE, headers=headers)
    # The path as the URL holds it (with its query string): the history keeps the URL too.
    return replace(request, path=httpx.URL(url).raw_path.decode("ascii"))
