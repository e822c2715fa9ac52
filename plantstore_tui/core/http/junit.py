"""The check's report as JUnit XML, the file a CI server (GitLab, Jenkins) reads: one test case
per probe, a failure with its words and its fix, an error when the deployment cannot be reached;
then, with `--expect`, a suite named after the file: one test case per case, a failure with what
was expected and what came, a skipped case with its reason."""

from __future__ import annotations

import re
import socket
import xml.etree.ElementTree as ET
from collections import Counter

from plantstore_tui.core.http.check_report import CaseResult, CheckReport, ProbeResult, Verdict
from plantstore_tui.core.http.proxy import through_words
from plantstore_tui.core.plant.text import visible

# What XML 1.0 cannot hold even as a character reference, left once `visible` has escaped the
# controls: the noncharacters U+FFFE and U+FFFF.
_NOT_XML = re.compile("[\ufffe\uffff]")


def _text(text: str, *, lines: bool = False) -> str:
    shown = visible(text, keep_newlines=lines)
    return _NOT_XML.sub(lambda found: f"\\u{ord(found.group()):04x}", shown)


def _seconds(seconds: float | None) -> str:
    return f"{seconds or 0.0:.3f}"


def _outcome(report: CheckReport, result: ProbeResult) -> str:
    """`error` when no answer came at all, `failure` for a failed probe, else `passed`."""
    if result.verdict is not Verdict.FAIL:
        return "passed"
    return "failure" if report.reachable else "error"


def _testcase(report: CheckReport, result: ProbeResult) -> ET.Element:
    case = ET.Element(
        "testcase",
        classname=_text(report.base_url),
        name=_text(result.probe),
        time=_seconds(result.seconds),
    )
    outcome = _outcome(report, result)
    if outcome != "passed":
        kind = "unreachable" if outcome == "error" else "fail"
        problem = ET.SubElement(case, outcome, message=_text(result.seen), type=kind)
        fix = f"\nFix: {result.why}" if result.why else ""
        problem.text = _text(result.seen + fix, lines=True)
        return case
    shown = f"{result.verdict.value}: {result.seen}"
    if result.why:
        shown += f"\n{result.why}"
    ET.SubElement(case, "system-out").text = _text(shown, lines=True)
    return case


def _case_testcase(file: str, result: CaseResult) -> ET.Element:
    case = ET.Element(
        "testcase", classname=_text(file), name=_text(result.name), time=_seconds(result.seconds)
    )
    if result.verdict is Verdict.SKIP:
        ET.SubElement(case, "skipped", message=_text(result.why))
    elif result.verdict is Verdict.FAIL:
        failure = ET.SubElement(case, "failure", message=_text(result.seen), type="fail")
        words = f"Expected: {result.expected}\nGot: {result.actual}\n{result.why}"
        failure.text = _text(words.strip(), lines=True)
    else:
        ET.SubElement(case, "system-out").text = _text(f"pass: {result.seen}")
    return case


def _case_outcome(result: CaseResult) -> str:
    return {Verdict.SKIP: "skipped", Verdict.FAIL: "failure"}.get(result.verdict, "passed")


def _counted(element: ET.Element, counts: Counter[str], seconds: float | None) -> None:
    element.set("tests", str(counts.total()))
    element.set("failures", str(counts["failure"]))
    element.set("errors", str(counts["error"]))
    element.set("skipped", str(counts["skipped"]))
    element.set("time", _seconds(seconds))


def junit_xml(report: CheckReport, hostname: str | None = None) -> bytes:
    """The report as a JUnit XML document (UTF-8): `testsuites` > `testsuite` > one
    `testcase` per probe. `hostname` is the machine that ran the check (this one by default)."""
    counts = Counter(_outcome(report, result) for result in report.results)
    case_counts = Counter(_case_outcome(result) for result in report.cases)
    where = f"{report.base_url}/plants{through_words(report.proxy)}"
    root = ET.Element("testsuites", name="plantstore-tui check")
    _counted(root, counts + case_counts, report.seconds)
    machine = _text(hostname or socket.gethostname())
    suite = ET.SubElement(root, "testsuite", name=_text(f"check of {where}"))
    _counted(suite, counts, report.seconds)
    if report.started is not None:
        suite.set("timestamp", report.started.isoformat(timespec="seconds"))
    suite.set("hostname", machine)
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="base_url", value=_text(report.base_url))
    ET.SubElement(properties, "property", name="verdict", value=report.verdict.value)
    suite.extend(_testcase(report, result) for result in report.results)
    if report.cases_file is not None:
        file = report.cases_file
        cases = ET.SubElement(root, "testsuite", name=_text(file))
        seconds = sum(result.seconds or 0.0 for result in report.cases)
        _counted(cases, case_counts, seconds)
        cases.set("hostname", machine)
        cases.extend(_case_testcase(file, result) for result in report.cases)
    ET.indent(root)
    document: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return document + b"\n"
