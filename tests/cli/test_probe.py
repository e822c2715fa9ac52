"""`plantstore-tui probe`: one request exactly as given, against the reference server and an
independent one; what came back printed with the spec's reading, kept in the ledger as a probe
(never as a plant), the token never printed or kept."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from ledger_support import ledger_file
from misbehaving import Send, ServerThread, json_response, response, spec_like

from plantstore_tui.cli import main
from plantstore_tui.core.http.cases import load_cases
from plantstore_tui.core.http.probe import WRONG_TOKEN, TokenChoice
from plantstore_tui.server.runner import BackgroundServer

CANARY = "canary-token-0123456789-DO-NOT-PRINT"


def probe(*args: str, token: str | None = CANARY, stdin: bytes | None = None) -> Result:
    env = {"PLANTSTORE_TOKEN": token, "PLANTSTORE_PROFILE": None, "PLANTSTORE_BASE_URL": None}
    return CliRunner().invoke(main, ["probe", *args], env=env, input=stdin)


def token_of(server: BackgroundServer) -> str:
    return server.token.get_secret_value()


def table(name: str) -> list[tuple[Any, ...]]:
    """Every row of one of the ledger's tables (none: no ledger yet)."""
    if not ledger_file().exists():
        return []
    with closing(sqlite3.connect(ledger_file())) as connection:
        return connection.execute(f"SELECT * FROM {name}").fetchall()


def test_an_id_given_as_a_string_is_refused_with_the_spec_s_error(
    shared_reference_server: BackgroundServer,
) -> None:
    token = token_of(shared_reference_server)
    body = '{"id": "7", "name": "Fern"}'
    done = probe("--base-url", shared_reference_server.base_url, "--body", body, token=token)
    assert done.exit_code == 0, done.output
    out = done.stdout
    assert f"POST {shared_reference_server.base_url}/plants" in out
    assert f"Authorization: Bearer …{token[-4:]}" in out
    assert body in out
    assert "Answer: 400" in out
    assert '"error":' in out
    assert "The body is an Error; the spec lists this status. The plant was not created." in out
    assert " ms" in out
    assert token not in done.output
    # Kept as a probe, never as a plant.
    assert table("plants") == []
    assert len(table("probes")) == 1
    assert "history p1" in out


def test_a_body_that_is_not_json_is_sent_and_read(
    shared_reference_server: BackgroundServer,
) -> None:
    done = probe(
        "--base-url",
        shared_reference_server.base_url,
        "--body",
        '{"id": 7,',
        token=token_of(shared_reference_server),
    )
    assert done.exit_code == 0, done.output
    assert "Answer: 400" in done.stdout
    assert "The body is an Error" in done.stdout


@pytest.mark.parametrize(
    ("choice", "authorization"), [("none", None), ("wrong", f"Authorization: Bearer {WRONG_TOKEN}")]
)
def test_no_token_and_a_wrong_token_are_refused_by_the_reference_server(
    shared_reference_server: BackgroundServer, choice: str, authorization: str | None
) -> None:
    done = probe(
        "--base-url",
        shared_reference_server.base_url,
        "--body",
        '{"id": 1, "name": "Fern"}',
        "--token",
        choice,
        token=token_of(shared_reference_server),
    )
    assert done.exit_code == 0, done.output
    assert "Answer: 401" in done.stdout
    # The spec lists 200 and 400; a 401 is named by what HTTP says it means.
    assert (
        "401 Unauthorized is not in the spec (HTTP: the request lacks valid credentials for "
        "the address). The plant was not created." in " ".join(done.stdout.split())
    )
    assert "the spec lists this status" not in done.stdout
    request = done.stdout.partition("Answer:")[0]
    if authorization is None:
        assert "Authorization" not in request
    else:
        assert f"  {authorization}\n" in request
    [kept] = table("probes")
    assert TokenChoice(choice).value in kept


