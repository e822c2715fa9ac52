"""A send from the history as one shell command (curl or HTTPie) that sends it again.

The command sends the same method, URL, body bytes, Content-Type and Authorization scheme, through
the same proxy when the send went through one (its URL as the history keeps it, without a login:
a proxy that asks for one answers 407 until the operator adds it). The token is never in it: the
command reads `$PLANTSTORE_TOKEN` when it runs, and stops with a message, sending nothing, when
that is unset or empty (a request with `Bearer ` alone would only come back 401). Every other
word is quoted for a POSIX shell, so no name or tag (quotes, $, backticks, !, spaces, any
printable Unicode) can break the command or run anything. A replay the deployment refuses (any
4xx or 5xx) ends the command with a non-zero exit, the answer's body still printed (curl's
`--fail-with-body`, HTTPie's `--check-status`), so a script sees it.
"""

from __future__ import annotations

import shlex
from enum import StrEnum

# The shell reads the token when the command runs; `:?` stops it, with these words, when unset.
TOKEN_VARIABLE = '"${PLANTSTORE_TOKEN:?set PLANTSTORE_TOKEN to the token}"'  # noqa: S105


class ExportFormat(StrEnum):
    """The commands a send can be exported as."""

    CURL = "curl"
    HTTPIE = "httpie"


def _quoted(*words: str) -> str:
    return " ".join(shlex.quote(word) for word in words)


def export_command(url: str, body: bytes, as_: ExportFormat, proxy: str | None = None) -> str:
    """One shell command that POSTs `body` to `url` with the token from $PLANTSTORE_TOKEN (it stops
    with words when that is unset), through `proxy` when one is given."""
    # The body is JSON the client made: valid UTF-8 without control characters.
    text = body.decode("utf-8")
    match as_:
        case ExportFormat.CURL:
            through: tuple[str, ...] = () if proxy is None else ("--proxy", proxy)
            return (
                _quoted(
                    "curl",
                    "--silent",
                    "--show-error",
                    "--fail-with-body",
                    *through,
                    "--request",
                    "POST",
                    url,
                )
                + " "
                + _quoted("--header", "Content-Type: application/json", "--header")
                + " "
                + shlex.quote("Authorization: Bearer ")
                + TOKEN_VARIABLE
                + " "
                + _quoted("--data-binary", text)
            )
        case ExportFormat.HTTPIE:
            # HTTPie takes a proxy per scheme of the target: "https:http://proxy:3128".
            scheme = url.partition(":")[0]
            through = () if proxy is None else (f"--proxy={scheme}:{proxy}",)
            return (
                _quoted("http", "--ignore-stdin", "--check-status", *through, "POST", url)
                + " "
                + _quoted("Content-Type:application/json")
                + " "
                + shlex.quote("Authorization:Bearer ")
                + TOKEN_VARIABLE
                + " "
                + _quoted("--raw", text)
            )
