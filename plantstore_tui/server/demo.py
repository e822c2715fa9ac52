"""A throwaway reference server for `demo`: a fresh random token and a database in the demo's
sandbox, and the words that tell the operator what the demo keeps (nothing)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from pathlib import Path

from pydantic import SecretStr

from plantstore_tui.core.http.target import Target
from plantstore_tui.server.runner import BackgroundServer

DEMO_TOKEN_SOURCE = "the demo (random)"  # noqa: S105 (words, not a token)
_SANDBOX = (
    "Demo sandbox: plants go to a throwaway server on this machine and are not kept; this run's "
    "ledger and profiles are deleted when you quit. Your own profiles, tokens and ledger are "
    "not touched."
)


def demo_note(ignored: Sequence[str]) -> str:
    """The demo's first log line: a sandbox, and the operator's variables it ignores, named."""
    if not ignored:
        return _SANDBOX
    names = ", ".join(ignored)
    return f"{_SANDBOX} Set in your shell and ignored here: {names}."


class ThrowawayServer:
    """Starts on loopback with a fresh token, its database in `directory` (the caller removes
    it); `stop()` ends it."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._server: BackgroundServer | None = None

    def start(self) -> Target:
        """Start the server and return the target that sends to it."""
        token = SecretStr(secrets.token_urlsafe(32))
        self._server = BackgroundServer(token=token, db_path=self._directory / "plants.sqlite3")
        self._server.start()
        return Target(base_url=self._server.base_url, token=token, token_source=DEMO_TOKEN_SOURCE)

    def stop(self) -> None:
        """Stop the server; safe to call twice or before start."""
        server, self._server = self._server, None
        if server is not None:
            server.stop()
