"""The Plant Store API client: one long-lived `httpx.AsyncClient` per target, sends -> `Outcome`.

Every httpx, socket, decoding and Unicode failure is translated here, at one boundary, into a
`Failed` outcome with words; nothing from httpx reaches a caller.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import time
import zlib
from collections.abc import AsyncIterator, Generator
from types import TracebackType
from typing import Self

import httpx
from pydantic import SecretStr, ValidationError

from plantstore_tui import __version__
from plantstore_tui.core.models import ApiError, NewPlant, Plant, describe_validation_error
from plantstore_tui.core.outcome import (
    Created,
    Failed,
    FailureKind,
    Outcome,
    PlantFate,
    Rejected,
)
from plantstore_tui.core.target import Limits

USER_AGENT = f"plantstore-tui/{__version__}"


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
    if url.userinfo:
        raise InvalidBaseURL(
            "The base URL must not hold a user name or password: the token is the credential"
        )
    if url.fragment or "#" in stripped:
        raise InvalidBaseURL("The base URL must not have a #fragment")
    if url.query:
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


class BearerAuth(httpx.Auth):
    """Adds `Authorization: Bearer <token>` at send time, so the raw token is held nowhere else."""

    def __init__(self, token: SecretStr) -> None:
        self._token = token

    def __repr__(self) -> str:
        return "BearerAuth(token=SecretStr('**********'))"

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        """Attach the header and send once."""
        request.headers["Authorization"] = "Bearer " + self._token.get_secret_value()
        yield request


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
    if declared.isdigit() and int(declared) > cap:
        raise _BodyTooLarge(f"{int(declared):,} bytes declared")
    encodings = [
        part.strip().lower()
        for part in response.headers.get("Content-Encoding", "").split(",")
        if part.strip()
    ]
    decoders = [_decoder(encoding) for encoding in reversed(encodings)]
    body = bytearray()
    raw: AsyncIterator[bytes] = response.aiter_raw()
    async for chunk in raw:
        data = chunk
        for decoder in decoders:
            if decoder is not None:
                data = decoder.decompress(data, cap + 1 - len(body))
                if decoder.unconsumed_tail:
                    raise _BodyTooLarge(f"more than {cap:,} bytes once decompressed")
        body += data
        if len(body) > cap:
            raise _BodyTooLarge(f"more than {cap:,} bytes")
    return bytes(body)


def _ssl_cause(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLError | ssl.CertificateError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


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


class PlantStoreClient:
    """Sends plants to one deployment over a kept-alive connection; use one per target."""

    def __init__(
        self,
        base_url: str,
        token: SecretStr,
        *,
        limits: Limits | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        verify: bool | ssl.SSLContext = True,
    ) -> None:
        self.base_url = base_url.strip().rstrip("/")
        self.url = plants_url(self.base_url)
        self.limits = limits or Limits()
        self._token_problem = token_problem(token)
        self._http = httpx.AsyncClient(
            auth=BearerAuth(token),
            headers={
                "User-Agent": USER_AGENT,
                "Accept": "application/json",
                "Accept-Encoding": "identity",
            },
            timeout=httpx.Timeout(
                connect=self.limits.connect,
                read=self.limits.read,
                write=self.limits.read,
                pool=self.limits.connect,
            ),
            follow_redirects=False,
            trust_env=False,
            transport=transport,
            verify=verify,
        )

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
        await self._http.aclose()

    async def create_plant(self, plant: NewPlant) -> Outcome:
        """POST the plant to `{base_url}/plants` and say what came of it. Never raises on I/O."""
        started = time.perf_counter()

        def elapsed() -> float:
            return (time.perf_counter() - started) * 1000

        def failed(
            kind: FailureKind,
            message: str,
            fate: PlantFate,
            advice: str,
            status: int | None = None,
        ) -> Failed:
            return Failed(
                url=self.url,
                sent=plant,
                kind=kind,
                message=message,
                fate=fate,
                advice=advice,
                elapsed_ms=elapsed(),
                status=status,
            )

        try:
            normalize_base_url(self.base_url)
        except InvalidBaseURL as exc:
            return failed(
                FailureKind.INVALID_URL,
                str(exc),
                PlantFate.NOT_CREATED,
                "Correct the base URL of the target.",
            )
        if self._token_problem is not None:
            return failed(
                FailureKind.INVALID_TOKEN,
                f"{self._token_problem}, so it cannot be sent",
                PlantFate.NOT_CREATED,
                "Set the token again.",
            )

        status: int | None = None
        try:
            async with asyncio.timeout(self.limits.deadline):
                async with self._http.stream("POST", self.url, json=plant.to_body()) as response:
                    status = response.status_code
                    if response.is_redirect:
                        location = response.headers.get("Location", "")
                        return self._redirected(plant, status, location, elapsed())
                    body = await _read_capped(response, self.limits.max_body)
                    retry_after = response.headers.get("Retry-After")
        except TimeoutError:
            return failed(
                FailureKind.TIMEOUT,
                f"No complete answer within the {self.limits.deadline:g} s deadline",
                PlantFate.UNKNOWN,
                "Check the store before sending this plant again.",
                status=status,
            )
        except _BodyTooLarge as exc:
            return failed(
                FailureKind.TOO_LARGE,
                f"The answer ({status}) is too large to read: {exc.size_hint}",
                _fate_of_status(status),
                "Check the base URL: a Plant Store answers with a small JSON body.",
                status=status,
            )
        except _UnsupportedEncoding as exc:
            return failed(
                FailureKind.INVALID_RESPONSE,
                f"The answer ({status}) uses a content encoding this client does not read: {exc}",
                PlantFate.UNKNOWN,
                "Check the base URL, or the deployment's compression settings.",
                status=status,
            )
        except zlib.error:
            return failed(
                FailureKind.INVALID_RESPONSE,
                f"The answer ({status}) is compressed but does not decompress",
                PlantFate.UNKNOWN,
                "Check the store before sending this plant again.",
                status=status,
            )
        except httpx.ConnectTimeout:
            return failed(
                FailureKind.TIMEOUT,
                f"Could not connect within {self.limits.connect:g} s",
                PlantFate.NOT_CREATED,
                "Check that the deployment is up and the base URL is right.",
            )
        except httpx.TimeoutException:
            return failed(
                FailureKind.TIMEOUT,
                f"The server did not answer within {self.limits.read:g} s",
                PlantFate.UNKNOWN,
                "Check the store before sending this plant again.",
                status=status,
            )
        except httpx.ConnectError as exc:
            if _ssl_cause(exc):
                return failed(
                    FailureKind.TLS,
                    "The TLS handshake failed: the server's certificate was not accepted",
                    PlantFate.NOT_CREATED,
                    "Check the base URL's host name and the server's certificate.",
                )
            return failed(
                FailureKind.CANNOT_CONNECT,
                f"Cannot connect to {httpx.URL(self.url).host}: {_connect_reason(exc)}",
                PlantFate.NOT_CREATED,
                "Check that the deployment is running and that the base URL is right.",
            )
        except (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError, httpx.CloseError):
            return failed(
                FailureKind.CONNECTION_DROPPED,
                "The connection dropped before the answer was complete",
                PlantFate.UNKNOWN,
                "Check the store before sending this plant again.",
                status=status,
            )
        except (httpx.UnsupportedProtocol, httpx.InvalidURL, UnicodeError):
            return failed(
                FailureKind.INVALID_URL,
                "The base URL cannot be used for a request",
                PlantFate.NOT_CREATED,
                "Correct the base URL of the target.",
            )
        except (httpx.HTTPError, httpx.StreamError, OSError) as exc:
            return failed(
                FailureKind.CONNECTION_DROPPED,
                f"The request failed: {type(exc).__name__}",
                PlantFate.UNKNOWN,
                "Check the store before sending this plant again.",
                status=status,
            )
        assert status is not None
        return self._answered(plant, status, body, retry_after, elapsed())

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
        )

    def _answered(
        self, plant: NewPlant, status: int, body: bytes, retry_after: str | None, elapsed_ms: float
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
                )
            return Failed(
                url=self.url,
                sent=plant,
                kind=FailureKind.INVALID_RESPONSE,
                message=f"The server answered {status} but the body is not a Plant: {parsed}",
                fate=PlantFate.CREATED,
                advice="The deployment does not follow the spec; check the plant in the store.",
                status=status,
                elapsed_ms=elapsed_ms,
                body=text,
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
        )


def _fate_of_status(status: int | None) -> PlantFate:
    if status is not None and 200 <= status < 300:
        return PlantFate.CREATED
    if status is not None and 400 <= status < 500:
        return PlantFate.NOT_CREATED
    return PlantFate.UNKNOWN


def _connect_reason(exc: httpx.ConnectError) -> str:
    text = str(exc).lower()
    if "refused" in text:
        return "the connection was refused (nothing listens there)"
    if any(hint in text for hint in ("name or service", "nodename nor servname", "getaddrinfo")):
        return "the host name does not resolve"
    if "unreachable" in text:
        return "the network is unreachable"
    return "the connection could not be opened"
