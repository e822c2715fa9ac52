"""`plantstore-tui` without a subcommand (the TUI), and `plantstore-tui demo` (the TUI on a
throwaway reference server)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

import click

from plantstore_tui.cli.exits import ConfigProblem
from plantstore_tui.cli.targets import NoTarget, TargetOptions, resolve_target
from plantstore_tui.core.config import targets
from plantstore_tui.core.config.files import checked_data_dir
from plantstore_tui.core.config.glance import named_profile
from plantstore_tui.core.config.options import (
    TOKEN_ENV,
    chosen_ad_hoc_url,
    unprompted_ad_hoc_url,
)
from plantstore_tui.core.config.sandbox import ignored_variables, sandboxed
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.config.theme import save_theme, saved_theme
from plantstore_tui.core.sending.connection import Connect, Connection, connect_to
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel


def open_tui(options: TargetOptions, *, verify: bool = False) -> None:
    """Open the TUI on the target the options name (`verify`: verified entry for this run)."""
    # Said before the TUI owns the terminal (exit 4): in it, the plants would live in memory only.
    checked_data_dir()
    run_tui(*_plan(options), verify=verify)


def _plan(options: TargetOptions) -> tuple[Connect | None, TargetLabel]:
    """How the app will connect, and what it can say about the target before it has.

    No connect at all means the first-run screen: no profile saved and nothing named on the
    command line, or a profiles.toml that cannot be read.
    """
    unprompted = unprompted_plan(options, os.environ)
    if unprompted is not None:
        return unprompted
    # A prompt, or a configuration problem (exit 4), must happen before the TUI owns the terminal.
    try:
        target = resolve_target(options, interactive=True)
    except ConfigProblem as problem:
        terminal = sys.stdin.isatty() and sys.stdout.isatty()
        if not (terminal and _opens_on_first_run(options, problem)):
            raise
        return None, TargetLabel(base_url="no target yet", token_source="no profile")
    return (lambda: connect_to(target)), TargetLabel.of(target)


def unprompted_plan(
    options: TargetOptions, environ: Mapping[str, str]
) -> tuple[Connect, TargetLabel] | None:
    """How the app connects to the target the options name when nothing need be asked or said
    before the TUI opens (an ad hoc target whose token is in the environment, or a profile
    profiles.toml holds), and its label until then; None: it is resolved before the TUI."""
    base_url = unprompted_ad_hoc_url(options, environ)
    if base_url is not None:
        label = TargetLabel(base_url=base_url, token_source=f"${TOKEN_ENV}")
        return _resolved_in_app(options), label
    # A profile given a CA bundle is resolved first, so that a bad bundle ends the run (exit 4).
    profile = None if options.ca_bundle else named_profile(options, environ)
    if profile is None:
        return None
    label = TargetLabel(
        base_url=profile.base_url,
        token_source=profile.token_source,
        profile=profile.name,
        protected=profile.protected,
    )
    return _resolved_in_app(options), label


def _resolved_in_app(options: TargetOptions) -> Connect:
    """The target the options name, resolved by the core in the app's connect thread (nobody is
    asked anything): what cannot be used is said in the TUI, in the core's words."""

    def connect() -> Connection:
        # In the app's connect thread, after the first frame: nobody is asked anything.
        return connect_to(targets.resolve_target(options, os.environ))

    return connect


def _opens_on_first_run(options: TargetOptions, problem: ConfigProblem) -> bool:
    """Whether the TUI opens on the first-run screen rather than the run ending in exit 4:
    nothing names a target and no profile is saved yet, or the target was to come from a
    profiles.toml that cannot be read (that screen says what is wrong with it, and offers the
    demo and `--base-url` meanwhile)."""
    if chosen_ad_hoc_url(options, os.environ) is not None:
        return False
    saved = ProfileStore().load()
    if saved.error is not None:
        return True
    return isinstance(problem, NoTarget) and not saved.profiles


def run_tui(
    connect: Connect | None,
    label: TargetLabel,
    *,
    note: str | None = None,
    demo: bool = False,
    verify: bool = False,
) -> None:
    """Run the TUI (None: no target yet, the first-run screen); exit with its return code. The
    demo chosen on the first-run screen starts once that TUI has ended. `demo`: the TUI of the
    demo, whose ledger goes with its sandbox."""
    app = PlantStoreApp(connect, label, note=note, throwaway=demo, verify=verify)
    app.run()
    if app.demo_chosen:
        run_demo()
    elif app.return_code:
        raise SystemExit(app.return_code)


def run_demo() -> None:
    """The TUI on a throwaway reference server, in a sandbox: its profiles, tokens and ledger
    live in a temporary directory of its own, removed with the server's database however the
    demo ends; the operator's are neither read nor written."""
    # An optional feature, the demo: its server (Starlette, uvicorn) would weigh on every
    # start (benchmarks/README.md, "Imports kept out of the start").
    from plantstore_tui.server.demo import ThrowawayServer, demo_note

    # The operator's theme is the one thing the demo takes along (a theme chosen in the demo
    # is the sandbox's, gone with it).
    theme = saved_theme()
    note = demo_note(ignored_variables(os.environ))
    # Through the environment (PLANTSTORE_CONFIG_DIR, PLANTSTORE_DATA_DIR): every room finds
    # its files there, at each use, and a token command run from the demo inherits the same.
    with sandboxed() as sandbox:
        if theme is not None:
            save_theme(theme)
        server = ThrowawayServer(sandbox.server_dir)
        try:
            target = server.start()
            run_tui(lambda: connect_to(target), TargetLabel.of(target), note=note, demo=True)
        finally:
            server.stop()


@click.command()
def demo() -> None:
    """Start a throwaway reference server on a free loopback port and open the TUI on it.

    A sandbox: the token is fresh, and the server's database and the demo's own profiles and
    ledger are temporary, all gone when the TUI exits. Your profiles, tokens and ledger are
    neither read nor changed.
    """
    run_demo()
