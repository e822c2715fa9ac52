"""JSON Lines read strictly: one object a line, each key once, no row past the row limit, and
a number too long for an id given the id's range rule (never Python's own limits in its words).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO, Any

from plantstore_tui.core.errors import PlantStoreError
from plantstore_tui.core.importing.rows import (
    ESCAPED_BYTE,
    FIELDS,
    MAX_ROW_CHARACTERS,
    READ_CHUNK,
    TOO_LONG,
    FileProblem,
    RowProblem,
    SourceRow,
    decoded,
)
from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.plant.text import shorten, visible

# Digits a JSON number keeps as an int: an id is at most 19 of them; beyond this it is kept as
# its text and given the id's range rule (int() of thousands of digits is refused, or slow).
_MAX_NUMBER_DIGITS = 40


def jsonl_rows(stream: IO[bytes]) -> Iterator[SourceRow | RowProblem]:
    """Each line of a JSON Lines file as a row's texts, or why it is not a plant; FileProblem at
    a line that is not UTF-8."""
    # Lines end at "\n" only (a "\r" inside a line is JSON's whitespace), and none is read past
    # the row limit: the rest of a longer one is read in chunks and dropped.
    text = decoded(stream, newline="\n")
    try:
        number = 0
        while line := text.readline(MAX_ROW_CHARACTERS + 1):
            number += 1
            if len(line) > MAX_ROW_CHARACTERS:
                while line and not line.endswith("\n"):
                    line = text.readline(READ_CHUNK)
                yield RowProblem(number, "row", TOO_LONG)
                continue
            if ESCAPED_BYTE.search(line):
                raise FileProblem("not UTF-8 text", number)
            if line.strip():
                yield _jsonl_row(number, line)
    finally:
        text.detach()


class _RepeatedKey(PlantStoreError):
    """An object gives one key twice (JSON allows it; which value counts is anyone's guess)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return value


class _LongNumber(str):
    """A JSON integer of more digits than any id has, kept as its text."""

    __slots__ = ()


def _number(text: str) -> int | _LongNumber:
    digits = len(text) - text.startswith("-")
    return int(text) if digits <= _MAX_NUMBER_DIGITS else _LongNumber(text)


def _shown_json(item: object) -> str:
    if isinstance(item, _LongNumber):
        return f"a number of {len(item.lstrip('-')):,} digits"
    return shorten(json.dumps(item), 40)


def _jsonl_row(number: int, line: str) -> SourceRow | RowProblem:
    try:
        value = json.loads(line, object_pairs_hook=_object, parse_int=_number)
    except _RepeatedKey as exc:
        key = shorten(visible(exc.key), 40)
        return RowProblem(number, "json", f"the key '{key}' is given twice (each key once)")
    except (ValueError, RecursionError) as exc:
        message = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
        return RowProblem(number, "json", f"not JSON: {message}")
    if not isinstance(value, dict):
        return RowProblem(number, "json", f"not an object but {_kind(value)}")
    unknown = sorted(set(value) - set(FIELDS))
    if unknown:
        key = shorten(visible(unknown[0]), 40)
        return RowProblem(number, "json", f"unknown key '{key}' (a plant has name, id and tag)")
    texts: dict[str, str] = {}
    for name in FIELDS:
        item = value.get(name)
        if item is None and name == "tag":
            texts[name] = ""
        elif name == "id" and isinstance(item, int | _LongNumber) and not isinstance(item, bool):
            # A number too long for an id gets the id's range rule, in the form's words.
            texts[name] = str(item)
        elif isinstance(item, str) and not isinstance(item, _LongNumber):
            texts[name] = item
        elif item is None:
            return RowProblem(number, name, f"{name.capitalize()} is required")
        else:
            kind = "a whole number or a string" if name == "id" else "a string"
            return RowProblem(number, name, f"must be {kind}, not {_shown_json(item)}")
    return SourceRow(number, FormTexts(name=texts["name"], id=texts["id"], tag=texts["tag"]))


def _kind(value: object) -> str:
    return "a number" if isinstance(value, _LongNumber) else type(value).__name__
