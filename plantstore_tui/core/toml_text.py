"""TOML text read with a bound on how deep it nests: every TOML file the product reads
(profiles.toml, credentials.toml, a file of cases) is read through `loads`.

tomllib reads arrays and inline tables by recursion, so a file nested a few hundred deep ends in
a RecursionError, which no caller expects; one just under that depth can still exhaust the stack
of whatever walks the values next (a JSON encoder, tomlkit). No setting nests more than a few
levels, so a file past `MAX_DEPTH` is refused in words, like any file that does not parse.
"""

from __future__ import annotations

import tomllib
from typing import Any

from plantstore_tui.core.errors import PlantStoreError

# Levels of tables, arrays and inline tables: `[profiles.local]` with its keys is 2.
MAX_DEPTH = 32


class TooDeep(tomllib.TOMLDecodeError, PlantStoreError):
    """TOML nested deeper than `MAX_DEPTH`; a `TOMLDecodeError`, so every reader refuses it as
    a file that does not parse."""

    def __init__(self) -> None:
        # ValueError's constructor, not TOMLDecodeError's: from Python 3.14 that one wants the
        # document and a position, which a depth has none of.
        ValueError.__init__(
            self,
            f"it is nested more than {MAX_DEPTH} levels deep (tables, arrays and inline tables "
            "inside each other), deeper than any setting goes",
        )


def depth_of(value: object) -> int:
    """How many tables and arrays `value` holds inside each other (0 for a plain value)."""
    deepest = 0
    # Walked with a list, not by recursion: the value may be as deep as the stack allows.
    pending: list[tuple[object, int]] = [(value, 0)]
    while pending:
        item, level = pending.pop()
        if isinstance(item, dict):
            children: list[Any] = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            deepest = max(deepest, level)
            continue
        deepest = max(deepest, level + 1)
        pending.extend((child, level + 1) for child in children)
    return deepest


def loads(text: str) -> dict[str, Any]:
    """`tomllib.loads`, with a document nested past `MAX_DEPTH` refused as `TooDeep`."""
    try:
        document = tomllib.loads(text)
    except RecursionError:
        raise TooDeep from None
    # The document itself is a table: its keys are the first level.
    if depth_of(document) - 1 > MAX_DEPTH:
        raise TooDeep
    return document
