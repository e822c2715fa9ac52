"""Edits to profiles.toml's text with tomlkit, keeping the operator's comments and order."""

from __future__ import annotations

from collections.abc import Mapping

import tomlkit
import tomlkit.items

from plantstore_tui.core.config.tomlkit_compat import insert_at

# Each function takes the file's text and returns the new text. The store reads every result back
# before saving it, so an edit tomlkit gets wrong in some odd layout is never written.


def appended(text: str, name: str, fields: Mapping[str, object]) -> str:
    """`text` with a `[profiles.NAME]` table added at the end: every byte before it untouched."""
    snippet = tomlkit.dumps({"profiles": {name: _table(fields)}})
    separator = "" if not text.strip() else "\n" if text.endswith("\n") else "\n\n"
    return text + separator + snippet


def with_profile(text: str, name: str, fields: Mapping[str, object]) -> str:
    """`text` with a `[profiles.NAME]` table added where tomlkit puts it, for files `appended`
    cannot extend (dotted keys, a `profiles` that is not a table of tables)."""
    document = tomlkit.parse(text)
    document.setdefault("profiles", tomlkit.table(is_super_table=True))[name] = _table(fields)
    return tomlkit.dumps(document)


def with_default(text: str, name: str) -> str:
    """`text` with `default = NAME` set."""
    return with_top_level(text, "default", name)


def with_top_level(text: str, key: str, value: str) -> str:
    """`text` with the top-level setting `key = VALUE` set (above the first table)."""
    document = tomlkit.parse(text)
    document[key] = value
    return tomlkit.dumps(document)


def with_settings(text: str, name: str, changes: Mapping[str, object | None]) -> str:
    """`text` with settings of `[profiles.NAME]` set (a value of None removes the setting)."""
    document = tomlkit.parse(text)
    table = document["profiles"][name]
    for key, value in changes.items():
        if value is None:
            del table[key]
        else:
            _set_setting(table, key, value)
    return tomlkit.dumps(document)


def without_profile(text: str, name: str) -> str:
    """`text` without `[profiles.NAME]` (nor `default = NAME`), keeping the comments below it."""
    document = tomlkit.parse(text)
    unplaced = _remove_table(document["profiles"], name)
    if document.get("default") == name:
        del document["default"]
    changed = tomlkit.dumps(document) + unplaced
    # Removing the first table can leave the blank line that preceded it at the top.
    return changed if text.startswith("\n") else changed.lstrip("\n")


def _toml_value(value: object) -> object:
    # 20 seconds reads better as `timeout = 20` than `timeout = 20.0`.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _table(fields: Mapping[str, object]) -> tomlkit.items.Table:
    table = tomlkit.table()
    for key, value in fields.items():
        table[key] = _toml_value(value)
    return table


def _after_last_setting(table: tomlkit.items.Table) -> int:
    # tomlkit files the comments and blank lines above a [profiles.NEXT] header under the
    # table before it; they belong to NEXT, so edits treat them as NEXT's.
    body = table.value.body
    return 1 + max((index for index, (key, _) in enumerate(body) if key is not None), default=-1)


def _set_setting(table: tomlkit.items.Table, key: str, value: object) -> None:
    position = _after_last_setting(table)
    if key in table or position == len(table.value.body):
        table[key] = _toml_value(value)
    else:
        # A new key goes under the last setting, above the next table's comments.
        insert_at(table, position, key, _toml_value(value))


def _remove_table(tables: tomlkit.items.Table, name: str) -> str:
    """Delete `[profiles.NAME]`, keeping the comments below it; returns those left unplaced."""
    if not isinstance(tables, tomlkit.items.Table):
        # [profiles] written after [profiles.NAME] comes back as a proxy without a layout.
        del tables[name]
        return ""
    table = tables[name]
    body = list(tables.value.body)
    index = next(i for i, (key, _) in enumerate(body) if key is not None and key.key == name)
    carried = "".join(
        item.as_string() for _, item in table.value.body[_after_last_setting(table) :]
    )
    del tables[name]
    if not carried.strip():
        return ""
    following = [item for key, item in body[index + 1 :] if key is not None]
    if following and isinstance(following[0], tomlkit.items.Table):
        following[0].trivia.indent = carried.lstrip("\n") + following[0].trivia.indent
        return ""
    return carried
