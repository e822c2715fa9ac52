"""`plantstore-tui profile ...`: list, show, add, edit, remove, use and test saved profiles.

Everything here is a thin shell over `core.config.store.ProfileStore`: parse, call, print. A
token is never a command-line value (`token_input.py` says where it comes from).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click
from click.decorators import FC

from plantstore_tui.cli.check import exit_code_of, render_report
from plantstore_tui.cli.exits import ConfigProblem, InvalidInput
from plantstore_tui.cli.findings import profile_store
from plantstore_tui.cli.options import confirm_deletion, json_option, one_of, yes_option
from plantstore_tui.cli.targets import profile_names
from plantstore_tui.cli.token_input import ask_token, one_token, token_options
from plantstore_tui.core.config import profiles
from plantstore_tui.core.config.errors import ConfigError
from plantstore_tui.core.config.options import TOKEN_ENV
from plantstore_tui.core.config.store import ProfileStore, SavedProfiles, SaveReport
from plantstore_tui.core.config.targets import profile_target
from plantstore_tui.core.config.tokens import InvalidToken
from plantstore_tui.core.http.check import run_check
from plantstore_tui.core.http.proxy import InvalidProxy, choose_proxy, route_words, shown_proxy
from plantstore_tui.core.http.target import Limits
from plantstore_tui.core.plant.text import visible

_INPUT_ERRORS = (profiles.InvalidProfile, profiles.ProfileExists, InvalidToken)
# The settings `add` and `edit` both take as they are.
_timeout_setting = click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True, max=profiles.MAX_TIMEOUT),
    metavar="S",
    help="Seconds a send may take in all.",
)
_ca_bundle_setting = click.option(
    "--ca-bundle",
    # Saved absolute: the profile is used from any working directory.
    type=click.Path(exists=True, dir_okay=False, resolve_path=True),
    metavar="PATH",
    help="A PEM file of CA certificates to trust instead of the OS trust store.",
)
_proxy_setting = click.option(
    "--proxy",
    metavar="URL",
    help="Send through this proxy (http://[USER:PASSWORD@]HOST:PORT), or 'none' for no proxy "
    "whatever $HTTPS_PROXY says; unset, the environment's proxy is used.",
)
_ids_setting = click.option(
    "--ids",
    metavar="FIRST-LAST",
    help="The range of ids this operator sends from, such as 70000-70999: next id and `add` "
    "without --id stay in it. With edit, 'none' drops it.",
)


def _switch(flags: str, help: str) -> Callable[[FC], FC]:
    """An on/off setting `edit` may change: True, False, or None to leave it as it is."""
    return click.option(flags, default=None, help=help)


@contextmanager
def _reported(*, input_errors: tuple[type[ConfigError], ...] = ()) -> Iterator[None]:
    """Turn the core's errors into exit codes: `input_errors` exit 2, the others 4."""
    try:
        yield
    except input_errors as exc:
        raise InvalidInput(visible(str(exc))) from None
    except ConfigError as exc:
        raise ConfigProblem(visible(str(exc))) from None


def _saved(store: ProfileStore) -> SavedProfiles:
    saved = store.load()
    if saved.error is not None:
        raise ConfigProblem(visible(str(saved.error)))
    return saved


def _protected_words(profile: profiles.Profile) -> str:
    if profile.protected_by:
        keys = ", ".join(f"`{visible(key)}`" for key in profile.protected_by)
        return (
            f"yes: sends ask for confirmation, because {keys} looks like a misspelt safety "
            "setting (fix the file)"
        )
    return "yes: sends ask for confirmation" if profile.protected else "no"


def _timeout_words(profile: profiles.Profile) -> str:
    if profile.timeout is None:
        defaults = Limits()
        return (
            f"default (connect {defaults.connect:g} s, read {defaults.read:g} s, "
            f"whole send {defaults.deadline:g} s)"
        )
    return f"{profile.timeout:g} s for the whole send"


def _profile_json(
    store: ProfileStore, profile: profiles.Profile, default: str | None
) -> dict[str, Any]:
    return {
        "name": profile.name,
        "base_url": profile.base_url,
        "default": profile.name == default,
        "protected": profile.protected,
        "timeout": profile.timeout,
        "allow_insecure_http": profile.allow_insecure_http,
        "ca_bundle": profile.ca_bundle,
        "proxy": None if profile.proxy is None else shown_proxy(profile.proxy),
        "proxy_in_use": _proxy_in_use(profile),
        "history": profile.history,
        "verify": profile.verify,
        "ids": profile.ids,
        "token_env": profile.token_env,
        "token_command": profile.token_command,
        "token_source": store.token_status(profile),
    }


