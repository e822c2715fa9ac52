"""`Target`: where plants go (base URL), with which token, and where that token came from."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import SecretStr

    from plantstore_tui.core.http.proxy import Proxy
    from plantstore_tui.core.plant.id_range import IdRange

DEFAULT_MAX_BODY = 1024 * 1024
# What stands for the token in any text a server sent back with the token in it.
REDACTED = "[token]"
# A token shorter than this cannot be told apart from ordinary text: taking every copy of it out
# of a message would mangle the message and, by the gaps, show the token.
FINDABLE = 8
SHORT_TOKEN_NOTE = (
    f"The token is under {FINDABLE} characters: an echo of it in an answer cannot be hidden "
    "(a header that is the token is masked). A longer one is hidden wherever it appears."
)
# The characters a token68 credential (RFC 9110) is made of: a short token followed by one of
# them is part of a longer word, not the token.
_TOKEN68 = r"\w\-.~+/="


def _findable_forms(char: str) -> str:
    """A character as it appears in an echo: itself (in any case), a JSON escape (a body shown
    pretty is decoded, so `\\u0061` would show as `a`) or a URL's percent escape."""
    code = ord(char)
    forms = [re.escape(char), rf"\\u{code:04x}", f"%{code:02x}"]
    if char in '"\\/':
        forms.append(re.escape("\\" + char))
    return "(?:" + "|".join(forms) + ")"


@functools.lru_cache(maxsize=8)
def _pattern(secret: str) -> re.Pattern[str]:
    if len(secret) >= FINDABLE:
        return re.compile("".join(map(_findable_forms, secret)), re.IGNORECASE)
    return re.compile(rf"((?i:bearer)[ \t]+){re.escape(secret)}(?![{_TOKEN68}])")


def redact(text: str, token: SecretStr | None) -> str:
    """`text` with the token taken out, `REDACTED` in its place: the one redaction of whatever
    is shown or kept (answers' bodies and headers, the headers and body a probe was given, error
    words, JSON output, the screen, the ledger, exports).

    A token of `FINDABLE` characters or more is found in any case and through JSON and percent
    escapes. A shorter one is looked for only where it cannot be ordinary text (a text that is
    the token, `Bearer` and the token): elsewhere the text is left whole (`SHORT_TOKEN_NOTE`)."""
    secret = "" if token is None else token.get_secret_value()
    if not secret:
        return text
    if len(secret) < FINDABLE and text.strip() == secret:
        return REDACTED
    pattern = _pattern(secret)
    if len(secret) < FINDABLE:
        return pattern.sub(rf"\g<1>{REDACTED}", text)
    return pattern.sub(REDACTED, text)


def redact_bytes(data: bytes, token: SecretStr | None) -> bytes:
    """`redact` of bytes of any encoding: Latin-1 maps each byte to one character and back, so
    only the token changes."""
    return redact(data.decode("latin-1"), token).encode("latin-1")


def short_token(token: SecretStr | None) -> bool:
    """True for a token too short for `redact` to find in ordinary text (an empty one is none)."""
    return token is not None and 0 < len(token.get_secret_value()) < FINDABLE


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

    def redact(self, text: str) -> str:
        """`text` without this target's token (`redact`)."""
        return redact(text, self.token)

    @property
    def token_note(self) -> str | None:
        """`SHORT_TOKEN_NOTE` when the token is too short to be hidden in answers; else None."""
        return SHORT_TOKEN_NOTE if short_token(self.token) else None
