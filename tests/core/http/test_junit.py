"""The check's report as JUnit XML: what GitLab and Jenkins read from it."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime

from plantstore_tui.core.http.check_report import CheckReport, ProbeResult, Verdict
from plantstore_tui.core.http.junit import junit_xml

BASE = "https://plants.example"
STARTED = datetime(2026, 5, 4, 3, 2, 1, tzinfo=UTC)


def _parsed(report: CheckReport) -> ET.Element:
    return ET.fromstring(junit_xml(report, hostname="ci-runner-7"))


def test_each_probe_is_a_test_case_and_each_failure_holds_its_words_and_fix() -> None:
    report = CheckReport(
        BASE,
        (
            ProbeResult("reachable", Verdict.PASS, "answered 401 in 3 ms", seconds=0.003),
            ProbeResult("tls", Verdict.WARN, "TLSv1.1", "Offer TLS 1.2 or later.", seconds=0.003),
            ProbeResult(
                "missing name",
                Verdict.FAIL,
                "it accepted a plant without a name (200)",
                "Make the deployment validate what it stores.",
                seconds=0.25,
            ),
        ),
        started=STARTED,
        seconds=1.5,
    )
    root = _parsed(report)
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    for element in (root, suite):
        assert element.attrib["tests"] == "3"
        assert element.attrib["failures"] == "1"
        assert element.attrib["errors"] == "0"
        assert element.attrib["skipped"] == "0"
        assert element.attrib["time"] == "1.500"
    assert suite.attrib["timestamp"] == "2026-05-04T03:02:01+00:00"
    assert suite.attrib["hostname"] == "ci-runner-7"
    cases = suite.findall("testcase")
    assert [case.attrib["name"] for case in cases] == ["reachable", "tls", "missing name"]
    assert {case.attrib["classname"] for case in cases} == {BASE}
    assert [case.attrib["time"] for case in cases] == ["0.003", "0.003", "0.250"]
    assert cases[0].find("failure") is None
    # A warning passes, its words kept where CI shows a case's output.
    assert cases[1].find("failure") is None
    assert cases[1].findtext("system-out") == "warn: TLSv1.1\nOffer TLS 1.2 or later."
    failure = cases[2].find("failure")
    assert failure is not None
    assert failure.attrib["message"] == "it accepted a plant without a name (200)"
    assert failure.text == (
        "it accepted a plant without a name (200)\n"
        "Fix: Make the deployment validate what it stores."
    )


def test_a_deployment_that_cannot_be_reached_is_one_error() -> None:
    report = CheckReport(
        BASE,
        (
            ProbeResult(
                "reachable",
                Verdict.FAIL,
                "Cannot connect to plants.example: the connection was refused",
                "Check that the deployment is running.",
                seconds=0.01,
            ),
        ),
        reachable=False,
        started=STARTED,
        seconds=0.02,
    )
    suite = _parsed(report).find("testsuite")
    assert suite is not None
    assert (suite.attrib["tests"], suite.attrib["failures"], suite.attrib["errors"]) == (
        "1",
        "0",
        "1",
    )
    (case,) = suite.findall("testcase")
    error = case.find("error")
    assert error is not None
    assert "connection was refused" in error.attrib["message"]
    assert error.text is not None
    assert "Fix: Check that the deployment is running." in error.text


def test_what_a_server_sent_cannot_break_the_xml_or_reach_a_terminal() -> None:
    sent = "answered 400 with <b>&\x1b[2J\x00 \ufffe \u200b"
    report = CheckReport(BASE, (ProbeResult("missing name", Verdict.FAIL, sent, "fix it"),))
    root = _parsed(report)
    failure = root.find("testsuite/testcase/failure")
    assert failure is not None
    assert failure.attrib["message"] == "answered 400 with <b>&\\e[2J\\x00 \\ufffe \\u200b"
    # Not timed: 0, which every CI reads; no timestamp rather than a wrong one.
    assert root.findall("testsuite/testcase")[0].attrib["time"] == "0.000"
    assert "timestamp" not in root.findall("testsuite")[0].attrib
