"""Turning `--profile`, `--base-url` and the environment into a `Target`."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from plantstore_tui.cli.exits import ConfigProblem
from plantstore_tui.core.target import Target

if TYPE_CHECKING:
    from pydantic import SecretStr

TOKEN_ENV = "PLANTSTORE_TOKEN"  # noqa: S105 (the name of a variable, not a token)
BASE_URL_ENV = "PLANTSTORE_BASE_URL"
PROFILE_ENV = "PLANTSTORE_PROFILE"


@dataclass(frozen=True, slots=True)
class TargetOptions:
    """What the command line said about the target; the subcommand's words win over the group's."""

    profile: str | None = None
    base_url: str | None = None

    def merged(self, profile: str | None, base_url: str | None) -> TargetOptions:
        """These options overridden by a subcommand's own."""
        if profile is not None or base_url is not None:
            return TargetOptions(profile=profile, base_url=base_url)
        return self


def target_options(command: click.decorators.FC) -> click.decorators.FC:
    """Add `--profile` and `--base-url` to a command."""
    command = click.option(
        "--base-url",
        metavar="URL",
        help=f"Send to this deployment, without a profile (or set {BASE_URL_ENV}).",
    )(command)
    return click.option(
        "--profile",
        metavar="NAME",
        help=f"Send to this saved profile (or set {PROFILE_ENV}).",
    )(command)


def read_token(*, interactive: bool) -> tuple[SecretStr, str]:
    """The token from the environment or a hidden prompt, wrapped at once, and its source."""
    from pydantic import SecretStr

    if os.environ.get(TOKEN_ENV):
        return SecretStr(os.environ[TOKEN_ENV].strip()), TOKEN_ENV
    if interactive and sys.stdin.isatty():
        return SecretStr(click.prompt("Token", hide_input=True).strip()), "typed at the prompt"
    raise ConfigProblem(f"No token: set {TOKEN_ENV} (a token is never taken on the command line).")


def resolve_target(options: TargetOptions, *, interactive: bool) -> Target:
    """The target the options name, or a `ConfigProblem` saying what is missing."""
    from plantstore_tui.core.client import InvalidBaseURL, normalize_base_url

    base_url = options.base_url or os.environ.get(BASE_URL_ENV)
    profile = options.profile or os.environ.get(PROFILE_ENV)
    if profile and not options.base_url:
        raise ConfigProblem(
            f"Unknown profile {profile!r}: profiles are not available yet; use --base-url URL."
        )
    if not base_url:
        raise ConfigProblem(
            "No target: give --base-url URL (or set PLANTSTORE_BASE_URL). "
            "To try the product without a deployment, run `plantstore-tui demo`."
        )
    try:
        normalized = normalize_base_url(base_url)
    except InvalidBaseURL as exc:
        raise ConfigProblem(str(exc)) from None
    token, source = read_token(interactive=interactive)
    return Target(base_url=normalized, token=token, token_source=source)
