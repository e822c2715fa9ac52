"""profiles.toml read and checked: its usable profiles, its default, its history limit and its
mistakes (`Finding`s, each with its line). `ProfileStore` reads it through `read_profiles`;
changing it is the store's."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plantstore_tui.core.config.files import ConfigFileError, parse_toml, read_bytes
from plantstore_tui.core.config.findings import Finding, FindingsOf, nearest, shown_value
from plantstore_tui.core.config.keymap import KEYMAP_KEY, check_keymap
from plantstore_tui.core.config.profiles import (
    FIELDS,
    InvalidProfile,
    Profile,
    profile_from_table,
)
from plantstore_tui.core.config.theme import THEME_KEY, check_theme

# The keys of profiles.toml's top level (each profile's are `profiles.FIELDS`).
TOP_LEVEL_KEYS = ("default", "profiles", "history_limit", THEME_KEY, KEYMAP_KEY)
_DEFAULT_HISTORY_LIMIT = 100_000


@dataclass(frozen=True, slots=True)
class SavedProfiles:
    """What profiles.toml holds now: usable profiles, the default, and what is wrong with it."""

    path: Path
    profiles: tuple[Profile, ...] = ()
    default: str | None = None
    # Profiles that are in the file but cannot be used, by name, with the reason.
    broken: Mapping[str, str] = field(default_factory=dict)
    # Each mistake in the file, in the file's order.
    findings: tuple[Finding, ...] = ()
    # Set when the file cannot be read at all (unreadable, not TOML): it is then never written.
    error: ConfigFileError | None = None
    # The most sends the history keeps (top-level `history_limit`); the oldest go first.
    history_limit: int = _DEFAULT_HISTORY_LIMIT
    # The default's name when it names a profile that cannot be used (`default` is then None).
    broken_default: str | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """The usable profiles' names, in file order."""
        return tuple(profile.name for profile in self.profiles)

    @property
    def problems(self) -> tuple[str, ...]:
        """Everything to tell the operator about the file, most serious first."""
        fatal = (str(self.error),) if self.error is not None else ()
        return (*fatal, *(str(finding) for finding in self.findings))

    def get(self, name: str) -> Profile | None:
        """The usable profile called `name`, or None."""
        return next((profile for profile in self.profiles if profile.name == name), None)


def profile_tables(path: Path, data: Mapping[str, Any]) -> dict[str, Any]:
    """The `[profiles.NAME]` tables; `ConfigFileError` when `profiles` is not a table."""
    tables = data.get("profiles", {})
    if not isinstance(tables, dict):
        raise ConfigFileError(path, "`profiles` must be a table of [profiles.NAME] tables")
    return tables


def read_profiles(path: Path, themes: Collection[str] | None = None) -> SavedProfiles:
    """Read and check profiles.toml; never raises: what cannot be used is in the result, each
    mistake a `Finding`. `themes`: the TUI's theme names, which the core does not know; a
    `theme` naming none of them is a finding."""
    try:
        raw = read_bytes(path, private=False)
        data = None if raw is None else parse_toml(path, raw)
        tables = profile_tables(path, data or {})
    except ConfigFileError as exc:
        return SavedProfiles(path, error=exc)
    if raw is None or data is None:
        return SavedProfiles(path)
    findings = FindingsOf(path, raw.decode("utf-8"))
    findings.unknown(data, TOP_LEVEL_KEYS, None, profile_keys=FIELDS)
    profiles: list[Profile] = []
    broken: dict[str, str] = {}
    for name, table in tables.items():
        protecting: tuple[str, ...] = ()
        if not isinstance(table, dict):
            broken[name] = f"Profile {name!r}: must be a table ([profiles.{name}])"
            findings.wrong(
                name,
                f"profile {name!r} cannot be used: it must be a table ([profiles.{name}]).",
                profile=name,
            )
            continue
        try:
            profile = profile_from_table(name, table)
        except InvalidProfile as exc:
            broken[name] = str(exc)
            for about, words in exc.problems:
                findings.wrong(
                    about or name,
                    f"profile {name!r} cannot be used: {words.rstrip('.')}.",
                    profile=name,
                )
        else:
            profiles.append(profile)
            protecting = profile.protected_by
        findings.unknown(table, FIELDS, name, protecting=protecting)
    history_limit = data.get("history_limit", _DEFAULT_HISTORY_LIMIT)
    if isinstance(history_limit, bool) or not isinstance(history_limit, int) or history_limit < 1:
        findings.wrong(
            "history_limit",
            "history_limit must be a whole number of sends, 1 or more; "
            f"{_DEFAULT_HISTORY_LIMIT:,} is used.",
        )
        history_limit = _DEFAULT_HISTORY_LIMIT
    if THEME_KEY in data:
        check_theme(findings, data[THEME_KEY], themes)
    if KEYMAP_KEY in data:
        # The TUI applies the keymap before its first key (`saved_keymap`); its mistakes are
        # said here, with the file's others, wherever the file is read.
        check_keymap(data[KEYMAP_KEY], findings)
    default = data.get("default")
    broken_default = None
    if default is not None and not isinstance(default, str):
        findings.wrong(
            "default",
            f"default must be the name of a profile in quotes; {shown_value(default)} is ignored.",
        )
        default = None
    elif default is not None and not any(profile.name == default for profile in profiles):
        if default in broken:
            broken_default = default
        else:
            findings.wrong(
                "default",
                f"the default profile {shown_value(default)} does not exist.",
                suggestion=nearest(default, tables),
            )
        default = None
    # In the file's order, as the operator reads it.
    found = tuple(sorted(findings.found, key=lambda finding: finding.line or 0))
    return SavedProfiles(
        path,
        tuple(profiles),
        default,
        broken,
        found,
        error=None,
        history_limit=history_limit,
        broken_default=broken_default,
    )
