"""Where a tab comes from: a tab's connection, the websocket that starts its TUI, is taken only from
the page's own origin; and no page may be shown in another page's frame.

The key's cookie alone cannot tell: a browser sends a SameSite=Strict cookie to every port of the
page's host, and from every port of it, so another server on this machine (or a sibling host behind
a proxy, on a site of its own) could open a TUI with it. A browser names the page a websocket comes
from in its Origin header, which no page's script can change.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from plantstore_tui.core.plant.text import quoted, visible

# The route of a tab's connection, as textual-serve names it (tests/web/test_serving.py fails
# loudly if an upgrade renames it).
_TAB_ROUTE = "websocket"
_DEFAULT_PORTS = {"http": 80, "https": 443}

# Every answer says it: a page in another page's frame could be clicked through unseen.
NOT_FRAMED = {"Content-Security-Policy": "frame-ancestors 'none'", "X-Frame-Options": "DENY"}


def page_origin(url: str) -> str:
    """The origin a browser names for a page at `url`, as it writes it in an Origin header:
    `https://plants.example.org` for `https://Plants.Example.org:443/tui/`. ValueError when
    `url` has no host or a port out of range."""
    parts = urlsplit(url)
    host = parts.hostname
    if not host:
        raise ValueError(f"{url} names no host")
    port = parts.port  # ValueError when out of range
    if ":" in host:
        host = f"[{ipaddress.ip_address(host).compressed}]"
    else:
        host = host.encode("idna").decode("ascii")
    scheme = parts.scheme.lower()
    shown_port = "" if port is None or port == _DEFAULT_PORTS.get(scheme) else f":{port}"
    return f"{scheme}://{host}{shown_port}"


def _why_refused(origins: list[str], own: str) -> str:
    if not origins:
        # Browsers always name one on a websocket: this was a program, not a tab.
        return "that names no origin"
    if len(origins) > 1:
        return f"that names {len(origins)} origins"
    return f"from {visible(quoted(origins[0]))}"


def origin_gate(own: str, *, on_refused: Callable[[str], None]) -> Middleware:
    """An aiohttp middleware that refuses (403) a tab's connection unless its Origin is `own`,
    and any request that names another origin, before any handler runs; each refusal of a
    tab's connection is told to `on_refused` in one sentence."""

    @web.middleware
    async def gate(request: web.Request, handler: Handler) -> web.StreamResponse:
        origins = request.headers.getall("Origin", [])
        is_tab = request.match_info.route.name == _TAB_ROUTE
        # A page's own scripts may name it; a link followed from elsewhere names none.
        if origins == [own] or (not origins and not is_tab):
            return await handler(request)
        if is_tab:
            on_refused(
                f"Refused a tab's connection {_why_refused(origins, own)}: only the page at "
                f"{own} may open one, so no TUI was started."
            )
        raise web.HTTPForbidden(text=f"Only the page at {own} may open this.\n")

    return gate


async def forbid_frames(request: web.Request, response: web.StreamResponse) -> None:
    """An `on_response_prepare` signal handler: the answer says that no page may frame it."""
    response.headers.update(NOT_FRAMED)
