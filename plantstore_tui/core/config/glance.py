"""A glance at profiles.toml, read from the file alone: before the TUI's first frame, the saved
profile a start names and where it sends (the profile is checked and its token read when the
target is resolved, after that frame); for shell completion, the names of the saved profiles."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from plantstore_tui.core.config.errors import ConfigError
from plantstore_tui.core.config.files import PROFILES_FILE, config_dir, read_toml
from plantstore_tui.core.config.options import (
    PROFILE_ENV,
    TOKEN_ENV,
    TargetOptions,
    chosen_ad_hoc_url,
)
from plantstore_tui.core.config.profile_keys import asks_first


class ProfileGlance(NamedTuple):
    """What profiles.toml says of the profile a start names, as the status line shows it."""

    name: str
    base_url: str
    protected: bool
    # Where the token will be read: `$VARIABLE`, the command, or the profile's kept token.
    token_source: str


def named_profile(options: TargetOptions, environ: Mapping[str, str]) -> ProfileGlance | None:
    """The saved profile the options resolve to (the one named, else the default) when nothing
    need be asked or said before the TUI opens; None for anything else: an ad hoc target, no
    profiles.toml or one that cannot be read, a profile it does not hold, no default, a
    `token_env` variable that is unset. Those go through the command line as before."""
    if chosen_ad_hoc_url(options, environ) is not None:
        return None
    name = options.profile or environ.get(PROFILE_ENV)
    try:
        data = read_toml(config_dir() / PROFILES_FILE)
    except ConfigError:
        return None
    tables = None if data is None else data.get("profiles")
    if not isinstance(tables, dict):
        return None
    if not name:
        name = data.get("default") if data is not None else None
    table = tables.get(name) if isinstance(name, str) else None
    if not isinstance(name, str) or not isinstance(table, dict):
        return None
    base_url, source = table.get("base_url"), _token_source(table, environ)
    if not isinstance(base_url, str) or source is None:
        return None
    return ProfileGlance(name, base_url.strip(), asks_first(table), source)


def _token_source(table: Mapping[str, object], environ: Mapping[str, str]) -> str | None:
    """Where the profile's token will come from (`targets.profile_token`'s order), None when
    it names a variable that is unset: "no token" is the command line's exit 4 before the TUI."""
    token_env = table.get("token_env")
    for variable in (TOKEN_ENV, token_env):
        if isinstance(variable, str) and environ.get(variable, "").strip():
            return f"${variable}"
    if table.get("token_command") is not None:
        return "the token command"
    if token_env is not None:
        return None
    return "the profile"


def saved_profile_names() -> list[str]:
    """The names of the profiles profiles.toml holds, in file order, read from the file alone
    (nothing is checked, no token read); none when there is no file or it cannot be read."""
    try:
        data = read_toml(config_dir() / PROFILES_FILE)
    except ConfigError:
        return []
    tables = None if data is None else data.get("profiles")
    if not isinstance(tables, dict):
        return []
    return [name for name, table in tables.items() if isinstance(table, dict)]
