"""The Plant Store API client: kept-alive httpx transports per target, sends -> `Outcome`.

Every httpx, socket, decoding and Unicode failure is translated here, at one boundary, into a
`Failed` outcome with words; nothing from httpx reaches a caller.
"""

from __future__ import annotations

import asyncio
import errno
import json
import re
import socket
import ssl
import time
import zlib
from collections.abc import AsyncIterator, Iterator
from types import TracebackType
from typing import NamedTuple, Self

import httpx
from pydantic import SecretStr, ValidationError

from plantstore_tui import __version__
from plantstore_tui.core.http.conformance import off_spec
from plantstore_tui.core.http.target import Limits
from plantstore_tui.core.plant.models import ApiError, NewPlant, Plant, describe_validation_error
from plantstore_tui.core.plant.outcome import (
    Created,
    Failed,
    FailureKind,
    Outcome,
    PlantFate,
    Rejected,
)
from plantstore_tui.core.plant.text import shorten

USER_AGENT = f"plantstore-tui/{__version__}"
_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Sent with every request, beside Host, Content-Length and Authorization.
_HEADERS = (
    (b"User-Agent", USER_AGENT.encode("ascii")),
    (b"Accept", b"application/json"),
    (b"Accept-Encoding", b"identity"),
    (b"Content-Type", b"application/json"),
)


# Letters, digits, dots, hyphens (and the underscores of container names), or an IPv6 literal,
# in the ASCII form httpx sends (internationalized names are already xn-- encoded).
_HOST_PATTERN = re.compile(rb"[A-Za-z0-9._-]+|[0-9A-Fa-f:.]+(%25[A-Za-z0-9._-]+)?")


class InvalidBaseURL(ValueError):
    """A base URL that cannot be a Plant Store deployment's address."""


def normalize_base_url(text: str) -> str:
    """Check a base URL and return it without a trailing slash, or raise `InvalidBaseURL`."""
    stripped = text.strip()
    if not stripped:
        raise InvalidBaseURL("The base URL is empty")
    try:
        url = httpx.URL(stripped)
    except (httpx.InvalidURL, UnicodeError, TypeError) as exc:
        raise InvalidBaseURL(f"The base URL is not a valid URL ({exc})") from None
    if url.scheme not in ("http", "https"):
        raise InvalidBaseURL("The base URL must start with http:// or https://")
    if not url.host:
        raise InvalidBaseURL("The base URL has no host")
    # httpx lets "%5b" or "x;y" through as a host; they could only fail later, less clearly.
    if not _HOST_PATTERN.fullmatch(url.raw_host):
        raise InvalidBaseURL("The base URL's host is neither a host name nor an IP address")
    if url.userinfo:
        raise InvalidBaseURL(
            "The base URL must not hold a user name or password: the token is the credential"
        )
    if url.port is not None and not 1 <= url.port <= 65535:
        # httpx lets any number through; the socket layer would fail with an OverflowError.
        raise InvalidBaseURL("The base URL's port must be between 1 and 65535")
    if any(char.isspace() for char in stripped):
        raise InvalidBaseURL("The base URL must not have spaces in it")
    if url.fragment or "#" in stripped:
        raise InvalidBaseURL("The base URL must not have a #fragment")
    # An empty query ("http://host?") still ends the path: /plants would land in the query.
    if url.query or "?" in stripped:
        raise InvalidBaseURL("The base URL must not have a ?query")
    return str(url).rstrip("/")


def plants_url(base_url: str) -> str:
    """`{base_url}/plants` for a base URL already normalized."""
    return f"{base_url.rstrip('/')}/plants"


def token_problem(token: SecretStr) -> str | None:
    """Why a token cannot go in an Authorization header, without ever quoting it."""
    value = token.get_secret_value()
    if not value:
        return "The token is empty"
    for index, char in enumerate(value):
        if not 0x21 <= ord(char) <= 0x7E:
            return f"The token has a space, control or non-ASCII character at position {index + 1}"
    return None


class _BodyTooLarge(Exception):
    def __init__(self, size_hint: str) -> None:
        super().__init__(size_hint)
        self.size_hint = size_hint


class _UnsupportedEncoding(Exception):
    pass


