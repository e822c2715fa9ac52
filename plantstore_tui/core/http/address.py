"""A target's address as screens name it: its host and port, with the profile when known.

Pure text work on a base URL (the stdlib's `urlsplit`, no httpx), so the status line can use it
before the first frame. A text that is not an http(s) URL (a placeholder such as "loading…") is
named as it is.
"""

from __future__ import annotations

from urllib.parse import urlsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}


def _split(base_url: str) -> tuple[str, str, str] | None:
    """The scheme, `host:port` (the scheme's port when none is written) and path of an
    http(s) URL; None for anything else."""
    try:
        parts = urlsplit(base_url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = parts.hostname
    if scheme not in _DEFAULT_PORTS or not host:
        return None
    if ":" in host:
        host = f"[{host}]"  # an IPv6 address, bracketed as in a URL
    return scheme, f"{host}:{port or _DEFAULT_PORTS[scheme]}", parts.path.rstrip("/")


def host_port(base_url: str) -> str:
    """`plants.example.com:8443`: where a base URL sends, its port named even when the scheme
    implies it (`https://plants.example.com` is `plants.example.com:443`)."""
    split = _split(base_url)
    return base_url.strip() if split is None else split[1]


def url_forms(base_url: str) -> tuple[str, ...]:
    """A base URL as given, then ever shorter: without its scheme (its port always named),
    then without its path; each form only if it is shorter than the one before."""
    full = base_url.strip()
    split = _split(base_url)
    if split is None:
        return (full,)
    _scheme, address, path = split
    forms = [full]
    for shorter in (address + path, address):
        if len(shorter) < len(forms[-1]):
            forms.append(shorter)
    return tuple(forms)


def target_words(base_url: str, profile: str | None) -> str:
    """`greenhouse · plants.example.com:8443`, or the host and port alone without a profile."""
    address = host_port(base_url)
    return address if profile is None else f"{profile} · {address}"


def same_target(
    base_url: str, profile: str | None, other_url: str, other_profile: str | None
) -> bool:
    """Whether two (base URL, profile) pairs name one target: the same deployment (scheme,
    host, port and path) and, when both name a profile, the same profile (another token)."""
    if profile is not None and other_profile is not None and profile != other_profile:
        return False
    split, other = _split(base_url), _split(other_url)
    if split is None or other is None:
        return base_url.strip().rstrip("/") == other_url.strip().rstrip("/")
    return split == other
