"""Proxies as curl and pip use them: which proxy a target's sends go through, if any.

The choice, first to last: `--proxy`, the profile's `proxy`, then the environment
(`https_proxy`/`HTTPS_PROXY` for an https:// target, `http_proxy`/`HTTP_PROXY` for http://, then
`all_proxy`/`ALL_PROXY`; lower case first), unless `no_proxy`/`NO_PROXY` names the host. "none"
(`--proxy none`, `proxy = "none"`) says: no proxy, whatever the environment says. A deployment on
this machine (loopback) is always reached directly. A proxy's user and password are kept apart
from its URL, as secret as the token: only the URL without them is ever shown or kept.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field

import httpx
from pydantic import SecretStr

from plantstore_tui.core.errors import PlantStoreError
from plantstore_tui.core.http.hosts import is_loopback_host
from plantstore_tui.core.http.tls import tls_context

# The word that says "no proxy" on the command line and in profiles.toml.
NO_PROXY = "none"
_SCHEMES = ("http", "https")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class InvalidProxy(PlantStoreError, ValueError):
    """A proxy setting that cannot be used; the message says why, without its password."""


@dataclass(frozen=True, slots=True)
class Proxy:
    """The proxy a target's sends go through: `url` has no user or password (safe to show);
    `source` says who chose it ("--proxy", "the profile", "$HTTPS_PROXY")."""

    url: str
    source: str
    credentials: tuple[str, SecretStr] | None = field(default=None, repr=False, compare=False)

    def describe(self) -> str:
        """`http://proxy:3128 (from $HTTPS_PROXY)`: never a password."""
        login = " with a login" if self.credentials is not None else ""
        return f"{self.url}{login} (from {self.source})"

    def for_httpx(self) -> httpx.Proxy:
        """What an httpx transport takes; the password is read from its SecretStr here. An
        https:// proxy's certificate is verified against the OS trust store."""
        ssl_context = tls_context() if self.url.startswith("https://") else None
        auth = None
        if self.credentials is not None:
            user, password = self.credentials
            auth = (user, password.get_secret_value())
        return httpx.Proxy(self.url, auth=auth, ssl_context=ssl_context)


def _says_no_proxy(text: str) -> bool:
    """True for the setting that says "no proxy" ("none", any case, spaces around)."""
    return text.strip().lower() == NO_PROXY


def through_words(proxy_url: str | None) -> str:
    """` through the proxy http://proxy:3128`, or nothing for a direct send."""
    return "" if proxy_url is None else f" through the proxy {proxy_url}"


def parse_proxy(text: str, source: str) -> Proxy:
    """A proxy URL as curl takes it (no scheme means http://); `InvalidProxy` in words."""
    stripped = text.strip()
    where = f"The proxy ({source})"
    if not stripped:
        raise InvalidProxy(f"{where} is empty")
    if "://" not in stripped:
        stripped = "http://" + stripped
    try:
        url = httpx.URL(stripped)
    except (httpx.InvalidURL, UnicodeError, TypeError):
        raise InvalidProxy(f"{where} is not a valid URL") from None
    if url.scheme not in _SCHEMES:
        raise InvalidProxy(
            f"{where} is a {url.scheme}:// proxy: only http:// and https:// proxies are supported"
        )
    if not url.host or any(char.isspace() for char in stripped):
        raise InvalidProxy(f"{where} has no usable host")
    if url.port is not None and not 1 <= url.port <= 65535:
        raise InvalidProxy(f"{where}: the port must be between 1 and 65535")
    if url.path not in ("", "/") or url.query or url.fragment:
        raise InvalidProxy(f"{where} must be scheme://host:port, without a path or query")
    credentials = None
    if url.userinfo:
        credentials = (url.username, SecretStr(url.password))
    return Proxy(f"{url.scheme}://{url.netloc.decode('ascii')}", source, credentials)


def shown_proxy(text: str) -> str:
    """A proxy setting as it may be shown: "none", or the URL without user and password."""
    if _says_no_proxy(text):
        return NO_PROXY
    try:
        return parse_proxy(text, "the setting").url
    except InvalidProxy:
        return "(not a valid proxy URL)"


def check_proxy_setting(text: str, source: str) -> str | None:
    """Why `text` cannot be a proxy setting ("none" or a URL), or None."""
    if _says_no_proxy(text):
        return None
    try:
        parse_proxy(text, source)
    except InvalidProxy as exc:
        return str(exc)
    return None


def choose_proxy(
    base_url: str,
    environ: Mapping[str, str],
    *,
    given: str | None = None,
    given_by: str = "--proxy",
) -> Proxy | None:
    """The proxy sends to `base_url` go through, or None for direct.

    `given` is the setting that wins over the environment ("none" or a URL; None: not set).
    A loopback host is always direct. Raises `InvalidProxy` for an unusable setting.
    """
    url = httpx.URL(base_url)
    if is_loopback_host(url.host):
        return None
    if given is not None:
        if _says_no_proxy(given):
            return None
        return parse_proxy(given, given_by)
    scheme = url.scheme
    for name in (f"{scheme}_proxy", f"{scheme.upper()}_PROXY", "all_proxy", "ALL_PROXY"):
        value = environ.get(name, "").strip()
        if value:
            break
    else:
        return None
    port = url.port or _DEFAULT_PORTS.get(scheme, 0)
    if bypassed(environ.get("no_proxy") or environ.get("NO_PROXY") or "", url.host, port):
        return None
    return parse_proxy(value, f"${name}")


def bypassed(no_proxy: str, host: str, port: int) -> bool:
    """True when `no_proxy` names `host` (and `port`, if the entry has one), as curl reads it:
    `*` for every host, a name for itself and every name under it (a leading dot changes
    nothing), an IP address or a CIDR range for the addresses in it, `host:port` for one port."""
    host = host.lower().strip("[]").rstrip(".")
    address = _address(host)
    for raw in no_proxy.replace(" ", ",").split(","):
        entry = raw.strip().lower()
        if not entry:
            continue
        if entry == "*":
            return True
        name, entry_port = _split_port(entry)
        if entry_port is not None and entry_port != port:
            continue
        name = name.strip("[]").lstrip(".").rstrip(".")
        if not name:
            continue
        if address is not None:
            try:
                network = ipaddress.ip_network(name, strict=False)
            except ValueError:
                continue
            if address in network:
                return True
        elif host == name or host.endswith("." + name):
            return True
    return False


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _split_port(entry: str) -> tuple[str, int | None]:
    """`host:port` and `[v6]:port` apart; a bare IPv6 address (or range) has no port."""
    if entry.startswith("["):
        name, _, rest = entry[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
        return name, int(port) if port.isdigit() else None
    if entry.count(":") == 1:
        name, _, port = entry.partition(":")
        if port.isdigit():
            return name, int(port)
    return entry, None


def route_words(base_url: str, environ: Mapping[str, str], setting: str | None) -> str:
    """How sends to `base_url` go, in words, with `setting` (a profile's or --proxy's)."""
    if is_loopback_host(httpx.URL(base_url).host):
        return "direct (this machine is always reached directly)"
    try:
        chosen = choose_proxy(base_url, environ, given=setting, given_by="the profile")
    except InvalidProxy as exc:
        return f"unusable: {exc}"
    if chosen is not None:
        return chosen.describe()
    if setting is not None:
        return "direct (proxy = none: the environment's proxy is not used)"
    return "direct (no proxy in the environment for this host)"
