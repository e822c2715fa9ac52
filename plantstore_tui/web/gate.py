"""The access key: every request, page, static file or websocket, shows it or is refused.

The key comes once in the URL (`?key=`); a page opened with it sets a cookie (HttpOnly,
SameSite=Strict) and is sent on to the same path without it, so the key leaves the address bar
and the history, and the page's own requests (its scripts, its websocket) carry the cookie.
Keys are compared in constant time and never logged.
"""

from __future__ import annotations

import hmac
import os
import secrets
from collections.abc import Awaitable, Callable
from urllib.parse import quote, urlencode

from aiohttp import web
from aiohttp.typedefs import Middleware

KEY_ENV = "PLANTSTORE_WEB_KEY"
KEY_PARAMETER = "key"
_MIN_KEY_LENGTH = 16

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class UnusableKey(ValueError):
    """The key given in the environment is too short or not printable ASCII."""


def access_key(environ: dict[str, str] | os._Environ[str]) -> tuple[str, bool]:
    """The key to ask for, and whether it came from the environment (else it is fresh)."""
    given = environ.get(KEY_ENV, "").strip()
    if not given:
        return secrets.token_urlsafe(24), False
    if len(given) < _MIN_KEY_LENGTH or not all(33 <= ord(c) < 127 for c in given):
        raise UnusableKey(
            f"{KEY_ENV} must be at least {_MIN_KEY_LENGTH} printable ASCII characters "
            "without spaces."
        )
    return given, True


def _matches(given: str, key: str) -> bool:
    return hmac.compare_digest(given.encode(), key.encode())


def _without_key(request: web.Request) -> str:
    """The address of `request` without the key, relative to it: right behind a reverse proxy
    that serves it under a path of its own too."""
    rest = urlencode([(k, v) for k, v in request.query.items() if k != KEY_PARAMETER])
    page = quote(request.path.rsplit("/", 1)[1])
    return f"./{page}?{rest}" if rest else f"./{page}"


def key_gate(key: str, *, cookie_name: str, secure: bool) -> Middleware:
    """An aiohttp middleware that refuses a request without the key before any handler runs:
    401 when no key is shown, 403 when a wrong one is."""

    @web.middleware
    async def gate(request: web.Request, handler: Handler) -> web.StreamResponse:
        in_url = request.query.get(KEY_PARAMETER)
        if in_url is not None:
            if not _matches(in_url, key):
                raise web.HTTPForbidden(text="This access key is not the right one.\n")
            response = web.HTTPSeeOther(_without_key(request))
            response.set_cookie(
                cookie_name, key, httponly=True, samesite="Strict", secure=secure, path="/"
            )
            raise response
        in_cookie = request.cookies.get(cookie_name)
        if in_cookie is None:
            raise web.HTTPUnauthorized(
                text="This page needs its access key: open the URL plantstore-tui web printed.\n"
            )
        if not _matches(in_cookie, key):
            raise web.HTTPForbidden(text="This access key is not the right one.\n")
        return await handler(request)

    return gate
