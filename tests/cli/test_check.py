"""`check --report-junit FILE`: the JUnit XML a CI server reads, whatever the check found."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from misbehaving import ServerThread, spec_like

from plantstore_tui.server.runner import BackgroundServer

CANARY = "canary-token-0123456789-DO-NOT-WRITE"


def _check(base_url: str, *extra: str, token: str = CANARY) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plantstore_tui", "check", "--base-url", base_url, *extra],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PLANTSTORE_TOKEN": token},
        check=False,
        stdin=subprocess.DEVNULL,
    )


def _cases(path: Path) -> dict[str, ET.Element]:
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert suite.attrib["tests"] == root.attrib["tests"] == str(len(cases))
    for case in cases:
        assert float(case.attrib["time"]) >= 0
    return {case.attrib["name"]: case for case in cases}


def _failed(cases: dict[str, ET.Element]) -> set[str]:
    return {name for name, case in cases.items() if case.find("failure") is not None}


def test_a_conforming_deployment_is_six_passing_cases(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    report = tmp_path / "check.xml"
    token = reference_server.token.get_secret_value()
    done = _check(reference_server.base_url, "--report-junit", str(report), token=token)
    assert done.returncode == 0, done.stdout + done.stderr
    cases = _cases(report)
    assert list(cases) == [
        "reachable",
        "tls",
        "no token",
        "wrong token",
        "missing name",
        "id not an integer",
    ]
    assert _failed(cases) == set()
    assert {case.attrib["classname"] for case in cases.values()} == {reference_server.base_url}
    suite = ET.parse(report).getroot()[0]
    assert (suite.attrib["failures"], suite.attrib["errors"], suite.attrib["skipped"]) == (
        "0",
        "0",
        "0",
    )
    assert suite.attrib["timestamp"]
    assert suite.attrib["hostname"]
    text = report.read_text(encoding="utf-8")
    assert token not in text
    assert token[-8:] not in text


def test_a_lax_deployment_fails_the_cases_it_gets_wrong_and_exits_1(tmp_path: Path) -> None:
    # It ignores the token and stores any id it is given.
    report = tmp_path / "check.xml"
    with ServerThread(spec_like) as server:
        done = _check(server.base_url, "--report-junit", str(report))
    assert done.returncode == 1, done.stdout + done.stderr
    cases = _cases(report)
    assert _failed(cases) == {"no token", "wrong token", "id not an integer"}
    failure = cases["no token"].find("failure")
    assert failure is not None
    assert "the token was not refused" in failure.attrib["message"]
    assert failure.text is not None
    assert "Fix: A deployment that ignores the token" in failure.text
    assert ET.parse(report).getroot().attrib["failures"] == "3"
    # The probes sent the token to this server; the report never holds it.
    assert CANARY not in report.read_text(encoding="utf-8")


def test_an_unreachable_deployment_is_one_error_case_and_exits_3(
    closed_port: int, tmp_path: Path
) -> None:
    report = tmp_path / "check.xml"
    done = _check(f"http://127.0.0.1:{closed_port}", "--report-junit", str(report))
    assert done.returncode == 3
    cases = _cases(report)
    assert list(cases) == ["reachable"]
    error = cases["reachable"].find("error")
    assert error is not None
    assert "the connection was refused" in error.attrib["message"]
    root = ET.parse(report).getroot()
    assert (root.attrib["tests"], root.attrib["failures"], root.attrib["errors"]) == ("1", "0", "1")
    assert CANARY not in report.read_text(encoding="utf-8")


def test_a_report_that_cannot_be_written_stops_the_check_before_it_sends(tmp_path: Path) -> None:
    with ServerThread(spec_like) as server:
        done = _check(server.base_url, "--report-junit", str(tmp_path / "absent" / "check.xml"))
        sent = server.requests
    assert done.returncode == 2
    assert sent == []
    assert done.stderr.strip() == (
        f"Error: --report-junit {tmp_path / 'absent' / 'check.xml'} cannot be written "
        "(No such file or directory); nothing was sent"
    )
    assert "Traceback" not in done.stderr
