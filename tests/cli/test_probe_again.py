"""`probe --again N`: a probe from the history sent again, as kept or changed by the options given,
to where it went unless a target is named; each send a new probe, the one sent again untouched. A
probe that is not there is a usage error; an Authorization kept masked is said and not sent
(issue 45, part 4)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from burst_support import stored_plants
from click.testing import CliRunner, Result
from misbehaving import Send, ServerThread, json_response, spec_like

from plantstore_tui.cli import main
from plantstore_tui.server.runner import BackgroundServer

CANARY = "canary-token-0123456789-DO-NOT-PRINT"


def outside(*args: str, token: str) -> subprocess.CompletedProcess[str]:
    """`plantstore-tui ARGS` run as a tester runs it, in a process of its own."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if name not in ("PLANTSTORE_PROFILE", "PLANTSTORE_BASE_URL")
    }
    return subprocess.run(
        [sys.executable, "-m", "plantstore_tui", *args],
        capture_output=True,
        text=True,
        env={**environment, "PLANTSTORE_TOKEN": token},
        timeout=60,
        check=False,
    )


def run(*args: str, token: str = CANARY) -> Result:
    env = {"PLANTSTORE_TOKEN": token, "PLANTSTORE_PROFILE": None, "PLANTSTORE_BASE_URL": None}
    return CliRunner().invoke(main, list(args), env=env)


def kept() -> list[dict[str, Any]]:
    listed = run("history", "--probes", "--json")
    assert listed.exit_code == 0, listed.output
    probes: list[dict[str, Any]] = json.loads(listed.stdout)
    return probes


def test_a_probe_sent_again_with_another_body_is_a_new_probe_and_the_first_is_untouched(
    reference_server: BackgroundServer,
) -> None:
    base, token = reference_server.base_url, reference_server.token.get_secret_value()
    first = outside(
        "probe", "--base-url", base, "--body", '{"id": "7", "name": "Fern"}', token=token
    )
    assert first.returncode == 0, first.stderr
    assert "Answer: 400" in first.stdout
    assert "history p1" in first.stdout
    # No target named: it goes where p1 went.
    again = outside("probe", "--again", "p1", "--body", '{"id": 7, "name": "Fern"}', token=token)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[0] == f"POST {base}/plants"
    assert "Answer: 200" in again.stdout
    assert "history p2" in again.stdout
    assert "p1 sent again" in again.stderr
    assert token not in again.stdout + again.stderr
    assert [row[:2] for row in stored_plants(reference_server.db_path)] == [(7, "Fern")]
    listed = outside("history", "--probes", "--json", token=token)
    second, one = json.loads(listed.stdout)
    assert (second["probe"], second["status"]) == ("p2", 200)
    assert json.loads(second["request"]["body"]) == {"id": 7, "name": "Fern"}
    assert (one["probe"], one["status"]) == ("p1", 400)
    assert json.loads(one["request"]["body"]) == {"id": "7", "name": "Fern"}
    assert one["time"] < second["time"]
    # The number alone names it too; as kept, it gets its 400 again.
    third = outside("probe", "--again", "1", token=token)
    assert third.returncode == 0, third.stderr
    assert "Answer: 400" in third.stdout
    assert [probe["status"] for probe in kept()] == [400, 200, 400]


def test_a_probe_that_is_not_there_is_a_usage_error_in_words(
    shared_reference_server: BackgroundServer,
) -> None:
    token = shared_reference_server.token.get_secret_value()
    missing = outside("probe", "--again", "p99", token=token)
    assert missing.returncode == 2
    assert "No probe p99 in the history" in missing.stderr
    assert missing.stdout == ""
    as_json = outside("probe", "--again", "p99", "--json", token=token)
    assert as_json.returncode == 2
    assert "No probe p99" in json.loads(as_json.stdout)["message"]
    for wrong in ("plants", "#3", "p-1"):
        named = run("probe", "--again", wrong)
        assert named.exit_code == 2, wrong
        assert "is not a probe" in named.output, wrong


