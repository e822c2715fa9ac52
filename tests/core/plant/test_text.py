"""Server text made safe for a terminal: every control, ESC, DEL, bidi and zero-width character
shown, never obeyed or hidden."""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from plantstore_tui.core.plant.text import (
    SHOWN,
    ShownBody,
    bounded_json,
    clipped,
    plural,
    shorten,
    shown_body,
    visible,
)

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
LINE_BREAKERS = "\u2028\u2029\ufeff"
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"


def dangerous(char: str) -> bool:
    """Anything a terminal may act on, that reorders or breaks the line, or that a terminal
    does not draw at all (the format characters, Cf)."""
    return unicodedata.category(char) in ("Cc", "Cs", "Cf") or char in BIDI + LINE_BREAKERS


C0_C1_DEL = [chr(code) for code in [*range(0x20), 0x7F, *range(0x80, 0xA0)]]


@pytest.mark.parametrize(
    "char", C0_C1_DEL + list(BIDI + LINE_BREAKERS + ZERO_WIDTH) + ["\ud800", "\udfff", "\u00ad"]
)
def test_every_control_bidi_zero_width_and_surrogate_becomes_a_visible_escape(char: str) -> None:
    shown = visible(f"a{char}b")
    assert shown.startswith("a\\")
    assert shown.endswith("b")
    assert not any(dangerous(c) for c in shown)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[2J", "\\e[2J"),
        ("\x1b]52;c;cm0gLXJmIH4=\x07", "\\e]52;c;cm0gLXJmIH4=\\x07"),
        ("\x9b31m", "\\x9b31m"),
        ("\x7f", "\\x7f"),
        ("a\tb\r\nc", "a\\tb\\r\\nc"),
        ("\u202eevil", "\\u202eevil"),
        ("\ud83c", "\\ud83c"),
        ("Ro\u200bse", "Ro\\u200bse"),
        ("\ufeffFern\u2060", "\\ufeffFern\\u2060"),
    ],
)
def test_escapes_read_as_what_they_are(text: str, shown: str) -> None:
    assert visible(text) == shown


def test_newlines_may_be_kept_but_nothing_else() -> None:
    assert visible("a\nb\r\x1b", keep_newlines=True) == "a\nb\\r\\e"


def test_markup_and_ordinary_unicode_are_left_alone() -> None:
    text = "[bold red]x[/] Monstera 🌿 ツツジ نعناع é"
    assert visible(text) == text


@given(st.text())
def test_nothing_dangerous_survives_and_the_result_can_always_be_encoded(text: str) -> None:
    shown = visible(text)
    assert not any(dangerous(char) for char in shown)
    shown.encode("utf-8")


@given(st.text().filter(lambda text: not any(dangerous(char) for char in text)))
def test_safe_text_is_unchanged(text: str) -> None:
    assert visible(text) == text


@pytest.mark.parametrize(
    ("count", "words"),
    [(0, "0 plants"), (1, "1 plant"), (3, "3 plants"), (1500, "1,500 plants"), (-1, "-1 plants")],
)
def test_plural_fits_the_noun_to_the_count(count: int, words: str) -> None:
    assert plural(count, "plant") == words


def test_plural_takes_a_plural_not_made_with_s() -> None:
    assert plural(1, "entry", "entries") == "1 entry"
    assert plural(2, "entry", "entries") == "2 entries"
    assert plural(1, "more plant is", "more plants are") == "1 more plant is"


def test_shorten_leaves_short_text_alone() -> None:
    assert shorten("abc", 3) == "abc"


def test_shorten_names_the_full_size_and_how_much_is_shown() -> None:
    assert shorten("x" * 2010, 2000) == "x" * 2000 + "… (2,010 characters, first 2,000 shown)"
    assert shorten("R" * 1_048_560, what="name") == (
        "R" * SHOWN + f"… (name: 1,048,560 characters, first {SHOWN} shown)"
    )


def test_shorten_of_a_start_read_from_a_file_names_the_whole_size() -> None:
    assert (
        shorten("x" * SHOWN, size=5000)
        == "x" * SHOWN + f"… (5,000 characters, first {SHOWN} shown)"
    )
    assert shorten("abc", size=3) == "abc"


@given(st.text(), st.integers(0, 50))
def test_shorten_keeps_a_prefix_of_at_most_limit_characters(text: str, limit: int) -> None:
    short = shorten(text, limit)
    if len(text) <= limit:
        assert short == text
    else:
        assert short.startswith(text[:limit])
        assert short.endswith(f"({len(text):,} characters, first {limit:,} shown)")


def test_clipped_fits_any_width_an_ellipsis_marking_the_cut() -> None:
    assert clipped("Monstera", 8) == "Monstera"
    assert clipped("Monstera", 5) == "Mons…"
    assert clipped("Monstera", 1) == "…"
    # No room at all (a status part squeezed away): nothing, not the text less a character.
    assert clipped("Monstera", 0) == ""


def test_bounded_json_cuts_each_long_text_and_names_where_it_was() -> None:
    value = {"name": "R" * 1_048_560, "tag": "short", "k" * 300: ["x" * 201, 7, None]}
    shown, notes = bounded_json(value)
    assert shown["name"] == "R" * SHOWN + "…"
    assert shown["tag"] == "short"
    assert "k" * SHOWN + "…" in shown
    assert shown["k" * SHOWN + "…"] == ["x" * SHOWN + "…", 7, None]
    assert notes == (
        f"name: 1,048,560 characters, first {SHOWN} shown",
        f"{'k' * 40}…[0]: 201 characters, first {SHOWN} shown",
        f"a key of the body: 300 characters, first {SHOWN} shown",
    )
    assert bounded_json({"name": "Fern", "n": [1, 2.5, True]}) == (
        {"name": "Fern", "n": [1, 2.5, True]},
        (),
    )


@given(
    st.recursive(
        st.none() | st.integers() | st.text(),
        lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    )
)
def test_bounded_json_never_shows_a_text_longer_than_the_limit(value: object) -> None:
    shown, _ = bounded_json(value, limit=5)

    def texts(item: object) -> list[str]:
        if isinstance(item, str):
            return [item]
        if isinstance(item, list):
            return [text for inner in item for text in texts(inner)]
        if isinstance(item, dict):
            return [text for key, inner in item.items() for text in [key, *texts(inner)]]
        return []

    assert all(len(text) <= 6 for text in texts(shown))


def test_bounded_json_leaves_out_what_is_nested_too_deep_to_read() -> None:
    # As deep as a JSON parser takes, deeper than a recursion can walk.
    deep = json.loads("[" * 900 + "]" * 900)
    shown, notes = bounded_json({"name": "Fern", "deep": deep})
    assert shown["name"] == "Fern"
    assert notes == (f"deep{'[0]' * 19}: nested deeper than 20 levels, not shown",)


def test_a_body_is_shown_as_pretty_json_or_as_escaped_text_each_bounded() -> None:
    short = shown_body('{"error": 1002, "message": "no"}')
    assert short == ShownBody('{"error": 1002, "message": "no"}', is_json=True)
    long = shown_body(json.dumps({"error": 1, "message": "x" * 500}))
    assert long.is_json
    assert long.text.startswith('{\n  "error": 1,\n  "message": "' + "x" * 200 + '…"')
    assert long.notes == ("message: 500 characters, first 200 shown",)
    raw = shown_body("<html>\x1b[31mred\n" + "y" * 300)
    assert not raw.is_json
    assert raw.text.startswith("<html>\\e[31mred\n")
    assert "(the body: 315 characters, first 200 shown)" in raw.text