def _decoder(encoding: str) -> zlib._Decompress | None:
    # Decompressed here with a cap rather than by httpx, so a small gzip bomb cannot expand
    # into gigabytes in memory.
    match encoding:
        case "" | "identity":
            return None
        case "gzip" | "x-gzip":
            return zlib.decompressobj(zlib.MAX_WBITS | 16)
        case "deflate":
            return zlib.decompressobj()
        case _:
            raise _UnsupportedEncoding(encoding)


async def _read_capped(response: httpx.Response, cap: int) -> bytes:
    declared = response.headers.get("Content-Length", "")
    # str.isdigit() alone says yes to "²" and "٣"; a length past 20 digits is not trusted, only
    # kept from reaching int(): the streamed read below is capped anyway.
    if declared.isascii() and declared.isdigit() and len(declared) <= 20 and int(declared) > cap:
        raise _BodyTooLarge(f"{int(declared):,} bytes declared")
    encodings = [
        part.strip().lower()
        for part in response.headers.get("Content-Encoding", "").split(",")
        if part.strip()
    ]
    decoders = [_decoder(encoding) for encoding in reversed(encodings)]
    if response.is_stream_consumed:
        # A transport that built the whole body in memory (a mock, an in-process app): httpx has
        # read and decoded it already, so there is nothing left to stream or to decompress.
        if len(response.content) > cap:
            raise _BodyTooLarge(f"more than {cap:,} bytes")
        return response.content
    body = bytearray()
    received = False
    raw: AsyncIterator[bytes] = response.aiter_raw()
    async for chunk in raw:
        received = received or bool(chunk)
        data = chunk
        for decoder in decoders:
            if decoder is not None:
                data = decoder.decompress(data, cap + 1 - len(body))
                if decoder.unconsumed_tail:
                    raise _BodyTooLarge(f"more than {cap:,} bytes once decompressed")
        body += data
        if len(body) > cap:
            raise _BodyTooLarge(f"more than {cap:,} bytes")
    # A compressed stream cut short decompresses to a plausible prefix without any error.
    if received and not all(decoder.eof for decoder in decoders if decoder is not None):
        raise zlib.error("the compressed body ends early")
    return bytes(body)


def _causes(exc: BaseException) -> Iterator[BaseException]:
    # httpx wraps httpcore, which wraps anyio's "All connection attempts failed", whose cause is
    # the OSError (or a group of them) that says what really happened.
    pending = [exc]
    seen: set[int] = set()
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        pending.extend(link for link in (current.__cause__, current.__context__) if link)


# OpenSSL's X509_V_ERR_* codes for the certificate failures a deployment really meets.
_CERT_EXPIRED, _CERT_NOT_YET_VALID = 10, 9
_UNTRUSTED_ISSUER = frozenset({2, 18, 19, 20, 21})
_NAME_MISMATCH = frozenset({62, 64})
_TRUST_ADVICE = (
    "If the deployment uses your organisation's own CA, install that CA in this machine's trust "
    "store, or give its PEM file as the profile's ca_bundle (or --ca-bundle PATH)."
)


def _certificate_problem(error: ssl.SSLCertVerificationError) -> tuple[str, str]:
    """A refused certificate in words: what was wrong with it, and what to do."""
    detail = error.verify_message or "it could not be verified"
    # Set by the ssl module on a failed handshake; absent on one built by hand.
    code = getattr(error, "verify_code", None)
    if code == _CERT_EXPIRED:
        return (
            "The server's TLS certificate has expired",
            "Whoever runs the deployment must renew its certificate; nothing can be sent safely "
            "until then.",
        )
    if code == _CERT_NOT_YET_VALID:
        return (
            "The server's TLS certificate is not valid yet",
            "Check this machine's clock, or ask whoever runs the deployment.",
        )
    if code in _UNTRUSTED_ISSUER:
        return (
            "The server's TLS certificate is from an issuer this machine does not trust "
            f"({detail})",
            _TRUST_ADVICE,
        )
    if code in _NAME_MISMATCH:
        return (
            f"The server's TLS certificate is for another host name ({detail})",
            "Check the base URL's host: use the name the certificate was issued for.",
        )
    return (
        f"The server's TLS certificate was not accepted: {detail}",
        "Check the base URL's host name and the server's certificate.",
    )


def _tls_problem(exc: BaseException) -> tuple[str, str] | None:
    """What went wrong in the TLS handshake, and what to try, if that is where it failed."""
    for cause in _causes(exc):
        if isinstance(cause, ssl.SSLCertVerificationError):
            return _certificate_problem(cause)
        if isinstance(cause, ssl.SSLError):
            return (
                f"The TLS handshake failed ({cause.reason or cause.strerror or 'no reason given'})",
                "Check that the server speaks HTTPS on this port, or use an http:// base URL.",
            )
    return None


