"""The command line's contract, walked from a shell: options that exclude each other, `--json` on
every outcome, a question before anything is deleted, the token prompt, a busy port."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from pty_support import PtyProcess, isolated_env

from plantstore_tui.cli import main
from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.server.runner import BackgroundServer

NOT_BOTH = "Give --profile or --base-url, not both."


def run(*args: str, env: dict[str, str | None] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), env=env)


def plants_in(server: BackgroundServer) -> int:
    with sqlite3.connect(server.db_path) as db:
        count: int = db.execute("SELECT COUNT(*) FROM plants").fetchone()[0]
    db.close()
    return count


def token_of(server: BackgroundServer) -> str:
    value: str = server.token.get_secret_value()
    return value


@pytest.fixture
def local_profile(closed_port: int, monkeypatch: pytest.MonkeyPatch) -> str:
    """A saved profile `local` whose deployment is not there: a send to it would exit 3."""
    monkeypatch.setenv("LOCAL_TOKEN", "local-token-0123456789")
    ProfileStore().add(
        Profile(name="local", base_url=f"http://127.0.0.1:{closed_port}", token_env="LOCAL_TOKEN")
    )
    return "local"


def a_file_of_plants(directory: Path) -> str:
    path = directory / "plants.csv"
    path.write_text("id,name\n1,Fern\n")
    return str(path)


@pytest.mark.parametrize(
    "where",
    ["add", "group then add", "add then group", "import", "check", "web", "the TUI", "history"],
)
def test_profile_and_base_url_together_are_a_usage_error_wherever_they_meet(
    reference_server: BackgroundServer, local_profile: str, tmp_path: Path, where: str
) -> None:
    url = reference_server.base_url
    plant = ["--name", "Fern", "--id", "7"]
    argv = {
        "add": ["add", *plant, "--profile", local_profile, "--base-url", url],
        "group then add": ["--profile", local_profile, "add", *plant, "--base-url", url],
        "add then group": ["--base-url", url, "add", *plant, "--profile", local_profile],
        "import": ["import", a_file_of_plants(tmp_path), "--profile", "local", "--base-url", url],
        "check": ["check", "--base-url", url, "--profile", local_profile],
        "web": ["web", "--port", "0", "--profile", local_profile, "--base-url", url],
        "the TUI": ["--profile", local_profile, "--base-url", url],
        "history": ["--profile", local_profile, "history", "--base-url", url],
    }[where]
    # As from a shell: no terminal, so nothing could open a TUI or a server and wait.
    done = subprocess.run(
        [sys.executable, "-m", "plantstore_tui", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
        env={**_environment(), "PLANTSTORE_TOKEN": token_of(reference_server)},
    )
    assert done.returncode == 2, done.stderr
    assert NOT_BOTH in done.stderr
    assert plants_in(reference_server) == 0


def _environment() -> dict[str, str]:
    return dict(os.environ)


# --- --json: one object on stdout, whatever the outcome ----------------------------------------


def one_object(result: Result) -> dict[str, Any]:
    assert result.stdout.count("\n") == 1, result.output
    answer = json.loads(result.stdout)
    assert isinstance(answer, dict)
    return answer


@pytest.mark.parametrize(
    ("args", "code", "outcome", "words"),
    [
        (["--name", "Fern"], 2, "usage error", "Missing option '--id'"),
        (["--name", "Fern", "--id", "1", "--bogus"], 2, "usage error", "--bogus"),
        (["--name", "Fern", "--id", "1.5"], 2, "invalid input", "ID must be a whole number"),
        (
            ["--name", "Fern", "--id", "1", "--profile", "nowhere"],
            4,
            "configuration problem",
            "Unknown profile 'nowhere'",
        ),
        (
            [
                "--name",
                "Fern",
                "--id",
                "1",
                "--profile",
                "local",
                "--base-url",
                "http://127.0.0.1:9",
            ],
            2,
            "usage error",
            NOT_BOTH,
        ),
    ],
    ids=["usage", "unknown option", "invalid input", "configuration", "exclusive options"],
)
def test_add_json_prints_one_object_when_nothing_is_sent(
    local_profile: str, args: list[str], code: int, outcome: str, words: str
) -> None:
    result = run("add", "--json", *args, env={"PLANTSTORE_TOKEN": "t" * 20})
    assert result.exit_code == code, result.output
    answer = one_object(result)
    assert answer["outcome"] == outcome
    assert answer["exit_code"] == code
    assert words in answer["message"]
    # The words go to stderr too, for a person watching.
    assert words in result.stderr
    # The same keys as a send's object: a script reads one shape.
    assert answer["entry"] is None
    assert answer["status"] is None
    assert answer["fate"] is None


def test_add_json_of_an_unreachable_deployment_is_one_object_with_exit_3(
    closed_port: int,
) -> None:
    result = run(
        "add", "--json", "--name", "Fern", "--id", "3",
        "--base-url", f"http://127.0.0.1:{closed_port}",
        env={"PLANTSTORE_TOKEN": "t" * 20},
    )  # fmt: skip
    assert result.exit_code == 3
    answer = one_object(result)
    assert answer["outcome"] == "failed"
    assert isinstance(answer["entry"], int)


def test_add_json_carries_the_ledger_entry_the_words_give(
    shared_reference_server: BackgroundServer, plant_id: int
) -> None:
    url, token = shared_reference_server.base_url, token_of(shared_reference_server)
    result = run(
        "add", "--json", "--name", "Fern", "--id", str(plant_id), "--base-url", url,
        env={"PLANTSTORE_TOKEN": token},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    entry = one_object(result)["entry"]
    assert isinstance(entry, int)
    shown = json.loads(run("history", "show", str(entry), "--json").stdout)
    assert shown["sent"]["id"] == plant_id
    words = run(
        "add", "--name", "Fern", "--id", str(plant_id + 10_000_000), "--base-url", url,
        env={"PLANTSTORE_TOKEN": token},
    )  # fmt: skip
    assert f"history #{entry + 1}" in words.stdout


@pytest.mark.parametrize(
    ("extra", "code", "outcome", "words"),
    [
        (["--resume", "--restart"], 2, "usage error", "--resume"),
        (["--profile", "nowhere"], 4, "configuration problem", "Unknown profile 'nowhere'"),
        (["--bad-rows"], 2, "invalid input", "bad row"),
    ],
    ids=["usage", "configuration", "invalid input"],
)
def test_import_json_prints_one_object_when_nothing_is_sent(
    tmp_path: Path, extra: list[str], code: int, outcome: str, words: str
) -> None:
    path = tmp_path / "plants.csv"
    if extra == ["--bad-rows"]:
        path.write_text("id,name\n1,Fern\nnot-a-number,Rose\n")
        extra = ["--base-url", "http://127.0.0.1:9"]
    else:
        path.write_text("id,name\n1,Fern\n")
    result = run("import", str(path), "--json", *extra, env={"PLANTSTORE_TOKEN": "t" * 20})
    assert result.exit_code == code, result.output
    answer = one_object(result)
    assert answer["outcome"] == outcome
    assert answer["exit_code"] == code
    assert words in answer["message"]


def test_import_json_of_an_unreachable_deployment_is_one_object_with_exit_3(
    tmp_path: Path, closed_port: int
) -> None:
    path = tmp_path / "plants.csv"
    path.write_text("id,name\n1,Fern\n")
    result = run(
        "import", str(path), "--json", "--give-up-after", "0",
        "--base-url", f"http://127.0.0.1:{closed_port}",
        env={"PLANTSTORE_TOKEN": "t" * 20},
    )  # fmt: skip
    assert result.exit_code == 3, result.output
    assert one_object(result)["rows"] == 1


# --- the token prompt ---------------------------------------------------------------------------


def test_the_token_prompt_names_the_url_it_is_for(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    url = reference_server.base_url
    command = [sys.executable, "-m", "plantstore_tui", "add", "--name", "Fern", "--id", "5"]
    with PtyProcess([*command, "--base-url", url], env=isolated_env(tmp_path)) as shell:
        shell.wait_for(f"Token for {url}", timeout=60)
        shell.write(token_of(reference_server).encode() + b"\n")
        assert shell.wait_exit(60) == 0, shell.report("the plant was not created")
    assert plants_in(reference_server) == 1


# --- commands that delete ask -------------------------------------------------------------------


@pytest.fixture
def prod() -> ProfileStore:
    store = ProfileStore()
    store.add(Profile(name="prod", base_url="https://p.example", token_env="PROD_TOKEN"))
    return store


def test_profile_remove_without_a_terminal_refuses_in_words_and_deletes_nothing(
    prod: ProfileStore,
) -> None:
    result = run("profile", "remove", "prod")
    assert result.exit_code == 2
    assert "Nothing was deleted: without a terminal to ask on, remove needs --yes." in (
        result.stderr
    )
    assert prod.load().get("prod") is not None
    removed = run("profile", "remove", "prod", "--yes")
    assert removed.exit_code == 0, removed.output
    assert prod.load().get("prod") is None


@pytest.mark.parametrize(("answer", "kept"), [(b"n\n", True), (b"y\n", False)])
def test_profile_remove_on_a_terminal_asks_first(
    prod: ProfileStore, tmp_path: Path, answer: bytes, kept: bool
) -> None:
    env = {"PLANTSTORE_CONFIG_DIR": os.environ["PLANTSTORE_CONFIG_DIR"]}
    command = [sys.executable, "-m", "plantstore_tui", "profile", "remove", "prod"]
    with PtyProcess(command, env=isolated_env(tmp_path, **env)) as shell:
        shell.wait_for("Delete profile prod (https://p.example)", timeout=60)
        shell.write(answer)
        assert shell.wait_exit(60) == (2 if kept else 0)
    assert (prod.load().get("prod") is not None) is kept


# --- a busy port --------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["serve", "web"])
def test_a_busy_port_is_a_configuration_problem_for_serve_and_web(
    command: str, tmp_path: Path
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = [sys.executable, "-m", "plantstore_tui", command, "--port", str(port)]
        if command == "serve":
            argv += ["--db", str(tmp_path / "plants.sqlite3")]
        else:
            argv += ["--base-url", "http://127.0.0.1:9"]
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            stdin=subprocess.DEVNULL,
            env={**_environment(), "PLANTSTORE_TOKEN": "t" * 20},
        )
    assert done.returncode == 4, done.stderr
    assert f"Port {port} on 127.0.0.1 is in use" in done.stderr


# --- where profiles live ------------------------------------------------------------------------


def test_help_says_where_profiles_toml_is_on_this_machine(tmp_path: Path) -> None:
    where = tmp_path / "somewhere else"
    result = run("--help", env={"PLANTSTORE_CONFIG_DIR": str(where)})
    assert result.exit_code == 0
    assert f"Profiles: {where / 'profiles.toml'}" in result.stdout
