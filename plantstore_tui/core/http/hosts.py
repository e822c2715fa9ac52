"""Which hosts are this machine: plain http to them never leaves it, so it needs no opt-in."""

from __future__ import annotations

import ipaddress

import httpx


def is_loopback_host(host: str) -> bool:
    """True for `localhost` (any case) and loopback addresses: 127.0.0.0/8, ::1, and IPv4-mapped
    IPv6 loopback such as ::ffff:127.0.0.1; brackets around an IPv6 address are allowed."""
    if host.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        # Python 3.11 and 3.12 call ::ffff:127.0.0.1 not loopback, yet it reaches 127.0.0.1.
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def insecure_http_problem(base_url: str, *, allowed: bool, proxy: str | None = None) -> str | None:
    """Why a token must not go to `base_url` (plain http beyond loopback, not allowed), or None;
    `proxy` names the proxy the token would pass through first."""
    url = httpx.URL(base_url)
    if url.scheme != "http" or allowed or is_loopback_host(url.host):
        return None
    if proxy is not None:
        return (
            f"plain http:// to {url.host} through the proxy {proxy} would send the token "
            "unencrypted to the proxy and over the network"
        )
    return f"plain http:// to {url.host} would send the token unencrypted over the network"
