"""The front door (`plantstore-tui`, `python -m plantstore_tui`): the TUI at once for an ad hoc
target or a saved profile, click for everything else.

When all the command line says is a target (the target options only, no subcommand) that can be
resolved without asking anything (an ad hoc target whose token is in the environment, or a
profile that profiles.toml holds: the one named, else the default, glanced at with tomllib
alone), the TUI opens without importing click or the command line's modules, and the target is
resolved in the app after the first frame. That spares the first frame 40M instructions for an
ad hoc target and 440M for a profile (click, httpx, Pydantic, ssl and the token's source).
Anything else (a subcommand, --help, --version, --ca-bundle, a token to ask for or a token_env
that is unset, no profiles.toml or one that cannot be read, an unknown profile, no default, an
option this does not know) goes to click's group in `cli/`, as before.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from plantstore_tui.core.errors import PlantStoreError

if TYPE_CHECKING:
    from plantstore_tui.core.config.targets import TargetOptions
    from plantstore_tui.ui.connection import Connect, Connection, TargetLabel

# The group's target options that can open the TUI without click: those taking a value, by the
# TargetOptions field they fill, and the flag. (--ca-bundle goes to click, which checks the file.)
_VALUED = {"--profile": "profile", "--base-url": "base_url", "--proxy": "proxy"}
_FLAG = "--allow-insecure-http"


def main() -> None:
    """Open the TUI for an ad hoc target, or hand the command line to click."""
    options = plain_tui_options(sys.argv[1:])
    plan = None if options is None else unprompted_plan(options, os.environ)
    if plan is None:
        from plantstore_tui.cli import main as command_line

        command_line()
        return
    try:
        run_tui(*plan)
    except PlantStoreError as exc:
        # As the group does: the error in words, and its exit code.
        from plantstore_tui.cli.exits import translated

        error = translated(exc)
        error.show()
        sys.exit(error.exit_code)


def plain_tui_options(arguments: Sequence[str]) -> TargetOptions | None:
    """The target options, if the arguments are nothing else: each once at most, a value never
    starting with "-" (click would read those otherwise); else None."""
    from plantstore_tui.core.config.targets import TargetOptions

    values: dict[str, str] = {}
    insecure = False
    rest = list(arguments)
    while rest:
        name, equals, value = rest.pop(0).partition("=")
        if name == _FLAG and not equals and not insecure:
            insecure = True
            continue
        if name not in _VALUED or _VALUED[name] in values:
            return None
        if not equals:
            if not rest:
                return None
            value = rest.pop(0)
        if value.startswith("-"):
            return None
        values[_VALUED[name]] = value
    return TargetOptions(
        profile=values.get("profile"),
        base_url=values.get("base_url"),
        allow_insecure_http=insecure,
        proxy=values.get("proxy"),
    )


def unprompted_plan(
    options: TargetOptions, environ: Mapping[str, str]
) -> tuple[Connect, TargetLabel] | None:
    """How the app connects to the target the options name when nothing need be asked or said
    before the TUI opens (an ad hoc target whose token is in the environment, or a profile
    profiles.toml holds), and its label until then; None: the command line's to resolve."""
    ad_hoc = ad_hoc_plan(options, environ)
    if ad_hoc is not None:
        return ad_hoc
    from plantstore_tui.core.config.glance import named_profile

    profile = named_profile(options, environ)
    if profile is None:
        return None
    from plantstore_tui.ui.connection import TargetLabel

    label = TargetLabel(
        base_url=profile.base_url,
        token_source=profile.token_source,
        profile=profile.name,
        protected=profile.protected,
    )
    return _resolved_in_app(options), label


def ad_hoc_plan(
    options: TargetOptions, environ: Mapping[str, str]
) -> tuple[Connect, TargetLabel] | None:
    """How the app connects to the ad hoc target the options name, resolved in the app after the
    first frame, and its label until then; None unless they name one whose token is in the
    environment."""
    from plantstore_tui.core.config.targets import TOKEN_ENV, unprompted_ad_hoc_url

    base_url = unprompted_ad_hoc_url(options, environ)
    if base_url is None:
        return None
    from plantstore_tui.ui.connection import TargetLabel

    return _resolved_in_app(options), TargetLabel(base_url=base_url, token_source=f"${TOKEN_ENV}")


def _resolved_in_app(options: TargetOptions) -> Connect:
    """The target the options name, resolved in the app's connect thread (nobody is asked
    anything): what cannot be used is said in the core's words, in the TUI. Not through the
    command line's `resolve_target`: its errors carry the same words, but click would be
    imported for them (0.9 MiB)."""

    def connect() -> Connection:
        from plantstore_tui.core.config.targets import resolve_target
        from plantstore_tui.ui.connection import connect_to

        return connect_to(resolve_target(options, os.environ))

    return connect


def run_tui(connect: Connect | None, label: TargetLabel, *, note: str | None = None) -> None:
    """Run the TUI (None: no target yet, the first-run screen); exit with its return code. The
    demo chosen on the first-run screen starts once that TUI has ended (`run_demo`)."""
    from plantstore_tui.ui.app import PlantStoreApp

    app = PlantStoreApp(connect, label, note=note)
    app.run()
    if app.demo_chosen:
        run_demo()
    elif app.return_code:
        raise SystemExit(app.return_code)


def run_demo() -> None:
    """The TUI on a throwaway reference server, in a sandbox: its profiles, tokens and ledger
    live in a temporary directory of its own, removed with the server's database however the
    demo ends; the operator's are neither read nor written."""
    from plantstore_tui.core.config.sandbox import sandboxed
    from plantstore_tui.server.demo import DEMO_NOTE, ThrowawayServer
    from plantstore_tui.ui.connection import TargetLabel, connect_to

    # Through the environment (PLANTSTORE_CONFIG_DIR, PLANTSTORE_DATA_DIR): every room finds
    # its files there, at each use, and a token command run from the demo inherits the same.
    with sandboxed() as sandbox:
        server = ThrowawayServer(sandbox.server_dir)
        try:
            target = server.start()
            run_tui(lambda: connect_to(target), TargetLabel.of(target), note=DEMO_NOTE)
        finally:
            server.stop()
