"""`check`: the conformance check against the reference server and against wrong deployments."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys

import httpx
import pytest
from misbehaving import (
    Action,
    Close,
    Hang,
    MisbehavingServer,
    ReceivedRequest,
    Send,
    gzip_bomb,
    html_502,
    json_response,
    oversized,
    redirect_to,
    response,
    status_500,
)
from pydantic import SecretStr

from plantstore_tui.cli.check import render_report
from plantstore_tui.core.http.check import run_check
from plantstore_tui.core.http.check_report import CheckReport, ProbeResult, Verdict
from plantstore_tui.core.http.target import Limits, Target
from plantstore_tui.server.runner import BackgroundServer

CANARY = "canary-token-0123456789-DO-NOT-PRINT"
# Every probe of a misbehaving server gives up after this; the test's own guard is far above it.
SHORT = Limits(connect=1.0, read=0.5, deadline=0.5)


def _stored(server: BackgroundServer) -> list[tuple[int, str]]:
    with sqlite3.connect(server.db_path) as db:
        return db.execute("SELECT id, name FROM plants ORDER BY id").fetchall()


def _check(
    base_url: str, *extra: str, token: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, **(env or {})}
    if token is not None:
        environment["PLANTSTORE_TOKEN"] = token
    return subprocess.run(
        [sys.executable, "-m", "plantstore_tui", "check", "--base-url", base_url, *extra],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def _target(base_url: str, token: str = CANARY, limits: Limits = SHORT) -> Target:
    return Target(base_url=base_url, token=SecretStr(token), token_source="test", limits=limits)


def _row(report: CheckReport, probe: str) -> tuple[Verdict, str]:
    result = next(result for result in report.results if result.probe == probe)
    return result.verdict, result.seen


async def _check_against(script: object) -> tuple[CheckReport, list[ReceivedRequest]]:
    async with MisbehavingServer(script) as server:  # type: ignore[arg-type]
        async with asyncio.timeout(20):
            report = await run_check(_target(server.base_url))
        return report, server.requests


def test_the_reference_server_passes_and_nothing_is_created(
    reference_server: BackgroundServer,
) -> None:
    token = reference_server.token.get_secret_value()
    table = _check(reference_server.base_url, token=token)
    as_json = _check(reference_server.base_url, "--json", token=token)
    assert table.returncode == 0, table.stdout + table.stderr
    assert "FAIL" not in table.stdout
    assert "WARN" not in table.stdout
    for probe in ("no token", "wrong token", "missing name", "id not an integer"):
        assert probe in table.stdout
    report = json.loads(as_json.stdout)
    assert as_json.returncode == 0
    assert report["verdict"] == "pass"
    assert {row["verdict"] for row in report["probes"]} == {"pass"}
    assert _stored(reference_server) == []


def test_create_sends_valid_plants_and_measures_latency(reference_server: BackgroundServer) -> None:
    token = reference_server.token.get_secret_value()
    done = _check(
        reference_server.base_url,
        "--create",
        "--ids",
        "9000-9099",
        "--samples",
        "4",
        "--json",
        token=token,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {row["probe"]: row for row in json.loads(done.stdout)["probes"]}
    assert rows["create"]["verdict"] == "pass"
    figures = rows["latency"]["figures"]
    assert figures["samples"] == 4
    assert 0 < figures["p50_ms"] <= figures["p95_ms"] <= figures["max_ms"]
    assert [plant_id for plant_id, _ in _stored(reference_server)] == [9000, 9001, 9002, 9003]
    # Each plant created is in the history, with source check (the probes create nothing).
    listed = subprocess.run(
        [sys.executable, "-m", "plantstore_tui", "history", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    kept = [(row["source"], row["sent"]["id"]) for row in json.loads(listed.stdout)]
    assert sorted(kept) == [("check", 9000), ("check", 9001), ("check", 9002), ("check", 9003)]


def test_create_again_on_the_same_ids_fails_saying_so(reference_server: BackgroundServer) -> None:
    token = reference_server.token.get_secret_value()
    _check(reference_server.base_url, "--create", "--ids", "1-2", "--samples", "2", token=token)
    again = _check(
        reference_server.base_url, "--create", "--ids", "1-2", "--samples", "2", token=token
    )
    assert again.returncode == 1
    assert "plant 1 was refused" in again.stdout


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["--create"], "--create needs --ids A-B"),
        (["--ids", "1-5"], "--ids is only used with --create"),
        (["--create", "--ids", "5-1"], "--ids must go from the lower id to the higher"),
        (["--create", "--ids", "1-3"], "fewer than --samples 5"),
        (["--create", "--ids", "one-two"], "--ids must be a range"),
    ],
)
def test_create_needs_an_explicit_range(extra: list[str], expected: str, closed_port: int) -> None:
    done = _check(f"http://127.0.0.1:{closed_port}", *extra, token=CANARY)
    assert done.returncode == 2
    assert expected in done.stderr


def test_an_unreachable_deployment_exits_3(closed_port: int) -> None:
    done = _check(f"http://127.0.0.1:{closed_port}", token=CANARY)
    assert done.returncode == 3
    assert "reachable" in done.stdout
    assert "refused" in done.stdout


def test_no_token_is_a_configuration_problem(closed_port: int) -> None:
    done = _check(f"http://127.0.0.1:{closed_port}")
    assert done.returncode == 4


def test_the_token_never_appears_in_any_output(reference_server: BackgroundServer) -> None:
    # A deployment that refuses the canary: every probe's words are printed, the token never.
    for extra in ((), ("--json",)):
        done = _check(reference_server.base_url, *extra, token=CANARY)
        assert done.returncode == 1
        assert CANARY not in done.stdout + done.stderr
        assert CANARY[-8:] not in done.stdout + done.stderr


def _ignores_the_token(request: ReceivedRequest) -> list[Action]:
    """Validates bodies as the spec says, but never looks at the Authorization header."""
    try:
        sent = request.json()
    except ValueError:
        sent = None
    if (
        isinstance(sent, dict)
        and isinstance(sent.get("name"), str)
        and isinstance(sent.get("id"), int)
    ):
        return [Send(json_response(200, {"name": sent["name"]}))]
    return [Send(json_response(400, {"error": 1, "message": "not a NewPlant"}))]


async def test_a_deployment_that_ignores_the_token_fails_and_creates_nothing() -> None:
    report, requests = await _check_against(_ignores_the_token)
    assert report.verdict is Verdict.FAIL
    verdict, seen = _row(report, "no token")
    assert verdict is Verdict.FAIL
    assert "the token was not refused" in seen
    assert _row(report, "wrong token")[0] is Verdict.FAIL
    assert _row(report, "missing name")[0] is Verdict.PASS
    # Not one probe was a plant this deployment could store: nothing was created.
    for request in requests:
        sent = request.json()
        assert not (isinstance(sent.get("name"), str) and isinstance(sent.get("id"), int))
    assert "Bearer" not in requests[0].raw.decode("latin-1")
    assert CANARY not in requests[1].raw.decode("latin-1")


def _problem_json(request: ReceivedRequest) -> list[Action]:
    if request.headers.get("authorization") != f"Bearer {CANARY}":
        return [Send(json_response(401, {"error": 401, "message": "no"}))]
    problem = json.dumps({"title": "Unprocessable", "status": 422}).encode()
    return [Send(response(422, problem, headers=[("Content-Type", "application/problem+json")]))]


async def test_a_422_problem_json_is_named_precisely() -> None:
    report, _ = await _check_against(_problem_json)
    assert _row(report, "no token")[0] is Verdict.PASS
    verdict, seen = _row(report, "missing name")
    assert verdict is Verdict.FAIL
    assert seen.startswith("answered 422 with a problem+json body")
    assert "the spec lists only 200 and 400, not 422" in seen


def _accepts_everything(request: ReceivedRequest) -> list[Action]:
    return [Send(json_response(200, {"name": "anything"}))]


async def test_a_deployment_that_stores_anything_fails_saying_what_it_accepted() -> None:
    report, _ = await _check_against(_accepts_everything)
    verdict, seen = _row(report, "missing name")
    assert verdict is Verdict.FAIL
    assert seen.startswith("it accepted a plant without a name")
    assert _row(report, "id not an integer")[1].startswith(
        "it accepted a plant whose id is not an integer"
    )


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        (html_502(), "answered 502 with an HTML page"),
        (status_500(), "answered 500 with a text/plain body"),
        (redirect_to("https://elsewhere.example/plants"), "a redirect (307) to https://elsewhere"),
        ([Send(response(400, b"", headers=[]))], "answered 400 with an empty body"),
        ([Send(json_response(400, {"error": 2**40, "message": "m"}))], "outside int32"),
        # Fields beyond the spec's are allowed; missing or mistyped required ones are not.
        ([Send(json_response(400, {"error": 1, "trace": "t"}))], "the Error has no 'message'"),
        (
            [Send(json_response(400, {"error": 1, "message": 2, "trace": "t"}))],
            "the Error's 'message' is an integer, not a string",
        ),
        (oversized(2 * 1024 * 1024, chunked=True), "is too large to read"),
        (gzip_bomb(), "too large to read"),
    ],
)
async def test_each_kind_of_wrongness_fails_by_name(script: list[Action], expected: str) -> None:
    report, _ = await _check_against(script)
    verdict, seen = _row(report, "missing name")
    assert verdict is Verdict.FAIL
    assert expected in seen


@pytest.mark.parametrize(
    "script",
    [
        [Hang()],
        [Send(response(400, content_length=False)[:-2] + b"Content-Length: 50\r\n\r\n"), Hang()],
    ],
)
async def test_a_server_that_never_answers_cannot_hang_the_check(script: list[Action]) -> None:
    report, _ = await _check_against(script)
    assert report.verdict is Verdict.FAIL
    assert any("0.5 s deadline" in result.seen for result in report.results)


@pytest.mark.parametrize(
    ("script", "fix"),
    [
        ([Hang()], "Check that the deployment is running and not overloaded."),
        ([Close()], "closed the connection before answering: look in its log."),
        (
            [Send(b"SPROING 999 whatever\r\n\r\n"), Close()],
            "Check the base URL's scheme, host and port: something other than a Plant Store may "
            "be answering.",
        ),
        (
            [Send(response(300, headers=[]))],
            "Check the base URL.",
        ),
    ],
)
async def test_the_advice_is_about_the_deployment_never_about_resending_a_plant(
    script: list[Action], fix: str
) -> None:
    report, _ = await _check_against(script)
    failed = [result for result in report.results if result.verdict is Verdict.FAIL]
    assert failed
    assert any(fix in result.why for result in failed), [result.why for result in failed]
    table = render_report(report, width=200)
    assert "Check the store before sending this plant again" not in table
    assert "sending again" not in table


def test_create_on_a_protected_profile_needs_yes_without_a_terminal(
    reference_server: BackgroundServer,
) -> None:
    from plantstore_tui.core.config.profiles import Profile
    from plantstore_tui.core.config.store import ProfileStore

    ProfileStore().add(
        Profile(
            name="prod",
            base_url=reference_server.base_url,
            token_env="PROD_TOKEN",
            protected=True,
        )
    )
    env = {"PROD_TOKEN": reference_server.token.get_secret_value()}
    command = [sys.executable, "-m", "plantstore_tui", "check", "--profile", "prod"]
    create = ["--create", "--ids", "70-79", "--samples", "2"]

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*command, *extra],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, **env},
            check=False,
            stdin=subprocess.DEVNULL,
        )

    refused = run(*create)
    assert refused.returncode == 2
    assert "needs --yes" in refused.stderr
    assert _stored(reference_server) == []
    assert run().returncode == 0  # the check alone creates nothing, so it never asks
    assert run(*create, "--yes").returncode == 0
    assert [plant_id for plant_id, _ in _stored(reference_server)] == [70, 71]


def test_the_table_wraps_under_its_columns_and_escapes_what_the_server_sent() -> None:
    report = CheckReport(
        "https://plants.example",
        (
            ProbeResult("tls", Verdict.PASS, "TLSv1.3"),
            ProbeResult(
                "missing name",
                Verdict.FAIL,
                "answered 400 with \x1b[2J" + " word" * 20,
                "Give its PEM file as ca_bundle (or --ca-bundle PATH)" + " and more" * 6,
            ),
        ),
    )
    lines = render_report(report, width=80).splitlines()
    assert lines[0] == "Check of https://plants.example/plants: fail"
    assert lines[1] == "tls           PASS  TLSv1.3"
    assert lines[2].startswith("missing name  FAIL  answered 400 with \\e[2J word")
    assert all(len(line) <= 80 for line in lines)
    why = [line for line in lines if line.strip().startswith("→")]
    assert len(why) == 1
    assert "--ca-bundle PATH" in render_report(report, width=80).replace("\n", " ")
    assert "\x1b" not in "\n".join(lines)


async def test_a_gateway_answering_for_a_stopped_deployment_is_said_so() -> None:
    report, _ = await _check_against(html_502())
    reachable = report.results[0]
    assert reachable.verdict is Verdict.FAIL
    assert "proxy or load balancer answered in the deployment's place" in reachable.why
    assert report.reachable  # something answered: exit 1, not 3


async def test_each_probe_sends_its_body_and_authorization_through_the_client() -> None:
    # What `profile test` sent alone before it became the check: `{}` first, never a plant.
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.headers.get("Authorization") != f"Bearer {CANARY}":
            return httpx.Response(401, json={"error": 1401, "message": "no"})
        return httpx.Response(400, json={"error": 1002, "message": "refused"})

    target = _target("https://plants.example.com")
    report = await run_check(target, transport=httpx.MockTransport(handler))
    assert report.verdict is Verdict.PASS, report.to_json()
    assert [json.loads(request.content) for request in seen] == [
        {},
        {},
        {"id": 0, "tag": "plantstore-tui-check"},
        {"id": "not-a-number", "name": "plantstore-tui check"},
    ]
    authorizations = [request.headers.get("Authorization") for request in seen]
    assert authorizations[0] is None
    assert authorizations[1] is not None
    assert authorizations[1].startswith("Bearer ")
    assert CANARY not in authorizations[1]
    assert authorizations[2:] == [f"Bearer {CANARY}"] * 2
    for request in seen:
        assert request.method == "POST"
        assert str(request.url) == "https://plants.example.com/plants"
        assert request.headers["Content-Length"] == str(len(request.content))
        assert request.headers["Content-Type"] == "application/json"
