"""`parse_id_range` and the words of a range of ids: what profiles.toml's `ids`, `profile
--ids` and `check --ids` accept, and what the form and `add` say of an id."""

from __future__ import annotations

import pytest

from plantstore_tui.core.plant.form import INT64_MAX, INT64_MIN
from plantstore_tui.core.plant.id_range import IdRange, parse_id_range, range_warning


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("70000-70999", IdRange(70000, 70999)),
        (" 1 - 1 ", IdRange(1, 1)),
        ("-100--1", IdRange(-100, -1)),
        ("+5-+9", IdRange(5, 9)),
        (f"{INT64_MIN}-{INT64_MAX}", IdRange(INT64_MIN, INT64_MAX)),
    ],
)
def test_a_range_is_read_with_both_ends_included(text: str, expected: IdRange) -> None:
    assert parse_id_range(text) == expected


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "written FIRST-LAST"),
        ("70000", "written FIRST-LAST"),
        ("1-2-3", "written FIRST-LAST"),
        ("1" * 40 + "-2", "written FIRST-LAST"),
        (f"0-{INT64_MAX + 1}", "must lie between"),
        ("9-1", "9 is more than 1"),
    ],
)
def test_anything_else_is_words(text: str, words: str) -> None:
    found = parse_id_range(text)
    assert isinstance(found, str)
    assert words in found


def test_the_warnings_name_the_range_and_count_down_its_last_ten() -> None:
    ids = IdRange(100, 119)
    assert range_warning(ids, 99) == "99 is outside this profile's ids (100-119)."
    assert range_warning(ids, 109) is None
    assert range_warning(ids, 110) == "10 ids left in 100-119, this one included."
    assert range_warning(ids, 119) == "1 id left in 100-119, this one included."
    assert str(ids) == "100-119"
