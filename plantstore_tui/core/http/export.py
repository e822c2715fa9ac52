"""A send from the history as one shell command (curl or HTTPie) that sends it again.

The command sends the same method, URL, body bytes, Content-Type and Authorization scheme. The
token is never in it: the command reads `"$PLANTSTORE_TOKEN"` when it runs. Every other word is
quoted for a POSIX shell, so no name or tag (quotes, $, backticks, !, spaces, any printable
Unicode) can break the command or run anything.
"""

from __future__ import annotations

import shlex
from enum import StrEnum

TOKEN_VARIABLE = '"$PLANTSTORE_TOKEN"'  # noqa: S105 (the shell reads the token when it runs)


class ExportFormat(StrEnum):
    """The commands a send can be exported as."""

    CURL = "curl"
    HTTPIE = "httpie"


def _quoted(*words: str) -> str:
    return " ".join(shlex.quote(word) for word in words)


def export_command(url: str, body: bytes, as_: ExportFormat) -> str:
    """One shell command that POSTs `body` to `url` with the token from $PLANTSTORE_TOKEN."""
    # The body is JSON the client made: valid UTF-8 without control characters.
    text = body.decode("utf-8")
    match as_:
        case ExportFormat.CURL:
            return (
                _quoted("curl", "--silent", "--show-error", "--request", "POST", url)
                + " "
                + _quoted("--header", "Content-Type: application/json", "--header")
                + " "
                + shlex.quote("Authorization: Bearer ")
                + TOKEN_VARIABLE
                + " "
                + _quoted("--data-binary", text)
            )
        case ExportFormat.HTTPIE:
            return (
                _quoted("http", "--ignore-stdin", "POST", url, "Content-Type:application/json")
                + " "
                + shlex.quote("Authorization:Bearer ")
                + TOKEN_VARIABLE
                + " "
                + _quoted("--raw", text)
            )
