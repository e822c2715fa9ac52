"""The Plant Store API client: one httpx.AsyncClient per target, sends -> `Outcome`.

Sending and reading the answer live here; the words for a send that got no usable answer are
`failures`' (every httpx, socket, decoding and Unicode failure is translated there, at one
boundary), the capped read is `body`'s, TLS is `tls`'s: nothing from httpx reaches a caller.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import time
from http.cookiejar import CookieJar, DefaultCookiePolicy
from types import TracebackType
from typing import TYPE_CHECKING, Self

import httpx
from pydantic import SecretStr, ValidationError

from plantstore_tui import __version__
from plantstore_tui.core.errors import PlantStoreError
from plantstore_tui.core.http.body import read_capped
from plantstore_tui.core.http.conformance import against_sent, off_spec
from plantstore_tui.core.http.connections import ConnectionPerSend
from plantstore_tui.core.http.failures import (
    SEND_FAILURES,
    Failure,
    explain,
    proxy_refused,
    unsendable,
)
from plantstore_tui.core.http.target import Limits, Target, redact, redact_bytes
from plantstore_tui.core.http.tls import CA_BUNDLE_ADVICE, CABundleError, tls_context
from plantstore_tui.core.http.urls import plants_url
from plantstore_tui.core.plant.models import ApiError, NewPlant, Plant, describe_validation_error
from plantstore_tui.core.plant.outcome import (
    RESEND_ADVICE,
    Created,
    Failed,
    FailureKind,
    Outcome,
    PlantFate,
    Rejected,
)
from plantstore_tui.core.plant.text import shorten

if TYPE_CHECKING:
    from plantstore_tui.core.http.proxy import Proxy

USER_AGENT = f"plantstore-tui/{__version__}"
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Sent with every request, beside Host, Content-Length and Authorization.
HEADERS = (
    ("User-Agent", USER_AGENT),
    ("Accept", "application/json"),
    ("Accept-Encoding", "identity"),
    ("Content-Type", "application/json"),
)
_HEADERS = tuple((name.encode("ascii"), value.encode("ascii")) for name, value in HEADERS)


def _decode_text(body: bytes) -> str:
    return body.decode("utf-8", errors="replace")


class _Redirected(PlantStoreError):
    """A redirect, stopped as it arrives (see `_stop_at_redirect`)."""

    def __init__(self, status: int, location: str) -> None:
        super().__init__(status)
        self.status = status
        self.location = location


async def _stop_at_redirect(response: httpx.Response) -> None:
    """The client's response hook: a redirect is reported, never followed. httpx builds the
    request a redirect points to even when it does not follow it, and fails the send for a
    Location it cannot use; stopped here, the answer is a redirect whatever its Location."""
    if response.status_code in _REDIRECT_STATUSES:
        raise _Redirected(response.status_code, response.headers.get("Location", ""))


def _parse_plant(body: bytes) -> Plant | str:
    try:
        return Plant.model_validate_json(body)
    except ValidationError as exc:
        return describe_validation_error(exc)


def _parse_error(body: bytes) -> ApiError | str:
    if not body.strip():
        return "the body is empty"
    try:
        json.loads(body)
    except (ValueError, RecursionError):
        return "the body is not JSON"

    try:
        return ApiError.model_validate_json(body)
    except ValidationError as exc:
        return describe_validation_error(exc)


def one_connection(target: Target) -> httpx.AsyncHTTPTransport:
    """A transport of one pool with the target's TLS and proxy, for a few sends one after the
    other (`check`, `probe`); raises CABundleError for a CA file that cannot be used."""
    return httpx.AsyncHTTPTransport(
        verify=tls_context(target.ca_bundle),
        proxy=None if target.proxy is None else target.proxy.for_httpx(),
        trust_env=False,
    )


class PlantStoreClient:
    """Sends plants to one deployment over a kept-alive connection; use one per target."""

    def __init__(
        self,
        base_url: str,
        token: SecretStr,
        *,
        limits: Limits | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        ca_bundle: str | None = None,
        proxy: Proxy | None = None,
    ) -> None:
        self.base_url = base_url.strip().rstrip("/")
        self.url = plants_url(self.base_url)
        self.limits = limits or Limits()
        # The base URL and the token do not change: what stops every send is known once, here.
        self._unsendable = unsendable(self.base_url, token)
        self._proxy = proxy
        self._proxy_url = None if proxy is None else proxy.url
        self._token = token
        # One client for every send, with its timeouts; each request is built whole (`_request`:
        # the headers above and no others). Its transport keeps a connection for each send in
        # flight (`connections`: httpx's own pool costs every send time, measured there), with
        # the TLS context and the proxy chosen here: the environment is never read for either
        # (the proxy is core.http.proxy's choice, the trust store tls's). Redirects are reported,
        # never followed (`_stop_at_redirect`), and cookies are never kept, so none is sent back.
        if transport is None:
            # A CA file is read now, so that a bad one stops every send from the start.
            verify: ssl.SSLContext | bool = True
            try:
                verify = tls_context(ca_bundle)
            except CABundleError as exc:
                unusable = Failure.not_created(FailureKind.TLS, str(exc), CA_BUNDLE_ADVICE)
                self._unsendable = self._unsendable or unusable
            httpx_proxy = None if proxy is None else proxy.for_httpx()
            transport = ConnectionPerSend(
                lambda: httpx.AsyncHTTPTransport(verify=verify, proxy=httpx_proxy, trust_env=False)
            )
        self._client = httpx.AsyncClient(
            transport=transport,
            timeout=httpx.Timeout(
                connect=self.limits.connect,
                read=self.limits.read,
                write=self.limits.read,
                pool=self.limits.connect,
            ),
            cookies=CookieJar(DefaultCookiePolicy(allowed_domains=[])),
            trust_env=False,
            event_hooks={"response": [_stop_at_redirect]},
        )
        # Never used when a send cannot go out (a URL httpx cannot parse is unsendable).
        self._plants_url = httpx.URL(self.url) if self._unsendable is None else httpx.URL()

    @classmethod
    def for_target(
        cls,
        target: Target,
        *,
        limits: Limits | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> Self:
        """A client for a resolved target: its URL, token, limits, CA file and proxy."""
        return cls(
            target.base_url,
            target.token,
            limits=limits or target.limits,
            transport=transport,
            ca_bundle=target.ca_bundle,
            proxy=target.proxy,
        )

    def __repr__(self) -> str:
        return f"PlantStoreClient(base_url={self.base_url!r})"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the kept-alive connections."""
        await self._client.aclose()

    async def create_plant(self, plant: NewPlant) -> Outcome:
        """POST the plant to `{base_url}/plants` and say what came of it. Never raises on I/O."""
        started = time.perf_counter()

        def elapsed() -> float:
            return (time.perf_counter() - started) * 1000

        if self._unsendable is not None:
            return self._failed(plant, self._unsendable, elapsed())

        status: int | None = None
        try:
            async with asyncio.timeout(self.limits.deadline):
                response = await self._client.send(self._request(plant), stream=True)
                try:
                    status = response.status_code
                    if status == 407 and self._proxy is not None:
                        # The proxy's answer, never the deployment's: the request stopped there.
                        refused = proxy_refused(self._proxy, "407")
                        return self._failed(plant, refused, elapsed(), status)
                    body = await read_capped(response, self.limits.max_body)
                    # Nothing after this holds the token (what is shown of an answer is cut,
                    # and a cut token is not found).
                    body = redact_bytes(body, self._token)
                    retry_after = self._redacted(response.headers.get("Retry-After"))
                    content_type = response.headers.get("Content-Type")
                finally:
                    await response.aclose()
        except _Redirected as redirect:
            location = redact(redirect.location, self._token)
            return self._redirected(plant, redirect.status, location, elapsed())
        except SEND_FAILURES as exc:
            # Its words may quote what the server sent (a malformed line), and are cut to be
            # shown: the token goes first, so that no cut leaves a piece of it.
            exc.args = tuple(
                redact(arg, self._token) if isinstance(arg, str) else arg for arg in exc.args
            )
            failure = explain(exc, status, self.limits, self._plants_url.host, self._proxy)
            return self._failed(plant, failure, elapsed(), status)
        # A mark may quote the answer's Content-Type.
        marks = tuple(redact(mark, self._token) for mark in off_spec(status, content_type, body))
        return self._answered(plant, status, body, retry_after, elapsed(), marks)

    def _redacted(self, text: str | None) -> str | None:
        return None if text is None else redact(text, self._token)

    def _request(self, plant: NewPlant) -> httpx.Request:
        """The POST of `plant`, the token read from its SecretStr as the request is built (no
        local variable holds it: a traceback that shows locals shows none)."""
        return httpx.Request(
            "POST",
            self._plants_url,
            headers=[
                *_HEADERS,
                (b"Authorization", b"Bearer " + self._token.get_secret_value().encode("ascii")),
            ],
            content=plant.body_bytes(),
        )

    def _failed(
        self,
        plant: NewPlant,
        failure: Failure,
        elapsed_ms: float,
        status: int | None = None,
        *,
        body: str = "",
        marks: tuple[str, ...] = (),
        location: str | None = None,
    ) -> Failed:
        return Failed(
            url=self.url,
            sent=plant,
            kind=failure.kind,
            # Words made of an exception may quote what the server sent.
            message=redact(failure.message, self._token),
            fate=failure.fate,
            advice=redact(failure.advice, self._token),
            status=status,
            elapsed_ms=elapsed_ms,
            location=location,
            body=body,
            off_spec=marks,
            proxy=self._proxy_url,
        )

    def _redirected(self, plant: NewPlant, status: int, location: str, elapsed_ms: float) -> Failed:
        # 303 is the usual answer after a POST that did its work; the others mean "not here".
        fate = PlantFate.UNKNOWN if status == 303 else PlantFate.NOT_CREATED
        where = shorten(location, what="Location") if location else "no Location given"
        failure = Failure(
            FailureKind.REDIRECT,
            f"The server redirected ({status}) to {where}; the redirect was not followed",
            fate,
            "If the new address is right, use it as the base URL.",
        )
        marks = off_spec(status, None, b"")
        return self._failed(
            plant, failure, elapsed_ms, status, marks=marks, location=location or None
        )

    def _answered(
        self,
        plant: NewPlant,
        status: int,
        body: bytes,
        retry_after: str | None,
        elapsed_ms: float,
        marks: tuple[str, ...],
    ) -> Outcome:
        text = _decode_text(body)

        def invalid(message: str, advice: str) -> Failed:
            # The fate is unknown, not CREATED: a web page or catch-all route also answers 200
            # to any POST.
            failure = Failure.unknown(FailureKind.INVALID_RESPONSE, message, advice)
            return self._failed(plant, failure, elapsed_ms, status, body=text, marks=marks)

        if 200 <= status < 300:
            parsed = _parse_plant(body)
            if not isinstance(parsed, str):
                return Created(
                    url=self.url,
                    sent=plant,
                    status=status,
                    elapsed_ms=elapsed_ms,
                    plant=parsed,
                    body=text,
                    off_spec=marks + against_sent(plant.to_body(), parsed.as_received()),
                    proxy=self._proxy_url,
                )
            return invalid(
                f"The server answered {status} but the body is not a Plant: {shorten(parsed)}",
                "Check the base URL. " + RESEND_ADVICE,
            )
        if status < 400:
            return invalid(
                f"The server answered with an unexpected status {status}",
                "Check the base URL. " + RESEND_ADVICE,
            )
        error = _parse_error(body)
        return Rejected(
            url=self.url,
            sent=plant,
            status=status,
            elapsed_ms=elapsed_ms,
            error=None if isinstance(error, str) else error,
            body=text,
            body_problem=shorten(error) if isinstance(error, str) else None,
            retry_after=retry_after,
            off_spec=marks,
            proxy=self._proxy_url,
        )
