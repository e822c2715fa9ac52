"""Plants as an operator types them, and what a reference server's database says arrived.

Shared by tests/test_pty_burst.py and benchmarks/typing_burst.py; standard library only.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path

Record = tuple[str, str, str]
"""A plant as typed: name, id, tag ("" is a tag left empty, which is sent as no tag at all)."""
Row = tuple[int, str, str | None]
"""A stored plant: id, name, tag."""

_SHOWN_ROWS = 5


def keys_for(records: Sequence[Record]) -> bytes:
    """What an operator types for these plants: Name, Tab, ID, Tab, Tag, Enter, for each."""
    return "".join(f"{name}\t{plant_id}\t{tag}\r" for name, plant_id, tag in records).encode()


def expected_rows(records: Sequence[Record]) -> list[Row]:
    """The rows these plants make in the server's database, in the order typed."""
    return [(int(plant_id), name, tag or None) for name, plant_id, tag in records]


def stored_plants(db_path: Path) -> list[Row]:
    """The plants in the server's database, in the order they were stored."""
    # The id is the rowid, so rowid order is id order: created_at (to the millisecond) is the
    # order of arrival. Plants sent one after another with the server's delay cannot share a
    # millisecond; rowid only breaks ties between plants sent at once.
    with closing(sqlite3.connect(db_path)) as connection:
        rows = connection.execute(
            "SELECT id, name, tag FROM plants ORDER BY created_at, rowid"
        ).fetchall()
    return [(plant_id, name, tag) for plant_id, name, tag in rows]


def describe_arrival(expected: Sequence[Row], stored: Sequence[Row]) -> str:
    """How `stored` differs from `expected`: plants lost, plants made up or mixed, the order."""
    lines = [f"{len(stored)} of {len(expected)} plants stored"]
    expected_set, stored_set = set(expected), set(stored)
    lost = [row for row in expected if row not in stored_set]
    made_up = [row for row in stored if row not in expected_set]
    for label, rows in (("typed, not stored", lost), ("stored, not typed", made_up)):
        lines += [f"  {label}: {row}" for row in rows[:_SHOWN_ROWS]]
        if len(rows) > _SHOWN_ROWS:
            lines.append(f"  ... and {len(rows) - _SHOWN_ROWS} more {label}")
    if not lost and not made_up and list(stored) != list(expected):
        pairs = zip(expected, stored, strict=True)
        first = next(i for i, (want, got) in enumerate(pairs) if want != got)
        lines.append(
            f"  every plant arrived, but out of order from plant {first + 1}: "
            f"typed {expected[first]}, stored {stored[first]} there"
        )
    return "\n".join(lines)
