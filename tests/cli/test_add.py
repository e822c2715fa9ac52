"""`plantstore-tui add` against the real reference server: outcomes, words and exit codes."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from click.testing import CliRunner, Result
from misbehaving import MisbehavingServer, Send, json_response

from plantstore_tui.cli import main
from plantstore_tui.cli.targets import TargetOptions, resolve_target

CANARY = "CANARY-add-3f9c1e7b5d2a48f6"


def run_add(*args: str, token: str | None, base_url: str | None = None) -> Result:
    env = {"PLANTSTORE_TOKEN": token, "PLANTSTORE_PROFILE": None, "PLANTSTORE_BASE_URL": None}
    argv = ["add", *args]
    if base_url is not None:
        argv += ["--base-url", base_url]
    return CliRunner().invoke(main, argv, env=env)


def token_of(server: Any) -> str:
    value: str = server.token.get_secret_value()
    return value


def test_created_prints_the_plant_and_exits_0(shared_reference_server: Any, plant_id: int) -> None:
    result = run_add(
        "--name",
        "Monstera",
        "--id",
        str(plant_id),
        "--tag",
        "indoor",
        token=token_of(shared_reference_server),
        base_url=shared_reference_server.base_url,
    )
    assert result.exit_code == 0, result.output
    assert f"Created plant {plant_id} (Monstera)" in result.stdout
    assert f"POST {shared_reference_server.base_url}/plants: 200" in result.stdout
    assert 'tag: "indoor"' in result.stdout


def test_json_prints_one_object_of_the_contract(
    shared_reference_server: Any, plant_id: int
) -> None:
    result = run_add(
        "--name",
        "Fern",
        "--id",
        str(plant_id),
        "--json",
        token=token_of(shared_reference_server),
        base_url=shared_reference_server.base_url,
    )
    assert result.exit_code == 0
    answer = json.loads(result.stdout)
    assert answer["outcome"] == "created"
    assert answer["status"] == 200
    assert answer["sent"] == {"id": plant_id, "name": "Fern"}
    assert answer["plant"]["name"] == "Fern"
    assert answer["error"] is None
    assert answer["kind"] is None
    assert isinstance(answer["elapsed_ms"], float)
    assert result.stdout.count("\n") == 1


def test_duplicate_id_is_rejected_with_the_servers_message(
    shared_reference_server: Any, plant_id: int
) -> None:
    token, url, same = (
        token_of(shared_reference_server),
        shared_reference_server.base_url,
        str(plant_id),
    )
    assert run_add("--name", "A", "--id", same, token=token, base_url=url).exit_code == 0
    again = run_add("--name", "B", "--id", same, "--json", token=token, base_url=url)
    assert again.exit_code == 1
    answer = json.loads(again.stdout)
    assert answer["outcome"] == "rejected"
    assert answer["status"] == 400
    assert isinstance(answer["error"]["error"], int)
    assert same in answer["error"]["message"]

    human = run_add("--name", "B", "--id", same, token=token, base_url=url)
    assert human.exit_code == 1
    assert answer["error"]["message"] in human.stdout
    assert "The plant was not created." in human.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--name", "Fern", "--id", "1.0"], "ID must be a whole number"),
        (["--name", "Fern", "--id", "99999999999999999999"], "ID must be between"),
        (["--name", "   ", "--id", "1"], "Name is required"),
        (["--name", "Fe\x1brn", "--id", "1"], "position 3"),
    ],
)
def test_invalid_input_exits_2_and_sends_nothing(
    closed_port: int, args: list[str], words: str
) -> None:
    # A closed port: had anything been sent, the exit code would be 3, not 2.
    result = run_add(*args, token="t" * 20, base_url=f"http://127.0.0.1:{closed_port}")
    assert result.exit_code == 2
    assert words in result.stderr
    assert "Nothing was sent" in result.stderr
    assert result.stdout == ""


def test_wrong_token_is_a_rejection(shared_reference_server: Any) -> None:
    result = run_add(
        "--name", "Fern", "--id", "8", token=CANARY, base_url=shared_reference_server.base_url
    )
    assert result.exit_code == 1
    assert "401" in result.stdout
    assert "token" in result.stdout.lower()
    assert CANARY not in result.output


def test_refused_connection_exits_3_in_words(closed_port: int) -> None:
    result = run_add(
        "--name", "Fern", "--id", "9", token=CANARY, base_url=f"http://127.0.0.1:{closed_port}"
    )
    assert result.exit_code == 3
    assert "Cannot connect to 127.0.0.1" in result.stdout
    assert "The plant was not created." in result.stdout
    assert CANARY not in result.output


def test_no_token_is_a_configuration_problem(shared_reference_server: Any) -> None:
    result = run_add(
        "--name", "Fern", "--id", "1", token=None, base_url=shared_reference_server.base_url
    )
    assert result.exit_code == 4
    assert "PLANTSTORE_TOKEN" in result.stderr


def test_no_target_is_a_configuration_problem() -> None:
    result = run_add("--name", "Fern", "--id", "1", token=CANARY)
    assert result.exit_code == 4
    assert "--base-url" in result.stderr
    assert CANARY not in result.output


def test_a_token_is_never_taken_as_an_option() -> None:
    result = CliRunner().invoke(main, ["add", "--name", "F", "--id", "1", "--token", CANARY])
    assert result.exit_code == 2
    assert "No such option" in result.output


def test_a_protected_profile_is_not_sent_to_without_yes(closed_port: int) -> None:
    runner = CliRunner()
    env = {"PROTECTED_TOKEN": CANARY}
    saved = runner.invoke(
        main,
        [
            "profile",
            "add",
            "prod",
            "--base-url",
            f"http://127.0.0.1:{closed_port}",
            "--token-env",
            "PROTECTED_TOKEN",
            "--protected",
        ],
        env=env,
    )
    assert saved.exit_code == 0, saved.output
    plant = ["add", "--profile", "prod", "--name", "Fern", "--id", "1"]

    # No terminal to ask on: refused before anything is sent (exit 2, not 3).
    refused = runner.invoke(main, plant, env=env)
    assert refused.exit_code == 2
    assert "protected profile prod" in refused.stderr
    assert "--yes" in refused.stderr

    # With --yes it is sent, and fails on the closed port.
    sent = runner.invoke(main, [*plant, "--yes"], env=env)
    assert sent.exit_code == 3
    assert "Cannot connect" in sent.stdout
    assert CANARY not in refused.output + sent.output


def test_a_bad_base_url_option_is_a_usage_error() -> None:
    result = run_add("--name", "Fern", "--id", "1", token=CANARY, base_url="ftp://example.test")
    assert result.exit_code == 2
    assert "http:// or https://" in result.stderr


def test_plain_http_beyond_loopback_needs_an_explicit_opt_in_for_the_run() -> None:
    args = ["--name", "Fern", "--id", "1"]
    refused = run_add(*args, token=CANARY, base_url="http://plants.example.com")
    assert refused.exit_code == 2
    assert "--allow-insecure-http" in refused.stderr

    # With the opt-in the http check passes; with no token it stops there, before any send.
    allowed = run_add(
        *args, "--allow-insecure-http", token=None, base_url="http://plants.example.com"
    )
    assert allowed.exit_code == 4
    assert "No token" in allowed.stderr


def test_the_opt_in_given_to_the_group_reaches_add(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANTSTORE_TOKEN", CANARY)
    options = TargetOptions(allow_insecure_http=True).merged(None, "http://plants.example.com")
    target = resolve_target(options, interactive=False)
    assert target.base_url == "http://plants.example.com"
    assert target.token.get_secret_value() == CANARY


async def test_a_megabyte_name_is_printed_bounded_and_whole_only_in_json() -> None:
    huge = "R" * 1_048_560
    async with MisbehavingServer([Send(json_response(200, {"name": huge}))]) as server:
        args = ("--name", "Rose", "--id", "5", "--base-url", server.base_url)
        human = await asyncio.to_thread(run_add, *args, token="token-for-a-big-answer")
        as_json = await asyncio.to_thread(run_add, *args, "--json", token="token-for-a-big-answer")
    assert human.exit_code == 0, human.output
    assert f"Created plant 5 ({'R' * 60}… (name: 1,048,560 characters, first 60 shown))" in (
        human.stdout
    )
    assert f'  name: "{"R" * 200}…"' in human.stdout
    assert "(name: 1,048,560 characters, first 200 shown)" in human.stdout
    assert len(human.stdout) < 2000
    # --json is machine output: the server's answer whole, its message bounded like the words.
    answer = json.loads(as_json.stdout)
    assert answer["plant"] == {"name": huge}
    assert len(answer["message"]) < 200
