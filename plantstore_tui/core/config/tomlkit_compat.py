"""The one place that touches tomlkit's private API; its guard is test_tomlkit_compat.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tomlkit.container import Container

if TYPE_CHECKING:
    import tomlkit.items

# The private names used below, as "Class.attribute": an upgrade that drops one fails the guard
# test by name instead of failing an operator's profile edit.
_USED = {"Container._insert_at": (Container, "_insert_at")}


def missing() -> tuple[str, ...]:
    """The private tomlkit names this module relies on that the installed tomlkit lacks."""
    return tuple(name for name, (owner, attr) in _USED.items() if not hasattr(owner, attr))


def insert_at(table: tomlkit.items.Table, position: int, key: str, value: object) -> None:
    """Insert `key = value` at `position` of `table`'s body: tomlkit has no public insert."""
    table.value._insert_at(position, key, value)
