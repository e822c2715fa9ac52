"""Server, client and checker read the spec the same way: `add`, `check` and the TUI's log judge
one deployment alike, from outside the process.

The deployment is not ours: it follows the spec, and, as Prism's dynamic mock does, it answers
with more than the spec lists, and not the same way every time (extra fields in its Errors and
Plants, a 401 with an Error for a token it refuses).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from typing import Any

from misbehaving import Action, ReceivedRequest, Send, ServerThread, json_response
from pydantic import SecretStr
from snapshot_apps.support import SIZE, app_for, fill, log_text, ready, send_and_wait

from plantstore_tui.server.runner import BackgroundServer

TOKEN = "one-reading-token-0123456789"


class Alternative:
    """A Plant Store of someone else's: on spec, with fields beyond the spec's in its answers.

    Every third answer carries only the spec's fields, the others more: the same probe of two
    runs of `check` meets both shapes, as it does against a mock that makes up each answer.
    """

    def __init__(self) -> None:
        self.answered = 0
        self.stored: set[int] = set()

    def __call__(self, request: ReceivedRequest) -> list[Action]:
        self.answered += 1
        extra: dict[str, Any] = {}
        if self.answered % 3:
            extra = {"request_id": f"req-{self.answered}", "details": [{"at": "body"}]}
        if request.headers.get("authorization") != f"Bearer {TOKEN}":
            refused = {"error": 401, "message": "The token is not valid", **extra}
            return [Send(json_response(401, refused, headers=[("WWW-Authenticate", "Bearer")]))]
        try:
            sent = request.json()
        except ValueError:
            sent = None
        if (
            isinstance(sent, dict)
            and isinstance(sent.get("name"), str)
            and type(sent.get("id")) is int
        ):
            if sent["id"] in self.stored:
                duplicate = {"error": 3, "message": f"A plant with id {sent['id']} already exists"}
                return [Send(json_response(400, {**duplicate, **extra}))]
            self.stored.add(sent["id"])
            plant = {key: sent[key] for key in ("name", "tag") if key in sent}
            stored = {"id": sent["id"], "created_at": "2026-11-28T02:00:00Z"}
            return [Send(json_response(200, {**plant, **stored}))]
        return [Send(json_response(400, {"error": 22, "message": "Not a NewPlant", **extra}))]


def _run(*arguments: str, token: str = TOKEN) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plantstore_tui", *arguments],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PLANTSTORE_TOKEN": token},
        check=False,
        stdin=subprocess.DEVNULL,
    )


def _add(
    base_url: str, *extra: str, plant_id: int = 5, token: str = TOKEN
) -> subprocess.CompletedProcess[str]:
    add = ("add", "--base-url", base_url, "--name", "Fern", "--id", str(plant_id))
    return _run(*add, *extra, token=token)


# add -----------------------------------------------------------------------------------------


def test_add_takes_a_plant_answered_with_more_fields_than_the_spec_lists() -> None:
    with ServerThread(Alternative()) as server:
        human = _add(server.base_url, "--tag", "fern")
        as_json = _add(server.base_url, "--tag", "fern", "--json", plant_id=6)
    assert human.returncode == 0, human.stdout + human.stderr
    assert "off spec" not in human.stdout
    answer = json.loads(as_json.stdout)
    assert answer["outcome"] == "created"
    assert answer["plant"]["created_at"] == "2026-11-28T02:00:00Z"
    assert answer["off_spec"] == []


def test_add_takes_an_error_with_more_fields_than_the_spec_lists() -> None:
    with ServerThread(Alternative()) as server:
        _add(server.base_url)  # answered 1: created
        as_json = _add(server.base_url, "--json")  # answered 2: a duplicate, with extra fields
        _add(server.base_url)  # answered 3: a duplicate, the spec's fields only
        human = _add(server.base_url)  # answered 4: a duplicate, with extra fields
    assert human.returncode == 1, human.stdout + human.stderr
    assert "Rejected with 400: error 3: A plant with id 5 already exists" in human.stdout
    assert "off spec" not in human.stdout
    assert json.loads(as_json.stdout)["off_spec"] == []


def test_add_does_not_call_a_refused_token_off_spec() -> None:
    with ServerThread(Alternative()) as server:
        human = _add(server.base_url, token="a-wrong-token")
        as_json = _add(server.base_url, "--json", token="a-wrong-token")
    assert human.returncode == 1, human.stdout + human.stderr
    assert "Rejected with 401: error 401: The token is not valid" in human.stdout
    assert "off spec" not in human.stdout
    answer = json.loads(as_json.stdout)
    assert answer["error"]["request_id"] == "req-2"
    assert answer["off_spec"] == []


def test_add_does_not_call_the_reference_servers_own_401_off_spec(
    shared_reference_server: BackgroundServer,
) -> None:
    human = _add(shared_reference_server.base_url, token="not-the-servers-token")
    as_json = _add(shared_reference_server.base_url, "--json", token="not-the-servers-token")
    assert human.returncode == 1, human.stdout + human.stderr
    assert "Rejected with 401" in human.stdout
    assert "off spec" not in human.stdout
    assert json.loads(as_json.stdout)["off_spec"] == []


# check ---------------------------------------------------------------------------------------


def _verdicts(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(row["probe"], row["verdict"]) for row in report["probes"]]


def test_check_passes_the_alternative_the_same_on_every_run() -> None:
    with ServerThread(Alternative()) as server:
        runs = [_run("check", "--base-url", server.base_url, "--json") for _ in range(3)]
        table = _run("check", "--base-url", server.base_url)
    reports = [json.loads(run.stdout) for run in runs]
    for run, report in zip(runs, reports, strict=True):
        assert run.returncode == 0, run.stdout + run.stderr
        assert report["verdict"] == "pass", report
    assert _verdicts(reports[0]) == _verdicts(reports[1]) == _verdicts(reports[2])
    assert {verdict for report in reports for _, verdict in _verdicts(report)} == {"pass"}
    assert table.returncode == 0, table.stdout + table.stderr
    assert "FAIL" not in table.stdout
    assert "refused: 401 with the spec's Error (error 401)" in table.stdout
    assert "refused: 400 with the spec's Error (error 22)" in table.stdout


def test_check_create_passes_plants_answered_with_more_fields() -> None:
    with ServerThread(Alternative()) as server:
        done = _run(
            "check",
            "--base-url",
            server.base_url,
            "--create",
            "--ids",
            "700-799",
            "--samples",
            "2",
            "--json",
        )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {row["probe"]: row for row in json.loads(done.stdout)["probes"]}
    assert rows["create"]["verdict"] == "pass", rows["create"]


# The TUI's log -------------------------------------------------------------------------------


async def test_the_log_does_not_call_a_refused_token_or_extra_fields_off_spec() -> None:
    server = await asyncio.to_thread(ServerThread, Alternative())
    try:
        for token, plant_id, words in (
            (TOKEN, "5", "Created plant 5 (Fern)"),
            ("a-wrong-token", "6", "Rejected with 401: error 401: The token is not valid"),
        ):
            app = app_for(server.base_url, SecretStr(token))
            async with app.run_test(size=SIZE) as pilot:
                screen = await ready(app, pilot)
                await fill(pilot, screen, name="Fern", id=plant_id, tag="fern")
                await send_and_wait(pilot, app, "enter")
                text = log_text(screen)
            assert words in text
            assert "off spec" not in text
    finally:
        await asyncio.to_thread(server.close)
