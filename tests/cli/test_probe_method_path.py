"""`probe --method M --path P`: any method, to any path under the base URL (its query string as
typed), read by HTTP where the spec says nothing; kept in the history with its method and path,
and exported as it went (issue 45, part 1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from burst_support import stored_plants
from click.testing import CliRunner, Result
from misbehaving import Send, ServerThread, json_response

from plantstore_tui.cli import main
from plantstore_tui.server.runner import BackgroundServer

CANARY = "canary-token-0123456789-DO-NOT-PRINT"


def probe(*args: str, token: str = CANARY) -> Result:
    env = {"PLANTSTORE_TOKEN": token, "PLANTSTORE_PROFILE": None, "PLANTSTORE_BASE_URL": None}
    return CliRunner().invoke(main, ["probe", *args], env=env)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def test_get_plants_on_the_reference_server_reports_its_405_read_by_http(
    reference_server: BackgroundServer,
) -> None:
    base, token = reference_server.base_url, reference_server.token.get_secret_value()
    # From outside the process, as a tester types it.
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "plantstore_tui",
            "probe",
            "--base-url",
            base,
            "--method",
            "GET",
            "--path",
            "/plants",
        ],
        capture_output=True,
        text=True,
        env={**_environment(), "PLANTSTORE_TOKEN": token},
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"GET {base}/plants"
    assert "  no body" in lines
    assert "Answer: 405" in done.stdout
    assert "allow: post" in done.stdout.lower()
    reading = next(line for line in lines if line.startswith("Reading:"))
    assert "405 Method Not Allowed (HTTP: the address does not take this method)" in reading
    assert "The spec describes only POST /plants: it says nothing of this request." in reading
    # Nothing of a plant's fate is said of a request that is not a plant's.
    assert "created" not in reading
    assert token not in done.stdout + done.stderr
    assert stored_plants(reference_server.db_path) == []


def test_get_openapi_json_shows_the_document_and_json_names_the_request(
    shared_reference_server: BackgroundServer,
) -> None:
    base = shared_reference_server.base_url
    token = shared_reference_server.token.get_secret_value()
    shown = probe("--base-url", base, "--method", "GET", "--path", "/openapi.json", token=token)
    assert shown.exit_code == 0, shown.output
    assert "Answer: 200" in shown.stdout
    assert '"openapi"' in shown.stdout
    assert "neither a Plant nor an Error" in shown.stdout
    as_json = probe(
        "--base-url", base, "--method", "GET", "--path", "/openapi.json", "--json", token=token
    )
    answer = json.loads(as_json.stdout)
    assert answer["url"] == f"{base}/openapi.json"
    assert (answer["request"]["method"], answer["request"]["path"]) == ("GET", "/openapi.json")
    assert answer["status"] == 200
    assert json.loads(answer["body"])["paths"]["/plants"]["post"]
    assert answer["verdict"]["listed"] is False
    assert answer["verdict"]["fate"] is None


def test_the_method_and_path_go_as_typed_query_string_and_all_and_no_body_means_none() -> None:
    answer = [Send(json_response(404, {"error": 404, "message": "no such plant"}))]
    with ServerThread(answer) as server:
        done = probe(
            "--base-url", server.base_url, "--method", "get", "--path", "/plants/7?x=%41&y"
        )
        [received] = server.requests
    assert done.exit_code == 0, done.output
    # In capitals, as httpx sends every method; the path and query string as typed.
    assert (received.method, received.target) == ("GET", "/plants/7?x=%41&y")
    assert received.body == b""
    assert "content-type" not in received.headers
    assert received.headers["authorization"] == f"Bearer {CANARY}"
    assert "404 Not Found (HTTP: the server has nothing at this address)" in done.stdout


def test_a_body_given_goes_with_any_method() -> None:
    with ServerThread([Send(json_response(200, {"name": "Fern"}))]) as server:
        done = probe(
            "--base-url", server.base_url, "--method", "PUT", "--path", "/plants/7", "--body", "{}"
        )
        [received] = server.requests
    assert done.exit_code == 0, done.output
    assert (received.method, received.target, received.body) == ("PUT", "/plants/7", b"{}")
    assert received.headers["content-type"] == "application/json"


def test_what_cannot_be_sent_is_refused_before_anything_goes(closed_port: int) -> None:
    base = f"http://127.0.0.1:{closed_port}"
    for args, words in (
        (["--method", "GE T"], "is not a method"),
        (["--method", ""], "the method is empty"),
        (["--path", "plants"], "starting with /"),
        (["--path", "//elsewhere.example/plants"], "names another host"),
        (["--path", "/plants#top"], "fragment"),
        (["--path", "/pl ants"], "no spaces"),
        (["--path", "/plänts"], "ASCII"),
    ):
        refused = probe("--base-url", base, "--body", "{}", *args)
        assert refused.exit_code == 2, (args, refused.output)
        assert words in refused.stderr, (args, refused.stderr)
    # POST /plants still takes a body; another request may go without.
    bare = probe("--base-url", base)
    assert bare.exit_code == 2
    assert "POST /plants takes one" in bare.stderr


def test_the_history_keeps_the_method_and_path_and_exports_them(
    shared_reference_server: BackgroundServer,
) -> None:
    base = shared_reference_server.base_url
    token = shared_reference_server.token.get_secret_value()
    done = probe(
        "--base-url", base, "--method", "DELETE", "--path", "/plants/1?why=test", token=token
    )
    assert done.exit_code == 0, done.output
    label = done.stdout.splitlines()[-1].split()[-1]
    listed = run("history", "--probes").stdout.splitlines()
    assert listed[1].split()[5:7] == ["DELETE", "/plants/1?why=test"]
    shown = run("history", "show", label).stdout
    assert f"DELETE {base}/plants/1?why=test: 404" in shown
    kept = json.loads(run("history", "--probes", "--json").stdout)[0]
    assert (kept["request"]["method"], kept["request"]["path"]) == ("DELETE", "/plants/1?why=test")
    curl = run("history", "export", label, "--as", "curl").stdout
    assert f"--request DELETE '{base}/plants/1?why=test'" in curl
    assert "--data-binary" not in curl
    assert "Content-Type" not in curl
    httpie = run("history", "export", label, "--as", "httpie").stdout
    assert f"DELETE '{base}/plants/1?why=test'" in httpie
    assert "--raw" not in httpie


def test_a_protected_profile_asks_before_a_method_that_may_change_it(closed_port: int) -> None:
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
    delete = ["probe", "--profile", "prod", "--method", "DELETE", "--path", "/plants/1"]
    refused = runner.invoke(main, delete, env=env)
    assert refused.exit_code == 2
    assert "protected profile prod" in refused.stderr
    # A safe method changes nothing: no question (nobody listens there, so no answer came).
    looked = runner.invoke(main, ["probe", "--profile", "prod", "--method", "GET"], env=env)
    assert looked.exit_code == 3, looked.output
    assert "protected" not in looked.stderr


def _environment() -> dict[str, str]:
    return {
        name: value
        for name, value in os.environ.items()
        if name not in ("PLANTSTORE_PROFILE", "PLANTSTORE_BASE_URL")
    }
