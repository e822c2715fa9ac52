"""Token sources: where a token comes from, read straight into a `SecretStr`, never quoted."""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Mapping, MutableMapping
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from pydantic import SecretStr

from plantstore_tui.core.config.errors import TokenError
from plantstore_tui.core.config.files import ConfigFileError, locked_update, read_toml
from plantstore_tui.core.http.urls import token_problem

if TYPE_CHECKING:
    from plantstore_tui.core.config.os_keyring import OsKeyring

COMMAND_TIMEOUT = 30.0
# Set (not empty, not "0"): tokens are kept in credentials.toml, and the OS keyring is never
# asked (the demo's sandbox sets it: nothing of a demo may reach the operator's keyring).
NO_KEYRING_ENV = "PLANTSTORE_NO_KEYRING"
# A token is a line; a command printing more than this is not printing a token.
_COMMAND_OUTPUT_CAP = 64 * 1024
_CREDENTIALS_HEADER = (
    "# Tokens of plantstore-tui profiles, kept here only because no OS keyring was usable.\n"
    "# Keep this file private (mode 0600): it holds credentials to your Plant Stores.\n"
)


class SourceKind(StrEnum):
    """The kinds of place a token comes from."""

    ENV = "env"
    COMMAND = "command"
    KEYRING = "keyring"
    CREDENTIALS_FILE = "credentials file"
    PROMPT = "prompt"
    STDIN = "stdin"


class TokenSource(NamedTuple):
    """Where a token comes from, in words for any screen that shows a profile."""

    kind: SourceKind
    detail: str = ""

    @property
    def words(self) -> str:
        """Where the token comes from in a few words read after "token from", never a path or
        a command (a status line's): "$PROD_TOKEN", "the credentials file", "the keyring"."""
        match self.kind:
            case SourceKind.ENV:
                return f"${self.detail}"
            case SourceKind.COMMAND:
                return "the token command"
            case SourceKind.STDIN:
                return "stdin"
            case _:
                return f"the {self.kind}"

    def __str__(self) -> str:
        # Read after "token from" as well as alone: "token from $PROD_TOKEN". The credentials
        # file is named with its path: the profiles screen and `profile show` say where it is.
        match self.kind:
            case SourceKind.ENV:
                return f"${self.detail}"
            case SourceKind.CREDENTIALS_FILE:
                return f"{self.kind} {self.detail}"
            case SourceKind.PROMPT:
                return "the prompt"
            case _:
                return str(self.kind)


def env_source(variable: str) -> TokenSource:
    """The source `$VARIABLE`."""
    return TokenSource(SourceKind.ENV, variable)


class NoToken(TokenError):
    """No source has a token for the profile."""


class InvalidToken(TokenError):
    """A token that is empty or holds whitespace, control or non-ASCII characters."""


class TokenCommandFailed(TokenError):
    """The token command could not run, failed, or printed no usable token."""


def clean_token(raw: str, source: TokenSource) -> SecretStr:
    """`raw` trimmed and wrapped at once; `InvalidToken` if it cannot go in a header."""
    token = SecretStr(raw.strip())
    problem = token_problem(token)
    if problem is not None:
        raise InvalidToken(f"{problem} (token from {source})")
    return token


def env_token(variable: str, environ: Mapping[str, str]) -> SecretStr | None:
    """The token in an environment variable, None if it is unset or blank."""
    raw = environ.get(variable, "")
    return clean_token(raw, env_source(variable)) if raw.strip() else None


