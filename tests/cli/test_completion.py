"""Shell completion: `plantstore-tui completion SHELL` prints a script bash really runs; Tab offers
saved profile names and history entries; completing never opens the TUI, runs a token command
or says anything but completions, whatever state the files are in."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from front_door_support import REPO, SAVED, TOKEN, front_door, profiles_in
from ledger_support import new_row, opened, rejected, take_settled

from plantstore_tui.cli import main
from plantstore_tui.cli.completion import COMPLETE_VAR

# What a token command leaves in the working directory when it runs: completing never runs one.
MARKER = "TOKEN_COMMAND_RAN"
# staging is the default, its token in the environment: the TUI could open without a question.
PROFILES = (
    SAVED
    + f"""
    [profiles.lab]
    base_url = "http://127.0.0.1:9"
    token_command = "touch {MARKER}"
"""
)


def program_env(config: Path, data: Path) -> dict[str, str]:
    """The environment of a `plantstore-tui` run of this checkout on `config` and `data`, with
    staging's token and no other PLANTSTORE_ variable."""
    environ = {key: value for key, value in os.environ.items() if not key.startswith("PLANTSTORE_")}
    return {
        **environ,
        "PYTHONPATH": str(REPO),
        "PLANTSTORE_CONFIG_DIR": str(config),
        "PLANTSTORE_DATA_DIR": str(data),
        "STAGING_TOKEN": TOKEN,
    }


def complete(
    words: str, env: dict[str, str], shell: str = "bash"
) -> subprocess.CompletedProcess[str]:
    """Click's completion protocol as the shell's script runs it: `words` typed, the last one
    completed (`python -m plantstore_tui` beside the config directory, no standard input)."""
    if shell == "fish":
        # Fish gives the line up to the cursor and the word being completed.
        current = "" if words.endswith(" ") else words.split()[-1]
    else:
        current = str(len(words.split()) - (0 if words.endswith(" ") else 1))
    protocol = {"COMP_WORDS": words, "COMP_CWORD": current}
    return subprocess.run(
        [sys.executable, "-m", "plantstore_tui"],
        capture_output=True,
        text=True,
        cwd=Path(env["PLANTSTORE_CONFIG_DIR"]).parent,
        env={**env, **protocol, COMPLETE_VAR: f"{shell}_complete"},
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )


def offered(result: subprocess.CompletedProcess[str]) -> list[str]:
    """The values of click's bash answer (`plain,VALUE` a line), having checked it said nothing
    else and exited 0."""
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == ""
    # Nothing to offer is an empty line.
    lines = [line for line in result.stdout.splitlines() if line]
    assert all(line.startswith("plain,") for line in lines), lines
    return [line.removeprefix("plain,") for line in lines]


@pytest.fixture
def saved(tmp_path: Path) -> dict[str, str]:
    """profiles.toml of three profiles (staging the default) and a ledger of 12 sends."""
    data = Path(os.environ["PLANTSTORE_DATA_DIR"])
    with opened() as ledger:
        for number in range(1, 13):
            row = new_row(f"Fern {number}", str(4200 + number), profile="staging")
            take_settled(ledger, row, rejected(row.plant) if number == 12 else None)
    return program_env(profiles_in(tmp_path / "config", PROFILES), data)


@pytest.mark.parametrize(
    ("shell", "words"),
    [
        ("bash", ["_PLANTSTORE_TUI_COMPLETE=bash_complete", "-F _plantstore_tui_completion"]),
        ("zsh", ["#compdef plantstore-tui", "_PLANTSTORE_TUI_COMPLETE=zsh_complete"]),
        ("fish", ["_PLANTSTORE_TUI_COMPLETE=fish_complete", "--command plantstore-tui"]),
    ],
)
def test_completion_prints_the_script_of_each_shell(shell: str, words: list[str]) -> None:
    result = CliRunner().invoke(main, ["completion", shell])
    assert result.exit_code == 0, result.output
    for word in words:
        assert word in result.output


def test_completion_of_another_shell_is_refused_in_words() -> None:
    result = CliRunner().invoke(main, ["completion", "powershell"])
    assert result.exit_code == 2
    assert "'powershell' is not one of 'bash', 'zsh', 'fish'" in result.output


