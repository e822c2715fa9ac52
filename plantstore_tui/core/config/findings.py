"""Mistakes in profiles.toml, each named by its file, line and key: a setting that does not
exist (with the nearest one that does) or a value that cannot be used. `ProfileStore.load`
makes them; the TUI and the command line show them in the same words (`str(finding)`)."""

from __future__ import annotations

import difflib
import json
import re
import tomllib
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import NamedTuple

from plantstore_tui.core import toml_text

# One part of a dotted key: bare, "basic" (with escapes) or 'literal'.
_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_DOTTED = rf"{_PART}(?:\s*\.\s*{_PART})*"
_HEADER = re.compile(rf"\s*\[\s*({_DOTTED})\s*\]")
_ARRAY_HEADER = re.compile(r"\s*\[\[")
_KEY = re.compile(rf"\s*({_DOTTED})\s*=")
_MULTILINE_QUOTES = re.compile(r'"""|\'\'\'')


class Finding(NamedTuple):
    """One mistake in a config file: where it is, which key, what is wrong with it."""

    path: Path
    # The line of the key (or of its table when the key is not on a line of its own); None
    # when it cannot be found.
    line: int | None
    key: str
    # The profile whose table holds the key; None for the top level.
    profile: str | None
    # What is wrong and what is done instead, as a sentence (after the file and line).
    problem: str
    # The nearest key (or name) that exists, for a misspelling.
    suggestion: str | None = None

    def __str__(self) -> str:
        where = f"{self.path}, line {self.line}" if self.line is not None else str(self.path)
        return f"{where}: {self._said()}"

    def without_path(self) -> str:
        """The words without the file's path, for where the file is named already: its line
        (when known), what is wrong, the nearest key."""
        return self._said() if self.line is None else f"Line {self.line}: {self._said()}"

    def _said(self) -> str:
        hint = f" Did you mean `{self.suggestion}`?" if self.suggestion is not None else ""
        return f"{self.problem}{hint}"


def nearest(word: str, known: Iterable[str]) -> str | None:
    """The known word `word` is most likely a misspelling of, if one is close enough; case is
    no difference (`PROTECTED` is `protected` with the caps lock on)."""
    by_folded = {name.casefold(): name for name in known}
    close = difflib.get_close_matches(word.casefold(), list(by_folded), n=1)
    return by_folded[close[0]] if close else None


def _dotted(text: str) -> tuple[str, ...] | None:
    """The parts of a dotted key as TOML reads them (quotes and escapes undone)."""
    try:
        parsed: object = toml_text.loads(f"{text} = 0")
    except tomllib.TOMLDecodeError:
        return None
    parts: list[str] = []
    while isinstance(parsed, dict) and len(parsed) == 1:
        [(part, parsed)] = parsed.items()
        parts.append(part)
    return tuple(parts)


class KeyLines:
    """Where each table and key of a TOML text starts, found by reading its lines.

    tomllib gives no positions: each `[table]` header and `key =` line is read as TOML reads
    it, and the first line of each full key path is kept. Lines inside a multi-line string are
    skipped; a key inside an inline table is found at the line of the table's own key.
    """

    def __init__(self, text: str) -> None:
        self._lines: dict[tuple[str, ...], int] = {}
        table: tuple[str, ...] | None = ()
        in_string = False
        for number, line in enumerate(text.splitlines(), start=1):
            if in_string:
                in_string = len(_MULTILINE_QUOTES.findall(line)) % 2 == 0
                continue
            header = None if _ARRAY_HEADER.match(line) else _HEADER.match(line)
            if header is not None:
                table = _dotted(header[1])
                if table is not None:
                    self._lines.setdefault(table, number)
            elif _ARRAY_HEADER.match(line):
                table = None  # an array of tables: nothing in it is looked for
            elif table is not None and (key := _KEY.match(line)) is not None:
                parts = _dotted(key[1])
                if parts is not None:
                    self._lines.setdefault((*table, *parts), number)
            in_string = len(_MULTILINE_QUOTES.findall(line)) % 2 == 1

    def line(self, *path: str) -> int | None:
        """The line of the key `path` (e.g. "profiles", "local", "protected"), else of the
        nearest table or key holding it that has a line; None if none has."""
        for end in range(len(path), 0, -1):
            found = self._lines.get(path[:end])
            if found is not None:
                return found
        return None


class FindingsOf:
    """The findings of one file, made as it is checked."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = KeyLines(text)
        self.found: list[Finding] = []

    def unknown(
        self,
        keys: Iterable[str],
        known: Collection[str],
        profile: str | None,
        *,
        profile_keys: Collection[str] = (),
        protecting: Collection[str] = (),
    ) -> None:
        """A finding for each of `keys` not `known`, with the nearest known one; a key of
        `profile_keys` (at the top level) is said to belong in a profile, and one of
        `protecting` to make the profile protected until it is fixed."""
        for key in keys:
            if key in known:
                continue
            if key in profile_keys:
                self.wrong(
                    key,
                    f"`{key}` is a setting of a profile: it belongs under a [profiles.NAME] "
                    "header, so here it is ignored.",
                )
                continue
            where = () if profile is None else ("profiles", profile)
            if profile is None:
                problem = f"there is no setting `{key}`, so it is ignored."
            elif key in protecting:
                problem = (
                    f"profile {profile!r} has no setting `{key}`, and it looks like a safety "
                    "setting: until the file is fixed the profile is treated as protected "
                    "(each send asks first)."
                )
            else:
                problem = f"profile {profile!r} has no setting `{key}`, so it is ignored."
            line = self.lines.line(*where, key)
            self.found.append(Finding(self.path, line, key, profile, problem, nearest(key, known)))

    def wrong(
        self, key: str, problem: str, *, profile: str | None = None, suggestion: str | None = None
    ) -> None:
        """A finding of a value that cannot be used: `problem` says what is done instead."""
        where = () if profile is None else ("profiles", profile)
        line = self.lines.line(*where, key)
        self.found.append(Finding(self.path, line, key, profile, problem, suggestion))


def shown_value(value: object) -> str:
    """A value of the file as TOML spells it (short), for the words of a finding."""
    try:
        spelt = json.dumps(value, ensure_ascii=False)
    except TypeError:
        spelt = str(value)
    return spelt if len(spelt) <= 40 else spelt[:39] + "…"
