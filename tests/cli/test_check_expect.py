"""`check --expect FILE`: a tester's cases run after the built-in probes, each reported by its
name in the table, in --json and in the JUnit file, and safe: a case that expects 2xx runs only
with --create, on an id of --ids."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from misbehaving import ServerThread, spec_like
from pty_support import PtyProcess

from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.server.runner import BackgroundServer

CANARY = "canary-token-0123456789-DO-NOT-WRITE"
EXAMPLE = Path(__file__).parents[2] / "docs" / "expectations.example.toml"

PASSING = """\
[[case]]
name = "an id given as a string is refused"
body = { id = "7", name = "Fern" }
status = 400
error = 1002

[[case]]
name = "no token is refused"
body = { id = 7 }
token = "none"
status = 401
"""

FAILING = """
[[case]]
name = "a body that is not JSON is a wrong plant"
raw = '{"id": 7,'
status = 400
error = 1002
"""

CREATING = """
[[case]]
name = "a fern is created"
body = { id = 1, name = "Fern", tag = "fern" }
status = 200
"""


def _check(base_url: str, *extra: str, token: str = CANARY) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plantstore_tui", "check", "--base-url", base_url, *extra],
        capture_output=True,
        text=True,
        timeout=60,
        # Wide enough that no row of the table is wrapped.
        env={**os.environ, "PLANTSTORE_TOKEN": token, "COLUMNS": "160"},
        check=False,
        stdin=subprocess.DEVNULL,
    )


def _stored(server: BackgroundServer) -> list[tuple[int, str]]:
    with sqlite3.connect(server.db_path) as db:
        return db.execute("SELECT id, name FROM plants ORDER BY id").fetchall()


def _cases_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cases.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _suites(report: Path) -> dict[str, ET.Element]:
    root = ET.parse(report).getroot()
    suites = root.findall("testsuite")
    assert root.attrib["tests"] == str(sum(int(suite.attrib["tests"]) for suite in suites))
    assert root.attrib["failures"] == str(sum(int(suite.attrib["failures"]) for suite in suites))
    return {suite.attrib["name"]: suite for suite in suites}


def test_one_failing_case_exits_1_names_it_and_creates_nothing(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    cases = _cases_file(tmp_path, PASSING + FAILING + CREATING)
    junit = tmp_path / "check.xml"
    token = reference_server.token.get_secret_value()
    done = _check(
        reference_server.base_url,
        "--expect",
        str(cases),
        "--report-junit",
        str(junit),
        token=token,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    table = done.stdout
    # The built-in probes first, then the cases under a heading naming the file.
    assert table.index("id not an integer") < table.index(f"Cases of {cases}")
    lines = table[table.index(f"Cases of {cases}") :].splitlines()
    row = next(line for line in lines if "a body that is not JSON is a wrong plant" in line)
    assert "FAIL" in row
    assert "expected 400 (error 1002), got 400 (error 1001)" in " ".join(
        part.strip() for part in lines
    )
    assert "PASS" in next(line for line in lines if "an id given as a string" in line)
    skipped = next(line for line in lines if "a fern is created" in line)
    assert "SKIP" in skipped
    # Its reason is what was seen, said once.
    assert table.count("runs only with --create --ids A-B") == 1
    suites = _suites(junit)
    assert set(suites) == {f"check of {reference_server.base_url}/plants", str(cases)}
    probes = suites[f"check of {reference_server.base_url}/plants"]
    assert probes.attrib["failures"] == "0"
    suite = suites[str(cases)]
    named = {case.attrib["name"]: case for case in suite.findall("testcase")}
    assert list(named) == [
        "an id given as a string is refused",
        "no token is refused",
        "a body that is not JSON is a wrong plant",
        "a fern is created",
    ]
    (failure,) = suite.iter("failure")
    assert failure is named["a body that is not JSON is a wrong plant"].find("failure")
    assert failure.attrib["message"] == "expected 400 (error 1002), got 400 (error 1001)"
    assert (suite.attrib["tests"], suite.attrib["failures"], suite.attrib["skipped"]) == (
        "4",
        "1",
        "1",
    )
    assert named["a fern is created"].find("skipped") is not None
    assert _stored(reference_server) == []
    assert token not in table + junit.read_text(encoding="utf-8")


def test_json_lists_each_case_with_what_was_expected_and_what_came(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    cases = _cases_file(tmp_path, PASSING + FAILING + CREATING)
    token = reference_server.token.get_secret_value()
    done = _check(reference_server.base_url, "--expect", str(cases), "--json", token=token)
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["verdict"] == "fail"
    assert {row["verdict"] for row in report["probes"]} == {"pass"}
    assert report["cases_file"] == str(cases)
    rows = {row["name"]: row for row in report["cases"]}
    assert [row["verdict"] for row in report["cases"]] == ["pass", "pass", "fail", "skip"]
    failed = rows["a body that is not JSON is a wrong plant"]
    assert (failed["expected"], failed["actual"]) == ("400 (error 1002)", "400 (error 1001)")
    assert "Error" in failed["why"]
    skipped = rows["a fern is created"]
    assert skipped["actual"] is None
    assert "runs only with --create --ids A-B" in skipped["why"]
    assert _stored(reference_server) == []


def test_a_case_expecting_2xx_runs_with_create_on_the_next_id_of_the_range(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    raw_creating = """
[[case]]
name = "raw text that creates"
raw = '{"id": 5, "name": "Raw"}'
status = 200
"""
    cases = _cases_file(tmp_path, PASSING + CREATING + raw_creating)
    token = reference_server.token.get_secret_value()
    args = ["--expect", str(cases), "--create", "--ids", "9000-9009", "--samples", "2", "--json"]
    done = _check(reference_server.base_url, *args, token=token)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)["cases"]}
    created = rows["a fern is created"]
    assert (created["verdict"], created["id"], created["actual"]) == ("pass", 9002, "200 (a Plant)")
    raw = rows["raw text that creates"]
    assert raw["verdict"] == "skip"
    assert "raw text" in raw["why"]
    # The two samples, then the case on the next id; the case's own id 1 was never sent.
    assert _stored(reference_server) == [
        (9000, "plantstore-tui check 9000"),
        (9001, "plantstore-tui check 9001"),
        (9002, "Fern"),
    ]
    listed = subprocess.run(
        [sys.executable, "-m", "plantstore_tui", "history", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    kept = sorted((row["source"], row["sent"]["id"]) for row in json.loads(listed.stdout))
    assert kept == [("check", 9000), ("check", 9001), ("check", 9002)]
    # Run again on the next ids: the same file passes against the same deployment.
    again = _check(
        reference_server.base_url,
        "--expect",
        str(cases),
        "--create",
        "--ids",
        "9003-9009",
        "--samples",
        "2",
        token=token,
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert "id 9005" in again.stdout
    assert (9005, "Fern") in _stored(reference_server)


def test_the_range_must_hold_the_samples_and_the_cases_that_create(tmp_path: Path) -> None:
    cases = _cases_file(tmp_path, CREATING)
    with ServerThread(spec_like) as server:
        args = ["--expect", str(cases), "--create", "--ids", "1-2", "--samples", "2"]
        done = _check(server.base_url, *args)
        sent = server.requests
    assert done.returncode == 2
    assert sent == []
    assert (
        "--ids 1-2 holds 2 ids, fewer than the 3 needed: --samples 2 and 1 case that expects 2xx"
        in done.stderr
    )


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (None, "does not exist"),
        (b"\xff\xfe[[case]]", "cannot be read: it is not UTF-8 text"),
        ("[[case]\n", "is not TOML"),
        ("[[case]]\nname = 'x'\nraw = '{}'\nstatus = 400\nstatsu = 1\n", "unknown key 'statsu'"),
    ],
    ids=["missing", "not-utf-8", "not-toml", "unknown-key"],
)
def test_a_bad_file_exits_2_in_words_and_nothing_is_sent(
    tmp_path: Path, text: str | bytes | None, words: str
) -> None:
    cases = tmp_path / "cases.toml"
    if isinstance(text, bytes):
        cases.write_bytes(text)
    elif text is not None:
        cases.write_text(text, encoding="utf-8")
    with ServerThread(spec_like) as server:
        done = _check(server.base_url, "--expect", str(cases))
        as_json = _check(server.base_url, "--expect", str(cases), "--json")
        sent = server.requests
    assert done.returncode == as_json.returncode == 2
    assert sent == []
    assert done.stderr.startswith(f"Error: {cases}")
    assert words in done.stderr
    assert "Traceback" not in done.stderr
    problem = json.loads(as_json.stdout)
    assert words in problem["message"]


def test_the_example_file_passes_against_the_reference_server(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    token = reference_server.token.get_secret_value()
    junit = tmp_path / "check.xml"
    safe = _check(
        reference_server.base_url,
        "--expect",
        str(EXAMPLE),
        "--report-junit",
        str(junit),
        token=token,
    )
    assert safe.returncode == 0, safe.stdout + safe.stderr
    suite = _suites(junit)[str(EXAMPLE)]
    assert suite.attrib["failures"] == "0"
    assert int(suite.attrib["skipped"]) >= 1
    assert _stored(reference_server) == []
    created = _check(
        reference_server.base_url,
        "--expect",
        str(EXAMPLE),
        "--create",
        "--ids",
        "700-799",
        "--json",
        token=token,
    )
    assert created.returncode == 0, created.stdout + created.stderr
    verdicts = {row["verdict"] for row in json.loads(created.stdout)["cases"]}
    assert verdicts == {"pass"}
    assert len(_stored(reference_server)) > 5


def test_a_server_that_ignores_the_token_fails_the_token_cases_and_stores_no_plant_of_theirs(
    tmp_path: Path,
) -> None:
    with ServerThread(spec_like) as server:
        done = _check(server.base_url, "--expect", str(EXAMPLE), "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    rows = {row["name"]: row for row in json.loads(done.stdout)["cases"]}
    no_token = rows["a request without a token is refused"]
    assert no_token["verdict"] == "fail"
    assert (no_token["expected"], no_token["actual"]) == ("401", "400 (error 1)")
    assert "The plant was not created" in no_token["why"]
    # It stores any id it is given, and its Error codes are not the reference server's.
    string_id = rows["an id given as a string is refused"]
    assert (string_id["verdict"], string_id["actual"]) == ("fail", "200 (a Plant)")
    not_json = rows["a body that is not JSON is refused"]
    assert (not_json["verdict"], not_json["actual"]) == ("fail", "400 (error 1)")
    assert rows["a plant with a tag is created"]["verdict"] == "skip"


def test_a_protected_profile_is_asked_about_every_id_the_cases_may_create(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    ProfileStore().add(
        Profile(
            name="prod",
            base_url=reference_server.base_url,
            token_env="PROD_TOKEN",
            protected=True,
        )
    )
    cases = _cases_file(tmp_path, PASSING + CREATING)
    command = [sys.executable, "-m", "plantstore_tui", "check", "--profile", "prod"]
    command += ["--expect", str(cases), "--create", "--ids", "70-79", "--samples", "2"]
    env = {"PROD_TOKEN": reference_server.token.get_secret_value()}
    question = "Create 3 plants (ids 70-72) on the protected profile prod"
    for typed, code in ((b"n\r", 2), (b"y\r", 0)):
        with PtyProcess(command, env=env) as terminal:
            terminal.wait_for("[y/N]")
            assert question in terminal.screen_text()
            assert _stored(reference_server) == []
            terminal.write(typed)
            assert terminal.wait_exit(30) == code, terminal.report("exit")
    assert _stored(reference_server) == [
        (70, "plantstore-tui check 70"),
        (71, "plantstore-tui check 71"),
        (72, "Fern"),
    ]


ANY_REQUEST = """
[[case]]
name = "GET /plants is not allowed"
method = "GET"
path = "/plants"
status = 405