def test_the_bash_script_offers_profiles_and_history_entries_in_bash(
    tmp_path: Path, saved: dict[str, str]
) -> None:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash on this machine")
    script = CliRunner().invoke(main, ["completion", "bash"]).output
    # The script runs the command it completes: here, this checkout's.
    command = tmp_path / "plantstore-tui"
    command.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m plantstore_tui "$@"\n')
    command.chmod(0o755)
    lines = {
        "profile": "plantstore-tui --profile ''",
        "profile_show": "plantstore-tui profile show s",
        "entries": "plantstore-tui history show 1",
    }
    calls = "\n".join(
        f"COMPREPLY=(); COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); "
        f'_plantstore_tui_completion "{command}"; echo "{name}: ${{COMPREPLY[*]}}"'
        for name, words in lines.items()
    )
    result = subprocess.run(
        [bash, "--norc", "--noprofile", "-c", f"{script}\n{calls}"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=saved,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines() == [
        "profile: staging prod lab",
        "profile_show: staging",
        "entries: 12 11 10 1",
    ], result.stderr
    assert not (tmp_path / MARKER).exists()


@pytest.mark.parametrize(
    ("words", "values"),
    [
        ("plantstore-tui --profile ", ["staging", "prod", "lab"]),
        ("plantstore-tui --profile p", ["prod"]),
        ("plantstore-tui add --profile l", ["lab"]),
        ("plantstore-tui check --profile ", ["staging", "prod", "lab"]),
        ("plantstore-tui import plants.csv --profile st", ["staging"]),
        ("plantstore-tui history --profile ", ["staging", "prod", "lab"]),
        ("plantstore-tui history clear --profile pr", ["prod"]),
        *[
            (f"plantstore-tui profile {command} ", ["staging", "prod", "lab"])
            for command in ("show", "edit", "remove", "use", "test")
        ],
        # A new profile's name is the operator's to choose.
        ("plantstore-tui profile add ", []),
        ("plantstore-tui history show ", [str(entry) for entry in range(12, 0, -1)]),
        ("plantstore-tui history export 1", ["12", "11", "10", "1"]),
        ("plantstore-tui history export 7", ["7"]),
        ("plantstore-tui history show x", []),
        ("plantstore-tui completion ", ["bash", "zsh", "fish"]),
        ("plantstore-tui compl", ["completion"]),
    ],
)
def test_tab_offers_saved_profiles_and_history_entries(
    tmp_path: Path, saved: dict[str, str], words: str, values: list[str]
) -> None:
    assert offered(complete(words, saved)) == values
    assert not (tmp_path / MARKER).exists()


def test_zsh_and_fish_describe_each_history_entry(saved: dict[str, str]) -> None:
    zsh = complete("plantstore-tui history show 1", saved, shell="zsh")
    assert zsh.returncode == 0, zsh.stderr
    # zsh: type, value and description a line each.
    lines = zsh.stdout.splitlines()
    described = dict(zip(lines[1::3], lines[2::3], strict=True))
    assert described["12"].startswith("plant 4212 Fern 12: rejected (400), ")
    assert described["1"].startswith("plant 4201 Fern 1: created (200), ")
    fish = complete("plantstore-tui history show 1", saved, shell="fish")
    assert fish.returncode == 0, fish.stderr
    assert "plain,12\tplant 4212 Fern 12: rejected (400)" in fish.stdout


def test_completing_with_a_default_profile_saved_never_opens_the_tui(
    saved: dict[str, str],
) -> None:
    # `python -m plantstore_tui` answers to the same variable as the installed command.
    result = complete("plantstore-tui ", saved)
    assert "\x1b" not in result.stdout  # no terminal taken over
    assert offered(result)[:2] == ["add", "check"]
    # The front door itself, its TUI replaced by a probe that says when it would open.
    probed = front_door(
        [],
        **{
            key: saved[key]
            for key in ("PLANTSTORE_CONFIG_DIR", "PLANTSTORE_DATA_DIR", "STAGING_TOKEN")
        },
        COMP_WORDS="plantstore-tui --profile ",
        COMP_CWORD="2",
        _PLANTSTORE_TUI_COMPLETE="bash_complete",
    )
    assert "label:" not in probed.stdout
    assert offered(probed) == ["staging", "prod", "lab"]


def test_the_group_never_opens_the_tui_while_parsing_resiliently(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Resilient parsing is click's mode for reading a command line without acting on it.
    opened_on: list[object] = []
    monkeypatch.setattr(
        "plantstore_tui.cli.tui.open_tui", lambda options, **_: opened_on.append(options)
    )
    profiles_in(Path(os.environ["PLANTSTORE_CONFIG_DIR"]), SAVED)
    monkeypatch.setenv("STAGING_TOKEN", TOKEN)
    runner = CliRunner()
    assert runner.invoke(main, [], resilient_parsing=True).exit_code == 0
    assert opened_on == []
    assert runner.invoke(main, []).exit_code == 0
    assert len(opened_on) == 1


@pytest.mark.parametrize(
    ("profiles", "words"),
    [
        ('default = "staging"\n[profiles.staging\n', "plantstore-tui --profile "),
        ("profiles = 3\n", "plantstore-tui profile show "),
        (b"\xff\xfe not text", "plantstore-tui profile use "),
    ],
)
def test_a_corrupt_profiles_toml_offers_nothing_quietly(
    tmp_path: Path, profiles: str | bytes, words: str
) -> None:
    config = tmp_path / "config"
    config.mkdir()
    path = config / "profiles.toml"
    if isinstance(profiles, bytes):
        path.write_bytes(profiles)
    else:
        path.write_text(profiles)
    assert offered(complete(words, program_env(config, tmp_path / "data"))) == []


def test_no_data_directory_offers_no_entries_and_creates_none(tmp_path: Path) -> None:
    data = tmp_path / "no-data"
    result = complete("plantstore-tui history show ", program_env(tmp_path / "config", data))
    assert offered(result) == []
    assert not data.exists()


def test_a_ledger_that_is_no_database_offers_no_entries_quietly(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "plantstore.sqlite3").write_bytes(b"not a database" * 100)
    result = complete("plantstore-tui history export ", program_env(tmp_path / "config", data))
    assert offered(result) == []
    assert (data / "plantstore.sqlite3").read_bytes() == b"not a database" * 100
