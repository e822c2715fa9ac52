"""The one TOML reader: a document nested past MAX_DEPTH is refused as one that does not parse,
however deep (tomllib alone ends in a RecursionError); one within it reads as tomllib reads
it."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from plantstore_tui.core.toml_text import MAX_DEPTH, TooDeep, depth_of, loads


def nested_array(depth: int) -> str:
    return "a = " + "[" * depth + "]" * depth


def nested_inline_table(depth: int) -> str:
    return "a = " + "{b = " * (depth - 1) + "{}" + "}" * (depth - 1)


def nested_tables(depth: int) -> str:
    return "[" + ".".join(f"t{level}" for level in range(depth)) + "]"


@pytest.mark.parametrize("shape", [nested_array, nested_inline_table, nested_tables])
@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 500, 20_000])
def test_past_the_limit_is_refused_as_toml_that_does_not_parse(shape: object, depth: int) -> None:
    assert callable(shape)
    with pytest.raises(tomllib.TOMLDecodeError, match=f"nested more than {MAX_DEPTH} levels"):
        loads(shape(depth))
    with pytest.raises(TooDeep):
        loads(shape(depth))


@pytest.mark.parametrize("shape", [nested_array, nested_inline_table, nested_tables])
def test_at_the_limit_it_reads_as_tomllib_reads_it(shape: object) -> None:
    assert callable(shape)
    text = shape(MAX_DEPTH)
    assert loads(text) == tomllib.loads(text)
    assert depth_of(loads(text)) - 1 == MAX_DEPTH


def test_a_profile_is_two_levels_deep() -> None:
    document = loads('[profiles.local]\nbase_url = "https://plants.example.com"\n')
    assert depth_of(document) - 1 == 2


@given(st.recursive(st.integers(), lambda inner: st.lists(inner, max_size=3), max_leaves=20))
def test_depth_of_counts_the_arrays_inside_each_other(value: object) -> None:
    def by_recursion(item: object) -> int:
        if isinstance(item, list):
            return 1 + max((by_recursion(child) for child in item), default=0)
        return 0

    assert depth_of(value) == by_recursion(value)
