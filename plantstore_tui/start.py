"""The front door (`plantstore-tui`, `python -m plantstore_tui`): the TUI at once for an ad hoc
target, click for everything else.

When all the command line says is an ad hoc target whose token is in the environment (the
target options only, no subcommand), nothing is asked or resolved before the TUI starts, and
there is nothing for click to do but read four options: the TUI opens without importing it or
the command line's modules (40M instructions, an eighth of what the first frame costs beyond a
bare Textual app). Anything else (a subcommand, --help, --version, --ca-bundle, a profile, a
token to ask for, an option this does not know) goes to click's group in `cli/`, as before.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from plantstore_tui.core.config.targets import TOKEN_ENV, TargetOptions, unprompted_ad_hoc_url
from plantstore_tui.core.errors import PlantStoreError

if TYPE_CHECKING:
    from plantstore_tui.server.demo import ThrowawayServer
    from plantstore_tui.ui.connection import Connect, Connection, TargetLabel

# The group's target options that can open the TUI without click: those taking a value, by the
# TargetOptions field they fill, and the flag. (--ca-bundle goes to click, which checks the file.)
_VALUED = {"--profile": "profile", "--base-url": "base_url", "--proxy": "proxy"}
_FLAG = "--allow-insecure-http"


def main() -> None:
    """Open the TUI for an ad hoc target, or hand the command line to click."""
    options = plain_tui_options(sys.argv[1:])
    if options is None or unprompted_ad_hoc_url(options, os.environ) is None:
        from plantstore_tui.cli import main as command_line

        command_line()
        return
    try:
        run_tui(*ad_hoc_plan(options, os.environ))
    except PlantStoreError as exc:
        # As the group does: the error in words, and its exit code.
        from plantstore_tui.cli.exits import translated

        error = translated(exc)
        error.show()
        sys.exit(error.exit_code)


def plain_tui_options(arguments: Sequence[str]) -> TargetOptions | None:
    """The target options, if the arguments are nothing else: each once at most, a value never
    starting with "-" (click would read those otherwise); else None."""
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


def ad_hoc_plan(options: TargetOptions, environ: Mapping[str, str]) -> tuple[Connect, TargetLabel]:
    """How the app connects to the ad hoc target the options name, resolved in the app after the
    first frame (its token is in the environment), and its label until then."""
    from plantstore_tui.ui.connection import TargetLabel, connect_to

    base_url = unprompted_ad_hoc_url(options, environ)
    assert base_url is not None, "an ad hoc target whose token is in the environment"

    def connect() -> Connection:
        # In the app's connect thread: the command line's words for a target that cannot be used.
        from plantstore_tui.cli.targets import resolve_target

        return connect_to(resolve_target(options, interactive=False))

    return connect, TargetLabel(base_url=base_url, token_source=f"${TOKEN_ENV}")


def _throwaway_server() -> ThrowawayServer:
    """The demo the first-run screen offers, imported only when chosen (the first frame waits for
    no server code)."""
    from plantstore_tui.server.demo import ThrowawayServer

    return ThrowawayServer()


def run_tui(connect: Connect | None, label: TargetLabel) -> None:
    """Run the TUI (None: no target yet, the first-run screen); exit with its return code."""
    from plantstore_tui.ui.app import PlantStoreApp

    app = PlantStoreApp(connect, label, demo=_throwaway_server)
    try:
        app.run()
    finally:
        # A demo started from the first-run screen stops however the app ends.
        app.stop_demo()
    if app.return_code:
        raise SystemExit(app.return_code)
