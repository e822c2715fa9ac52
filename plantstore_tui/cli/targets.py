"""The command line's side of targets: the click options, and the core's errors as exit codes.

Which target wins is decided in `core.config.targets`; this module only asks it.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

import click

from plantstore_tui.cli.exits import ConfigProblem, InvalidInput
from plantstore_tui.cli.findings import profile_store
from plantstore_tui.cli.options import one_of, yes_answered
from plantstore_tui.core.config import options as chosen
from plantstore_tui.core.config import targets
from plantstore_tui.core.config.errors import ConfigError
from plantstore_tui.core.config.glance import saved_profile_names
from plantstore_tui.core.config.options import (
    BASE_URL_ENV,
    PROFILE_ENV,
    TargetOptions,
    chosen_ad_hoc_url,
)
from plantstore_tui.core.http.tls import CABundleError
from plantstore_tui.core.http.urls import normalize_base_url
from plantstore_tui.core.plant.text import visible

if TYPE_CHECKING:
    from plantstore_tui.core.http.target import Target

__all__ = [
    "NoTarget",
    "TargetOptions",
    "confirm_protected",
    "group_target_options",
    "merged_target_options",
    "resolve_target",
    "say_token_note",
    "target_options",
]

P = ParamSpec("P")
R = TypeVar("R")
_TARGET_OPTIONS = ("profile", "base_url", "allow_insecure_http", "ca_bundle", "proxy")
# A saved profile or an ad hoc URL: never both, wherever they are given.
one_target = one_of("profile", "base_url")


def profile_names(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[str]:
    """What Tab offers for a profile's name: the saved profiles whose names start with what is
    typed (click makes each a completion item)."""
    return [
        name
        for name in saved_profile_names()
        # A name with a control character cannot be typed, nor shown safely.
        if name.startswith(incomplete) and visible(name) == name
    ]


class NoTarget(ConfigProblem):
    """Nothing names a target: no --base-url, no profile chosen and no default profile."""


def target_options(command: click.decorators.FC) -> click.decorators.FC:
    """Add `--profile`, `--base-url`, `--allow-insecure-http`, `--ca-bundle` and `--proxy` to a
    command."""
    command = click.option(
        "--proxy",
        metavar="URL",
        help="Send through this proxy (http://[USER:PASSWORD@]HOST:PORT), or 'none' for no "
        "proxy; wins over the profile's proxy and $HTTPS_PROXY, $HTTP_PROXY, $ALL_PROXY "
        "(NO_PROXY honoured). This machine is always reached directly.",
    )(command)
    command = click.option(
        "--ca-bundle",
        type=click.Path(exists=True, dir_okay=False),
        metavar="PATH",
        help="Trust the CA certificates in this PEM file instead of the OS trust store.",
    )(command)
    command = click.option(
        "--allow-insecure-http",
        is_flag=True,
        help="With --base-url: allow plain http:// beyond this machine for this run "
        "(the token travels unencrypted).",
    )(command)
    command = one_target(
        "--base-url",
        metavar="URL",
        help=f"Send to this deployment, without a profile (or set {BASE_URL_ENV}); not with "
        "--profile.",
    )(command)
    return one_target(
        "--profile",
        metavar="NAME",
        shell_complete=profile_names,
        help=f"Send to this saved profile (or set {PROFILE_ENV}); not with --base-url.",
    )(command)


def _given(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The target options click passed by name, taken out of `kwargs` (the command does not
    declare them)."""
    return {name: kwargs.pop(name) for name in _TARGET_OPTIONS}


def group_target_options(command: Callable[Concatenate[TargetOptions, P], R]) -> Callable[P, R]:
    """Add the target options to a group, called first with them as one `TargetOptions`."""

    @functools.wraps(command)
    def gathered(*args: P.args, **kwargs: P.kwargs) -> R:
        return command(TargetOptions(**_given(kwargs)), *args, **kwargs)

    return target_options(gathered)


def merged_target_options(command: Callable[Concatenate[TargetOptions, P], R]) -> Callable[P, R]:
    """Add the target options to a subcommand, called first with them merged over the group's."""

    @functools.wraps(command)
    def merged(*args: P.args, **kwargs: P.kwargs) -> R:
        group = click.get_current_context().find_object(TargetOptions) or TargetOptions()
        return command(group.merged(**_given(kwargs)), *args, **kwargs)

    return target_options(merged)


def _token_prompt(options: TargetOptions) -> Callable[[], str]:
    """The hidden prompt for an ad hoc target's token, naming the URL it is for."""

    def prompt() -> str:
        # Asked only once the URL has been checked: it is normalized as it will be used.
        chosen = chosen_ad_hoc_url(options, os.environ)
        url = "" if chosen is None else f" for {visible(normalize_base_url(chosen[0]))}"
        return str(click.prompt(f"Token{url} (hidden)", hide_input=True))

    return prompt


def resolve_target(
    options: TargetOptions, *, interactive: bool, token_needed: bool = True
) -> Target:
    """The target the options name, or a click exception saying what is missing (exit 2 or 4);
    `token_needed` False: its token is not read (see core.config.targets.resolve_target)."""
    prompt = _token_prompt(options) if interactive and sys.stdin.isatty() else None
    try:
        return targets.resolve_target(
            options, os.environ, prompt=prompt, store=profile_store(), token_needed=token_needed
        )
    except chosen.NoTarget as exc:
        raise NoTarget(str(exc)) from None
    except chosen.InvalidAdHocTarget as exc:
        # A bad --base-url is a usage mistake (exit 2); a bad environment is configuration (4).
        raise (InvalidInput if exc.on_command_line else ConfigProblem)(str(exc)) from None
    except (ConfigError, CABundleError) as exc:
        # A shared profiles.toml is not trusted to hold only printable text.
        raise ConfigProblem(visible(str(exc))) from None


def say_token_note(target: Target) -> None:
    """Say once, on stderr, what the target's token means for the answers shown (a token too
    short to be found in them: `Target.token_note`)."""
    if target.token_note is not None:
        click.echo(f"Note: {target.token_note}", err=True)


def confirm_protected(target: Target, question: str, *, interactive: bool) -> None:
    """Ask `question` (it ends with "to", the profile is named after it) before sending to a
    protected profile; `InvalidInput` if it is not confirmed or there is nobody to ask."""
    where = f"the protected profile {visible(target.profile or '')} ({visible(target.base_url)})"
    if not (interactive and sys.stdin.isatty()):
        raise InvalidInput(f"Nothing was sent: {where} needs --yes to send without asking.")
    if not yes_answered(f"{question} {where}?"):
        raise InvalidInput("Nothing was sent.")
