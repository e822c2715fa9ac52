"""Probes in `history`: listed by `history --probes` (named p and a number), shown and exported by
that name, cleared with the plants; never among the plants, and the exported commands run for real
send the same request again."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

import pytest
from click.testing import CliRunner, Result
from export_support import run_shell, tools
from ledger_support import ledger_file
from misbehaving import ServerThread, spec_like

from plantstore_tui.cli import main
from plantstore_tui.cli.completion import COMPLETE_VAR
from plantstore_tui.core.http.probe import WRONG_TOKEN
from plantstore_tui.server.runner import BackgroundServer

CANARY = "canary-token-0123456789-DO-NOT-EXPORT"


def run(*args: str, token: str | None = None, stdin: bytes | None = None) -> Result:
    env = {"PLANTSTORE_TOKEN": token, "PLANTSTORE_PROFILE": None, "PLANTSTORE_BASE_URL": None}
    return CliRunner().invoke(main, list(args), env=env, input=stdin)


def probe(base_url: str, *args: str, token: str = CANARY) -> None:
    done = run("probe", "--base-url", base_url, *args, token=token)
    assert done.exit_code in (0, 3), done.output


def plants_rows() -> list[tuple[object, ...]]:
    with closing(sqlite3.connect(ledger_file())) as connection:
        return connection.execute("SELECT entry FROM plants").fetchall()


def test_history_probes_lists_them_and_history_of_plants_never_does(
    shared_reference_server: BackgroundServer, closed_port: int
) -> None:
    token = shared_reference_server.token.get_secret_value()
    base = shared_reference_server.base_url
    probe(base, "--body", '{"id": "7", "name": "Fern"}', token=token)
    probe(base, "--body", "not json", "--token", "none", token=token)
    probe(base, "--body", "{}", "--token", "wrong", token=token)
    probe(f"http://127.0.0.1:{closed_port}", "--body", "{}")
    listed = run("history", "--probes")
    assert listed.exit_code == 0, listed.output
    lines = listed.stdout.splitlines()
    assert lines[0].split()[:2] == ["#", "time"]
    assert [line.split()[0] for line in lines[1:]] == ["p4", "p3", "p2", "p1"]
    # the request, then token, status, shape, fate (after the number, the date and time,
    # profile and target)
    assert {tuple(line.split()[5:7]) for line in lines[1:]} == {("POST", "/plants")}
    cells = [line.split()[7:12] for line in lines[1:]]
    assert cells[0] == ["profile", "-", "-", "not", "created"]
    assert cells[1] == ["wrong", "401", "Error", "not", "created"]
    assert cells[2] == ["none", "401", "Error", "not", "created"]
    assert cells[3] == ["profile", "400", "Error", "not", "created"]
    assert lines[3].endswith("not json")
    as_json = json.loads(run("history", "--probes", "--json").stdout)
    assert [one["probe"] for one in as_json] == ["p4", "p3", "p2", "p1"]
    assert as_json[3]["status"] == 400
    assert as_json[3]["verdict"] == {
        "shape": "Error",
        "listed": True,
        "fate": "not created",
        "off_spec": [],
    }
    assert json.loads(run("history", "--probes", "--json", "--limit", "1").stdout)[0]["probe"] == (
        "p4"
    )
    # The plants: none, in every view.
    assert plants_rows() == []
    assert run("history").stdout == "No sends in the history match.\n"
    assert json.loads(run("history", "--json").stdout) == []
    assert run("history", "--pending").stdout == "Nothing waits for an operator.\n"
    assert json.loads(run("history", "summary", "--json").stdout)["taken"] == 0
    for said in (listed.output, run("history", "show", "p1").output):
        assert token not in said
        assert CANARY not in said


def test_history_probes_refuses_the_filters_of_plants() -> None:
    refused = run("history", "--probes", "--state", "created")
    assert refused.exit_code == 2
    assert "--state picks plants; --probes lists probes" in refused.stderr
    assert run("history", "--probes").stdout == "No history yet.\n"


def test_show_a_probe_whole(closed_port: int) -> None:
    with ServerThread(spec_like) as server:
        probe(server.base_url, "--body", '{"id": 1, "name": "Fern"}', "--header", "X-Probe: yes")
    shown = run("history", "show", "p1")
    assert shown.exit_code == 0, shown.output
    out = shown.stdout
    assert out.startswith("Probe p1: ")
    assert f"POST {server.base_url}/plants: 200 in " in out
    assert "  token: profile" in out
    assert "    X-Probe: yes" in out
    assert '  sent (25 bytes): {"id": 1, "name": "Fern"}' in out
    assert '  received: {"name": "Fern"}' in out
    assert (
        "  reading: The body is a Plant; the spec lists this status. The plant was created." in out
    )
    as_json = json.loads(run("history", "show", "p1", "--json").stdout)
    assert as_json["probe"] == "p1"
    assert as_json["request"]["headers"] == [["X-Probe", "yes"]]
    missing = run("history", "show", "p9")
    assert missing.exit_code == 2
    assert "No probe p9 in the history." in missing.stderr
    # A plant's entry number is never a probe's.
    assert "No send #1" in run("history", "show", "1").stderr
    wrong = run("history", "export", "q1", "--as", "curl")
    assert wrong.exit_code == 2
    assert "neither a history entry (12) nor a probe (p12)" in wrong.stderr


@pytest.mark.parametrize("as_", ["curl", "httpie"])
def test_an_exported_probe_gets_the_same_status_from_the_reference_server(
    shared_reference_server: BackgroundServer, as_: str
) -> None:
    tools(as_)
    token = shared_reference_server.token.get_secret_value()
    base = shared_reference_server.base_url
    probe(base, "--body", '{"id": "7", "name": "Fern"}', token=token)
    probe(base, "--body", "{}", "--token", "none", token=token)
    probe(base, "--body", "{}", "--token", "wrong", token=token)
    statuses = [one["status"] for one in json.loads(run("history", "--probes", "--json").stdout)]
    assert statuses == [401, 401, 400]
    for number, status in zip((3, 2, 1), statuses, strict=True):
        command = run("history", "export", f"p{number}", "--as", as_).stdout.strip()
        assert token not in command
        # The status the command got, as its tool reports it.
        shown = (
            command + " --write-out '\\n%{http_code}'"
            if as_ == "curl"
            else command.replace("--check-status", "--check-status --print=h", 1)
        )
        done = run_shell(shown, token)
        assert done.returncode != 0, "a refused request ends the command with an error"
        if as_ == "curl":
            assert done.stdout.splitlines()[-1] == str(status)
        else:
            assert done.stdout.startswith(f"HTTP/1.1 {status}")


@pytest.mark.parametrize("as_", ["curl", "httpie"])
@pytest.mark.parametrize("choice", ["profile", "none", "wrong"])
def test_an_exported_probe_sends_the_same_bytes_headers_and_token_choice(
    as_: str, choice: str
) -> None:
    tools(as_)
    body = b"{\"id\": 7, 'it''s' $(id) `id` \x1b[31m \xff\x00 %s \\n}\n"
    with ServerThread(spec_like) as server:
        done = run(
            "probe",
            "--base-url",
            server.base_url,
            "--body-file",
            "-",
            "--token",
            choice,
            "--header",
            "Content-Type: text/plain; charset=latin-1",
            "--header",
            "X-Probe: it's $HOME",
            token=CANARY,
            stdin=body,
        )
        assert done.exit_code == 0, done.output
        command = run("history", "export", "p1", "--as", as_).stdout.strip()
        assert "\n" not in command
        assert "\x1b" not in command
        assert CANARY not in command
        replayed = run_shell(command, CANARY)
        first, again = server.requests
    assert replayed.returncode == 0 or "400" in replayed.stdout + replayed.stderr
    assert again.body == first.body == body
    assert again.headers["content-type"] == "text/plain; charset=latin-1"
    assert again.headers["x-probe"] == "it's $HOME"
    expected = {"profile": f"Bearer {CANARY}", "none": None, "wrong": f"Bearer {WRONG_TOKEN}"}
    assert again.headers.get("authorization") == expected[choice]


def test_history_clear_clears_probes_too_and_says_so(closed_port: int) -> None:
    probe(f"http://127.0.0.1:{closed_port}", "--body", "{}")
    probe(f"http://127.0.0.1:{closed_port}", "--body", "{}")
    cleared = run("history", "clear", "--yes")
    assert cleared.exit_code == 0, cleared.output
    assert "Deleted 0 sends and 2 probes from" in cleared.stdout
    assert json.loads(run("history", "--probes", "--json").stdout) == []


@pytest.mark.parametrize(
    ("typed", "values"),
    [
        ("plantstore-tui history export p1", ["p11", "p10", "p1"]),
        ("plantstore-tui history show p", [f"p{number}" for number in range(11, 0, -1)]),
        ("plantstore-tui history show px", []),
    ],
)
def test_tab_offers_probes_after_p(closed_port: int, typed: str, values: list[str]) -> None:
    for _ in range(11):
        probe(f"http://127.0.0.1:{closed_port}", "--body", "{}")
    env = {
        COMPLETE_VAR: "bash_complete",
        "COMP_WORDS": typed,
        "COMP_CWORD": str(len(typed.split()) - 1),
    }
    done = CliRunner().invoke(main, [], env=env, prog_name="plantstore-tui")
    assert done.exit_code == 0, done.output
    assert [line.removeprefix("plain,") for line in done.stdout.splitlines() if line] == values
