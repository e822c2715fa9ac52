"""A kept probe's request sent again (`probe --again`, a kept probe opened in the probe screen): as
the history keeps it, with what the tester gives in place of its parts.

The history keeps a request as the probe showed it: an Authorization given as a header masked
(`Bearer …abcd`), which no server would take and which would say nothing true if sent. It is
left out, and said (`left_out_words`), as `--save-case` refuses to keep one; the token choice
goes in its place unless another Authorization is given.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from plantstore_tui.core.http.probe import ProbeRequest, TokenChoice

Headers = tuple[tuple[str, str], ...]
# What the token choice sends in place of a masked Authorization left out.
_CHOICE_WORDS = {
    TokenChoice.PROFILE: "the target's token",
    TokenChoice.NONE: "no Authorization at all",
    TokenChoice.WRONG: "the fixed wrong token",
}


@dataclass(frozen=True, slots=True)
class Again:
    """The request to send again, what of it differs from the one kept, and the masked
    Authorization left out (None: none was kept, or another was given)."""

    request: ProbeRequest
    changed: tuple[str, ...]
    masked: str | None = None

    def words(self, label: str) -> str:
        """What is sent, in one sentence: `p3 sent again, its body changed.`"""
        if not self.changed:
            return f"{label} sent again as kept."
        parts = list(self.changed)
        named = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
        return f"{label} sent again, its {named} changed."


def kept_headers(request: ProbeRequest) -> tuple[Headers, str | None]:
    """The headers of a kept request that can be sent again, and the masked Authorization's
    value left out of them (None: there was none)."""
    masked = None
    headers = []
    for name, value in request.headers:
        if name.lower() == "authorization":
            masked = value
        else:
            headers.append((name, value))
    return tuple(headers), masked


def sent_again(
    kept: ProbeRequest,
    *,
    method: str | None = None,
    path: str | None = None,
    body: bytes | None = None,
    token: TokenChoice | None = None,
    headers: Headers = (),
) -> Again:
    """`kept` with each part given in place of its own (None: as kept); a header given replaces
    the kept one of the same name (in any case), the others are added after the kept ones."""
    usable, masked = kept_headers(kept)
    given = {name.lower() for name, _ in headers}
    merged = (*((name, value) for name, value in usable if name.lower() not in given), *headers)
    request = replace(
        kept,
        method=kept.method if method is None else method,
        path=kept.path if path is None else path,
        body=kept.body if body is None else body,
        token=kept.token if token is None else token,
        headers=merged,
    )
    if "authorization" in given:
        masked = None
    changed = tuple(
        part
        for part in ("method", "path", "body", "token")
        if getattr(request, part) != getattr(kept, part)
    )
    if merged != usable:
        changed += ("headers",)
    return Again(request, changed, masked)


def left_out_words(label: str, masked: str, token: TokenChoice) -> str:
    """Why a kept Authorization is not sent, and what goes in its place."""
    return (
        f"{label}'s Authorization header was kept masked ({masked}): a probe keeps no "
        f"credential, so it is not sent. {_CHOICE_WORDS[token].capitalize()} goes in its place."
    )
