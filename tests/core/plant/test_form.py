"""The form parser: exactly the valid texts are accepted, everything else is named and refused."""

from __future__ import annotations

import json
import re
import time
import unicodedata
from decimal import Decimal

import jsonschema_rs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from plantstore_tui.core.plant.form import (
    FORM_FIELDS,
    TEXT_PATTERN,
    FormErrors,
    FormField,
    field_error,
    find_forbidden_char,
    forbidden_char_message,
    is_forbidden_char,
    parse_id,
    parse_name,
    parse_tag,
)
from plantstore_tui.core.plant.models import NewPlant, parse_new_plant

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1

# Unicode's Bidi_Control property, written out here rather than taken from the module under test.
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


# The oracles: an independent statement of what the form accepts.


def forbidden(char: str) -> bool:
    """C0, DEL and C1 are Unicode's Cc; lone surrogates are Cs."""
    return unicodedata.category(char) in ("Cc", "Cs") or char in BIDI


def oracle_id(text: str) -> int | None:
    if any(forbidden(char) for char in text):
        return None
    trimmed = text.strip()
    digits = trimmed[1:] if trimmed[:1] in ("+", "-") else trimmed
    if not digits or any(char not in "0123456789" for char in digits):
        return None
    # Decimal has no digit limit, unlike int(str).
    value = Decimal(trimmed)
    return int(value) if INT64_MIN <= value <= INT64_MAX else None


def oracle_name(text: str) -> str | None:
    if any(forbidden(char) for char in text) or not text.strip():
        return None
    return text.strip()


def oracle_tag(text: str) -> tuple[bool, str | None]:
    """(valid, value): a blank tag is valid and absent."""
    if any(forbidden(char) for char in text):
        return False, None
    return True, text.strip() or None


# Text that often looks like an id, and text that often holds what the form must refuse.
id_like = st.one_of(
    st.text(max_size=30),
    st.integers().map(str),
    st.from_regex(r"\s*[+-]?[0-9]{1,25}\s*", fullmatch=True),
    st.text(alphabet="0123456789+-_ .eExX\u0663\uff12\t\x1c\x85\u202e\u3000", max_size=25),
)
tricky_chars = st.sampled_from(
    ["\x00", "\x1b", "\x1c", "\x7f", "\x85", "\x9b", "\ud800", "\udfff", "\u202e", "\u2066", " "]
)
form_text = st.one_of(
    st.text(max_size=40),
    st.lists(st.one_of(tricky_chars, st.characters()), max_size=12).map("".join),
)


@given(st.integers(INT64_MIN, INT64_MAX))
def test_every_int64_round_trips(value: int) -> None:
    assert parse_id(str(value)) == value
    assert parse_id(f"  {value}\u3000") == value
    assert field_error("id", str(value)) is None


@given(st.integers(0, INT64_MAX), st.integers(0, 30))
def test_a_plus_sign_and_leading_zeros_are_accepted(value: int, zeros: int) -> None:
    assert parse_id("+" + "0" * zeros + str(value)) == value


@given(st.one_of(st.integers(max_value=INT64_MIN - 1), st.integers(min_value=INT64_MAX + 1)))
def test_integers_outside_int64_are_refused_with_the_range(value: int) -> None:
    assert parse_id(str(value)) == f"ID must be between {INT64_MIN} and {INT64_MAX}"


@given(id_like)
@example("0" * 5000 + "7")
@example("-" + "0" * 5000)
def test_id_accepted_exactly_when_the_oracle_accepts(text: str) -> None:
    expected = oracle_id(text)
    parsed = parse_id(text)
    if expected is None:
        assert isinstance(parsed, str)
        assert field_error("id", text) == parsed
    else:
        assert parsed == expected
        assert field_error("id", text) is None


@pytest.mark.parametrize(
    "text",
    [
        "1.0",
        "1e3",
        "1_000",
        "0x10",
        "true",
        "\uff11\uff12",  # full-width 12
        "\u0663",  # Arabic-Indic 3
        "\u0967",  # Devanagari 1
        "1 2",
        "+",
        "-",
        "--1",
        "+-1",
        "½",
        "²",
    ],
)
def test_numbers_python_would_accept_are_not_ids(text: str) -> None:
    assert parse_id(text) == "ID must be a whole number: digits 0-9 with an optional sign"


