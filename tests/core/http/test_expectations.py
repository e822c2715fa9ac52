"""Expectations: each case of a file sent as given and judged by its status and Error code, against
independent servers that answer what a test tells them; the report and its JUnit file."""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET
from pathlib import Path

from misbehaving import MisbehavingServer, ReceivedRequest, Send, html_502, json_response
from pydantic import SecretStr

from plantstore_tui.core.http.check import CreatePlan, run_check
from plantstore_tui.core.http.check_report import CheckReport, Verdict
from plantstore_tui.core.http.expectations import CaseFile
from plantstore_tui.core.http.junit import junit_xml
from plantstore_tui.core.http.target import Limits, Target
from plantstore_tui.core.plant.outcome import Created, Outcome, Rejected

CANARY = "canary-token-0123456789-DO-NOT-PRINT"
SHORT = Limits(connect=1.0, read=2.0, deadline=2.0)

CASES = """\
[[case]]
name = "refused with 1002"
body = { id = "7", name = "Fern" }
status = 400
error = 1002

[[case]]
name = "refused, whatever the code"
raw = "not json"
status = 400

[[case]]
name = "created"
body = { id = 1, name = "Fern" }
status = 200
"""


def _target(base_url: str) -> Target:
    return Target(base_url=base_url, token=SecretStr(CANARY), token_source="test", limits=SHORT)


def _file(tmp_path: Path, text: str = CASES) -> CaseFile:
    path = tmp_path / "cases.toml"
    path.write_text(text, encoding="utf-8")
    return CaseFile.load(path)


async def _run(
    script: object, cases: CaseFile, create: CreatePlan | None = None
) -> tuple[CheckReport, list[ReceivedRequest], list[Outcome]]:
    kept: list[Outcome] = []
    async with MisbehavingServer(script) as server:  # type: ignore[arg-type]
        async with asyncio.timeout(30):
            report = await run_check(
                _target(server.base_url), create=create, cases=cases, on_sent=kept.append
            )
        return report, server.requests, kept


def _answers_1001(request: ReceivedRequest) -> list[Send]:
    # A deployment whose one Error code is 1001, and that stores any plant with a name.
    try:
        sent = request.json()
    except ValueError:
        return [Send(json_response(400, {"error": 1001, "message": "no"}))]
    if isinstance(sent, dict) and "name" in sent:
        plant = {key: sent[key] for key in ("name", "tag") if key in sent}
        return [Send(json_response(200, plant))]
    return [Send(json_response(400, {"error": 1001, "message": "no"}))]


async def test_each_case_is_judged_by_its_status_and_error_code(tmp_path: Path) -> None:
    report, requests, _ = await _run(_answers_1001, _file(tmp_path))
    rows = {row.name: row for row in report.cases}
    assert [row.verdict for row in report.cases] == [Verdict.FAIL, Verdict.PASS, Verdict.SKIP]
    assert rows["refused with 1002"].seen == "expected 400 (error 1002), got 200 (a Plant)"
    assert "created" in rows["refused with 1002"].why
    assert rows["refused, whatever the code"].seen == "400 (error 1001), as expected"
    assert rows["created"].seen == "expects 2xx: runs only with --create --ids A-B"
    assert report.verdict is Verdict.FAIL
    # Four built-in probes and the two cases that ran; the case that expects 2xx sent nothing.
    assert [request.body for request in requests[4:]] == [
        b'{"id": "7", "name": "Fern"}',
        b"not json",
    ]


async def test_an_answer_that_is_neither_or_none_is_told(tmp_path: Path) -> None:
    cases = _file(tmp_path, CASES.replace("status = 200", "status = 401"))

    def script(request: ReceivedRequest) -> list[Send]:
        if request.body == b"not json":
            return html_502()  # type: ignore[return-value]
        return [Send(json_response(400, {"error": "1002", "message": "typed wrong"}))]

    report, _, _ = await _run(script, cases)
    rows = {row.name: row for row in report.cases}
    # An `error` that is not an integer is no Error of the spec.
    assert rows["refused with 1002"].seen == (
        "expected 400 (error 1002), got 400 (neither a Plant nor an Error)"
    )
    assert rows["refused, whatever the code"].seen == (
        "expected 400, got 502 (neither a Plant nor an Error)"
    )
    # Its body is a plant: without --create it is not sent, whatever it expects.
    assert rows["created"].verdict is Verdict.SKIP