def test_what_is_given_changes_what_was_kept_and_the_rest_goes_as_kept() -> None:
    with ServerThread(spec_like) as server:
        first = run(
            "probe",
            "--base-url",
            server.base_url,
            "--method",
            "PUT",
            "--path",
            "/plants/7?x=1",
            "--body",
            "{}",
            "--header",
            "X-Trace: one",
            "--header",
            "X-Keep: yes",
            "--token",
            "wrong",
        )
        assert first.exit_code == 0, first.output
        again = run("probe", "--again", "p1", "--path", "/plants", "--header", "x-trace: two")
        assert again.exit_code == 0, again.output
        changed = run("probe", "--again", "p1", "--method", "post", "--token", "profile")
        assert changed.exit_code == 0, changed.output
        one, two, three = server.requests
    assert (one.method, one.target, one.body) == ("PUT", "/plants/7?x=1", b"{}")
    # The path given; the method, body, token and the other header as kept; a header of the
    # same name (in any case) replaces the kept one.
    assert (two.method, two.target, two.body) == ("PUT", "/plants", b"{}")
    assert (two.headers["x-trace"], two.headers["x-keep"]) == ("two", "yes")
    assert two.headers["authorization"] == one.headers["authorization"] != f"Bearer {CANARY}"
    assert (three.method, three.target, three.headers["x-trace"]) == (
        "POST",
        "/plants/7?x=1",
        "one",
    )
    assert three.headers["authorization"] == f"Bearer {CANARY}"
    assert [probe["probe"] for probe in kept()] == ["p3", "p2", "p1"]
    assert kept()[2]["request"]["path"] == "/plants/7?x=1"


def test_an_authorization_kept_masked_is_said_and_not_sent() -> None:
    credential = "Basic another-credential-of-the-tester"
    with ServerThread([Send(json_response(401, {"error": 401, "message": "who?"}))]) as server:
        first = run(
            "probe",
            "--base-url",
            server.base_url,
            "--body",
            "{}",
            "--header",
            f"Authorization: {credential}",
        )
        assert first.exit_code == 0, first.output
        again = run("probe", "--again", "p1", "--token", "none")
        assert again.exit_code == 0, again.output
        one, two = server.requests
    assert one.headers["authorization"] == credential
    # Kept masked, it is no credential: left out, and said.
    assert "authorization" not in two.headers
    assert "kept masked" in again.stderr
    assert "not sent" in again.stderr
    assert kept()[0]["request"]["headers"] == []


def test_a_target_named_wins_over_where_it_went_and_the_change_is_said(
    shared_reference_server: BackgroundServer,
) -> None:
    token = shared_reference_server.token.get_secret_value()
    with ServerThread([Send(json_response(400, {"error": 1, "message": "no"}))]) as server:
        first = run("probe", "--base-url", server.base_url, "--body", "not json", token=token)
        assert first.exit_code == 0, first.output
    elsewhere = run(
        "probe", "--again", "p1", "--base-url", shared_reference_server.base_url, token=token
    )
    assert elsewhere.exit_code == 0, elsewhere.output
    assert f"POST {shared_reference_server.base_url}/plants" in elsewhere.stdout
    assert f"p1 went to {server.base_url}" in elsewhere.stderr
    [two, one] = kept()
    assert (two["base_url"], one["base_url"]) == (shared_reference_server.base_url, server.base_url)
    assert two["request"]["body"] == "not json"


def test_a_probe_whose_profile_is_gone_says_so_and_sends_nothing(closed_port: int) -> None:
    base = f"http://127.0.0.1:{closed_port}"
    added = run("profile", "add", "gone", "--base-url", base, "--token-env", "PLANTSTORE_TOKEN")
    assert added.exit_code == 0, added.output
    assert run("probe", "--profile", "gone", "--body", "{}").exit_code == 3
    assert run("profile", "remove", "gone", "--yes").exit_code == 0
    again = run("probe", "--again", "p1")
    assert again.exit_code == 4
    assert "Unknown profile 'gone'" in again.output
    assert "p1 was sent with that profile: name a target with --profile or --base-url" in (
        again.output
    )
    assert len(kept()) == 1