@pytest.mark.parametrize("text", ["", " ", "\u3000", "\u2003 "])
def test_a_blank_id_is_required(text: str) -> None:
    assert parse_id(text) == "ID is required"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (str(INT64_MAX), INT64_MAX),
        (str(INT64_MIN), INT64_MIN),
        (str(INT64_MAX + 1), f"ID must be between {INT64_MIN} and {INT64_MAX}"),
        (str(INT64_MIN - 1), f"ID must be between {INT64_MIN} and {INT64_MAX}"),
        ("-0", 0),
        ("007", 7),
    ],
)
def test_int64_edges(text: str, expected: int | str) -> None:
    assert parse_id(text) == expected


@pytest.mark.parametrize("text", ["9" * 5000, "-" + "9" * 5000, "0" * 4000 + "9" * 1000])
def test_a_5000_digit_paste_is_refused_at_once(text: str) -> None:
    started = time.perf_counter()
    assert parse_id(text) == f"ID must be between {INT64_MIN} and {INT64_MAX}"
    # A conversion would raise past int()'s 4,300-digit limit; the check never converts.
    assert time.perf_counter() - started < 0.05


def test_leading_zeros_do_not_reach_ints_digit_limit() -> None:
    assert parse_id("0" * 5000 + "42") == 42


@pytest.mark.parametrize("char", ["\x1c", "\x1f", "\x85", "\x00"])
def test_controls_that_strip_counts_as_space_are_still_refused_in_an_id(char: str) -> None:
    assert parse_id(f"{char}12") == f"ID has a control character (U+{ord(char):04X}) at position 1"


@given(form_text)
def test_name_accepted_exactly_when_the_oracle_accepts(text: str) -> None:
    expected = oracle_name(text)
    parsed = parse_name(text)
    if expected is None:
        assert isinstance(parsed, FormErrors)
        assert set(parsed.errors) == {"name"}
        assert field_error("name", text) == parsed.errors["name"]
    else:
        assert parsed == expected
        assert field_error("name", text) is None


@given(form_text)
def test_tag_accepted_exactly_when_the_oracle_accepts(text: str) -> None:
    valid, value = oracle_tag(text)
    parsed = parse_tag(text)
    if valid:
        assert parsed == value
        assert field_error("tag", text) is None
    else:
        assert isinstance(parsed, FormErrors)
        assert set(parsed.errors) == {"tag"}


@pytest.mark.parametrize("text", ["", " ", " \u3000\u2003"])
def test_a_blank_name_is_required_and_a_blank_tag_is_absent(text: str) -> None:
    assert field_error("name", text) == "Name is required"
    assert parse_tag(text) is None


@given(
    st.text(max_size=20).filter(lambda text: not any(forbidden(char) for char in text)),
    st.sampled_from(sorted({*"\x00\x1b\x1c\x7f\x85\x9b\ud800\udfff", *BIDI})),
    st.text(max_size=20),
    st.sampled_from(["Name", "Tag"]),
)
def test_a_forbidden_character_is_named_with_its_1_based_position(
    before: str, char: str, after: str, label: str
) -> None:
    text = before + char + after
    message = forbidden_char_message(label, text)
    assert message is not None
    assert message.startswith(f"{label} has ")
    assert message.endswith(f"(U+{ord(char):04X}) at position {len(before) + 1}")
    field: FormField = "name" if label == "Name" else "tag"
    assert field_error(field, text) == message


@pytest.mark.parametrize(
    ("char", "kind"),
    [
        ("\x1b", "a control character"),
        ("\x7f", "a control character"),
        ("\x9b", "a control character"),
        ("\ud83c", "a lone surrogate"),
        ("\u202e", "a bidirectional control character"),
        ("\u2067", "a bidirectional control character"),
    ],
)
def test_the_message_says_what_kind_of_character(char: str, kind: str) -> None:
    assert field_error("name", f"ab{char}") == f"Name has {kind} (U+{ord(char):04X}) at position 3"


@given(st.characters())
def test_is_forbidden_char_matches_the_oracle(char: str) -> None:
    assert is_forbidden_char(char) == forbidden(char)