async def test_with_create_a_2xx_case_takes_the_next_id_and_is_kept(tmp_path: Path) -> None:
    refused = """
[[case]]
name = "a plant it should refuse"
body = { id = 58, name = "Dup" }
status = 400
"""
    plan = CreatePlan(ids=range(50, 60), samples=2)
    report, requests, kept = await _run(_answers_1001, _file(tmp_path, CASES + refused), plan)
    created = next(row for row in report.cases if row.name == "created")
    assert (created.verdict, created.plant_id) == (Verdict.PASS, 52)
    assert created.seen == "200 (a Plant) with id 52 from --ids, as expected"
    assert requests[-2].json() == {"id": 52, "name": "Fern"}
    # The samples, then each plant a case created, kept as the plant it sent: the case that
    # expected 400 too (the string id it sent is no plant, and is not kept).
    assert [outcome.sent.id for outcome in kept] == [50, 51, 52, 58]
    assert isinstance(kept[2], Created)
    assert kept[2].sent.name == "Fern"
    assert kept[2].off_spec == ()
    assert report.cases[-1].seen == "expected 400, got 200 (a Plant)"


async def test_an_unreachable_deployment_sends_no_case(tmp_path: Path, closed_port: int) -> None:
    cases = _file(tmp_path)
    report = await run_check(_target(f"http://127.0.0.1:{closed_port}"), cases=cases)
    assert not report.reachable
    assert {row.verdict for row in report.cases} == {Verdict.SKIP}
    assert "not sent" in report.cases[0].seen


async def test_the_junit_file_has_a_suite_of_cases_named_after_the_file(tmp_path: Path) -> None:
    cases = _file(tmp_path)
    report, _, _ = await _run(_answers_1001, cases)
    root = ET.fromstring(junit_xml(report, hostname="ci"))
    probes, suite = root.findall("testsuite")
    assert suite.attrib["name"] == cases.name
    assert (suite.attrib["tests"], suite.attrib["failures"], suite.attrib["skipped"]) == (
        "3",
        "1",
        "1",
    )
    assert root.attrib["skipped"] == "1"
    assert root.attrib["tests"] == str(int(probes.attrib["tests"]) + 3)
    failed, passed, skipped = suite.findall("testcase")
    failure = failed.find("failure")
    assert failure is not None
    assert failure.attrib["message"] == "expected 400 (error 1002), got 200 (a Plant)"
    assert failure.text is not None
    assert "Expected: 400 (error 1002)" in failure.text
    assert "Got: 200 (a Plant)" in failure.text
    assert passed.find("failure") is None
    assert passed.find("skipped") is None
    marker = skipped.find("skipped")
    assert marker is not None
    assert marker.attrib["message"] == "expects 2xx: runs only with --create --ids A-B"
    assert CANARY not in junit_xml(report).decode()


async def test_with_create_a_case_on_an_id_of_the_range_is_kept_whatever_came(
    tmp_path: Path,
) -> None:
    def taken(request: ReceivedRequest) -> list[Send]:
        if request.body == b'{"id": 52, "name": "Fern"}':
            return [Send(json_response(400, {"error": 1003, "message": "id taken"}))]
        return _answers_1001(request)

    plan = CreatePlan(ids=range(50, 60), samples=2)
    report, _, kept = await _run(taken, _file(tmp_path), plan)
    created = next(row for row in report.cases if row.name == "created")
    assert created.seen == "expected 200, got 400 (error 1003) with id 52 from --ids"
    assert [outcome.sent.id for outcome in kept] == [50, 51, 52]
    assert isinstance(kept[2], Rejected)
    assert kept[2].sent.name == "Fern"


async def test_a_case_whose_body_is_a_plant_is_sent_only_with_create_on_an_id_of_the_range(
    tmp_path: Path,
) -> None:
    # A duplicate-id case expects a refusal, but its body is a plant: a deployment that does not
    # refuse it stores it. `_answers_1001` stores any plant with a name.
    duplicate = """\
[[case]]
name = "a duplicate id is refused"
body = { id = 55, name = "Fern" }
status = 400

[[case]]
name = "a duplicate id beyond the range"
body = { id = 99, name = "Fern" }
status = 400
"""
    report, requests, kept = await _run(_answers_1001, _file(tmp_path, duplicate))
    assert [row.verdict for row in report.cases] == [Verdict.SKIP, Verdict.SKIP]
    assert "runs only with --create" in report.cases[0].why
    assert all(b'"id": 55' not in request.body for request in requests)
    assert kept == []

    plan = CreatePlan(ids=range(50, 60), samples=1)
    report, requests, kept = await _run(_answers_1001, _file(tmp_path, duplicate), plan)
    inside, beyond = report.cases
    assert inside.verdict is Verdict.FAIL  # this deployment stored it: the case says so
    assert beyond.verdict is Verdict.SKIP
    assert "99 is outside --ids" in beyond.why
    assert b'{"id": 99' not in b"".join(request.body for request in requests)
