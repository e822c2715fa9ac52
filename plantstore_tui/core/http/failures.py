"""The words for a send that got no usable answer: what happened, the plant's fate, what to try.

Every exception a send can raise below the client (httpx, sockets, TLS, decompression, Unicode)
is translated here, at one boundary; the client turns the `Failure` into a `Failed` outcome.
"""

from __future__ import annotations

import ast
import errno
import re
import socket
import ssl
import zlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, NamedTuple

import httpx
from pydantic import SecretStr

from plantstore_tui.core.http.body import BodyTooLarge, UnsupportedEncoding
from plantstore_tui.core.http.target import Limits
from plantstore_tui.core.http.tls import handshake_problem
from plantstore_tui.core.http.urls import InvalidBaseURL, normalize_base_url, token_problem
from plantstore_tui.core.plant.outcome import RESEND_ADVICE, FailureKind, PlantFate
from plantstore_tui.core.plant.text import quoted, shorten, visible

if TYPE_CHECKING:
    from plantstore_tui.core.http.proxy import Proxy

_CHECK_RUNNING = "Check that the deployment is running and that the base URL is right."
_CORRECT_URL = "Correct the base URL of the target."
_SMALL_JSON = "Check the base URL: a Plant Store answers with a small JSON body."
_CHECK_PROXY = (
    "Check that the proxy is running and that the proxy setting is right (--proxy, the "
    "profile's proxy, or $HTTPS_PROXY / $HTTP_PROXY / $ALL_PROXY; --proxy none goes direct)."
)

# Everything a send can raise below the client; CancelledError is not among them on purpose.
SEND_FAILURES = (
    TimeoutError,
    BodyTooLarge,
    UnsupportedEncoding,
    zlib.error,
    httpx.HTTPError,
    httpx.StreamError,
    httpx.InvalidURL,
    httpx.CookieConflict,
    OSError,
    UnicodeError,
)


class Failure(NamedTuple):
    """Why a send failed, in words, and what it means for the plant."""

    kind: FailureKind
    message: str
    fate: PlantFate
    advice: str

    @classmethod
    def not_created(cls, kind: FailureKind, message: str, advice: str) -> Failure:
        """A failure before anything reached the server."""
        return cls(kind, message, PlantFate.NOT_CREATED, advice)

    @classmethod
    def unknown(cls, kind: FailureKind, message: str, advice: str = RESEND_ADVICE) -> Failure:
        """A failure after the plant may have reached the server."""
        return cls(kind, message, PlantFate.UNKNOWN, advice)


def unsendable(base_url: str, token: SecretStr) -> Failure | None:
    """Why no send to `base_url` with `token` can go out, if something stops them all."""
    try:
        normalize_base_url(base_url)
    except InvalidBaseURL as exc:
        return Failure.not_created(FailureKind.INVALID_URL, str(exc), _CORRECT_URL)
    problem = token_problem(token)
    if problem is not None:
        message = f"{problem}, so it cannot be sent"
        return Failure.not_created(FailureKind.INVALID_TOKEN, message, "Set the token again.")
    return None


def proxy_refused(proxy: Proxy, answer: str) -> Failure:
    """The proxy answered `answer` ("407 Proxy Authentication Required", ...) instead of
    passing the request on: nothing reached the deployment."""
    if answer.startswith("407"):
        message = f"The proxy {proxy.url} asks for a login (407)"
        advice = (
            "The proxy refused its user and password: correct them in the proxy URL."
            if proxy.credentials is not None
            else "Give the proxy's user and password in its URL: http://USER:PASSWORD@host:port."
        )
        return Failure.not_created(FailureKind.PROXY, message, advice)
    message = f"The proxy {proxy.url} did not pass the request on: {shorten(answer, 200)}"
    return Failure.not_created(FailureKind.PROXY, message, _CHECK_PROXY)