def test_an_independent_server_s_answer_is_shown_escaped_and_read() -> None:
    hostile = b'{"name": "Fern\\u001b]52;c;aGk=\\u0007", "x": 1}'
    answer = [
        Send(
            response(
                200,
                hostile,
                headers=[("Content-Type", "application/json"), ("X-Odd", "a\x1b[31mred")],
            )
        )
    ]
    with ServerThread(answer) as server:
        done = probe("--base-url", server.base_url, "--body", '{"id": "7", "name": "Fern"}')
        [received] = server.requests
    assert done.exit_code == 0, done.output
    assert received.body == b'{"id": "7", "name": "Fern"}'
    assert received.headers["authorization"] == f"Bearer {CANARY}"
    assert "\x1b" not in done.output
    assert "\x07" not in done.output
    assert "Answer: 200" in done.stdout
    assert "x-odd: a\\e[31mred" in done.stdout.lower()
    assert "The body is a Plant" in done.stdout
    assert CANARY not in done.output


def test_an_independent_server_s_own_refusal_is_read_as_neither() -> None:
    page = [Send(response(403, b"<html>denied</html>", headers=[("Content-Type", "text/html")]))]
    with ServerThread(page) as server:
        done = probe("--base-url", server.base_url, "--body", "{}", "--token", "none")
    assert done.exit_code == 0, done.output
    assert "Answer: 403" in done.stdout
    assert "<html>denied</html>" in done.stdout
    assert "neither a Plant nor an Error" in done.stdout


def test_json_prints_one_object() -> None:
    with ServerThread(spec_like) as server:
        done = probe("--base-url", server.base_url, "--body", '{"id": 3, "name": "Ivy"}', "--json")
    assert done.exit_code == 0, done.output
    answer = json.loads(done.stdout)
    assert answer["status"] == 200
    assert answer["verdict"]["shape"] == "Plant"
    assert answer["verdict"]["fate"] == "created"
    assert json.loads(answer["body"]) == {"name": "Ivy"}
    assert answer["elapsed_ms"] > 0
    assert any(name.lower() == "content-type" for name, _ in answer["headers"])
    assert answer["probe"] == "p1"
    assert CANARY not in done.output


def test_no_answer_exits_3_with_words(closed_port: int) -> None:
    done = probe("--base-url", f"http://127.0.0.1:{closed_port}", "--body", "{}")
    assert done.exit_code == 3, done.output
    assert "No answer" in done.stdout
    assert "Cannot connect" in done.stdout
    as_json = probe("--base-url", f"http://127.0.0.1:{closed_port}", "--body", "{}", "--json")
    assert as_json.exit_code == 3
    answer = json.loads(as_json.stdout)
    assert answer["status"] is None
    assert answer["message"]
    # Kept too, with why no answer came.
    assert len(table("probes")) == 2


def test_the_body_comes_byte_for_byte_from_a_file_or_stdin(tmp_path: Path) -> None:
    raw = b'{"id": 7, "name": "\xff\xfe"}\n'
    path = tmp_path / "body.bin"
    path.write_bytes(raw)
    with ServerThread(spec_like) as server:
        from_file = probe("--base-url", server.base_url, "--body-file", str(path))
        from_stdin = probe("--base-url", server.base_url, "--body-file", "-", stdin=raw)
        received = [request.body for request in server.requests]
    assert (from_file.exit_code, from_stdin.exit_code) == (0, 0), from_file.output
    assert received == [raw, raw]
    # Shown escaped: the bytes that are not UTF-8 as escapes, the newline as \n.
    assert "\\xff\\xfe" in from_file.stdout
    assert '"}\\n' in from_file.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ([], "--body"),
        (["--body", "{}", "--body-file", "-"], "not both"),
        (["--body", "{}", "--header", "no colon"], "NAME:VALUE"),
        (["--body", "{}", "--header", "Host: elsewhere"], "set by the request itself"),
        (["--body", "{}", "--case-name", "x"], "--save-case"),
        (["--body", "{}", "--token", "mine"], "mine"),
        (["--body", "{}", "--profile", "prod"], "not both"),
    ],
)
def test_usage_mistakes_exit_2_with_words_and_send_nothing(
    args: list[str], words: str, closed_port: int
) -> None:
    done = probe("--base-url", f"http://127.0.0.1:{closed_port}", *args)
    assert done.exit_code == 2, done.output
    assert words in done.stderr
    assert table("probes") == []