[[case]]
name = "the OpenAPI document is served"
method = "GET"
path = "/openapi.json"
status = 200

[[case]]
name = "no DELETE of a plant"
method = "DELETE"
path = "/plants/1"
status = 404
"""


def test_cases_of_any_method_and_path_run_with_their_junit_entries(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    # Issue 45, part 6: a GET runs as any case does; a DELETE with the profile's token could
    # change the deployment, so it is held until --create.
    cases = _cases_file(tmp_path, ANY_REQUEST)
    junit = tmp_path / "check.xml"
    token = reference_server.token.get_secret_value()
    done = _check(
        reference_server.base_url, "--expect", str(cases), "--report-junit", str(junit), token=token
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout[done.stdout.index(f"Cases of {cases}") :].splitlines()
    assert "PASS" in next(line for line in lines if "GET /plants is not allowed" in line)
    assert "PASS" in next(line for line in lines if "the OpenAPI document is served" in line)
    assert "SKIP" in next(line for line in lines if "no DELETE of a plant" in line)
    assert "its method may change the deployment" in done.stdout
    suite = _suites(junit)[str(cases)]
    named = {case.attrib["name"]: case for case in suite.findall("testcase")}
    assert list(named) == [
        "GET /plants is not allowed",
        "the OpenAPI document is served",
        "no DELETE of a plant",
    ]
    assert named["no DELETE of a plant"].find("skipped") is not None
    assert (suite.attrib["tests"], suite.attrib["failures"], suite.attrib["skipped"]) == (
        "3",
        "0",
        "1",
    )
    # With --create, the DELETE goes too (and the reference server has no such address).
    created = _check(
        reference_server.base_url,
        "--expect",
        str(cases),
        "--create",
        "--ids",
        "900-999",
        token=token,
    )
    assert created.returncode == 0, created.stdout + created.stderr
    row = next(line for line in created.stdout.splitlines() if "no DELETE of a plant" in line)
    assert "PASS" in row


def test_a_probe_of_another_method_saved_as_a_case_runs_as_it_went(
    shared_reference_server: BackgroundServer, tmp_path: Path
) -> None:
    cases = tmp_path / "cases.toml"
    base, token = shared_reference_server.base_url, shared_reference_server.token
    probe = subprocess.run(
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
            "/plants?limit=5",
            "--save-case",
            str(cases),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PLANTSTORE_TOKEN": token.get_secret_value()},
        check=False,
    )
    assert probe.returncode == 0, probe.stderr
    saved = cases.read_text(encoding="utf-8")
    assert 'method = "GET"' in saved
    assert 'path = "/plants?limit=5"' in saved
    assert "status = 405" in saved
    assert "raw" not in saved
    assert "body" not in saved
    done = _check(base, "--expect", str(cases), token=token.get_secret_value())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS" in next(line for line in done.stdout.splitlines() if "405" in line)
