"""One exchange as it went on the wire: the request line and headers in the order sent, the
status line and headers as received, and each body's bytes; the token taken out of every name
and value (`Target.redact`, an Authorization masked as a probe shows it).

Made from what the probe transport saw (`Seen`): the request after its rewrite, not the one the
client meant to send.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from plantstore_tui.core.http.target import redact_bytes
from plantstore_tui.core.plant.text import SHOWN, plural, visible

if TYPE_CHECKING:
    from plantstore_tui.core.http.probe_transport import Seen
    from plantstore_tui.core.http.target import Target

Headers = tuple[tuple[str, str], ...]
# The version a request goes out in when no answer said otherwise (the client speaks HTTP/1.1).
_DEFAULT_VERSION = "HTTP/1.1"


@dataclass(frozen=True, slots=True, kw_only=True)
class Wire:
    """An exchange as it went on the wire, the token taken out; no status line: no answer."""

    request_line: str
    request_headers: Headers
    request_body: bytes
    status_line: str | None = None
    answer_headers: Headers = ()
    # The answer's body as it came (before any decompression): its first bytes, and its size.
    answer_body: bytes = b""
    answer_size: int = 0

    def to_json(self) -> dict[str, Any]:
        """The `wire` of `probe --json`: the lines and headers (the bodies are the answer's)."""
        answer = None
        if self.status_line is not None:
            answer = {
                "line": self.status_line,
                "headers": [list(pair) for pair in self.answer_headers],
            }
        return {
            "request": {
                "line": self.request_line,
                "headers": [list(pair) for pair in self.request_headers],
            },
            "answer": answer,
        }


def wire_of(
    target: Target, seen: Seen, shown_header: Callable[[str, str], tuple[str, str]]
) -> Wire | None:
    """The exchange the probe transport saw, as shown: each header through `shown_header` (which
    masks an Authorization), then through the target's redaction; None when no request went."""
    request = seen.request
    if request is None:
        return None

    def header(name: str, value: str) -> tuple[str, str]:
        name, value = shown_header(name, value)
        return target.redact(name), target.redact(value)

    version = seen.http_version or seen.trace.version or _DEFAULT_VERSION
    path = request.url.raw_path.decode("ascii", errors="backslashreplace")
    wire = Wire(
        # A path or query may carry the token too.
        request_line=target.redact(f"{request.method} {path} {version}"),
        request_headers=tuple(
            header(name.decode("latin-1"), value.decode("latin-1"))
            for name, value in request.headers.raw
        ),
        request_body=redact_bytes(request.content, target.token),
    )
    if seen.status is None:
        return wire
    reason = target.redact(seen.reason or "")
    return Wire(
        request_line=wire.request_line,
        request_headers=wire.request_headers,
        request_body=wire.request_body,
        status_line=f"{version} {seen.status} {reason}".rstrip(),
        answer_headers=tuple(
            (target.redact(name), target.redact(value)) for name, value in seen.raw_headers
        ),
        answer_body=redact_bytes(bytes(seen.body), target.token),
        answer_size=seen.body_size,
    )


def shown_bytes(data: bytes, size: int | None = None, limit: int = SHOWN) -> str:
    """A body's bytes as text a terminal shows literally: UTF-8 where they are, `\\xNN` where not,
    every control escaped but the line breaks; at most `limit` characters, the full size named."""
    size = len(data) if size is None else size
    text = data.decode("utf-8", errors="backslashreplace")
    cut = len(text) > limit or size > len(data)
    shown = visible(text[:limit], keep_newlines=True)
    if not cut:
        return shown
    first = min(limit, len(text))
    return f"{shown}… ({plural(size, 'byte')}, the first {first:,} characters shown)"