def explain(
    exc: Exception, status: int | None, limits: Limits, host: str, proxy: Proxy | None = None
) -> Failure:
    """The words for a send to `host` that got no usable answer; `status` is set once one began.
    With a `proxy`, a failure to connect is the proxy's (the client connects to nothing else)."""
    answer = "The answer" if status is None else f"The answer ({status})"
    if proxy is not None and status is None:
        failure = _proxy_failure(exc, limits, proxy)
        if failure is not None:
            return failure
    match exc:
        case TimeoutError():
            message = f"No complete answer within the {limits.deadline:g} s deadline"
            return Failure.unknown(FailureKind.TIMEOUT, message)
        case BodyTooLarge(size_hint=size_hint):
            message = f"{answer} is too large to read: {size_hint}"
            # A 4xx refused the plant whatever its body; after anything else nobody can say.
            fate = PlantFate.NOT_CREATED if 400 <= (status or 0) < 500 else PlantFate.UNKNOWN
            return Failure(FailureKind.TOO_LARGE, message, fate, _SMALL_JSON)
        case UnsupportedEncoding():
            message = f"{answer} uses a content encoding this client does not read: {exc}"
            advice = "Check the base URL, or the deployment's compression settings."
            return Failure.unknown(FailureKind.INVALID_RESPONSE, message, advice)
        case zlib.error():
            message = f"{answer} is compressed but does not decompress"
            return Failure.unknown(FailureKind.INVALID_RESPONSE, message)
        # Failures to reach the server say "not created" only while no answer has begun.
        case httpx.ConnectTimeout() if status is None:
            message = f"Could not connect within {limits.connect:g} s"
            return Failure.not_created(FailureKind.TIMEOUT, message, _CHECK_RUNNING)
        case httpx.ConnectError() if status is None:
            tls = _tls_problem(exc)
            if tls is not None:
                return Failure.not_created(FailureKind.TLS, *tls)
            message = f"Cannot connect to {host}: {_connect_reason(exc)}"
            return Failure.not_created(FailureKind.CANNOT_CONNECT, message, _CHECK_RUNNING)
        case httpx.UnsupportedProtocol() | httpx.InvalidURL() | UnicodeError() if status is None:
            message = "The base URL cannot be used for a request"
            return Failure.not_created(FailureKind.INVALID_URL, message, _CORRECT_URL)
        case httpx.TimeoutException():
            message = f"The server did not answer within {limits.read:g} s"
            return Failure.unknown(FailureKind.TIMEOUT, message)
        case httpx.RemoteProtocolError() if not _disconnected(exc):
            message = f"{answer} is not valid HTTP: {protocol_words(str(exc))}"
            advice = (
                "Check the base URL's scheme, host and port: something other than a Plant "
                "Store may be answering. " + RESEND_ADVICE
            )
            return Failure.unknown(FailureKind.INVALID_RESPONSE, message, advice)
        case httpx.RemoteProtocolError() | httpx.NetworkError():
            message = "The connection dropped before the answer was complete"
            return Failure.unknown(FailureKind.CONNECTION_DROPPED, message)
        case httpx.DecodingError():
            message = f"{answer} cannot be decoded as its Content-Encoding says"
            advice = (
                "Check the base URL, or the deployment's compression settings. " + RESEND_ADVICE
            )
            return Failure.unknown(FailureKind.INVALID_RESPONSE, message, advice)
        case _:
            # Words, not the exception's class: whatever it was, no usable answer came.
            message = "The exchange with the server failed before a usable answer came"
            return Failure.unknown(FailureKind.CONNECTION_DROPPED, message)


# What h11 (under httpx) says of an answer that is not HTTP, as an operator would say it; the
# bytes it quotes follow these words.
_PROTOCOL_WORDS = {
    "illegal status line": "its status line reads",
    "illegal header line": "a header line reads",
    "illegal chunk header": "a chunk of its body begins",
    "bad content-length": "its Content-Length is not a number",
    "conflicting content-length headers": "it has two different Content-Length headers",
    "only transfer-encoding: chunked is supported": "its Transfer-Encoding is not chunked",
}
# A Python literal of bytes as h11 puts it in its words: bytearray(b'...') or b'...'.
_BYTES_LITERAL = re.compile(r"""(?:bytearray\()?(b'(?:[^'\\]|\\.)*'|b"(?:[^"\\]|\\.)*")\)?""")


def _quoted_bytes(found: re.Match[str]) -> str:
    try:
        data = ast.literal_eval(found.group(1))
    except (ValueError, SyntaxError):
        return "(bytes that cannot be shown)"
    return quoted(visible(bytes(data).decode("latin-1")))


def protocol_words(text: str) -> str:
    """h11's words for a malformed answer, without Python's notation: "illegal status line:
    bytearray(b'SPROING 999')" becomes "its status line reads 'SPROING 999'"."""
    words = _PROTOCOL_WORDS.get(text.strip().lower())
    if words is not None:
        text = words
    else:
        head, _, rest = text.partition(":")
        words = _PROTOCOL_WORDS.get(head.strip().lower())
        if words is not None:
            text = f"{words} {rest.strip()}".rstrip()
    return shorten(_BYTES_LITERAL.sub(_quoted_bytes, text), 200)


def _proxy_failure(exc: Exception, limits: Limits, proxy: Proxy) -> Failure | None:
    match exc:
        case httpx.ProxyError():
            return proxy_refused(proxy, str(exc))
        case httpx.ConnectTimeout():
            message = f"Could not connect to the proxy {proxy.url} within {limits.connect:g} s"
            return Failure.not_created(FailureKind.PROXY, message, _CHECK_PROXY)
        case httpx.ConnectError() if _tls_problem(exc) is None:
            reason = _connect_reason(exc)
            if reason == _REFUSED:
                message = f"The proxy {proxy.url} refused the connection"
            else:
                message = f"The proxy {proxy.url} cannot be reached: {reason}"
            return Failure.not_created(FailureKind.PROXY, message, _CHECK_PROXY)
    return None


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


def _tls_problem(exc: BaseException) -> tuple[str, str] | None:
    """What went wrong in the TLS handshake, and what to try, if that is where it failed."""
    for cause in _causes(exc):
        if isinstance(cause, ssl.SSLError):
            return handshake_problem(cause)
    return None


_REFUSED = "the connection was refused (nothing listens there)"


def _connect_reason(exc: httpx.ConnectError) -> str:
    for cause in _causes(exc):
        if isinstance(cause, ConnectionRefusedError):
            return _REFUSED
        if isinstance(cause, socket.gaierror):
            return "the host name does not resolve"
        if isinstance(cause, OSError) and cause.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
            return "the network or host is unreachable"
    return "the connection could not be opened"


def _disconnected(exc: httpx.RemoteProtocolError) -> bool:
    # httpcore and h11 raise the same class for "the peer hung up" and "that was not HTTP".
    text = str(exc).lower()
    return "disconnected" in text or "peer closed" in text
