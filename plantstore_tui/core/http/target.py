"""`Target`: where plants go (base URL), with which token, and where that token came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import SecretStr

    from plantstore_tui.core.http.proxy import Proxy
    from plantstore_tui.core.plant.id_range import IdRange

DEFAULT_MAX_BODY = 1024 * 1024
# What stands for the token in any text a server sent back with the token in it.
REDACTED = "[token]"


@dataclass(frozen=True, slots=True)
class Limits:
    """How long a send may take (seconds) and how much of an answer is read (bytes)."""

    connect: float = 5.0
    read: float = 10.0
    deadline: float = 30.0
    max_body: int = DEFAULT_MAX_BODY


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """A resolved destination: what every front end needs to send, and to say where it sends."""

    base_url: str
    token: SecretStr
    # Where the token came from, read after "token from" ("$PROD_TOKEN", "the keyring"): words
    # for a status line, never a path (`TokenSource.words`).
    token_source: str
    profile: str | None = None
    protected: bool = False
    # Every plant typed for it is keyed twice before it counts (verified entry).
    verify: bool = False
    limits: Limits = field(default_factory=Limits)
    # A CA file trusted instead of the OS trust store (profiles.toml `ca_bundle`, or --ca-bundle).
    ca_bundle: str | None = None
    # The proxy sends go through (core.http.proxy.choose_proxy); None: straight to the target.
    proxy: Proxy | None = None
    # The profile's range of ids (profiles.toml `ids`): next id stays in it.
    ids: IdRange | None = None

    def token_hint(self) -> str | None:
        """At most the token's last 4 characters, for telling two tokens apart on screen (None
        for a token too short to show any of it)."""
        value = self.token.get_secret_value()
        return f"…{value[-4:]}" if len(value) >= 12 else None
