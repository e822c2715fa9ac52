"""The keys of a `[profiles.NAME]` table, which of them are safety settings, and the one rule for
a key that looks like a misspelt safety setting: the profile is protected until the file is
fixed (docs/configuration.md, "A misspelt safety setting"). Light to import (no httpx, no
Pydantic): the glance before the TUI's first frame applies the rule too."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from plantstore_tui.core.config.findings import nearest

# The settings of a [profiles.NAME] table, in the order they are written.
FIELDS = (
    "base_url",
    "token_env",
    "token_command",
    "protected",
    "timeout",
    "allow_insecure_http",
    "ca_bundle",
    "proxy",
    "history",
    "verify",
    "ids",
)
# The settings that make sends more careful than without them: a question before each send, each
# plant keyed twice, ids kept to the operator's range. Ignoring a misspelling of one would send
# with less care than the operator asked for, unnoticed.
SAFETY_FIELDS = ("protected", "verify", "ids")


def misspelt_safety(keys: Iterable[str]) -> tuple[str, ...]:
    """The keys that are no setting of a profile but whose nearest setting is a safety one
    (`SAFETY_FIELDS`): `protectd`, `Protected`, `verfy`, `idz`."""
    return tuple(key for key in keys if key not in FIELDS and nearest(key, FIELDS) in SAFETY_FIELDS)


def asks_first(table: Mapping[str, object]) -> bool:
    """Whether sends to the profile of `table` ask first: `protected = true`, or a key that
    looks like a misspelt safety setting (whatever its value: which one was meant is unknown)."""
    return table.get("protected") is True or bool(misspelt_safety(table))
