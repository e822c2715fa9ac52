"""`plantstore-tui` (the TUI) and `plantstore-tui demo` (the TUI on a throwaway reference server).

Kept light at the top: the TUI's first frame must not wait for httpx or Pydantic, so the target
is resolved and the client built in the app, after that frame, whenever no prompt is needed.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from plantstore_tui.cli.targets import NoTarget, TargetOptions, resolve_target
from plantstore_tui.start import ad_hoc_plan, run_demo, run_tui

if TYPE_CHECKING:
    from plantstore_tui.ui.connection import Connect, TargetLabel


def _plan(options: TargetOptions) -> tuple[Connect | None, TargetLabel]:
    """How the app will connect, and what it can say about the target before it has.

    No connect at all means a first run: no profile saved and nothing named on the command line.
    """
    from plantstore_tui.ui.connection import TargetLabel, connect_to

    ad_hoc = ad_hoc_plan(options, os.environ)
    if ad_hoc is not None:
        return ad_hoc
    # A prompt, or a configuration problem (exit 4), must happen before the TUI owns the terminal.
    try:
        target = resolve_target(options, interactive=True)
    except NoTarget:
        if not (_first_run() and sys.stdin.isatty() and sys.stdout.isatty()):
            raise
        return None, TargetLabel(base_url="no target yet", token_source="no profile")
    return (lambda: connect_to(target)), TargetLabel.of(target)


def _first_run() -> bool:
    from plantstore_tui.core.config.store import ProfileStore

    saved = ProfileStore().load()
    return saved.error is None and not saved.profiles


def open_tui(options: TargetOptions) -> None:
    """Open the TUI on the target the options name."""
    run_tui(*_plan(options))


@click.command()
def demo() -> None:
    """Start a throwaway reference server on a free loopback port and open the TUI on it.

    A sandbox: the token is fresh, and the server's database and the demo's own profiles and
    ledger are temporary, all gone when the TUI exits. Your profiles, tokens and ledger are
    neither read nor changed.
    """
    run_demo()
