"""profiles.toml as an operator gets it wrong, walked from a shell (issue 43): a misspelt safety
setting makes the profile protected, never less safe; a file (or credentials.toml, or a file of
cases) nested hundreds deep is a configuration problem said in words, never a traceback."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from plantstore_tui.server.runner import BackgroundServer

FINDING = "looks like a safety setting: until the file is fixed the profile is treated as protected"


def plantstore(
    config: Path, server: BackgroundServer | None, *argv: str, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """The real command from a shell (no terminal): this test's config and data directories."""
    env = {
        **os.environ,
        "PLANTSTORE_CONFIG_DIR": str(config),
        "PLANTSTORE_DATA_DIR": str(config.parent / "data"),
    }
    if server is not None:
        env["PLANTS_TOKEN"] = server.token.get_secret_value()
    for name in ("PLANTSTORE_TOKEN", "PLANTSTORE_PROFILE", "PLANTSTORE_BASE_URL"):
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-m", "plantstore_tui", *argv],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def ids_on(server: BackgroundServer) -> list[int]:
    with sqlite3.connect(server.db_path) as db:
        return [row[0] for row in db.execute("SELECT id FROM plants ORDER BY id")]


def profiles(tmp_path: Path, server: BackgroundServer, *lines: str) -> Path:
    """A config directory whose profiles.toml has one profile, `local`, with `lines` in it."""
    config = tmp_path / "config"
    config.mkdir()
    (config / "profiles.toml").write_text(
        "[profiles.local]\n"
        f'base_url = "{server.base_url}"\n'
        'token_env = "PLANTS_TOKEN"\n' + "".join(f"{line}\n" for line in lines)
    )
    return config


# --- a misspelt safety setting ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "nearest"),
    [
        ("protectd = true", "protected"),
        ("PROTECTED = true", "protected"),
        ("protectd = false", "protected"),
        ("verfy = true", "verify"),
        ('idz = "70000-70999"', "ids"),
    ],
)
def test_a_misspelt_safety_setting_makes_add_ask_first(
    tmp_path: Path, reference_server: BackgroundServer, line: str, nearest: str
) -> None:
    config = profiles(tmp_path, reference_server, line)
    argv = ("add", "--profile", "local", "--name", "Fern", "--id", "7")
    refused = plantstore(config, reference_server, *argv)
    # No terminal to ask on: a protected profile needs --yes, and nothing is sent.
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "the protected profile local" in refused.stderr
    assert "needs --yes" in refused.stderr
    key = line.split(" ")[0]
    finding = [said for said in refused.stderr.splitlines() if f"`{key}`" in said]
    assert len(finding) == 1, refused.stderr
    assert FINDING in finding[0]
    assert f"Did you mean `{nearest}`?" in finding[0]
    assert ids_on(reference_server) == []

    sent = plantstore(config, reference_server, *argv, "--yes")
    assert sent.returncode == 0, sent.stdout + sent.stderr
    assert ids_on(reference_server) == [7]


def test_a_misspelt_setting_that_is_no_safety_one_is_ignored_and_the_send_goes(
    tmp_path: Path, reference_server: BackgroundServer
) -> None:
    config = profiles(tmp_path, reference_server, "timout = 20")
    result = plantstore(
        config, reference_server, "add", "--profile", "local", "--name", "F", "--id", "8"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "has no setting `timout`, so it is ignored. Did you mean `timeout`?" in result.stderr
    assert ids_on(reference_server) == [8]


def test_import_and_profile_show_treat_the_misspelt_profile_as_protected(
    tmp_path: Path, reference_server: BackgroundServer
) -> None:
    config = profiles(tmp_path, reference_server, "protectd = true")
    plants = tmp_path / "plants.csv"
    plants.write_text("name,id\nFern,71\nRose,72\n")
    imported = plantstore(config, reference_server, "import", str(plants), "--profile", "local")
    assert imported.returncode == 2, imported.stdout + imported.stderr
    assert "needs --yes" in imported.stderr
    assert ids_on(reference_server) == []

    shown = plantstore(config, reference_server, "profile", "show", "local")
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert (
        "protected: yes: sends ask for confirmation, because `protectd` looks like a misspelt "
        "safety setting (fix the file)"
    ) in shown.stdout
    listed = plantstore(config, reference_server, "profile", "list", "--json")
    assert json.loads(listed.stdout)["profiles"][0]["protected"] is True


# --- files nested too deep ----------------------------------------------------------------------

DEEP = 500
DEEP_FILES = {
    "an array": "a = " + "[" * DEEP + "]" * DEEP + "\n",
    "an inline table": "a = " + "{b = " * DEEP + "1" + "}" * DEEP + "\n",
    "tables": "[" + ".".join(f"t{level}" for level in range(DEEP)) + "]\nkey = 1\n",
    "a profile": (
        '[profiles.local]\nbase_url = "https://plants.example.com"\n'
        "ids = " + "[" * DEEP + "]" * DEEP + "\n"
    ),
}


def assert_said_in_words(result: subprocess.CompletedProcess[str], path: Path, code: int) -> None:
    assert result.returncode == code, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "RecursionError" not in result.stdout + result.stderr
    assert str(path) in result.stderr
    assert "nested more than 32 levels deep" in result.stderr


@pytest.mark.parametrize("shape", sorted(DEEP_FILES))
@pytest.mark.parametrize(
    "argv",
    [
        ("profile", "list"),
        ("add", "--profile", "local", "--name", "Fern", "--id", "7"),
        ("check", "--profile", "local"),
        ("history",),
    ],
)
def test_a_profiles_toml_nested_500_deep_is_a_configuration_problem(
    tmp_path: Path, shape: str, argv: tuple[str, ...]
) -> None:
    config = tmp_path / "config"
    config.mkdir()
    path = config / "profiles.toml"
    path.write_text(DEEP_FILES[shape])
    result = plantstore(config, None, *argv)
    if argv == ("history",):
        # The history needs no profile: it is read all the same, the file's problem said.
        assert "Traceback" not in result.stderr
        assert result.returncode == 0, result.stdout + result.stderr
        return
    assert_said_in_words(result, path, 4)
    assert path.read_text() == DEEP_FILES[shape]


def test_a_credentials_toml_nested_500_deep_is_a_configuration_problem(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "profiles.toml").write_text(
        '[profiles.local]\nbase_url = "https://plants.example.com"\n'
    )
    credentials = config / "credentials.toml"
    credentials.write_text("[tokens]\nlocal = " + "[" * DEEP + "]" * DEEP + "\n")
    credentials.chmod(0o600)
    result = plantstore(
        config, None, "add", "--profile", "local", "--name", "Fern", "--id", "7", "--yes"
    )
    assert_said_in_words(result, credentials, 4)


def test_a_file_of_cases_nested_500_deep_is_invalid_input(
    tmp_path: Path, reference_server: BackgroundServer
) -> None:
    config = profiles(tmp_path, reference_server)
    cases = tmp_path / "cases.toml"
    cases.write_text(
        '[[case]]\nname = "deep"\nstatus = 400\nbody = ' + "{a = " * DEEP + "1" + "}" * DEEP + "\n"
    )
    result = plantstore(
        config, reference_server, "check", "--profile", "local", "--expect", str(cases)
    )
    assert_said_in_words(result, cases, 2)
