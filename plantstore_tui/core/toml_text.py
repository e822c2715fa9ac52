"""TOML text read with a bound on how deep it nests: every TOML file the product reads
(profiles.toml, credentials.toml, a file of cases) is read through `loads`.

tomllib reads arrays and inline tables by recursion, so a file nested a few hundred deep ends in
a RecursionError, which no caller expects; one just under that depth can still exhaust the stack
of whatever walks the values next (a JSON encoder, tomlkit). No setting nests more than a few
levels, so a file past `MAX_DEPTH` is refused in words, like any file that does not parse.
"""

from __future__ import annotations

import re
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


# A string on one line (basic, with escapes, or literal), a multi-line string's quotes, and a run
# of bare key parts and dots: what `_longest_key` reads a line with.
_ONE_LINE_STRING = re.compile(r""""(?:[^"\\\n]|\\.)*"|'[^'\n]*'""")
_MULTILINE_QUOTES = re.compile(r'"""|\'\'\'')
_DOTTED_RUN = re.compile(r"[A-Za-z0-9_-]*(?:\s*\.\s*[A-Za-z0-9_-]*)+")


def _longest_key(text: str) -> int:
    """The most parts a dotted key of `text` may have (bare or quoted, in a header, before `=` or
    inside an inline table), read line by line; lines inside multi-line strings are skipped."""
    longest = 0
    in_string = False
    for line in text.splitlines():
        quotes = _MULTILINE_QUOTES.split(line)
        # Read up to the first multi-line quote: the key a multi-line string is the value of.
        read = "" if in_string else quotes[0]
        in_string = in_string != (len(quotes) % 2 == 0)
        # Each quoted part becomes one bare part, so only the dots between parts are counted.
        bare = _ONE_LINE_STRING.sub("q", read)
        for run in _DOTTED_RUN.finditer(bare):
            longest = max(longest, run.group().count(".") + 1)
    return longest


def loads(text: str) -> dict[str, Any]:
    """`tomllib.loads`, with a document nested past `MAX_DEPTH` refused as `TooDeep`."""
    # tomllib keeps every prefix of a dotted key: one of 20,000 parts (a 120 KB file) takes
    # gigabytes. A key that long is too deep whatever it holds, so it is refused unread.
    if _longest_key(text) > MAX_DEPTH + 1:
        raise TooDeep
    try:
        document = tomllib.loads(text)
    except RecursionError:
        raise TooDeep from None
    # The document itself is a table: its keys are the first level.
    if depth_of(document) - 1 > MAX_DEPTH:
        raise TooDeep
    return document
