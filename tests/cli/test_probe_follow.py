"""`probe --follow`: redirects followed on purpose, each shown and kept, the token only ever sent
to the base URL's own origin, as curl's --location (issue 45, part 5)."""

from __future__ import annotations

import json
from typing import Any

from click.testing import CliRunner, Result
from misbehaving import ReceivedRequest, Send, ServerThread, json_response, response

from plantstore_tui.cli import main

CANARY = "canary-token-0123456789-DO-NOT-PRINT"
FERN = '{"id": 7, "name": "Fern"}'


def probe(*args: str) -> Result:
    env = {"PLANTSTORE_TOKEN": CANARY, "PLANTSTORE_PROFILE": None, "PLANTSTORE_BASE_URL": None}
    return CliRunner().invoke(main, ["probe", *args], env=env)


def redirect(status: int, location: str) -> list[Any]:
    return [Send(response(status, b"", headers=[("Location", location)]))]


def test_a_redirect_to_another_origin_is_followed_without_the_token() -> None:
    with ServerThread([Send(json_response(200, {"name": "Fern"}))]) as elsewhere:
        landing = f"{elsewhere.base_url}/landed?from=probe"
        with ServerThread(redirect(302, landing)) as server:
            done = probe("--base-url", server.base_url, "--body", FERN, "--follow")
            [first] = server.requests
        [second] = elsewhere.requests
    assert done.exit_code == 0, done.output
    assert first.headers["authorization"] == f"Bearer {CANARY}"
    # 302 after a POST: a GET without a body, and nothing of the token on another origin.
    assert (second.method, second.target, second.body) == ("GET", "/landed?from=probe", b"")
    assert "authorization" not in second.headers
    out = done.stdout
    assert f"Redirect 1: POST {server.base_url}/plants answered 302, Location {landing}" in out
    assert f"The token was not sent to {landing}: another origin." in out
    assert f"GET {landing}" in out
    assert "Answer: 200" in out
    assert CANARY not in done.output
    listed = CliRunner().invoke(main, ["history", "--probes", "--json"]).stdout
    kept = json.loads(listed)
    assert [(one["request"]["method"], one["status"]) for one in kept] == [
        ("GET", 200),
        ("POST", 302),
    ]
    assert kept[0]["url"] == landing


def test_json_lists_each_redirect_and_whether_the_token_went() -> None:
    with (
        ServerThread([Send(json_response(200, {"name": "Fern"}))]) as elsewhere,
        ServerThread(redirect(303, f"{elsewhere.base_url}/done")) as server,
    ):
        done = probe("--base-url", server.base_url, "--body", FERN, "--follow", "--json")
    assert done.exit_code == 0, done.output
    answer = json.loads(done.stdout)
    assert answer["redirects"] == [
        {
            "method": "POST",
            "url": f"{server.base_url}/plants",
            "status": 303,
            "location": f"{elsewhere.base_url}/done",
            "authorization_sent": True,
        }
    ]
    assert answer["request"]["method"] == "GET"
    assert not any(name.lower() == "authorization" for name, _ in answer["request"]["headers"])
    assert answer["status"] == 200


def test_a_307_on_the_same_origin_sends_the_same_request_again_with_the_token() -> None:
    def script(request: ReceivedRequest) -> list[Any]:
        if request.target == "/plants":
            return redirect(307, "/v2/plants")
        return [Send(json_response(200, {"name": "Fern"}))]

    with ServerThread(script) as server:
        done = probe("--base-url", server.base_url, "--body", FERN, "--follow")
        first, second = server.requests
    assert done.exit_code == 0, done.output
    assert (second.method, second.target, second.body) == ("POST", "/v2/plants", FERN.encode())
    assert second.headers["authorization"] == f"Bearer {CANARY}"
    assert "another origin" not in done.stdout
    assert first.body == second.body


def test_redirects_stop_after_five_and_say_so() -> None:
    with ServerThread(redirect(302, "/again")) as server:
        done = probe("--base-url", server.base_url, "--method", "GET", "--follow")
        sent = len(server.requests)
    assert done.exit_code == 0, done.output
    assert sent == 6  # the request, then five redirects followed
    assert "Not followed further: stopped after 5 redirects, as it was told." in done.stdout
    assert done.stdout.count("Redirect ") == 5


def test_without_follow_a_redirect_is_shown_not_followed() -> None:
    with ServerThread([Send(json_response(200, {"name": "Fern"}))]) as elsewhere:
        with ServerThread(redirect(302, f"{elsewhere.base_url}/landed")) as server:
            done = probe("--base-url", server.base_url, "--body", FERN)
        assert elsewhere.requests == []
    assert done.exit_code == 0, done.output
    assert "Answer: 302" in done.stdout
    assert "Redirect 1" not in done.stdout
