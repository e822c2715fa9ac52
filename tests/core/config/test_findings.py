"""The findings of profiles.toml: the line of each key as TOML reads it, the nearest known key
(drawn from core/reference.py's lists), and every kind of mistake in the same words."""

from __future__ import annotations

import json
import textwrap
import tomllib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from plantstore_tui.core.config.findings import Finding, KeyLines, nearest
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.reference import PROFILE_KEYS, TOP_LEVEL_KEYS

# --- the line of a key --------------------------------------------------------------------------

HAND_WRITTEN = """\
# profiles, by hand
theme = "nord"  # [profiles.not_a_header]
notes = '''
[profiles.inside]
protected = true
'''

[ profiles . "a.b" ]   # a quoted name with a dot
base_url = "https://ab.example"
"token env" = "X"

[profiles.c]
base_url = "https://c.example"
sub.key = 1
inline = { protectd = true }

[[servers]]
protected = true
"""


@pytest.mark.parametrize(
    ("path", "line"),
    [
        (("theme",), 2),
        (("notes",), 3),
        (("profiles", "a.b"), 8),
        (("profiles", "a.b", "base_url"), 9),
        (("profiles", "a.b", "token env"), 10),
        (("profiles", "c", "sub", "key"), 14),
        # Inside an inline table: the line of the table's own key.
        (("profiles", "c", "inline", "protectd"), 15),
        # A key the text does not hold: the line of its table.
        (("profiles", "c", "missing"), 12),
        # Nothing inside a multi-line string or an array of tables is a header or a key.
        (("profiles", "inside"), None),
        (("profiles", "inside", "protected"), None),
        (("protected",), None),
        (("servers", "protected"), None),
    ],
)
def test_each_key_is_found_on_its_line_as_toml_reads_it(
    path: tuple[str, ...], line: int | None
) -> None:
    tomllib.loads(HAND_WRITTEN)  # the text is TOML
    assert KeyLines(HAND_WRITTEN).line(*path) == line


keys = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12)


@given(
    profile=keys,
    before=st.lists(keys, max_size=4, unique=True),
    key=keys,
    blank_lines=st.integers(0, 3),
)
def test_any_key_written_under_any_profile_is_found_on_its_line(
    profile: str, before: list[str], key: str, blank_lines: int
) -> None:
    lines = [f"[profiles.{json.dumps(profile, ensure_ascii=False)}]"]
    lines += [f"{json.dumps(other, ensure_ascii=False)} = 1" for other in before if other != key]
    lines += [""] * blank_lines
    lines.append(f"{json.dumps(key, ensure_ascii=False)} = true")
    text = "\n".join(lines) + "\n"
    assert tomllib.loads(text)["profiles"][profile][key] is True
    assert KeyLines(text).line("profiles", profile, key) == len(lines)


# --- the nearest known key ----------------------------------------------------------------------


@pytest.mark.parametrize("known", [PROFILE_KEYS, TOP_LEVEL_KEYS])
def test_every_known_key_misspelt_by_one_letter_is_named_back(known: tuple[str, ...]) -> None:
    for key in known:
        for at in range(len(key)):
            dropped = key[:at] + key[at + 1 :]
            assert nearest(dropped, known) == key, dropped


def test_a_word_near_no_known_key_is_given_no_suggestion() -> None:
    assert nearest("colour", PROFILE_KEYS) is None


# --- each kind of finding -----------------------------------------------------------------------


def findings_of(tmp_path: Path, text: str, themes: tuple[str, ...] | None = None) -> list[str]:
    (tmp_path / "profiles.toml").write_text(textwrap.dedent(text))
    saved = ProfileStore(tmp_path).load(themes=themes)
    assert all(isinstance(finding, Finding) for finding in saved.findings)
    return [
        str(finding).removeprefix(f"{tmp_path / 'profiles.toml'}, ") for finding in saved.findings
    ]


def test_every_kind_of_mistake_is_named_with_its_line(tmp_path: Path) -> None:
    said = findings_of(
        tmp_path,
        """\
        defualt = "a"
        protected = true
        history_limit = 0
        theme = "nrod"
        default = "b"

        [profiles.a]
        base_url = "https://a.example"
        protectd = true
        timeout = -1
        """,
        themes=("nord", "textual-dark"),
    )
    assert said == [
        "line 1: there is no setting `defualt`, so it is ignored. Did you mean `default`?",
        "line 2: `protected` is a setting of a profile: it belongs under a [profiles.NAME] "
        "header, so here it is ignored.",
        "line 3: history_limit must be a whole number of sends, 1 or more; 100,000 is used.",
        "line 4: this version has no theme 'nrod', so the default theme is used. "
        "Did you mean `nord`?",
        'line 5: the default profile "b" does not exist.',
        "line 9: profile 'a' has no setting `protectd`, so it is ignored. "
        "Did you mean `protected`?",
        "line 10: profile 'a' cannot be used: timeout must be a number of seconds, more than 0 "
        "and at most 3600.",
    ]


@pytest.mark.parametrize(
    ("value", "shown"),
    [("3", "3"), ("true", "true"), ('""', '""'), ("[1, 2]", "[1, 2]")],
)
def test_a_theme_that_is_not_a_name_is_named_with_its_value(
    tmp_path: Path, value: str, shown: str
) -> None:
    assert findings_of(tmp_path, f"theme = {value}\n") == [
        'line 1: `theme` must be the name of a theme in quotes, such as "textual-light"; '
        f"{shown} is ignored and the default theme is used."
    ]


def test_without_the_tuis_themes_a_theme_name_is_not_judged(tmp_path: Path) -> None:
    assert findings_of(tmp_path, 'theme = "nrod"\n') == []


def test_a_good_file_has_no_findings(tmp_path: Path) -> None:
    assert (
        findings_of(
            tmp_path,
            """\
        default = "a"
        theme = "nord"
        history_limit = 10

        [profiles.a]
        base_url = "https://a.example"
        protected = true
        """,
            themes=("nord",),
        )
        == []
    )


@pytest.mark.parametrize(("value", "shown"), [("3", "3"), ('{ name = "a" }', '{"name": "a"}')])
def test_a_default_that_is_not_a_name_is_named_and_no_profile_is_the_default(
    tmp_path: Path, value: str, shown: str
) -> None:
    text = f'default = {value}\n[profiles.a]\nbase_url = "https://a.example"\n'
    assert findings_of(tmp_path, text) == [
        f"line 1: default must be the name of a profile in quotes; {shown} is ignored."
    ]
    assert ProfileStore(tmp_path).load().default is None
