"""`plantstore-tui` (the TUI) and `plantstore-tui demo` (the TUI on a throwaway reference server).

Kept light at the top: the TUI's first frame must not wait for httpx or Pydantic, so the target
is resolved and the client built in the app, after that frame, whenever no prompt is needed.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from plantstore_tui.cli.targets import (
    BASE_URL_ENV,
    PROFILE_ENV,
    TOKEN_ENV,
    TargetOptions,
    resolve_target,
)

if TYPE_CHECKING:
    from plantstore_tui.ui.connection import Connect, Connection, TargetLabel


def _plan(options: TargetOptions) -> tuple[Connect, TargetLabel]:
    """How the app will connect, and what it can say about the target before it has."""
    from plantstore_tui.ui.connection import TargetLabel, connect_to

    base_url = options.base_url or os.environ.get(BASE_URL_ENV)
    profile = options.profile or os.environ.get(PROFILE_ENV)
    if base_url and os.environ.get(TOKEN_ENV) and not profile:

        def connect() -> Connection:
            return connect_to(resolve_target(options, interactive=False))

        return connect, TargetLabel(base_url=base_url.strip(), token_source=TOKEN_ENV)
    # A prompt, or a configuration problem (exit 4), must happen before the TUI owns the terminal.
    target = resolve_target(options, interactive=True)
    return (lambda: connect_to(target)), TargetLabel.of(target)


def _run(connect: Connect, label: TargetLabel) -> None:
    from plantstore_tui.ui.app import PlantStoreApp

    app = PlantStoreApp(connect, label)
    app.run()
    if app.return_code:
        raise SystemExit(app.return_code)


def open_tui(options: TargetOptions) -> None:
    """Open the TUI on the target the options name."""
    _run(*_plan(options))


@click.command()
def demo() -> None:
    """Start a throwaway reference server on a free loopback port and open the TUI on it.

    The token is fresh and the database temporary: both are gone when the TUI exits.
    """
    import secrets
    import tempfile
    from pathlib import Path

    from pydantic import SecretStr

    from plantstore_tui.core.target import Target
    from plantstore_tui.server.runner import BackgroundServer
    from plantstore_tui.ui.connection import TargetLabel, connect_to

    token = SecretStr(secrets.token_urlsafe(32))
    with tempfile.TemporaryDirectory(prefix="plantstore-demo-") as directory:
        server = BackgroundServer(token=token, db_path=Path(directory) / "plants.sqlite3")
        # The server stops however the TUI ends: quit, Ctrl+C, or a crash.
        with server:
            target = Target(
                base_url=server.base_url,
                token=token,
                token_source="the demo (fresh, random)",  # noqa: S106 (not a secret)
            )
            _run(lambda: connect_to(target), TargetLabel.of(target))