def _proxy_in_use(profile: profiles.Profile) -> str | None:
    """The proxy sends to `profile` go through in this environment (no user or password)."""
    try:
        chosen = choose_proxy(profile.base_url, os.environ, given=profile.proxy)
    except InvalidProxy:
        return None
    return None if chosen is None else chosen.url


@click.group()
def profile() -> None:
    """Saved deployments (profiles.toml) and where their tokens come from.

    profiles.toml never holds a token. A profile's token comes, in this order, from
    PLANTSTORE_TOKEN (this run only), its token_env variable, its token_command, or the
    token saved for it: in the OS keyring, or in credentials.toml (mode 0600) when there
    is no keyring.
    """


def _command(
    name: str, *, input_errors: tuple[type[ConfigError], ...] = ()
) -> Callable[[Callable[..., None]], click.Command]:
    """A `profile` subcommand: the core's errors end it in words, `input_errors` with exit 2
    (the operator's value is wrong) and any other configuration error with 4."""

    def decorate(function: Callable[..., None]) -> click.Command:
        return profile.command(name)(_reported(input_errors=input_errors)(function))

    return decorate


@_command("list")
@json_option()
def list_profiles(as_json: bool) -> None:
    """List the saved profiles; the default one is marked with *."""
    store = profile_store()
    saved = _saved(store)
    if as_json:
        listing = {
            "config_file": str(saved.path),
            "default": saved.default,
            "profiles": [_profile_json(store, item, saved.default) for item in saved.profiles],
            "problems": list(saved.problems),
            "token_env_override": bool(os.environ.get(TOKEN_ENV, "").strip()),
        }
        click.echo(json.dumps(listing, ensure_ascii=True))
        return
    if not saved.profiles and saved.broken:
        # Not "none yet": the file has profiles, and the warnings (stderr) say what is wrong.
        count = len(saved.broken)
        click.echo(
            f"No usable profiles in {visible(str(saved.path))}: "
            f"{count} cannot be used (the warnings say why)."
        )
        click.echo("Fix the file, or add one: plantstore-tui profile add NAME --base-url URL")
        return
    if not saved.profiles:
        click.echo(f"No profiles in {visible(str(saved.path))} yet.")
        click.echo("Add one: plantstore-tui profile add NAME --base-url URL")
        return
    click.echo(f"Profiles in {visible(str(saved.path))}:")
    # Titles once, not a label on every row: a real base URL and token source fit 80 columns.
    rows = [("", "name", "base URL", "token from", "settings")]
    for item in saved.profiles:
        settings = ["PROTECTED"] if item.protected else []
        settings += ["verify"] if item.verify else []
        settings += [f"ids {item.ids}"] if item.ids else []
        mark = "*" if item.name == saved.default else " "
        token = visible(store.token_status(item))
        rows.append((mark, item.name, visible(item.base_url), token, ", ".join(settings)))
    if not any(row[4] for row in rows[1:]):
        rows[0] = (*rows[0][:4], "")
    widths = [max(len(row[column]) for row in rows) for column in range(4)]
    for row in rows:
        cells = [f"{text:<{width}}" for text, width in zip(row, widths, strict=False)]
        click.echo(f"{cells[0]} {'  '.join([*cells[1:], row[4]])}".rstrip())
    if os.environ.get(TOKEN_ENV, "").strip():
        click.echo(f"{TOKEN_ENV} is set: in this run it is the token of every profile.")


