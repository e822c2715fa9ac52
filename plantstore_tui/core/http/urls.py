"""The wire's rules for a target: a base URL a request can go to, a token a header can carry."""

from __future__ import annotations

import re

import httpx
from pydantic import SecretStr

from plantstore_tui.core.errors import PlantStoreError

# Letters, digits, dots, hyphens (and the underscores of container names), or an IPv6 literal,
# in the ASCII form httpx sends (internationalized names are already xn-- encoded).
_HOST_PATTERN = re.compile(rb"[A-Za-z0-9._-]+|[0-9A-Fa-f:.]+(%25[A-Za-z0-9._-]+)?")


class InvalidBaseURL(PlantStoreError, ValueError):
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