def _decode_text(body: bytes) -> str:
    return body.decode("utf-8", errors="replace")


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


_CHECK_STORE = "Check the store before sending this plant again."
_CHECK_RUNNING = "Check that the deployment is running and that the base URL is right."
_CORRECT_URL = "Correct the base URL of the target."
_SMALL_JSON = "Check the base URL: a Plant Store answers with a small JSON body."

# Everything a send can raise below the client; CancelledError is not among them on purpose.
_SEND_FAILURES = (
    TimeoutError,
    _BodyTooLarge,
    _UnsupportedEncoding,
    zlib.error,
    httpx.HTTPError,
    httpx.StreamError,
    httpx.InvalidURL,
    httpx.CookieConflict,
    OSError,
    UnicodeError,
)


class _Failure(NamedTuple):
    kind: FailureKind
    message: str
    fate: PlantFate
    advice: str

    @classmethod
    def not_created(cls, kind: FailureKind, message: str, advice: str) -> _Failure:
        """A failure before anything reached the server."""
        return cls(kind, message, PlantFate.NOT_CREATED, advice)

    @classmethod
    def unknown(cls, kind: FailureKind, message: str, advice: str = _CHECK_STORE) -> _Failure:
        """A failure after the plant may have reached the server."""
        return cls(kind, message, PlantFate.UNKNOWN, advice)


def _unsendable(base_url: str, token: SecretStr) -> _Failure | None:
    """Why no send to `base_url` with `token` can go out, if something stops them all."""
    try:
        normalize_base_url(base_url)
    except InvalidBaseURL as exc:
        return _Failure.not_created(FailureKind.INVALID_URL, str(exc), _CORRECT_URL)
    problem = token_problem(token)
    if problem is not None:
        message = f"{problem}, so it cannot be sent"
        return _Failure.not_created(FailureKind.INVALID_TOKEN, message, "Set the token again.")
    return None


class CABundleError(ValueError):
    """A ca_bundle file that cannot be read as PEM CA certificates."""


