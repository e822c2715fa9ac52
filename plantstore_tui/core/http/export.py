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

A probe (`export_probe`) is sent again as it went: its method, its body's bytes exactly (through
`printf` on stdin when they are not printable text; none when it had none, but for POST
/plants), its headers, and its token choice's Authorization: the token from `$PLANTSTORE_TOKEN`,
none at all, or the fixed wrong token.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from enum import StrEnum

from plantstore_tui.core.http.probe import SPEC_METHOD, WRONG_TOKEN, TokenChoice
from plantstore_tui.core.plant.text import visible

# The shell reads the token when the command runs; `:?` stops it, with these words, when unset.
TOKEN_VARIABLE = '"${PLANTSTORE_TOKEN:?set PLANTSTORE_TOKEN to the token}"'  # noqa: S105


class ExportFormat(StrEnum):
    """The commands a send can be exported as."""

    CURL = "curl"
    HTTPIE = "httpie"


def _quoted(*words: str) -> str:
    return " ".join(shlex.quote(word) for word in words)


def _printf_format(data: bytes) -> str:
    """`data` as a quoted printf format that prints exactly these bytes: printable ASCII as
    itself, every other byte (and the format's own specials) as an octal escape."""
    return shlex.quote(
        "".join(
            chr(byte) if 0x20 <= byte < 0x7F and chr(byte) not in "\\%'" else f"\\{byte:03o}"
            for byte in data
        )
    )


def _word(text: str) -> str:
    """`text` as one shell word; a character a terminal would not show as itself is written as an
    escape the shell turns back into it, so the command printed is safe to look at."""
    if visible(text) == text:
        return shlex.quote(text)
    return f'"$(printf {_printf_format(text.encode("utf-8"))})"'


def _header(as_: ExportFormat, name: str, value: str, *, token: bool = False) -> str:
    """One header as the command gives it; with `token`, `value` is followed by the token read
    from $PLANTSTORE_TOKEN."""
    text = f"{name}: {value}" if as_ is ExportFormat.CURL else f"{name}:{value}"
    word = shlex.quote(text) + TOKEN_VARIABLE if token else _word(text)
    return f"--header {word}" if as_ is ExportFormat.CURL else word


def _command(
    url: str,
    body: bytes,
    as_: ExportFormat,
    proxy: str | None,
    headers: list[str],
    *,
    piped: bool = False,
    method: str = SPEC_METHOD,
    bodyless: bool = False,
) -> str:
    """The command; `piped`: the body goes through printf on stdin, not as a word;
    `bodyless`: no body at all."""
    text = body.decode("utf-8", errors="replace")
    match as_:
        case ExportFormat.CURL:
            through: tuple[str, ...] = () if proxy is None else ("--proxy", proxy)
            head = _quoted(
                "curl", "--silent", "--show-error", "--fail-with-body", *through, "--request"
            )
            data = () if bodyless else (_quoted("--data-binary", "@-" if piped else text),)
            command = " ".join(
                [f"{head} {shlex.quote(method)} {shlex.quote(url)}", *headers, *data]
            )
        case ExportFormat.HTTPIE:
            # HTTPie takes a proxy per scheme of the target: "https:http://proxy:3128".
            scheme = url.partition(":")[0]
            through = () if proxy is None else (f"--proxy={scheme}:{proxy}",)
            # Without --ignore-stdin, HTTPie sends what comes on stdin as the body.
            stdin = () if piped else ("--ignore-stdin",)
            stdin = ("--ignore-stdin",) if bodyless else stdin
            head = _quoted("http", *stdin, "--check-status", *through, method, url)
            raw = () if piped or bodyless else (_quoted("--raw", text),)
            command = " ".join([head, *headers, *raw])
    return f"printf {_printf_format(body)} | {command}" if piped else command


def export_command(url: str, body: bytes, as_: ExportFormat, proxy: str | None = None) -> str:
    """One shell command that POSTs `body` (JSON the client made: valid UTF-8 without control
    characters) to `url` with the token from $PLANTSTORE_TOKEN (it stops with words when that is
    unset), through `proxy` when one is given."""
    headers = [
        _header(as_, "Content-Type", "application/json"),
        _header(as_, "Authorization", "Bearer ", token=True),
    ]
    return _command(url, body, as_, proxy, headers)


def export_probe(
    url: str,
    body: bytes,
    as_: ExportFormat,
    *,
    token: TokenChoice,
    headers: Sequence[tuple[str, str]] = (),
    proxy: str | None = None,
    method: str = SPEC_METHOD,
    bodyless: bool = False,
) -> str:
    """One shell command that sends a probe again: its body's bytes exactly, its headers, and the
    Authorization of its token choice (the token from $PLANTSTORE_TOKEN, none, or the fixed wrong
    token). An Authorization given as a header was kept masked: its scheme is kept, and the
    token is read from $PLANTSTORE_TOKEN. `bodyless`: it had no body, nor the client's
    Content-Type."""
    given = {name.lower() for name, _ in headers}
    words = []
    if "content-type" not in given and not bodyless:
        words.append(_header(as_, "Content-Type", "application/json"))
    for name, value in headers:
        if name.lower() == "authorization":
            scheme, _, _ = value.partition(" ")
            scheme = "" if scheme.startswith("…") else f"{scheme} "
            words.append(_header(as_, name, scheme, token=True))
        else:
            words.append(_header(as_, name, value))
    if "authorization" not in given:
        if token is TokenChoice.PROFILE:
            words.append(_header(as_, "Authorization", "Bearer ", token=True))
        elif token is TokenChoice.WRONG:
            words.append(_header(as_, "Authorization", f"Bearer {WRONG_TOKEN}"))
    # A body of printable text goes as one word; anything else (bytes that are not UTF-8,
    # controls, a leading @ that curl would read as a file name) through printf on stdin.
    text = body.decode("utf-8", errors="replace")
    piped = not bodyless and (
        text.encode("utf-8") != body or visible(text) != text or text.startswith("@")
    )
    return _command(url, body, as_, proxy, words, piped=piped, method=method, bodyless=bodyless)