@given(st.text())
def test_the_first_forbidden_character_is_the_oracle_s(text: str) -> None:
    first = next(((index + 1, char) for index, char in enumerate(text) if forbidden(char)), None)
    assert find_forbidden_char(text) == first


def test_ordinary_unicode_names_are_welcome() -> None:
    for name in ["Monstera deliciosa", "Fittonia 🌿", "ツツジ", "Kaktüs", "נענע", "a\u0301"]:
        assert parse_name(name) == name


@given(form_text, id_like, form_text)
def test_parse_new_plant_accepts_exactly_the_valid_set(name: str, id_text: str, tag: str) -> None:
    wanted_name, wanted_id = oracle_name(name), oracle_id(id_text)
    tag_valid, wanted_tag = oracle_tag(tag)
    parsed = parse_new_plant(name=name, id=id_text, tag=tag)
    bad = {
        field
        for field, ok in (
            ("name", wanted_name is not None),
            ("id", wanted_id is not None),
            ("tag", tag_valid),
        )
        if not ok
    }
    if bad:
        assert isinstance(parsed, FormErrors)
        assert set(parsed.errors) == bad
        assert parsed.first_field() == next(field for field in FORM_FIELDS if field in bad)
        return
    assert isinstance(parsed, NewPlant)
    assert (parsed.id, parsed.name, parsed.tag) == (wanted_id, wanted_name, wanted_tag)
    body = parsed.to_body()
    expected_body = {"id": wanted_id, "name": wanted_name}
    if wanted_tag is not None:
        expected_body["tag"] = wanted_tag
    assert body == expected_body
    # What is accepted can always be sent: no lone surrogate reaches the UTF-8 encoder.
    json.dumps(body, ensure_ascii=False).encode("utf-8")


def test_every_bad_field_is_reported_at_once_in_form_order() -> None:
    parsed = parse_new_plant(name=" ", id="x", tag="a\x1bb")
    assert isinstance(parsed, FormErrors)
    assert dict(parsed.errors) == {
        "name": "Name is required",
        "id": "ID must be a whole number: digits 0-9 with an optional sign",
        "tag": "Tag has a control character (U+001B) at position 2",
    }
    assert parsed.first_field() == "name"
    assert FormErrors({"tag": "x", "id": "y"}).first_field() == "id"


@pytest.mark.parametrize("tag", ["", "   ", "\u3000"])
def test_a_blank_tag_is_left_out_of_the_body(tag: str) -> None:
    parsed = parse_new_plant(name=" Fern ", id=" 7 ", tag=tag)
    assert isinstance(parsed, NewPlant)
    assert parsed.to_body() == {"id": 7, "name": "Fern"}


# --- the same rule as a JSON Schema pattern (serve's OpenAPI document) ---------------------------

JSON_SCHEMA_TEXT = jsonschema_rs.validator_for({"type": "string", "pattern": TEXT_PATTERN})


def test_the_patterns_spaces_are_every_space_strip_takes_that_is_not_forbidden() -> None:
    every = (chr(code) for code in range(0x110000))
    spaces = {char for char in every if char.isspace() and not is_forbidden_char(char)}
    text_pattern = re.compile(TEXT_PATTERN)
    for char in spaces:
        assert not text_pattern.search(char * 3), f"U+{ord(char):04X}"
        assert text_pattern.search(f"{char}a{char}"), f"U+{ord(char):04X}"


@given(st.text())
@example(" ")
@example("\u3000")
@example("\ufeff")
@example("a\u202e")
@example("0\n")  # Python's `$` matches before a last newline
def test_the_pattern_takes_exactly_the_names_the_form_takes(text: str) -> None:
    taken = isinstance(parse_name(text), str)
    assert (re.search(TEXT_PATTERN, text) is not None) is taken
    # As Schemathesis reads a JSON Schema pattern: Python's re with re.ASCII to draw values, the
    # validator (jsonschema-rs, Rust's regex) to judge them.
    assert (re.search(TEXT_PATTERN, text, re.ASCII) is not None) is taken
    assert JSON_SCHEMA_TEXT.is_valid(text) is taken
