"""A profile's range of ids (`ids`, issue 35): `profile add/edit --ids`, shown by `profile
show` and `list`, and a bad range said in words: exit 2 on the command line, a finding (file,
line, key) in profiles.toml."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from profiles_support import isolate

from plantstore_tui.cli import main

URL = "https://plants.example.com"


@pytest.fixture(autouse=True)
def config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    return isolate(monkeypatch, tmp_path)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), input="")


def add_profile(*extra: str) -> Result:
    return run("profile", "add", "keyer", "--base-url", URL, "--token-env", "KEYER", *extra)


def test_add_saves_the_range_and_show_and_list_say_it(config: Path) -> None:
    result = add_profile("--ids", " 70000 - 70999 ")
    assert result.exit_code == 0, result.output
    assert 'ids = "70000-70999"' in (config / "profiles.toml").read_text()
    shown = run("profile", "show", "keyer")
    assert "  ids:       70000-70999 (next id stays in this range)" in shown.stdout.splitlines()
    listed = run("profile", "list")
    assert "ids 70000-70999" in listed.stdout.splitlines()[2]
    as_json = json.loads(run("profile", "list", "--json").stdout)
    assert as_json["profiles"][0]["ids"] == "70000-70999"


def test_a_profile_without_a_range_says_none_in_json_and_nothing_in_show() -> None:
    assert add_profile().exit_code == 0
    assert "ids:" not in run("profile", "show", "keyer").stdout
    assert json.loads(run("profile", "list", "--json").stdout)["profiles"][0]["ids"] is None


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("70999-70000", "ids must go from the lower id to the higher: 70999 is more than 70000"),
        ("70000", 'ids must be a range of ids written FIRST-LAST, such as "70000-70999"'),
        ("a-b", 'ids must be a range of ids written FIRST-LAST, such as "70000-70999"'),
        ("0-9223372036854775808", "ids must lie between -9223372036854775808 and"),
    ],
)
def test_a_bad_range_is_refused_in_words_with_exit_2(config: Path, value: str, words: str) -> None:
    result = add_profile("--ids", value)
    assert result.exit_code == 2, result.output
    assert words in result.output
    assert not (config / "profiles.toml").exists()


def test_edit_sets_changes_and_clears_the_range(config: Path) -> None:
    assert add_profile().exit_code == 0
    assert run("profile", "edit", "keyer", "--ids", "-100--1").exit_code == 0
    assert 'ids = "-100--1"' in (config / "profiles.toml").read_text()
    refused = run("profile", "edit", "keyer", "--ids", "5-1")
    assert refused.exit_code == 2, refused.output
    assert "5 is more than 1" in refused.output
    assert 'ids = "-100--1"' in (config / "profiles.toml").read_text()
    cleared = run("profile", "edit", "keyer", "--ids", "none")
    assert cleared.exit_code == 0, cleared.output
    assert "ids" not in (config / "profiles.toml").read_text()


@pytest.mark.parametrize(
    ("setting", "words"),
    [
        ('ids = "9-1"', "ids must go from the lower id to the higher: 9 is more than 1."),
        ("ids = 70000", 'ids must be a string such as "70000-70999".'),
    ],
)
def test_a_bad_range_in_profiles_toml_is_a_finding_naming_its_line(
    config: Path, setting: str, words: str
) -> None:
    path = config / "profiles.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        textwrap.dedent(f"""\
            [profiles.keyer]
            base_url = "{URL}"
            token_env = "KEYER"
            {setting}
            """)
    )
    result = run("profile", "list")
    assert result.exit_code == 0, result.output
    expected = f"Warning: {path}, line 4: profile 'keyer' cannot be used: {words}"
    assert expected in result.stderr.splitlines(), result.stderr