def command_token(command: str, *, timeout: float = COMMAND_TIMEOUT) -> SecretStr:
    """The trimmed stdout of `command`, run without a shell; its output is never shown."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise TokenCommandFailed(f"The token command cannot be parsed: {exc}") from None
    if not argv:
        raise TokenCommandFailed("The token command is empty")
    try:
        # The operator's own configured command, split like a shell would but run without one.
        completed = subprocess.run(  # noqa: S603
            argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        raise TokenCommandFailed(f"The token command did not finish within {timeout:g} s") from None
    except FileNotFoundError:
        raise TokenCommandFailed(f"The token command {argv[0]!r} was not found") from None
    except OSError as exc:
        raise TokenCommandFailed(
            f"The token command {argv[0]!r} cannot be run ({exc.strerror})"
        ) from None
    if completed.returncode != 0:
        ended = (
            f"was killed by signal {-completed.returncode}"
            if completed.returncode < 0
            else f"failed with exit status {completed.returncode}"
        )
        raise TokenCommandFailed(
            f"The token command {ended}; its output is not shown because it may hold the "
            "token: run the command yourself to see why"
        )
    return _token_from_output(completed.stdout, TokenSource(SourceKind.COMMAND, command))


def _token_from_output(output: bytes, source: TokenSource) -> SecretStr:
    if len(output) > _COMMAND_OUTPUT_CAP:
        raise TokenCommandFailed(f"The token command printed {len(output):,} bytes: not a token")
    try:
        text = output.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidToken(f"The token is not UTF-8 text (token from {source})") from None
    if not text.strip():
        raise TokenCommandFailed("The token command succeeded but printed nothing")
    return clean_token(text, source)


def usable_keyring() -> OsKeyring | None:
    """The OS keyring, or None when it is turned off (`PLANTSTORE_NO_KEYRING`) or keyring found
    only its fail or null backend."""
    if os.environ.get(NO_KEYRING_ENV, "").strip() not in ("", "0"):
        return None
    # An optional feature, the OS keyring: keyring would weigh on every start, a token from
    # the environment or a command needs none of it (benchmarks/README.md, "Imports kept out
    # of the start").
    from plantstore_tui.core.config.os_keyring import os_keyring

    return os_keyring()


class StoredTokens:
    """Tokens plantstore-tui keeps itself: the OS keyring when usable, else credentials.toml.

    The file is mode 0600; the other sources (a variable, a token command) are the operator's.
    Which source wins is `targets.profile_token`'s rule.
    """

    def __init__(self, credentials_path: Path, service: str) -> None:
        self.credentials_path = credentials_path
        self.service = service

    def home(self) -> TokenSource:
        """Where `save` would put a token now."""
        backend = usable_keyring()
        if backend is not None:
            return TokenSource(SourceKind.KEYRING, backend.name)
        return TokenSource(SourceKind.CREDENTIALS_FILE, str(self.credentials_path))

    def find(self, name: str) -> tuple[SecretStr, TokenSource] | None:
        """The token saved for profile `name` and where it was, None if there is none."""
        kept = usable_keyring()
        if kept is not None:
            raw = kept.get(self.service, name)
            if raw is not None:
                source = TokenSource(SourceKind.KEYRING, kept.name)
                return clean_token(raw, source), source
        return self._find_in_file(name)

    def _find_in_file(self, name: str) -> tuple[SecretStr, TokenSource] | None:
        data = read_toml(self.credentials_path, private=True)
        if data is None:
            return None
        tokens = data.get("tokens", {})
        raw = tokens.get(name) if isinstance(tokens, dict) else None
        if raw is None:
            return None
        if not isinstance(raw, str):
            raise ConfigFileError(self.credentials_path, f"tokens.{name} must be a string")
        source = TokenSource(SourceKind.CREDENTIALS_FILE, str(self.credentials_path))
        return clean_token(raw, source), source

    def save(self, name: str, token: SecretStr) -> TokenSource:
        """Keep `token` for profile `name`; a keyring save also drops any copy in the file."""
        kept = usable_keyring()
        if kept is None:
            self._write_file(name, token)
            return TokenSource(SourceKind.CREDENTIALS_FILE, str(self.credentials_path))
        kept.set(self.service, name, token.get_secret_value())
        self._write_file(name, None)
        return TokenSource(SourceKind.KEYRING, kept.name)

    def forget(self, name: str) -> None:
        """Delete the token saved for profile `name`, wherever it is; no token is fine."""
        kept = usable_keyring()
        if kept is not None:
            kept.delete(self.service, name)
        self._write_file(name, None)

    def _write_file(self, name: str, token: SecretStr | None) -> None:
        # An optional feature, tokens kept in a file: tomlkit would weigh on every start
        # (benchmarks/README.md, "Imports kept out of the start").
        import tomlkit

        if token is None and not self.credentials_path.exists():
            return
        with locked_update(self.credentials_path, private=True) as draft:
            document = tomlkit.parse(draft.text or _CREDENTIALS_HEADER)
            if "tokens" not in document:
                if token is None:
                    return
                document["tokens"] = tomlkit.table()
            tokens = document["tokens"]
            if not isinstance(tokens, MutableMapping):
                raise ConfigFileError(self.credentials_path, "tokens must be a table")
            if token is not None:
                tokens[name] = token.get_secret_value()
            elif name in tokens:
                del tokens[name]
            draft.text = tomlkit.dumps(document)
