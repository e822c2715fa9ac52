"""How `profile add` and `profile edit` take a token: never as a command-line value, but from
stdin, a hidden prompt, a variable or a command."""

from __future__ import annotations

import sys

import click
from click.decorators import FC
from pydantic import SecretStr

from plantstore_tui.cli.exits import InvalidInput
from plantstore_tui.cli.options import one_of
from plantstore_tui.core.config.tokens import SourceKind, TokenSource, clean_token
from plantstore_tui.core.plant.text import visible

# Enough for any token; more on stdin is a mistake (a file piped by accident), not a token.
_STDIN_CAP = 64 * 1024


def _stdin_is_terminal() -> bool:
    return sys.stdin.isatty()


# One way to give the token, at most (`edit`'s --token-prompt among them).
one_token = one_of("token_stdin", "token_env", "token_command", "token_prompt")


def token_options(command: FC) -> FC:
    """Add the token options shared by `add` and `edit`."""
    command = one_token(
        "--token-command",
        metavar="CMD",
        help="Run this command (no shell) whenever the token is needed; its stdout is it.",
    )(command)
    command = one_token(
        "--token-env",
        metavar="VAR",
        help="Take the token from this environment variable whenever it is needed.",
    )(command)
    return one_token(
        "--token-stdin",
        is_flag=True,
        help="Read the token from stdin and keep it in the keyring (or credentials file).",
    )(command)


def _read_stdin_token() -> str:
    text = sys.stdin.read(_STDIN_CAP + 1)
    if len(text) > _STDIN_CAP:
        raise InvalidInput(f"stdin holds more than {_STDIN_CAP:,} characters: not a token.")
    return text


def ask_token(name: str, base_url: str | None, *, stdin: bool) -> SecretStr:
    """The token of profile `name` (at `base_url`, when known) typed at a hidden prompt or piped
    on stdin, trimmed, checked and wrapped (`InvalidToken` if it cannot be a token)."""
    if stdin:
        return clean_token(_read_stdin_token(), TokenSource(SourceKind.STDIN))
    if not _stdin_is_terminal():
        raise InvalidInput(
            "No token option, and no terminal to ask for the token: use --token-stdin, "
            "--token-env VAR or --token-command CMD."
        )
    at = "" if base_url is None else f" at {visible(base_url)}"
    typed = click.prompt(f"Token for {name}{at} (hidden)", hide_input=True)
    return clean_token(typed, TokenSource(SourceKind.PROMPT))
