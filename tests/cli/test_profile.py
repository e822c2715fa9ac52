"""`plantstore-tui profile ...` and target resolution by profile: words, files and exit codes."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner, Result
from profiles_support import CANARY, MemoryKeyring, all_text, isolate, use_keyring
from pydantic import SecretStr

from plantstore_tui.cli import main, token_input
from plantstore_tui.cli.exits import ConfigProblem, InvalidInput
from plantstore_tui.cli.targets import NoTarget, TargetOptions, resolve_target
from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.config.targets import profile_token


@pytest.fixture(autouse=True)
def config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    return isolate(monkeypatch, tmp_path)


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the hidden prompt ask, as it does on a terminal (CliRunner's stdin is not one)."""
    monkeypatch.setattr(token_input, "_stdin_is_terminal", lambda: True)


def run(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input, env=env)


def shell(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`plantstore-tui ARGS` run as from a shell (the test's config dir, no OS keyring)."""
    return subprocess.run(
        [sys.executable, "-m", "plantstore_tui", *args],
        env={**os.environ, "PLANTSTORE_NO_KEYRING": "1", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def plants_in(server: Any) -> int:
    with sqlite3.connect(server.db_path) as db:
        count: int = db.execute("SELECT COUNT(*) FROM plants").fetchone()[0]
    return count


def server_token(server: Any) -> str:
    value: str = server.token.get_secret_value()
    return value


# --- list and show ------------------------------------------------------------------------------


def test_list_with_no_profiles_says_how_to_add_one(config: Path) -> None:
    result = run("profile", "list")
    assert result.exit_code == 0
    assert f"No profiles in {config / 'profiles.toml'} yet." in result.stdout
    assert "plantstore-tui profile add NAME --base-url URL" in result.stdout


def test_list_marks_the_default_and_protected_and_names_each_token_source(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = ProfileStore()
    store.add(Profile(name="local", base_url="http://127.0.0.1:8000"), token=SecretStr(CANARY))
    store.add(
        Profile(
            name="prod", base_url="https://plants.example.com", token_env="PROD", protected=True
        )
    )
    store.add(Profile(name="ci", base_url="https://ci.example.com", token_command="pass ci"))
    result = run("profile", "list")
    assert result.exit_code == 0, result.output
    # The titles, then a profile a line.
    lines = result.stdout.splitlines()
    assert lines[1].split() == ["name", "base", "URL", "token", "from", "settings"]
    assert lines[2].startswith("* local  http://127.0.0.1:8000")
    assert lines[2].endswith(f"credentials file {store.tokens.credentials_path}")
    assert lines[3].startswith("  prod ")
    assert "$PROD (not set)" in lines[3]
    assert lines[3].endswith("PROTECTED")
    assert lines[4].startswith("  ci ")
    assert lines[4].split()[-1] == "command"
    monkeypatch.setenv("PROD", "x")
    monkeypatch.setenv("PLANTSTORE_TOKEN", "y")
    result = run("profile", "list")
    assert re.search(r"\$PROD +PROTECTED", result.stdout), result.stdout
    assert "PLANTSTORE_TOKEN is set: in this run it is the token of every profile." in result.stdout


def test_list_json_is_one_object(config: Path) -> None:
    store = ProfileStore()
    store.add(Profile(name="local", base_url="http://127.0.0.1:8000", token_env="L", timeout=3))
    result = run("profile", "list", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {
        "config_file": str(config / "profiles.toml"),
        "default": "local",
        "profiles": [
            {
                "name": "local",
                "base_url": "http://127.0.0.1:8000",
                "default": True,
                "protected": False,
                "timeout": 3.0,
                "allow_insecure_http": False,
                "ca_bundle": None,
                "proxy": None,
                "proxy_in_use": None,
                "history": True,
                "verify": False,
                "ids": None,
                "token_env": "L",
                "token_command": None,
                "token_source": "$L (not set)",
            }
        ],
        "problems": [],
        "token_env_override": False,
    }


def test_list_reports_a_corrupt_file_with_its_position_and_exits_4(config: Path) -> None:
    config.mkdir()
    (config / "profiles.toml").write_text("[profiles.a]\nbase_url = \n")
    for command in (["list"], ["list", "--json"], ["show", "a"], ["use", "a"], ["remove", "a"]):
        result = run("profile", *command)
        assert result.exit_code == 4, (command, result.output)
        assert f"{config / 'profiles.toml'}:2:" in result.stderr
    assert (config / "profiles.toml").read_text() == "[profiles.a]\nbase_url = \n"


def test_list_with_only_broken_profiles_does_not_say_there_are_none_yet(config: Path) -> None:
    config.mkdir()
    (config / "profiles.toml").write_text(
        'default = "prod"\n[profiles.prod]\nbase_url = "ftp://prod.example"\n'
    )
    result = run("profile", "list")
    assert result.exit_code == 0, result.output
    assert "yet" not in result.stdout
    assert f"No usable profiles in {config / 'profiles.toml'}: 1 cannot be used" in result.stdout
    assert (
        f"Warning: {config / 'profiles.toml'}, line 3: profile 'prod' cannot be used: "
        "The base URL must start with http"
    ) in result.stderr
    # A send on the default profile says why it cannot go, not that there is no profile.
    sent = run("add", "--name", "Fern", "--id", "1")
    assert sent.exit_code == ConfigProblem.exit_code, sent.output
    assert "Error: The default profile cannot be used. Profile 'prod':" in sent.stderr
    assert "No target" not in sent.output


def test_list_warns_about_what_it_cannot_use_and_lists_the_rest(config: Path) -> None:
    config.mkdir()
    (config / "profiles.toml").write_text(
        '[profiles.good]\nbase_url = "https://g.example"\n'
        '[profiles.bad]\nbase_url = "https://bad.example"\nprotected = "yes"\n'
        '[profiles."red\\u001b[31m"]\nbase_url = "https://red.example"\n'
    )
    result = run("profile", "list")
    assert result.exit_code == 0, result.output
    assert "  good " in result.stdout
    path = config / "profiles.toml"
    assert (
        f"Warning: {path}, line 5: profile 'bad' cannot be used: protected must be true or false."
    ) in result.stderr.splitlines()
    assert f"Warning: {path}, line 6: profile 'red\\x1b[31m' cannot be used: the name" in (
        result.stderr
    )
    assert "\x1b" not in result.output


def test_show_names_the_credentials_file_with_its_path() -> None:
    # conftest's keyring is the fail backend: the token goes to credentials.toml.
    store = ProfileStore()
    store.add(Profile(name="lab", base_url="http://127.0.0.1:9"), token=SecretStr(CANARY))
    result = run("profile", "show", "lab")
    assert result.exit_code == 0
    assert f"  token:     credentials file {store.tokens.credentials_path}" in result.stdout
    assert CANARY not in result.stdout


def test_show_prints_every_setting_and_the_token_source() -> None:
    ProfileStore().add(
        Profile(
            name="prod",
            base_url="https://plants.example.com",
            token_command="pass show prod",
            protected=True,
            timeout=20,
        )
    )
    result = run("profile", "show", "prod")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[:6] == [
        "Profile prod (default)",
        "  base_url:  https://plants.example.com",
        "  token:     command",
        "  command:   pass show prod",
        "  protected: yes: sends ask for confirmation",
        "  timeout:   20 s for the whole send",
    ]


def test_show_of_an_unknown_profile_names_the_known_ones_and_exits_4() -> None:
    ProfileStore().add(Profile(name="local", base_url="http://127.0.0.1:1", token_env="X"))
    result = run("profile", "show", "prod")
    assert result.exit_code == 4
    assert "Unknown profile 'prod'; saved profiles: local" in result.stderr


def test_list_says_which_profiles_key_each_plant_twice_and_stays_inside_80_columns() -> None:
    url = "https://plants.example.test:8443/api/v1"
    for argv in (
        ["greenhouse", "--base-url", url, "--token-env", "PLANTS_TOKEN", "--verify"],
        ["bench", "--base-url", url, "--token-env", "PLANTS_TOKEN", "--protected"],
    ):
        assert shell("profile", "add", *argv).returncode == 0
    listed = shell("profile", "list", PLANTS_TOKEN="x" * 40)
    assert listed.returncode == 0, listed.stderr
    [greenhouse] = [line for line in listed.stdout.splitlines() if "greenhouse" in line]
    [bench] = [line for line in listed.stdout.splitlines() if "bench" in line]
    assert "verify" in greenhouse, greenhouse
    assert "verify" not in bench, bench
    assert all(len(line) <= 80 for line in (greenhouse, bench)), listed.stdout
    as_json = json.loads(shell("profile", "list", "--json").stdout)
    assert [item["verify"] for item in as_json["profiles"]] == [True, False]


# --- add ----------------------------------------------------------------------------------------


def test_add_with_token_stdin_keeps_the_token_and_says_where(config: Path) -> None:
    result = run(
        "profile",
        "add",
        "local",
        "--base-url",
        "http://127.0.0.1:8000",
        "--token-stdin",
        input=f"{CANARY}\n",
    )
    assert result.exit_code == 0, result.output
    assert "Saved profile local: http://127.0.0.1:8000" in result.stdout
    assert f"Token saved in: credentials file {config / 'credentials.toml'}" in result.stdout
    assert "No usable OS keyring was found" in result.stdout
    assert "local is the default profile." in result.stdout
    assert "plantstore-tui profile test local" in result.stdout
    assert CANARY not in result.output
    assert CANARY not in (config / "profiles.toml").read_text()
    store = ProfileStore()
    token, _source = profile_token(store.get("local"), store.tokens, os.environ)
    assert token.get_secret_value() == CANARY


def test_add_with_token_stdin_and_a_keyring_keeps_it_there(
    monkeypatch: pytest.MonkeyPatch, config: Path
) -> None:
    keyring = MemoryKeyring()
    use_keyring(monkeypatch, keyring)
    result = run(
        "profile",
        "add",
        "prod",
        "--base-url",
        "https://plants.example.com",
        "--token-stdin",
        "--protected",
        "--timeout",
        "15",
        input=CANARY,
    )
    assert result.exit_code == 0, result.output
    assert "Token saved in: keyring" in result.stdout
    assert "Note:" not in result.stdout
    assert list(keyring.passwords.values()) == [CANARY]
    assert all(CANARY not in text for text in all_text(config))
    saved = ProfileStore().get("prod")
    assert (saved.protected, saved.timeout) == (True, 15)


def test_add_asks_at_a_hidden_prompt_without_a_token_option(terminal: None, config: Path) -> None:
    result = run("profile", "add", "local", "--base-url", "http://127.0.0.1:8000", input=CANARY)
    assert result.exit_code == 0, result.output
    assert "Token for local at http://127.0.0.1:8000 (hidden):" in result.stdout
    assert CANARY not in result.output
    store = ProfileStore()
    token, _source = profile_token(store.get("local"), store.tokens, os.environ)
    assert token.get_secret_value() == CANARY


def test_add_without_a_terminal_or_a_token_option_exits_2() -> None:
    result = run("profile", "add", "local", "--base-url", "http://127.0.0.1:8000", input="")
    assert result.exit_code == 2
    assert "no terminal to ask for the token" in result.stderr
    assert not ProfileStore().path.exists()


def test_add_with_a_token_variable_or_command_asks_for_nothing(config: Path) -> None:
    result = run("profile", "add", "a", "--base-url", "https://a.example", "--token-env", "A_TOK")
    assert result.exit_code == 0, result.output
    assert "Note: A_TOK is not set in this shell." in result.stdout
    result = run("profile", "add", "b", "--base-url", "https://b.example", "--token-command", "x y")
    assert result.exit_code == 0, result.output
    assert "Token saved in" not in result.stdout
    assert ProfileStore().get("b").token_command == "x y"
    assert not (config / "credentials.toml").exists()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--base-url", "ftp://x.example", "--token-env", "T"], "http:// or https://"),
        (["--base-url", "http://plants.example.com", "--token-env", "T"], "plain http://"),
        (["--base-url", "https://x.example", "--token-env", "1X"], "token_env must be"),
        (["--base-url", "https://x.example", "--token-env", "T", "--token-command", "c"], "both"),
        (["--base-url", "https://x.example", "--token-env", "T", "--timeout", "0"], "timeout"),
        (["--base-url", "https://x.example", "--token", CANARY], "No such option"),
        (["--token-env", "T"], "--base-url"),
    ],
)
def test_add_refuses_what_cannot_be_saved_with_exit_2(args: list[str], words: str) -> None:
    result = run("profile", "add", "p", *args)
    assert result.exit_code == 2, result.output
    assert words in result.stderr
    assert not ProfileStore().path.exists()


def test_add_refuses_a_bad_name_before_asking_for_a_token(terminal: None) -> None:
    result = run("profile", "add", "bad name", "--base-url", "https://x.example", input=CANARY)
    assert result.exit_code == 2
    assert "Token for" not in result.output
    assert "must be 1 to 64 letters" in result.stderr


def test_add_allows_plain_http_beyond_loopback_with_the_opt_in() -> None:
    args = ["--base-url", "http://lab.example.com", "--token-env", "T", "--allow-insecure-http"]
    result = run("profile", "add", "lab", *args)
    assert result.exit_code == 0, result.output
    assert ProfileStore().get("lab").allow_insecure_http


def test_add_of_an_existing_name_exits_2_before_asking(terminal: None) -> None:
    ProfileStore().add(Profile(name="local", base_url="http://127.0.0.1:1", token_env="X"))
    result = run("profile", "add", "local", "--base-url", "http://127.0.0.1:2", input=CANARY)
    assert result.exit_code == 2
    assert "Token for" not in result.output
    assert "already exists" in result.stderr


@pytest.mark.parametrize("token", [f"{CANARY} x", f"{CANARY}\x1b[2J", f"{CANARY}é", "   "])
def test_add_refuses_a_token_that_cannot_be_sent_without_echoing_it(
    token: str, config: Path
) -> None:
    result = run(
        "profile", "add", "p", "--base-url", "https://x.example", "--token-stdin", input=token
    )
    assert result.exit_code == 2
    assert CANARY not in result.output
    assert "\x1b" not in result.output
    assert not (config / "credentials.toml").exists()


def test_add_keeps_the_operators_comments(config: Path) -> None:
    config.mkdir()
    original = (
        '# mine\ndefault = "a"  # the usual\n\n'
        '[profiles.a]  # first\nbase_url = "https://a.example"\ntoken_env = "A"\n'
    )
    (config / "profiles.toml").write_text(original)
    result = run("profile", "add", "b", "--base-url", "https://b.example", "--token-env", "B")
    assert result.exit_code == 0
    assert (config / "profiles.toml").read_text().startswith(original)


# --- edit, remove, use --------------------------------------------------------------------------


def test_edit_changes_what_it_is_told_and_keeps_the_rest() -> None:
    ProfileStore().add(
        Profile(name="prod", base_url="https://p.example", token_env="P", protected=True, timeout=9)
    )
    result = run("profile", "edit", "prod", "--not-protected", "--default-timeout")
    assert result.exit_code == 0, result.output
    assert "Changed profile prod: https://p.example" in result.stdout
    assert ProfileStore().get("prod") == Profile(
        name="prod", base_url="https://p.example", token_env="P"
    )
    result = run("profile", "edit", "prod", "--protected", "--base-url", "https://q.example/")
    assert result.exit_code == 0, result.output
    assert ProfileStore().get("prod") == Profile(
        name="prod", base_url="https://q.example", token_env="P", protected=True
    )


def test_edit_with_a_new_token_keeps_it_and_drops_the_variable(terminal: None) -> None:
    ProfileStore().add(Profile(name="prod", base_url="https://p.example", token_env="P"))
    result = run("profile", "edit", "prod", "--token-prompt", input=CANARY)
    assert result.exit_code == 0, result.output
    assert "Token for prod at https://p.example (hidden):" in result.stdout
    assert "Token saved in: credentials file" in result.stdout
    assert CANARY not in result.output
    store = ProfileStore()
    assert store.get("prod").token_env is None
    token, _source = profile_token(store.get("prod"), store.tokens, os.environ)
    assert token.get_secret_value() == CANARY


def test_edit_switches_to_a_command_and_forgets_the_kept_token(config: Path) -> None:
    ProfileStore().add(Profile(name="prod", base_url="https://p.example"), token=SecretStr(CANARY))
    result = run("profile", "edit", "prod", "--token-command", "pass show prod")
    assert result.exit_code == 0, result.output
    assert ProfileStore().get("prod").token_command == "pass show prod"
    assert all(CANARY not in text for text in all_text(config))


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (["prod"], 2, "Nothing to change"),
        (
            ["prod", "--timeout", "3", "--default-timeout"],
            2,
            "Give --timeout or --default-timeout, not both.",
        ),
        (
            ["prod", "--token-prompt", "--token-stdin"],
            2,
            "Give --token-stdin or --token-prompt, not both.",
        ),
        (["prod", "--proxy", "none", "--proxy-from-env"], 2, "Give --proxy or --proxy-from-env"),
        (["prod", "--base-url", "gopher://x"], 2, "http:// or https://"),
        (["nope", "--protected"], 4, "Unknown profile 'nope'; saved profiles: prod"),
    ],
)
def test_edit_refuses_with_the_right_exit_code(args: list[str], code: int, words: str) -> None:
    ProfileStore().add(Profile(name="prod", base_url="https://p.example", token_env="P"))
    before = ProfileStore().path.read_text()
    result = run("profile", "edit", *args)
    assert result.exit_code == code, result.output
    assert words in result.stderr
    assert ProfileStore().path.read_text() == before


def test_edit_can_fix_a_profile_that_is_broken_in_the_file(config: Path) -> None:
    config.mkdir()
    (config / "profiles.toml").write_text(
        '# ours\n[profiles.lab]  # the lab box\nbase_url = "http://10.0.0.9:8000"\n'
    )
    result = run("profile", "edit", "lab", "--allow-insecure-http")
    assert result.exit_code == 0, result.output
    assert (
        f"Warning: {config / 'profiles.toml'}, line 3: profile 'lab' cannot be used: "
        "plain http:// to 10.0.0.9"
    ) in result.stderr
    assert ProfileStore().get("lab").allow_insecure_http
    assert (
        (config / "profiles.toml").read_text().startswith("# ours\n[profiles.lab]  # the lab box")
    )


def test_remove_deletes_the_profile_and_its_token_and_says_when_no_default_is_left(
    config: Path,
) -> None:
    ProfileStore().add(Profile(name="prod", base_url="https://p.example"), token=SecretStr(CANARY))
    result = run("profile", "remove", "prod", "--yes")
    assert result.exit_code == 0
    assert "Removed profile prod." in result.stdout
    assert "There is no default profile now" in result.stdout
    assert all(CANARY not in text for text in all_text(config))
    result = run("profile", "remove", "prod", "--yes")
    assert result.exit_code == 4
    assert "Unknown profile 'prod'" in result.stderr


def test_use_makes_a_profile_the_default() -> None:
    store = ProfileStore()
    store.add(Profile(name="a", base_url="https://a.example", token_env="A"))
    store.add(Profile(name="b", base_url="https://b.example", token_env="B"))
    result = run("profile", "use", "b")
    assert result.exit_code == 0
    assert "Default profile: b (https://b.example)" in result.stdout
    assert store.load().default == "b"
    assert run("profile", "use", "c").exit_code == 4


def test_edit_says_which_profile_is_the_default_only_when_that_is_news() -> None:
    added = shell(
        "profile", "add", "local", "--base-url", "http://127.0.0.1:8000", "--token-env", "T"
    )
    assert "local is the default profile." in added.stdout
    second = shell(
        "profile", "add", "prod", "--base-url", "https://p.example.test", "--token-env", "T"
    )
    assert "is the default profile" not in second.stdout
    edited = shell("profile", "edit", "local", "--timeout", "5")
    assert edited.returncode == 0, edited.stderr
    assert "Changed profile local" in edited.stdout
    assert "default profile" not in edited.stdout


# --- test ---------------------------------------------------------------------------------------


def _rows(output: str) -> list[str]:
    """The check's table rows, each without its timing (two runs take different times)."""
    table = output[output.index("Check of ") :]
    return [re.sub(r" in \d+ ms", "", line) for line in table.splitlines()]


def test_test_is_the_check_and_creates_no_plant(
    reference_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCAL_TOKEN", server_token(reference_server))
    ProfileStore().add(
        Profile(name="local", base_url=reference_server.base_url, token_env="LOCAL_TOKEN")
    )
    result = run("profile", "test", "local")
    assert result.exit_code == 0, result.output
    assert "Testing local (token from $LOCAL_TOKEN), creating nothing" in result.stdout
    assert f"Check of {reference_server.base_url}/plants: pass" in result.stdout
    assert "missing name       PASS  refused: 400 with the spec's Error (error 1002)" in (
        result.stdout
    )
    # The same rows, in the same words, as `check --profile local`.
    checked = run("check", "--profile", "local")
    assert checked.exit_code == 0, checked.output
    assert _rows(result.stdout) == _rows(checked.stdout)
    assert plants_in(reference_server) == 0
    assert server_token(reference_server) not in result.output


def test_test_says_the_token_is_refused_and_exits_1(reference_server: Any) -> None:
    ProfileStore().add(
        Profile(name="local", base_url=reference_server.base_url), token=SecretStr(CANARY)
    )
    result = run("profile", "test", "local")
    assert result.exit_code == 1, result.output
    assert "missing name       FAIL  the token was refused: 401" in result.stdout
    assert "Check the profile's token, or ask for a new one." in result.stdout
    assert CANARY not in result.output


def test_test_with_nothing_listening_exits_3(closed_port: int) -> None:
    base_url = f"http://127.0.0.1:{closed_port}"
    ProfileStore().add(Profile(name="gone", base_url=base_url), token=SecretStr(CANARY))
    result = run("profile", "test", "gone")
    assert result.exit_code == 3, result.output
    assert "reachable  FAIL  Cannot connect to 127.0.0.1" in result.stdout


def test_test_without_a_token_or_a_profile_exits_4() -> None:
    ProfileStore().add(Profile(name="env", base_url="https://e.example", token_env="UNSET_VAR"))
    result = run("profile", "test", "env")
    assert result.exit_code == 4
    assert "$UNSET_VAR, which is not set" in result.stderr
    result = run("profile", "test", "nope")
    assert result.exit_code == 4
    assert "Unknown profile 'nope'" in result.stderr


def test_test_of_a_failing_token_command_exits_4_without_its_output(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CANARY_VAR", CANARY)
    command = """sh -c 'echo "$CANARY_VAR"; echo "$CANARY_VAR" >&2; exit 5'"""
    ProfileStore().add(Profile(name="cmd", base_url="https://c.example", token_command=command))
    result = run("profile", "test", "cmd")
    assert result.exit_code == 4
    assert "failed with exit status 5" in result.stderr
    assert CANARY not in result.output


def test_a_deployment_that_takes_any_body_fails_the_test_and_exits_1(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_transport = httpx.AsyncHTTPTransport

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"name": "", "id": 0})

    accepting = httpx.MockTransport(handler)
    monkeypatch.setattr(httpx, "AsyncHTTPTransport", lambda **_options: accepting)
    ProfileStore().add(Profile(name="lax", base_url="https://x.example"), token=SecretStr(CANARY))
    result = run("profile", "test", "lax")
    monkeypatch.setattr(httpx, "AsyncHTTPTransport", real_transport)
    assert result.exit_code == 1
    assert "FAIL  it accepted a plant without a name" in result.stdout


# --- target resolution by profile ---------------------------------------------------------------


@pytest.fixture
def two_profiles(monkeypatch: pytest.MonkeyPatch) -> ProfileStore:
    monkeypatch.setenv("A_TOKEN", "token-a")
    monkeypatch.setenv("B_TOKEN", "token-b")
    store = ProfileStore()
    store.add(Profile(name="a", base_url="https://a.example", token_env="A_TOKEN"))
    store.add(
        Profile(
            name="b", base_url="https://b.example", token_env="B_TOKEN", protected=True, timeout=4
        )
    )
    return store


def test_the_default_profile_is_the_target_when_nothing_is_said(two_profiles: ProfileStore) -> None:
    target = resolve_target(TargetOptions(), interactive=False)
    assert (target.profile, target.base_url) == ("a", "https://a.example")
    assert target.token.get_secret_value() == "token-a"
    assert target.token_source == "$A_TOKEN"


def test_profile_option_and_variable_choose_a_profile(
    two_profiles: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = resolve_target(TargetOptions(profile="b"), interactive=False)
    assert (target.profile, target.protected, target.limits.deadline) == ("b", True, 4)
    monkeypatch.setenv("PLANTSTORE_PROFILE", "b")
    assert resolve_target(TargetOptions(), interactive=False).profile == "b"
    assert resolve_target(TargetOptions(profile="a"), interactive=False).profile == "a"


def test_base_url_wins_over_every_profile_and_takes_plantstore_token(
    two_profiles: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLANTSTORE_PROFILE", "b")
    monkeypatch.setenv("PLANTSTORE_TOKEN", CANARY)
    options = TargetOptions(profile="b", base_url="http://127.0.0.1:9/")
    target = resolve_target(options, interactive=False)
    assert (target.profile, target.base_url) == (None, "http://127.0.0.1:9")
    assert target.token_source == "$PLANTSTORE_TOKEN"


def test_plantstore_base_url_yields_to_a_chosen_profile_but_not_to_the_default(
    two_profiles: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLANTSTORE_BASE_URL", "https://adhoc.example")
    monkeypatch.setenv("PLANTSTORE_TOKEN", CANARY)
    assert resolve_target(TargetOptions(), interactive=False).base_url == "https://adhoc.example"
    monkeypatch.setenv("PLANTSTORE_PROFILE", "b")
    assert resolve_target(TargetOptions(), interactive=False).profile == "b"


def test_plantstore_token_wins_over_the_profiles_token(
    two_profiles: ProfileStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLANTSTORE_TOKEN", CANARY)
    target = resolve_target(TargetOptions(profile="b"), interactive=False)
    assert target.token.get_secret_value() == CANARY
    assert target.token_source == "$PLANTSTORE_TOKEN"


def test_an_unknown_profile_names_the_known_ones(two_profiles: ProfileStore) -> None:
    with pytest.raises(ConfigProblem, match="Unknown profile 'c'; saved profiles: a, b"):
        resolve_target(TargetOptions(profile="c"), interactive=False)


def test_without_a_default_the_choice_is_asked_for(two_profiles: ProfileStore) -> None:
    two_profiles.remove("a")
    with pytest.raises(NoTarget, match=r"--profile NAME \(saved: b\)"):
        resolve_target(TargetOptions(), interactive=False)


def test_without_any_profile_the_words_offer_base_url_add_and_demo() -> None:
    with pytest.raises(NoTarget) as caught:
        resolve_target(TargetOptions(), interactive=False)
    message = caught.value.message
    assert "--base-url URL" in message
    assert "plantstore-tui profile add" in message
    assert "plantstore-tui demo" in message


def test_a_corrupt_profiles_file_does_not_stop_an_ad_hoc_target(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config.mkdir()
    (config / "profiles.toml").write_text("default = \n")
    monkeypatch.setenv("PLANTSTORE_TOKEN", CANARY)
    target = resolve_target(TargetOptions(base_url="http://127.0.0.1:9"), interactive=False)
    assert target.base_url == "http://127.0.0.1:9"
    with pytest.raises(ConfigProblem, match=r"profiles\.toml:1:"):
        resolve_target(TargetOptions(), interactive=False)


def test_an_ad_hoc_token_over_plain_http_beyond_loopback_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PLANTSTORE_TOKEN", CANARY)
    # On the command line it is a usage mistake (exit 2); from the environment, configuration (4).
    with pytest.raises(InvalidInput, match=r"plain http:// to plants\.example\.com") as caught:
        resolve_target(TargetOptions(base_url="http://plants.example.com"), interactive=False)
    assert "--allow-insecure-http" in caught.value.message
    monkeypatch.setenv("PLANTSTORE_BASE_URL", "http://plants.example.com")
    with pytest.raises(ConfigProblem, match=r"plain http:// to plants\.example\.com"):
        resolve_target(TargetOptions(), interactive=False)


def test_add_sends_to_the_chosen_profile(
    reference_server: Any, monkeypatch: pytest.MonkeyPatch, plant_id: int
) -> None:
    monkeypatch.setenv("LOCAL_TOKEN", server_token(reference_server))
    ProfileStore().add(
        Profile(name="local", base_url=reference_server.base_url, token_env="LOCAL_TOKEN")
    )
    ProfileStore().add(Profile(name="other", base_url="https://o.example", token_env="O"))
    result = run("add", "--name", "Fern", "--id", str(plant_id), "--profile", "local")
    assert result.exit_code == 0, result.output
    assert plants_in(reference_server) == 1
    result = run("--profile", "local", "add", "--name", "Fern", "--id", str(plant_id + 1), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["outcome"] == "created"


# --- the canary never shows --------------------------------------------------------------------


def test_a_canary_token_from_every_source_never_appears_in_output_or_profiles_toml(
    reference_server: Any, monkeypatch: pytest.MonkeyPatch, config: Path, terminal: None
) -> None:
    base = ["--base-url", reference_server.base_url]
    monkeypatch.setenv("CANARY_VAR", CANARY)
    command = """sh -c 'printf %s "$CANARY_VAR"'"""
    results = [
        run("profile", "add", "stdin", *base, "--token-stdin", input=CANARY),
        run("profile", "add", "prompt", *base, input=CANARY),
        run("profile", "add", "var", *base, "--token-env", "CANARY_VAR"),
        run("profile", "add", "cmd", *base, "--token-command", command),
    ]
    keyring = MemoryKeyring()
    use_keyring(monkeypatch, keyring)
    results.append(run("profile", "add", "keyring", *base, "--token-stdin", input=CANARY))
    results.append(run("profile", "edit", "prompt", "--token-prompt", input=CANARY))
    assert all(result.exit_code == 0 for result in results), [r.output for r in results]
    names = ("stdin", "prompt", "var", "cmd", "keyring")
    for name in names:
        results += [run("profile", "show", name), run("profile", "test", name)]
        results.append(run("add", "--name", "Fern", "--id", "1", "--profile", name))
    results += [run("profile", "list"), run("profile", "list", "--json")]
    monkeypatch.setenv("PLANTSTORE_TOKEN", CANARY + "x")
    results.append(run("profile", "test", "var"))
    for result in results:
        assert CANARY not in result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
    assert CANARY not in (config / "profiles.toml").read_text()
    assert CANARY not in repr(ProfileStore().load())


def test_history_can_be_turned_off_and_on_for_a_profile(
    shared_reference_server: Any, plant_id: int, another_plant_id: int
) -> None:
    token = shared_reference_server.token.get_secret_value()
    url = shared_reference_server.base_url
    env = {"QUIET_TOKEN": token}
    added = run(
        "profile",
        "add",
        "quiet",
        "--base-url",
        url,
        "--token-env",
        "QUIET_TOKEN",
        "--no-history",
        env=env,
    )
    assert added.exit_code == 0, added.output
    assert "history:   off" in run("profile", "show", "quiet").output
    listed = json.loads(run("profile", "list", "--json").stdout)["profiles"]
    assert [p["history"] for p in listed if p["name"] == "quiet"] == [False]

    sent = run("add", "--name", "Quiet", "--id", str(plant_id), "--profile", "quiet", env=env)
    assert sent.exit_code == 0, sent.output
    assert json.loads(run("history", "--json").stdout) == []

    assert run("profile", "edit", "quiet", "--history").exit_code == 0
    again = run(
        "add", "--name", "Kept", "--id", str(another_plant_id), "--profile", "quiet", env=env
    )
    assert again.exit_code == 0, again.output
    kept = json.loads(run("history", "--json").stdout)
    assert [(row["profile"], row["sent"]["name"]) for row in kept] == [("quiet", "Kept")]