def test_a_usage_mistake_with_json_is_one_object_too(closed_port: int) -> None:
    done = probe("--base-url", f"http://127.0.0.1:{closed_port}", "--json")
    assert done.exit_code == 2
    answer = json.loads(done.stdout)
    assert answer["outcome"] == "usage error"
    assert answer["status"] is None
    # Nothing was sent, so no header came back: null, as docs/commands.md says of every key.
    assert answer["headers"] is None
    assert answer["exit_code"] == 2
    assert "--body" in answer["message"]


def test_no_token_anywhere_is_a_configuration_problem(closed_port: int) -> None:
    done = probe("--base-url", f"http://127.0.0.1:{closed_port}", "--body", "{}", token=None)
    assert done.exit_code == 4
    assert "PLANTSTORE_TOKEN" in done.stderr


@pytest.mark.parametrize("choice", ["none", "wrong"])
def test_a_probe_that_sends_no_token_of_the_profile_needs_none(
    shared_reference_server: BackgroundServer, choice: str, tmp_path: Path
) -> None:
    # An ad hoc target with no token anywhere, and a profile whose token command would fail:
    # neither token is read, as neither is sent.
    done = probe(
        "--base-url",
        shared_reference_server.base_url,
        "--body",
        "{}",
        "--token",
        choice,
        token=None,
    )
    assert done.exit_code == 0, done.output
    assert "Answer: 401" in done.stdout
    failing = tmp_path / "no-token.sh"
    failing.write_text("#!/bin/sh\nexit 1\n")
    failing.chmod(0o755)
    added = CliRunner().invoke(
        main,
        [
            "profile",
            "add",
            "cmd",
            "--base-url",
            shared_reference_server.base_url,
            "--token-command",
            str(failing),
        ],
        env={"PLANTSTORE_TOKEN": None},
    )
    assert added.exit_code == 0, added.output
    done = probe("--profile", "cmd", "--body", "{}", "--token", choice, token=None)
    assert done.exit_code == 0, done.output
    assert "Answer: 401" in done.stdout


def test_save_case_appends_the_request_with_the_status_it_got(
    shared_reference_server: BackgroundServer, tmp_path: Path
) -> None:
    cases = tmp_path / "cases.toml"
    token = token_of(shared_reference_server)
    base = ["--base-url", shared_reference_server.base_url]
    first = probe(
        *base, "--body", '{"id": "7", "name": "Fern"}', "--save-case", str(cases), token=token
    )
    second = probe(
        *base,
        "--body",
        "{}",
        "--token",
        "none",
        "--save-case",
        str(cases),
        "--case-name",
        "no token is refused",
        token=token,
    )
    assert (first.exit_code, second.exit_code) == (0, 0), first.output + second.output
    assert f"Saved as a case in {cases}" in first.stdout
    saved = load_cases(cases)
    assert [case.status for case in saved] == [400, 401]
    assert saved[0].request.body == b'{"id": "7", "name": "Fern"}'
    assert saved[0].name == '{"id": "7", "name": "Fern"} (profile token)'
    assert saved[0].error is not None
    assert saved[1].name == "no token is refused"
    assert saved[1].request.token is TokenChoice.NONE
    assert token not in cases.read_text()
    # A name the file has already: refused before anything is sent.
    again = probe(
        *base,
        "--body",
        "{}",
        "--save-case",
        str(cases),
        "--case-name",
        "no token is refused",
        token=token,
    )
    assert again.exit_code == 2
    assert "no token is refused" in again.stderr
    assert len(table("probes")) == 2


def test_save_case_without_an_answer_saves_nothing_and_exits_3(
    closed_port: int, tmp_path: Path
) -> None:
    cases = tmp_path / "cases.toml"
    done = probe(
        "--base-url", f"http://127.0.0.1:{closed_port}", "--body", "{}", "--save-case", str(cases)
    )
    assert done.exit_code == 3
    assert "nothing was saved" in done.stderr
    assert not cases.exists()


