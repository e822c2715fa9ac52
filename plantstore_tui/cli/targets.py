"""Turning `--profile`, `--base-url` and the environment into a `Target`.

Which target wins, first to last: `--base-url` (ad hoc), `--profile`, `PLANTSTORE_PROFILE`,
`PLANTSTORE_BASE_URL` (ad hoc), the default profile. Kept light at import: the core modules load
only when a target is resolved.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from plantstore_tui.cli.exits import ConfigProblem, InvalidInput

if TYPE_CHECKING:
    from pydantic import SecretStr

    from plantstore_tui.core.config.profiles import Profile, ProfileStore
    from plantstore_tui.core.http.target import Target

TOKEN_ENV = "PLANTSTORE_TOKEN"  # noqa: S105 (the name of a variable, not a token)
BASE_URL_ENV = "PLANTSTORE_BASE_URL"
PROFILE_ENV = "PLANTSTORE_PROFILE"


class NoTarget(ConfigProblem):
    """Nothing names a target: no --base-url, no profile chosen and no default profile."""


@dataclass(frozen=True, slots=True)
class TargetOptions:
    """What the command line said about the target; the subcommand's words win over the group's."""

    profile: str | None = None
    base_url: str | None = None
    allow_insecure_http: bool = False
    ca_bundle: str | None = None

    def merged(
        self,
        profile: str | None,
        base_url: str | None,
        allow_insecure_http: bool = False,
        ca_bundle: str | None = None,
    ) -> TargetOptions:
        """These options overridden by a subcommand's own."""
        allowed = self.allow_insecure_http or allow_insecure_http
        ca_file = ca_bundle or self.ca_bundle
        if profile is not None or base_url is not None:
            return TargetOptions(profile, base_url, allowed, ca_file)
        return TargetOptions(self.profile, self.base_url, allowed, ca_file)


def target_options(command: click.decorators.FC) -> click.decorators.FC:
    """Add `--profile`, `--base-url`, `--allow-insecure-http` and `--ca-bundle` to a command."""
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
    from plantstore_tui.core.config.files import ConfigError
    from plantstore_tui.core.config.tokens import SourceKind, TokenSource, clean_token, env_source

    if os.environ.get(TOKEN_ENV, "").strip():
        source = env_source(TOKEN_ENV)
    elif interactive and sys.stdin.isatty():
        source = TokenSource(SourceKind.PROMPT)
    else:
        raise ConfigProblem(
            f"No token: set {TOKEN_ENV} (a token is never taken on the command line)."
        )
    try:
        if source.kind is SourceKind.ENV:
            return clean_token(os.environ[TOKEN_ENV], source), str(source)
        return clean_token(click.prompt("Token", hide_input=True), source), str(source)
    except ConfigError as exc:
        raise ConfigProblem(str(exc)) from None


def resolve_target(options: TargetOptions, *, interactive: bool) -> Target:
    """The target the options name, or a `ConfigProblem` saying what is missing."""
    from dataclasses import replace

    target = _named_target(options, interactive=interactive)
    if options.ca_bundle is not None:
        target = replace(target, ca_bundle=options.ca_bundle)
    if target.ca_bundle is not None:
        # Loaded once here so a bad CA file is a configuration problem (exit 4), said up front.
        from plantstore_tui.core.http.tls import CABundleError, tls_context

        try:
            tls_context(target.ca_bundle)
        except CABundleError as exc:
            from plantstore_tui.core.plant.text import visible

            raise ConfigProblem(visible(str(exc))) from None
    return target


def _named_target(options: TargetOptions, *, interactive: bool) -> Target:
    if options.base_url:
        # A bad --base-url is a usage mistake (exit 2); a bad environment is configuration (4).
        return _ad_hoc_target(
            options.base_url,
            interactive=interactive,
            problem=InvalidInput,
            allow_insecure_http=options.allow_insecure_http,
        )
    profile = options.profile or os.environ.get(PROFILE_ENV)
    if not profile and os.environ.get(BASE_URL_ENV):
        return _ad_hoc_target(
            os.environ[BASE_URL_ENV],
            interactive=interactive,
            problem=ConfigProblem,
            allow_insecure_http=options.allow_insecure_http,
        )

    from plantstore_tui.core.config.files import ConfigError
    from plantstore_tui.core.config.profiles import ProfileStore
    from plantstore_tui.core.plant.text import visible

    store = ProfileStore()
    try:
        return store.target(store.get(profile) if profile else _default_profile(store))
    except ConfigError as exc:
        # A shared profiles.toml is not trusted to hold only printable text.
        raise ConfigProblem(visible(str(exc))) from None


def _default_profile(store: ProfileStore) -> Profile:
    saved = store.load()
    if saved.error is not None:
        raise saved.error
    if saved.default is not None:
        profile = saved.get(saved.default)
        assert profile is not None  # load() drops a default that names no usable profile
        return profile
    if saved.profiles:
        raise NoTarget(
            f"No target: choose a profile with --profile NAME (saved: {', '.join(saved.names)}), "
            "or make one the default with `plantstore-tui profile use NAME`."
        )
    raise NoTarget(
        "No target: give --base-url URL (or set PLANTSTORE_BASE_URL), or save a profile with "
        "`plantstore-tui profile add NAME --base-url URL`. "
        "To try the product without a deployment, run `plantstore-tui demo`."
    )


def _ad_hoc_target(
    base_url: str,
    *,
    interactive: bool,
    problem: type[click.ClickException],
    allow_insecure_http: bool,
) -> Target:
    from plantstore_tui.core.config.profiles import insecure_http_problem
    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.http.urls import InvalidBaseURL, normalize_base_url

    try:
        normalized = normalize_base_url(base_url)
    except InvalidBaseURL as exc:
        raise problem(str(exc)) from None
    insecure = insecure_http_problem(normalized, allowed=allow_insecure_http)
    if insecure is not None:
        raise problem(
            f"Refused: {insecure}. Use https://, or add --allow-insecure-http to allow it for "
            "this run (or save a profile with --allow-insecure-http)."
        )
    token, source = read_token(interactive=interactive)
    return Target(base_url=normalized, token=token, token_source=source)


def confirm_protected(target: Target, question: str, *, interactive: bool) -> None:
    """Ask `question` (it ends with "to", the profile is named after it) before sending to a
    protected profile; `InvalidInput` if it is not confirmed or there is nobody to ask."""
    from plantstore_tui.core.plant.text import visible

    where = f"the protected profile {visible(target.profile or '')} ({visible(target.base_url)})"
    if not (interactive and sys.stdin.isatty()):
        raise InvalidInput(f"Nothing was sent: {where} needs --yes to send without asking.")
    if not click.confirm(f"{question} {where}?"):
        raise InvalidInput("Nothing was sent.")
