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


def dotted_key(parts: int) -> str:
    return ".".join(f"k{part}" for part in range(parts)) + " = 1"


@pytest.mark.parametrize(
    "text",
    [
        dotted_key(20_000),
        "a = {" + dotted_key(20_000) + "}",
        "[t]\n" + ".".join(f'"k {part}"' for part in range(20_000)) + " = 1",
        dotted_key(20_000)[:-1] + '"""\nmore\n"""',
    ],
    ids=["top level", "inline table", "quoted parts", "a multi-line value"],
)
def test_a_dotted_key_of_20000_parts_is_refused_before_tomllib_reads_it(text: str) -> None:
    # tomllib keeps each prefix of the key: read, this one takes gigabytes (a MemoryError).
    with pytest.raises(TooDeep):
        loads(text)


@pytest.mark.parametrize(
    "text",
    [
        dotted_key(MAX_DEPTH + 1),
        'raw = "' + "." * 5_000 + '"',
        "raw = '" + "a." * 5_000 + "'",
        'raw = """\n' + "a." * 5_000 + '\n"""',
        "pi = 3.14159\nwhen = 1979-05-27T07:32:00.999\nplaces = [1.5, 2.5, 3.5]",
    ],
    ids=["at the limit", "dots in a string", "in a literal", "in a multi-line string", "numbers"],
)
def test_dots_that_are_no_key_are_not_counted(text: str) -> None:
    assert loads(text) == tomllib.loads(text)