@_command("show")
@click.argument("name", shell_complete=profile_names)
def show(name: str) -> None:
    """Show one profile's settings and where its token comes from."""
    store = profile_store()
    item = store.get(name)
    default = store.load().default
    lines = [
        f"Profile {item.name}" + (" (default)" if item.name == default else ""),
        f"  base_url:  {visible(item.base_url)}",
        f"  token:     {visible(store.token_status(item))}",
    ]
    if item.token_command is not None:
        lines.append(f"  command:   {visible(item.token_command)}")
    lines += [
        f"  protected: {_protected_words(item)}",
        f"  timeout:   {_timeout_words(item)}",
    ]
    if item.ids is not None:
        lines.append(f"  ids:       {item.ids} (next id stays in this range)")
    if item.allow_insecure_http:
        lines.append("  plain http beyond loopback: allowed (the token travels unencrypted)")
    if item.ca_bundle is not None:
        lines.append(f"  ca_bundle: {visible(item.ca_bundle)} (trusted instead of the OS store)")
    lines.append(f"  proxy:     {visible(route_words(item.base_url, os.environ, item.proxy))}")
    if not item.history:
        lines.append("  history:   off (sends to this profile are not kept)")
    if item.verify:
        lines.append("  verify:    on (the TUI keys each plant twice before it is sent)")
    lines.append(f"  file:      {visible(str(store.path))}")
    if os.environ.get(TOKEN_ENV, "").strip():
        lines.append(f"  ({TOKEN_ENV} is set: in this run it wins over the profile's token)")
    click.echo("\n".join(lines))


def _say_saved(report: SaveReport, verb: str) -> None:
    saved = report.profile
    click.echo(f"{verb} profile {saved.name}: {visible(saved.base_url)}")
    if report.token_source is not None:
        click.echo(f"Token saved in: {visible(str(report.token_source))}")
    if report.notice is not None:
        click.echo(f"Note: {visible(report.notice)}")
    if saved.token_env is not None and not os.environ.get(saved.token_env, "").strip():
        click.echo(f"Note: {saved.token_env} is not set in this shell.")
    if report.made_default:
        click.echo(f"{saved.name} is the default profile.")
    click.echo(f"Check it without creating a plant: plantstore-tui profile test {saved.name}")


@_command("add", input_errors=_INPUT_ERRORS)
@click.argument("name")
@click.option("--base-url", required=True, metavar="URL", help="The deployment's base URL.")
@token_options
@click.option("--protected", is_flag=True, help="Ask for confirmation before each send.")
@_timeout_setting
@click.option(
    "--allow-insecure-http",
    is_flag=True,
    help="Allow plain http:// beyond loopback (the token travels unencrypted).",
)
@_ca_bundle_setting
@_proxy_setting
@click.option("--no-history", is_flag=True, help="Keep sends to this profile out of the history.")
@click.option(
    "--verify",
    is_flag=True,
    help="Verified entry in the TUI: each plant keyed twice, sent once both keyings agree.",
)
@_ids_setting
def add(
    name: str,
    base_url: str,
    token_stdin: bool,
    token_env: str | None,
    token_command: str | None,
    protected: bool,
    timeout: float | None,
    allow_insecure_http: bool,
    ca_bundle: str | None,
    proxy: str | None,
    no_history: bool,
    verify: bool,
    ids: str | None,
) -> None:
    """Save a new profile NAME. Without a token option, asks for the token (hidden).

    With no default profile yet, the new one becomes the default.
    """
    store = profile_store()
    # Checked before the token is asked for, so nobody types a token for nothing.
    new = profiles.profile_from_table(
        name,
        profiles.Profile(
            name=name,
            base_url=base_url,
            token_env=token_env,
            token_command=token_command,
            protected=protected,
            timeout=timeout,
            allow_insecure_http=allow_insecure_http,
            ca_bundle=ca_bundle,
            proxy=proxy,
            history=not no_history,
            verify=verify,
            ids=ids,
        ).fields(),
    )
    saved = store.load()
    if saved.get(name) is not None or name in saved.broken:
        raise profiles.ProfileExists(f"Profile {name!r} already exists: use `profile edit {name}`")
    token = ask_token(name, new.base_url, stdin=token_stdin) if new.keeps_token else None
    report = store.add(new, token=token)
    _say_saved(report, "Saved")