def test_a_protected_profile_is_not_probed_without_yes(closed_port: int) -> None:
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
    valid = ["probe", "--profile", "prod", "--body", '{"id": 1, "name": "Fern"}']
    refused = runner.invoke(main, valid, env=env)
    assert refused.exit_code == 2
    assert "protected profile prod" in refused.stderr
    assert table("probes") == []
    sent = runner.invoke(main, [*valid, "--yes"], env=env)
    assert sent.exit_code == 3
    # A probe that cannot create a plant (no token) needs no question.
    harmless = runner.invoke(main, [*valid, "--token", "none"], env=env)
    assert harmless.exit_code == 3
    assert CANARY not in refused.output + sent.output + harmless.output


def test_a_ledger_that_cannot_be_written_is_a_warning_not_a_failure() -> None:
    ledger_file().parent.mkdir(parents=True, exist_ok=True)
    ledger_file().write_bytes(b"not a ledger" * 100)
    with ServerThread(spec_like) as server:
        done = probe("--base-url", server.base_url, "--body", "{}")
    assert done.exit_code == 0, done.output
    assert "History is off for this run" in done.stderr
    assert "Answer: 400" in done.stdout


def test_the_real_command_reads_the_body_from_stdin() -> None:
    with ServerThread(spec_like) as server:
        done = subprocess.run(
            [
                *(sys.executable, "-m", "plantstore_tui", "probe"),
                *("--base-url", server.base_url, "--body-file", "-", "--json"),
            ],
            input=b'{"id": 9, "name": "Moss"}',
            capture_output=True,
            timeout=60,
            env={**os.environ, "PLANTSTORE_TOKEN": CANARY},
            check=False,
        )
        [received] = server.requests
    assert done.returncode == 0, done.stderr
    assert received.body == b'{"id": 9, "name": "Moss"}'
    assert json.loads(done.stdout)["status"] == 200
    assert CANARY.encode() not in done.stdout + done.stderr


def test_the_answer_body_is_bounded() -> None:
    big = [Send(json_response(400, {"error": 1, "message": "x" * 5000}))]
    with ServerThread(big) as server:
        done = probe("--base-url", server.base_url, "--body", "{}")
    assert done.exit_code == 0
    assert "x" * 201 not in done.stdout
    assert "5,000 characters, first 200 shown" in done.stdout


@pytest.mark.parametrize("status", [401, 403, 404, 405, 413, 415, 429, 503])
def test_a_status_beside_the_spec_s_is_named_by_http_and_not_in_the_spec(status: int) -> None:
    refusal = [Send(json_response(status, {"error": status, "message": "no"}))]
    with ServerThread(refusal) as server:
        done = probe("--base-url", server.base_url, "--body", "{}", "--json")
    assert done.exit_code == 0, done.output
    verdict = json.loads(done.stdout)["verdict"]
    assert verdict["listed"] is False
    assert f"{status} " in verdict["words"]
    assert "is not in the spec (HTTP: " in verdict["words"]
    assert "the spec lists" not in verdict["words"]


def test_save_case_from_stdin_keeps_the_body_s_newline_out_of_the_name(tmp_path: Path) -> None:
    cases = tmp_path / "cases.toml"
    raw = b'{"id": "7", "name": "Fern"}\n'
    with ServerThread(spec_like) as server:
        done = subprocess.run(
            [
                *(sys.executable, "-m", "plantstore_tui", "probe", "--base-url", server.base_url),
                *("--body-file", "-", "--save-case", str(cases)),
            ],
            input=raw,
            capture_output=True,
            timeout=60,
            env={**os.environ, "PLANTSTORE_TOKEN": CANARY},
            check=False,
        )
        [received] = server.requests
    assert done.returncode == 0, done.stderr
    assert received.body == raw
    [case] = load_cases(cases)
    # The case sends the bytes the probe sent, and its name is one line of the body.
    assert case.request.body == raw
    assert case.name == '{"id": "7", "name": "Fern"} (profile token)'


def test_save_case_of_an_authorization_given_by_hand_sends_nothing(
    closed_port: int, tmp_path: Path
) -> None:
    cases = tmp_path / "cases.toml"
    done = probe(
        "--base-url",
        f"http://127.0.0.1:{closed_port}",
        "--body",
        "{}",
        "--header",
        "Authorization: Bearer typed-by-hand-0123456789",
        "--save-case",
        str(cases),
    )
    assert done.exit_code == 2, done.output
    assert "keeps no Authorization" in done.stderr
    assert table("probes") == []
    assert not cases.exists()