def tls_context(ca_bundle: str | None = None) -> ssl.SSLContext:
    """The context that verifies a deployment's certificate: the OS trust store, or `ca_bundle`.

    The OS store (through truststore, as pip does) makes a company CA installed on the machine
    just work; a CA file given as `ca_bundle` is trusted instead of it, as curl's --cacert is.
    Raises `CABundleError` for a CA file that cannot be used.
    """
    if ca_bundle is not None:
        try:
            return ssl.create_default_context(cafile=ca_bundle)
        except (OSError, ssl.SSLError, ValueError) as exc:
            # SSLError is an OSError too, but its strerror is OpenSSL's, not words for anyone.
            reason = "no PEM certificate in it"
            if isinstance(exc, OSError) and not isinstance(exc, ssl.SSLError) and exc.strerror:
                reason = exc.strerror
            raise CABundleError(
                f"The CA file {ca_bundle} cannot be used ({reason}): it must be a readable "
                "file of PEM CA certificates"
            ) from None
    # Imported here: building the context loads the trust store, which no first frame waits for.
    import truststore

    return truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


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
    ) -> None:
        self.base_url = base_url.strip().rstrip("/")
        self.url = plants_url(self.base_url)
        self.limits = limits or Limits()
        # The base URL and the token do not change: what stops every send is known once, here.
        self._unsendable = _unsendable(self.base_url, token)
        verify: ssl.SSLContext | bool = True
        if transport is None:
            try:
                verify = tls_context(ca_bundle)
            except CABundleError as exc:
                advice = "Correct the profile's ca_bundle (or --ca-bundle)."
                unusable = _Failure.not_created(FailureKind.TLS, str(exc), advice)
                self._unsendable = self._unsendable or unusable
        # Transports themselves, not an httpx.AsyncClient over them: a send needs none of the
        # client's cookie jar, auth flow, redirects or request merging, which cost a quarter of
        # the time of a request on loopback (benchmarks/import.py). And one transport (so one
        # kept-alive connection) per send in flight, each used by one send at a time: a shared
        # pool polls every idle connection's socket on every request. Proxies and TLS go here.
        self._verify = verify
        self._given = transport
        self._idle: list[httpx.AsyncBaseTransport] = []
        self._transports: list[httpx.AsyncBaseTransport] = []
        self._token = token
        self._timeouts = httpx.Timeout(
            connect=self.limits.connect,
            read=self.limits.read,
            write=self.limits.read,
            pool=self.limits.connect,
        ).as_dict()
        # Never used when a send cannot go out (a URL httpx cannot parse is unsendable).
        self._plants_url = httpx.URL(self.url) if self._unsendable is None else httpx.URL()

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
        transports, self._transports, self._idle = self._transports, [], []
        for transport in transports:
            await transport.aclose()
        if self._given is not None:
            await self._given.aclose()

    async def create_plant(self, plant: NewPlant) -> Outcome:
        """POST the plant to `{base_url}/plants` and say what came of it. Never raises on I/O."""
        started = time.perf_counter()

        def elapsed() -> float:
            return (time.perf_counter() - started) * 1000

        if self._unsendable is not None:
            return self._failed(plant, self._unsendable, elapsed())

        status: int | None = None
        transport = self._take_transport()
        try:
            async with asyncio.timeout(self.limits.deadline):
                response = await transport.handle_async_request(self._request(plant))
                try:
                    status = response.status_code
                    if status in _REDIRECT_STATUSES:
                        location = response.headers.get("Location", "")
                        return self._redirected(plant, status, location, elapsed())
                    body = await _read_capped(response, self.limits.max_body)
                    retry_after = response.headers.get("Retry-After")
                    content_type = response.headers.get("Content-Type")
                finally:
                    await response.aclose()
        except _SEND_FAILURES as exc:
            return self._failed(plant, self._explain(exc, status), elapsed(), status)
        finally:
            # Only now: until its answer is read and closed, its connection is this send's.
            self._give_back(transport)
        marks = off_spec(status, content_type, body)
        return self._answered(plant, status, body, retry_after, elapsed(), marks)

    def _take_transport(self) -> httpx.AsyncBaseTransport:
        """A transport no other send is using (as many as sends in flight at once, at most)."""
        if self._given is not None:
            return self._given
        if self._idle:
            return self._idle.pop()
        transport = httpx.AsyncHTTPTransport(verify=self._verify, trust_env=False)
        self._transports.append(transport)
        return transport

    def _give_back(self, transport: httpx.AsyncBaseTransport) -> None:
        if transport is not self._given:
            self._idle.append(transport)

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
            extensions={"timeout": self._timeouts},
        )

    def _failed(
        self, plant: NewPlant, failure: _Failure, elapsed_ms: float, status: int | None = None
    ) -> Failed:
        return Failed(
            url=self.url,
            sent=plant,
            kind=failure.kind,
            message=failure.message,
            fate=failure.fate,
            advice=failure.advice,
            status=status,
            elapsed_ms=elapsed_ms,
        )

    def _explain(self, exc: Exception, status: int | None) -> _Failure:
        """The words for a send that got no usable answer; `status` is set once one began."""
        answer = "The answer" if status is None else f"The answer ({status})"
        match exc:
            case TimeoutError():
                message = f"No complete answer within the {self.limits.deadline:g} s deadline"
                return _Failure.unknown(FailureKind.TIMEOUT, message)
            case _BodyTooLarge(size_hint=size_hint):
                message = f"{answer} is too large to read: {size_hint}"
                # A 4xx refused the plant whatever its body; after anything else nobody can say.
                fate = PlantFate.NOT_CREATED if 400 <= (status or 0) < 500 else PlantFate.UNKNOWN
                return _Failure(FailureKind.TOO_LARGE, message, fate, _SMALL_JSON)
            case _UnsupportedEncoding():
                message = f"{answer} uses a content encoding this client does not read: {exc}"
                advice = "Check the base URL, or the deployment's compression settings."
                return _Failure.unknown(FailureKind.INVALID_RESPONSE, message, advice)
            case zlib.error():
                message = f"{answer} is compressed but does not decompress"
                return _Failure.unknown(FailureKind.INVALID_RESPONSE, message)
            # Failures to reach the server say "not created" only while no answer has begun.
            case httpx.ConnectTimeout() if status is None:
                message = f"Could not connect within {self.limits.connect:g} s"
                return _Failure.not_created(FailureKind.TIMEOUT, message, _CHECK_RUNNING)
            case httpx.ConnectError() if status is None:
                tls = _tls_problem(exc)
                if tls is not None:
                    return _Failure.not_created(FailureKind.TLS, *tls)
                message = f"Cannot connect to {httpx.URL(self.url).host}: {_connect_reason(exc)}"
                return _Failure.not_created(FailureKind.CANNOT_CONNECT, message, _CHECK_RUNNING)
            case httpx.UnsupportedProtocol() | httpx.InvalidURL() | UnicodeError() if (
                status is None
            ):
                message = "The base URL cannot be used for a request"
                return _Failure.not_created(FailureKind.INVALID_URL, message, _CORRECT_URL)
            case httpx.TimeoutException():
                message = f"The server did not answer within {self.limits.read:g} s"
                return _Failure.unknown(FailureKind.TIMEOUT, message)
            case httpx.RemoteProtocolError() if not _disconnected(exc):
                message = f"{answer} is not valid HTTP: {shorten(str(exc), 200)}"
                advice = (
                    "Check the base URL's scheme, host and port: something other than a Plant "
                    "Store may be answering. " + _CHECK_STORE
                )
                return _Failure.unknown(FailureKind.INVALID_RESPONSE, message, advice)
            case httpx.RemoteProtocolError() | httpx.NetworkError():
                message = "The connection dropped before the answer was complete"
                return _Failure.unknown(FailureKind.CONNECTION_DROPPED, message)
            case _:
                message = f"The request failed: {type(exc).__name__}"
                return _Failure.unknown(FailureKind.CONNECTION_DROPPED, message)

    def _redirected(self, plant: NewPlant, status: int, location: str, elapsed_ms: float) -> Failed:
        # 303 is the usual answer after a POST that did its work; the others mean "not here".
        fate = PlantFate.UNKNOWN if status == 303 else PlantFate.NOT_CREATED
        where = location or "no Location given"
        return Failed(
            url=self.url,
            sent=plant,
            kind=FailureKind.REDIRECT,
            message=f"The server redirected ({status}) to {where}; the redirect was not followed",
            fate=fate,
            advice="If the new address is right, use it as the base URL.",
            status=status,
            elapsed_ms=elapsed_ms,
            location=location or None,
            off_spec=off_spec(status, None, b""),
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
        if 200 <= status < 300:
            parsed = _parse_plant(body)
            if isinstance(parsed, Plant):
                return Created(
                    url=self.url,
                    sent=plant,
                    status=status,
                    elapsed_ms=elapsed_ms,
                    plant=parsed,
                    body=text,
                    off_spec=marks,
                )
            return Failed(
                url=self.url,
                sent=plant,
                kind=FailureKind.INVALID_RESPONSE,
                message=f"The server answered {status} but the body is not a Plant: {parsed}",
                # Not CREATED: a web page or catch-all route also answers 200 to any POST.
                fate=PlantFate.UNKNOWN,
                advice="Check the base URL, and check the store before sending this plant again.",
                status=status,
                elapsed_ms=elapsed_ms,
                body=text,
                off_spec=marks,
            )
        if status < 400:
            return Failed(
                url=self.url,
                sent=plant,
                kind=FailureKind.INVALID_RESPONSE,
                message=f"The server answered with an unexpected status {status}",
                fate=PlantFate.UNKNOWN,
                advice="Check the base URL and the store before sending again.",
                status=status,
                elapsed_ms=elapsed_ms,
                body=text,
                off_spec=marks,
            )
        error = _parse_error(body)
        return Rejected(
            url=self.url,
            sent=plant,
            status=status,
            elapsed_ms=elapsed_ms,
            error=error if isinstance(error, ApiError) else None,
            body=text,
            body_problem=None if isinstance(error, ApiError) else error,
            retry_after=retry_after,
            off_spec=marks,
        )


def _connect_reason(exc: httpx.ConnectError) -> str:
    for cause in _causes(exc):
        if isinstance(cause, ConnectionRefusedError):
            return "the connection was refused (nothing listens there)"
        if isinstance(cause, socket.gaierror):
            return "the host name does not resolve"
        if isinstance(cause, OSError) and cause.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
            return "the network or host is unreachable"
    return "the connection could not be opened"


def _disconnected(exc: httpx.RemoteProtocolError) -> bool:
    # httpcore and h11 raise the same class for "the peer hung up" and "that was not HTTP".
    text = str(exc).lower()
    return "disconnected" in text or "peer closed" in text
