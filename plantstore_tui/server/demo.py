"""A throwaway reference server for `demo`: a fresh random token and a temporary database."""

from __future__ import annotations

import secrets
import tempfile
from pathlib import Path

from pydantic import SecretStr

from plantstore_tui.core.http.target import Target
from plantstore_tui.server.runner import BackgroundServer

DEMO_TOKEN_SOURCE = "the demo (random)"  # noqa: S105 (words, not a token)


class ThrowawayServer:
    """Starts on loopback with a fresh token; `stop()` ends it and deletes its database."""

    def __init__(self) -> None:
        self._directory: tempfile.TemporaryDirectory[str] | None = None
        self._server: BackgroundServer | None = None

    def start(self) -> Target:
        """Start the server and return the target that sends to it."""
        token = SecretStr(secrets.token_urlsafe(32))
        self._directory = tempfile.TemporaryDirectory(prefix="plantstore-demo-")
        self._server = BackgroundServer(
            token=token, db_path=Path(self._directory.name) / "plants.sqlite3"
        )
        self._server.start()
        return Target(base_url=self._server.base_url, token=token, token_source=DEMO_TOKEN_SOURCE)

    def stop(self) -> None:
        """Stop the server and remove its database; safe to call twice or before start."""
        server, self._server = self._server, None
        directory, self._directory = self._directory, None
        try:
            if server is not None:
                server.stop()
        finally:
            if directory is not None:
                directory.cleanup()
