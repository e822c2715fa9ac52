"""What the status line says about a target, before and after it is resolved."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from plantstore_tui.core.http.address import url_forms
from plantstore_tui.core.plant.text import visible
from plantstore_tui.ui.widgets.status_line import (
    HOST_LEAST,
    LONG_HOST,
    PROFILE,
    PROFILE_GONE,
    PROXY_GONE,
    PROXY_LEAST,
    SCHEME,
    TOKEN_GONE,
    TOKEN_HINT,
    TOKEN_LEAST,
    TOKEN_WORDS,
    URL_PATH,
    Give,
    StatusPart,
    joined,
)

if TYPE_CHECKING:
    from plantstore_tui.core.http.target import Target


class TargetLabel(NamedTuple):
    """What the status line can say about the target before it is resolved."""

    base_url: str
    token_source: str
    profile: str | None = None
    protected: bool = False
    # The proxy sends go through (no user or password); None: direct.
    proxy: str | None = None

    @classmethod
    def of(cls, target: Target) -> TargetLabel:
        """The label of a resolved target."""
        return cls(
            base_url=target.base_url,
            token_source=target.token_source,
            profile=target.profile,
            protected=target.protected,
            proxy=None if target.proxy is None else target.proxy.url,
        )

    def parts(self, token_hint: str | None = None) -> list[StatusPart]:
        """`profile · https://host:port · token from SOURCE …abcd · proxy http://proxy:3128`
        as status line parts: never the token itself, nor the proxy's password. Narrow, the
        hint goes first, then the schemes and the URL's path, "token from", a long host's
        middle and the profile's end (`status_line`'s ranks); then the token's source, the
        proxy and the profile are left out before a stopped queue's words give way; the host
        and port stay."""
        parts = []
        if self.profile is not None:
            gives = (Give(PROFILE, "end", 8), Give(PROFILE_GONE, "drop"))
            parts.append(StatusPart(visible(self.profile), gives))
            if self.protected:
                parts.append(StatusPart("PROTECTED", glue=" "))
        parts.append(_address(self.base_url, "", 24, HOST_LEAST, 16))
        parts.append(_token_part(visible(self.token_source)))
        if token_hint:
            parts.append(StatusPart(token_hint, (Give(TOKEN_HINT, "drop"),), glue=" "))
        if self.proxy is not None:
            parts.append(_address(self.proxy, "proxy ", 24, PROXY_LEAST, 18, gone=PROXY_GONE))
        return parts

    def describe(self, token_hint: str | None = None) -> str:
        """The parts in full: `profile · http://host/ · token from SOURCE …abcd · proxy …`."""
        return joined(self.parts(token_hint))


def _address(
    url: str, label: str, readable: int, last: int, least: int, *, gone: int | None = None
) -> StatusPart:
    """A URL as a part: in full, then without its scheme and its path, then cut in its middle,
    first to a `readable` length, then (at rank `last`) to its `least`: its port stays; left
    out at rank `gone`, if given."""
    forms = [label + visible(form) for form in url_forms(url)]
    ranks = (SCHEME, URL_PATH)[: len(forms) - 1]
    gives = [Give(rank, "reword", text=form) for rank, form in zip(ranks, forms[1:], strict=True)]
    gives += [Give(LONG_HOST, "middle", readable), Give(last, "middle", least)]
    if gone is not None:
        gives.append(Give(gone, "drop"))
    return StatusPart(forms[0], tuple(gives))


def _token_part(source: str) -> StatusPart:
    """ "token from the credentials file", then its fewest words: "credentials file"."""
    fewest = source.removeprefix("the ")
    gives = (
        Give(TOKEN_WORDS, "reword", text=fewest),
        Give(TOKEN_LEAST, "words", 10),
        Give(TOKEN_GONE, "drop"),
    )
    return StatusPart(f"token from {source}", gives)