@_command("edit", input_errors=_INPUT_ERRORS)
@click.argument("name", shell_complete=profile_names)
@click.option("--base-url", metavar="URL", help="A new base URL.")
@token_options
@one_token("--token-prompt", is_flag=True, help="Ask for a new token (hidden) and keep it.")
@_switch("--protected/--not-protected", "Ask (or stop asking) before each send.")
@_timeout_setting
@one_of("timeout", "default_timeout")(
    "--default-timeout", is_flag=True, help="Go back to the default timeouts."
)
@_switch(
    "--allow-insecure-http/--no-allow-insecure-http",
    "Allow (or refuse) plain http:// beyond loopback.",
)
@_ca_bundle_setting
@one_of("ca_bundle", "os_trust_store")(
    "--os-trust-store", is_flag=True, help="Drop ca_bundle: trust the OS store again."
)
@_proxy_setting
@one_of("proxy", "proxy_from_env")(
    "--proxy-from-env", is_flag=True, help="Drop proxy: take it from the environment."
)
@_switch("--history/--no-history", "Keep (or stop keeping) sends to this profile in the history.")
@_switch("--verify/--no-verify", "Key each plant twice in the TUI (or once) before it is sent.")
@_ids_setting
def edit(
    name: str,
    base_url: str | None,
    token_stdin: bool,
    token_env: str | None,
    token_command: str | None,
    token_prompt: bool,
    protected: bool | None,
    timeout: float | None,
    default_timeout: bool,
    allow_insecure_http: bool | None,
    ca_bundle: str | None,
    os_trust_store: bool,
    proxy: str | None,
    proxy_from_env: bool,
    history: bool | None,
    verify: bool | None,
    ids: str | None,
) -> None:
    """Change some settings of profile NAME; the others stay as they are."""
    changes: dict[str, object] = {}
    if base_url is not None:
        changes["base_url"] = base_url
    if token_env is not None:
        changes.update(token_env=token_env, token_command=None)
    if token_command is not None:
        changes.update(token_command=token_command, token_env=None)
    if protected is not None:
        changes["protected"] = protected
    if timeout is not None or default_timeout:
        changes["timeout"] = timeout
    if allow_insecure_http is not None:
        changes["allow_insecure_http"] = allow_insecure_http
    if ca_bundle is not None or os_trust_store:
        changes["ca_bundle"] = ca_bundle
    if proxy is not None or proxy_from_env:
        changes["proxy"] = proxy
    if history is not None:
        changes["history"] = history
    if verify is not None:
        changes["verify"] = verify
    if ids is not None:
        changes["ids"] = None if ids.strip().casefold() == "none" else ids
    if not changes and not (token_stdin or token_prompt):
        raise click.UsageError("Nothing to change: give at least one option (see --help).")
    store = profile_store()
    # Checked before a token is asked for; a profile that is broken in the file can be fixed here.
    saved = _saved(store)
    found = saved.get(name)
    if found is None and name not in saved.broken:
        raise ConfigProblem(str(profiles.UnknownProfile(name, saved.names)))
    where = base_url or (None if found is None else found.base_url)
    asked = token_stdin or token_prompt
    token = ask_token(name, where, stdin=token_stdin) if asked else None
    report = store.edit(name, changes, token=token)
    _say_saved(report, "Changed")


@_command("remove")
@click.argument("name", shell_complete=profile_names)
@yes_option("Delete without asking.")
def remove(name: str, yes: bool) -> None:
    """Delete profile NAME and the token kept for it; asks first."""
    store = profile_store()
    saved = _saved(store)
    found = saved.get(name)
    if found is None and name not in saved.broken:
        raise ConfigProblem(str(profiles.UnknownProfile(name, saved.names)))
    if not yes:
        where = "" if found is None else f" ({visible(found.base_url)})"
        confirm_deletion(f"profile {visible(name)}{where} and the token kept for it", "remove")
    was_default = saved.default == name
    warning = store.remove(name)
    click.echo(f"Removed profile {name}.")
    if warning is not None:
        click.echo(f"Warning: {visible(warning)}", err=True)
    if was_default:
        click.echo("There is no default profile now: choose one with `plantstore-tui profile use`.")


@_command("use")
@click.argument("name", shell_complete=profile_names)
def use(name: str) -> None:
    """Make NAME the default profile (the one used without --profile)."""
    chosen = profile_store().set_default(name)
    click.echo(f"Default profile: {chosen.name} ({visible(chosen.base_url)})")


@_command("test")
@click.argument("name", shell_complete=profile_names)
def test(name: str) -> None:
    """Check NAME's deployment as `plantstore-tui check --profile NAME` does, creating no plant.

    Every probe sends a body a Plant Store must refuse. Exits 0 when no probe fails, 1 when one
    fails (a refused token among them), 3 when there is no answer, 4 for a configuration problem.
    """
    store = profile_store()
    target = profile_target(store.get(name), store.tokens, os.environ)
    click.echo(
        f"Testing {visible(name)} (token from {visible(target.token_source)}), creating nothing"
    )
    report = asyncio.run(run_check(target))
    click.echo(render_report(report))
    raise SystemExit(exit_code_of(report))
