"""A mistake in profiles.toml is said by every command that reads the file, on stderr, in the
words the TUI shows: the file, the line, the key and the nearest known key; never on a
`--json` stdout."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from plantstore_tui.cli import main
from plantstore_tui.core.config.files import config_dir

MISSPELT = """\
    # the greenhouse
    [profiles.local]
    base_url = "{base_url}"
    token_env = "LOCAL_TOKEN"
    timout = 20
    """


def write_profiles(text: str) -> str:
    path = config_dir() / "profiles.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return str(path)


def run(*args: str, **env: str) -> Result:
    return CliRunner().invoke(main, list(args), env=env, input="")


def misspelt_words(path: str) -> str:
    return (
        f"Warning: {path}, line 5: profile 'local' has no setting `timout`, so it is ignored. "
        "Did you mean `timeout`?"
    )


@pytest.mark.parametrize("as_json", [False, True])
def test_profile_list_names_the_misspelt_key_on_stderr(as_json: bool) -> None:
    path = write_profiles(MISSPELT.format(base_url="https://plants.example.com"))
    result = run("profile", "list", *(["--json"] if as_json else []))
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines().count(misspelt_words(path)) == 1, result.stderr
    assert "timout" not in result.stdout or as_json
    if as_json:
        json.loads(result.stdout)


def test_profile_add_names_the_misspelt_key_of_another_profile() -> None:
    path = write_profiles(MISSPELT.format(base_url="https://plants.example.com"))
    result = run(
        "profile", "add", "other", "--base-url", "https://other.example.com", "--token-env", "X"
    )
    assert result.exit_code == 0, result.output
    assert misspelt_words(path) in result.stderr.splitlines()


@pytest.mark.parametrize("as_json", [False, True])
def test_add_to_the_profile_names_the_misspelt_key_and_json_stays_json(
    reference_server: Any, as_json: bool
) -> None:
    path = write_profiles(MISSPELT.format(base_url=reference_server.base_url))
    result = run(
        "add",
        "--profile",
        "local",
        "--name",
        "Fern",
        "--id",
        "7",
        *(["--json"] if as_json else []),
        LOCAL_TOKEN=reference_server.token.get_secret_value(),
    )
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines().count(misspelt_words(path)) == 1, result.stderr
    assert "timout" not in result.stdout
    if as_json:
        assert json.loads(result.stdout)["outcome"] == "created"


def test_a_theme_that_is_not_a_name_is_said_in_the_tuis_words() -> None:
    path = write_profiles('theme = 3\n\n[profiles.a]\nbase_url = "https://a.example.com"\n')
    result = run("profile", "list")
    assert result.exit_code == 0, result.output
    assert (
        f"Warning: {path}, line 1: `theme` must be the name of a theme in quotes, such as "
        '"textual-light"; 3 is ignored and the default theme is used.'
    ) in result.stderr.splitlines()


@pytest.mark.parametrize("command", ["check", "import", "profile show", "profile test"])
def test_every_command_that_reads_the_profile_names_the_misspelt_key(
    reference_server: Any, tmp_path: Path, command: str
) -> None:
    path = write_profiles(MISSPELT.format(base_url=reference_server.base_url))
    plants = tmp_path / "plants.csv"
    plants.write_text("name,id\nFern,71\n")
    arguments = {
        "check": ["check", "--profile", "local"],
        "import": ["import", str(plants), "--profile", "local"],
        "profile show": ["profile", "show", "local"],
        "profile test": ["profile", "test", "local"],
    }[command]
    result = run(*arguments, LOCAL_TOKEN=reference_server.token.get_secret_value())
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines().count(misspelt_words(path)) == 1, result.stderr
    assert "timout" not in result.stdout
