"""The probe screen (F6 and the palette): a request to POST /plants exactly as typed, pre-filled
from the form's plant, sent to the deployment plants go to now, its answer beside it with the
spec's reading; never a plant of the queue, never waiting behind it; kept in the history as a
probe, and saved as a case `check --expect` runs. At 80x24 and 110x32."""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from burst_support import stored_plants
from click.testing import CliRunner
from keys_support import burst
from ledger_support import all_rows
from misbehaving import (
    Await,
    MisbehavingServer,
    ReceivedRequest,
    Send,
    json_response,
    response,
    spec_like,
)
from pydantic import SecretStr
from seen_support import notifications_of, screen_text, status_text
from snapshot_apps.support import (
    app_for,
    app_with,
    fill,
    ready,
    tab_to,
    target_of,
    type_over,
    until,
)
from textual.app import App
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widgets import Button, Input, Select, Static, TextArea

from plantstore_tui.cli import main
from plantstore_tui.core.http.cases import load_cases
from plantstore_tui.core.http.probe import TokenChoice
from plantstore_tui.core.sending.connection import connect_to
from plantstore_tui.core.store import open_for_reading
from plantstore_tui.core.store.probes import ProbeEntry, list_probes
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.confirm import ConfirmScreen
from plantstore_tui.ui.screens.probe import TEMPLATE, ProbeScreen, SaveCaseScreen

SMALL = (80, 24)
LARGE = (110, 32)


async def open_probe(app: App[None], pilot: Pilot[None]) -> ProbeScreen:
    await pilot.press("f6")
    await until(pilot, lambda: isinstance(app.screen, ProbeScreen), "the probe screen")
    screen = app.screen
    assert isinstance(screen, ProbeScreen)
    await pilot.pause()
    return screen


def body_of(screen: ProbeScreen) -> TextArea:
    return screen.query_one("#probe-body", TextArea)


async def write_body(pilot: Pilot[None], screen: ProbeScreen, text: str) -> None:
    """Tab to the body and type `text` over what it holds, key by key."""
    await tab_to(pilot, body_of(screen))
    await type_over(pilot, text)
    await pilot.pause()


async def write_headers(pilot: Pilot[None], screen: ProbeScreen, text: str) -> None:
    """Tab to the headers and type `text` over what they hold, key by key."""
    await tab_to(pilot, screen.query_one("#probe-headers", TextArea))
    await type_over(pilot, text)
    await pilot.pause()


async def done(app: App[None], pilot: Pilot[None], group: str) -> None:
    """Wait for the workers of `group` (an empty list would wait for every worker of the app)."""
    pending = [worker for worker in app.workers if worker.group == group]
    if pending:
        await app.workers.wait_for_complete(pending)
    await pilot.pause()


async def probe_answered(app: App[None], pilot: Pilot[None], screen: ProbeScreen) -> None:
    """Ctrl+S, then wait for the answer shown and the probe kept in the history."""
    before = screen.answer
    await pilot.press("ctrl+s")
    await until(pilot, lambda: screen.answer is not before, "the answer")
    await done(app, pilot, "probe")


def probes_kept() -> list[ProbeEntry]:
    ledger = open_for_reading()
    assert ledger is not None
    try:
        return list_probes(ledger)
    finally:
        ledger.close()


def shown(app: App[Any]) -> str:
    return " ".join(screen_text(app).split())


def waiting_words(app: App[Any]) -> tuple[str, str]:
    """What the status line says of a queue that waits for its deployment: "unreachable" (or
    not), then how many plants wait ("2 waiting"), or "trying now…" while it tries again."""
    words = status_text(app)
    state = "unreachable" if "unreachable, " in words else ""
    if "trying now…" in words:
        return state, "trying now…"
    count = re.search(r"\d+ waiting", words)
    return state, count.group() if count else ""


def answer_shown(screen: ProbeScreen) -> str:
    """What the answer's pane holds, its lines joined (the pane wraps them at its width)."""
    return " ".join(str(screen.query_one("#probe-answer-text", Static).render()).split())


async def test_f6_opens_it_filled_from_the_form_as_typed_and_esc_goes_back(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SMALL) as pilot:
        send = await ready(app, pilot)
        await fill(pilot, send, name="Fern", id="7x", tag="shade")
        screen = await open_probe(app, pilot)
        body = body_of(screen)
        assert json.loads(body.text) == {"id": "7x", "name": "Fern", "tag": "shade"}
        # A JSON editor: highlighted by tree-sitter's JSON grammar, the keys go to it.
        assert body.language == "json"
        assert body.is_syntax_aware
        assert body.has_focus
        assert f"{reference_server.base_url}/plants" in shown(app)
        await pilot.press("escape")
        assert app.screen is send
        assert send.form.texts() == ("Fern", "7x", "shade")

        await fill(pilot, send, name="Ivy", id=" 12", tag="")
        screen = await open_probe(app, pilot)
        assert json.loads(body_of(screen).text) == {"id": 12, "name": "Ivy"}
        await pilot.press("escape")
        await fill(pilot, send, name="", id="", tag="")
        screen = await open_probe(app, pilot)
        # A blank form gives the shape of a plant, its values to write: not JSON as it stands,
        # so that nothing nobody typed can create a plant.
        assert body_of(screen).text == TEMPLATE
        with pytest.raises(ValueError, match="Expecting value"):
            json.loads(body_of(screen).text)


async def test_the_palette_opens_it_too(reference_server: BackgroundServer) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SMALL) as pilot:
        await ready(app, pilot)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await pilot.press(*"probe a request")
        await until(pilot, lambda: "Probe a request" in shown(app), "the palette's entry")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ProbeScreen), "the probe screen")


async def test_an_id_as_a_string_gets_400_with_the_reading_and_is_kept_as_a_probe(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SMALL) as pilot:
        send = await ready(app, pilot)
        status_before = status_text(app)
        assert status_before.endswith(" ready")
        screen = await open_probe(app, pilot)
        await write_body(pilot, screen, '{"id": "7", "name": "Fern"}')
        await probe_answered(app, pilot, screen)
        answer = screen.answer
        assert answer is not None
        assert answer.status == 400
        words = answer_shown(screen)
        assert "400 Bad Request" in screen_text(app)
        assert "400 Bad Request" in words
        assert "The body is an Error; the spec lists this status." in words
        assert "The plant was not created." in words
        assert '"error"' in words
        # The queue never saw it: no plant in the ledger, the status line as it was.
        await pilot.press("escape")
        assert app.screen is send
        await pilot.pause()
        assert all_rows() == []
        assert status_text(app) == status_before
    # Kept in the history as a probe, as `probe` keeps them; the plants' history has none.
    listed = CliRunner().invoke(main, ["history", "--probes", "--json"])
    assert listed.exit_code == 0, listed.output
    [probe] = json.loads(listed.stdout)
    assert (probe["status"], probe["source"]) == (400, "tui")
    assert probe["request"]["body"] == '{"id": "7", "name": "Fern"}'
    assert probe["verdict"]["shape"] == "Error"
    plants = CliRunner().invoke(main, ["history", "--json"])
    assert plants.exit_code == 0, plants.output
    assert json.loads(plants.stdout) == []


async def test_no_token_gets_401_and_no_authorization_goes(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SMALL) as pilot:
        await ready(app, pilot)
        screen = await open_probe(app, pilot)
        await write_body(pilot, screen, '{"id": 3, "name": "Fern"}')
        # Tab to the token's choice, open it, one down to "no token", take it.
        token = screen.query_one("#probe-token", Select)
        await tab_to(pilot, token)
        await pilot.press("enter", "down", "enter")
        assert token.value == TokenChoice.NONE
        await probe_answered(app, pilot, screen)
        answer = screen.answer
        assert answer is not None
        assert answer.status == 401
        assert "Authorization" not in dict(answer.sent_headers)
        assert "401 Unauthorized" in screen_text(app)
        assert "401 Unauthorized is not in the spec" in answer_shown(screen)
    assert [probe.token for probe in probes_kept()] == [TokenChoice.NONE]
    assert all_rows() == []


async def test_a_body_that_is_not_json_and_a_header_go_exactly_as_typed() -> None:
    typed = '{"id": 7,\n  "name": "Fé\\u0000rn",'
    async with MisbehavingServer(spec_like) as server:
        app = app_for(server.base_url, SecretStr("token-of-the-probe-test"))
        async with app.run_test(size=SMALL) as pilot:
            await ready(app, pilot)
            screen = await open_probe(app, pilot)
            await write_body(pilot, screen, typed)
            await write_headers(pilot, screen, "X-Probe: by hand\n\n")
            await probe_answered(app, pilot, screen)
            [request] = server.requests
            assert request.body == typed.encode("utf-8")
            assert request.headers["x-probe"] == "by hand"
            assert request.headers["authorization"] == "Bearer token-of-the-probe-test"
            assert "400 Bad Request" in screen_text(app)
            assert "The body is an Error" in answer_shown(screen)


async def test_an_answer_off_spec_is_read_so_and_shown_escaped() -> None:
    page = b"\x1b[31mred[/] [bold]loud[/bold] \x1b]52;c;aGk=\x07"
    answer = response(200, page, headers=[("Content-Type", "text/plain")])
    async with MisbehavingServer([Send(answer)]) as server:
        app = app_for(server.base_url, SecretStr("token-of-the-probe-test"))
        async with app.run_test(size=LARGE) as pilot:
            await ready(app, pilot)
            screen = await open_probe(app, pilot)
            await probe_answered(app, pilot, screen)
            assert screen.answer is not None
            assert screen.answer.reading.off_spec
            words = answer_shown(screen)
            assert "The body is neither a Plant nor an Error" in words
            assert "Off spec: " in words
            assert "\\nOff spec" not in words
            assert "\x1b" not in screen_text(app)
            assert "\\e[31mred[/] [bold]loud[/bold] \\e]52;c;aGk=\\x07" in words


async def test_a_bad_header_is_refused_in_words_and_nothing_is_sent() -> None:
    async with MisbehavingServer(spec_like) as server:
        app = app_for(server.base_url, SecretStr("token-of-the-probe-test"))
        async with app.run_test(size=SMALL) as pilot:
            await ready(app, pilot)
            screen = await open_probe(app, pilot)
            await write_headers(pilot, screen, "X-Probe by hand")
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert "Nothing was sent: 'X-Probe by hand' is not a header: give it as NAME:VALUE" in (
                answer_shown(screen)
            )
            assert app.screen is screen
            assert screen.answer is None
            assert server.requests == []


async def test_a_probe_goes_at_once_while_the_queue_waits_for_the_deployment() -> None:
    # Plants are told to come back in an hour (503, Retry-After); a probe is answered at once.
    def script(request: ReceivedRequest) -> list[Any]:
        if b"by hand" in request.body:
            return [Send(json_response(400, {"error": 7, "message": "probed"}))]
        later = [("Retry-After", "3600")]
        return [Send(json_response(503, {"error": 1, "message": "busy"}, headers=later))]

    async with MisbehavingServer(script) as server:
        app = app_for(server.base_url, SecretStr("token-of-the-probe-test"))
        async with app.run_test(size=SMALL) as pilot:
            send = await ready(app, pilot)
            for name, plant_id in (("Fern", "1"), ("Ivy", "2")):
                await fill(pilot, send, name=name, id=plant_id)
                await pilot.press("ctrl+s")
            await until(
                pilot,
                lambda: waiting_words(app) == ("unreachable", "2 waiting"),
                "the plants waiting for the deployment",
            )
            tried = len(server.requests)
            screen = await open_probe(app, pilot)
            await write_body(pilot, screen, '{"id": 9, "name": "by hand"}')
            await probe_answered(app, pilot, screen)
            answer = screen.answer
            assert answer is not None
            assert answer.status == 400
            assert len(server.requests) == tried + 1
            assert server.requests[-1].body == b'{"id": 9, "name": "by hand"}'
            # Back on the form: the queue still waits, its plants in line as they were.
            await pilot.press("escape")
            assert app.screen is send
            assert waiting_words(app) == ("unreachable", "2 waiting")
            assert sorted(row.plant_id for row in all_rows()) == [1, 2]


async def test_with_the_deployment_unreachable_a_probe_says_so_at_once(closed_port: int) -> None:
    app = app_for(f"http://127.0.0.1:{closed_port}", SecretStr("token-of-the-probe-test"))
    async with app.run_test(size=SMALL) as pilot:
        send = await ready(app, pilot)
        await fill(pilot, send, name="Fern", id="1")
        await pilot.press("ctrl+s")
        await until(
            pilot,
            lambda: waiting_words(app) == ("unreachable", "1 waiting"),
            "the plant waiting for the deployment",
        )
        screen = await open_probe(app, pilot)
        await probe_answered(app, pilot, screen)
        answer = screen.answer
        assert answer is not None
        assert answer.status is None
        words = answer_shown(screen)
        assert words.startswith("No answer")
        assert "No answer came. The plant was not created." in words
        assert "connect" in words.lower()
        # Back on the form: the queue still waits, its plant in line as it was.
        await pilot.press("escape")
        assert app.screen is send
        assert waiting_words(app) in {("unreachable", "1 waiting"), ("unreachable", "trying now…")}


async def test_a_second_send_while_one_is_in_flight_is_refused_in_words() -> None:
    release = asyncio.Event()
    async with MisbehavingServer(
        [Await(release), Send(json_response(400, {"error": 1, "message": "no"}))]
    ) as server:
        app = app_for(server.base_url, SecretStr("token-of-the-probe-test"))
        async with app.run_test(size=SMALL) as pilot:
            await ready(app, pilot)
            screen = await open_probe(app, pilot)
            await pilot.press("ctrl+s")
            await server.wait_for_requests(1)
            await pilot.press("ctrl+s")
            await pilot.pause()
            await pilot.press("ctrl+o")
            await pilot.pause()
            notes = [note.message for note in notifications_of(app)]
            assert "A probe is in flight: send again once its answer is shown." in notes
            assert "A probe is in flight: save it as a case once its answer is shown." in notes
            assert app.screen is screen
            release.set()
            await until(pilot, lambda: screen.answer is not None, "the answer")
            await done(app, pilot, "probe")
            assert screen.answer is not None
            assert screen.answer.status == 400
            assert len(server.requests) == 1


async def test_save_as_case_writes_a_file_that_load_cases_reads_back(
    reference_server: BackgroundServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SMALL) as pilot:
        await ready(app, pilot)
        screen = await open_probe(app, pilot)
        # Nothing sent yet: nothing to save, said so.
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert app.screen is screen
        assert any("Send the probe first" in note.message for note in notifications_of(app))

        await write_body(pilot, screen, '{"id": "7", "name": "Fern"}')
        await probe_answered(app, pilot, screen)
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, SaveCaseScreen), "the case's question")
        question = app.screen
        assert question.query_one("#case-path", Input).value == "cases.toml"
        await tab_to(pilot, question.query_one("#case-name", Input))
        await type_over(pilot, "id given as a string is refused")
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is screen, "the case saved")
        # Saved twice under one name: refused in words, the file as it was.
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, SaveCaseScreen), "the case's question")
        await tab_to(pilot, app.screen.query_one("#case-name", Input))
        await type_over(pilot, "id given as a string is refused")
        await pilot.press("enter")
        await until(pilot, lambda: "two cases are named" in shown(app), "the name refused")
        await pilot.press("escape")
        assert app.screen is screen
    [case] = load_cases(tmp_path / "cases.toml")
    assert case.name == "id given as a string is refused"
    # The reference server's code for a body that is not a NewPlant.
    assert (case.status, case.error) == (400, 1002)
    assert case.body == {"id": "7", "name": "Fern"}
    assert case.request.token is TokenChoice.PROFILE


async def test_the_token_is_never_on_screen(tmp_path: Path) -> None:
    canary = SecretStr("canary-token-that-must-never-show-WXYZ")
    with BackgroundServer(token=canary, db_path=tmp_path / "plants.sqlite3") as server:
        app = app_for(server.base_url, canary)
        async with app.run_test(size=LARGE) as pilot:
            await ready(app, pilot)
            screen = await open_probe(app, pilot)
            await write_body(pilot, screen, '{"id": 5, "name": "Fern"}')
            await probe_answered(app, pilot, screen)
            assert screen.answer is not None
            assert screen.answer.status == 200
            seen = screen_text(app) + app.export_screenshot()
            assert "Authorization: Bearer …WXYZ" in answer_shown(screen)
            secret = canary.get_secret_value()
            assert secret not in seen
            assert secret[:-4] not in seen
            # An Authorization typed as a header is shown as sent masked as the token is.
            typed = "another-token-typed-by-hand-QRST"
            await write_headers(pilot, screen, f"Authorization: Bearer {typed}")
            await probe_answered(app, pilot, screen)
            assert screen.answer is not None
            assert screen.answer.status == 401
            assert "Authorization: Bearer …QRST" in answer_shown(screen)
            assert typed not in answer_shown(screen)
            assert secret not in screen_text(app) + app.export_screenshot()
    assert all(secret not in repr(probe) for probe in probes_kept())


async def test_with_no_deployment_yet_send_says_so() -> None:
    def cannot_connect() -> Any:
        raise RuntimeError("no such profile: greenhouse")

    app = app_with(cannot_connect, TargetLabel(base_url="nowhere", token_source="no profile"))
    async with app.run_test(size=SMALL) as pilot:
        await ready(app, pilot)
        screen = await open_probe(app, pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "Nothing was sent: there is no deployment to probe yet." in answer_shown(screen)
        assert app.screen is screen
        assert screen.answer is None


async def test_keys_typed_in_one_go_are_applied_in_order(
    reference_server: BackgroundServer,
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SMALL) as pilot:
        send = await ready(app, pilot)
        await fill(pilot, send, name="Fern", id="7", tag="")
        # F6, then an edit of the body read in one write: the id made a string, a line added,
        # Tab to the token, Tab to the headers and a header typed there.
        keys = ["f6", "down", "end", "left", '"', "left", "left", '"', "end", "enter"]
        keys += [*'"tag": "x",', "tab", "tab", *"X-A: b"]
        burst(app, keys)
        await until(pilot, lambda: isinstance(app.screen, ProbeScreen), "the probe screen")
        screen = app.screen
        assert isinstance(screen, ProbeScreen)
        headers = screen.query_one("#probe-headers", TextArea)
        await until(pilot, lambda: headers.text == "X-A: b", "the header typed")
        assert body_of(screen).text == '{\n  "id": "7",\n"tag": "x",\n  "name": "Fern"\n}'
        await pilot.press("ctrl+s")
        await until(pilot, lambda: screen.answer is not None, "the answer")
        assert screen.answer is not None
        assert screen.answer.request.headers == (("X-A", "b"),)
        assert screen.answer.status == 400


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "110x32"])
async def test_every_part_is_visible_and_reachable_with_tab(
    reference_server: BackgroundServer, size: tuple[int, int]
) -> None:
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=size) as pilot:
        await ready(app, pilot)
        screen = await open_probe(app, pilot)
        await write_body(pilot, screen, '{"id": "7", "name": "Fern"}')
        await probe_answered(app, pilot, screen)
        whole = screen.region
        parts = ["#probe-body", "#probe-token", "#probe-headers", "#probe-send", "#probe-save"]
        for selector in [*parts, "#probe-answer", "#probe-title"]:
            widget = screen.query_one(selector)
            region = widget.region
            assert region.area > 0, selector
            # Whole on screen: nothing clipped by the terminal's edge or its container.
            assert whole.contains_region(region), selector
            assert widget.parent is None or widget.parent.region.contains_region(region), selector
        for button in screen.query(Button):
            assert str(button.label) in screen_text(app)
        # Tab walks the request's parts, in order.
        assert screen.focused is body_of(screen)
        for selector in parts[1:]:
            await pilot.press("tab")
            assert screen.focused is screen.query_one(selector), selector
        await pilot.press("enter")  # Save as case, from its button
        await until(pilot, lambda: isinstance(app.screen, SaveCaseScreen), "the case's question")
        panel = app.screen.query_one("#case-panel")
        assert app.screen.region.contains_region(panel.region)
        assert "Save" in screen_text(app)


async def test_esc_while_a_probe_is_in_flight_keeps_it_as_cancelled_of_unknown_fate() -> None:
    # The request reached the deployment: it may have done something with it, so the probe is
    # kept in the history however the screen was left.
    release = asyncio.Event()
    async with MisbehavingServer(
        [Await(release), Send(json_response(400, {"error": 1, "message": "no"}))]
    ) as server:
        app = app_for(server.base_url, SecretStr("token-of-the-probe-test"))
        async with app.run_test(size=SMALL) as pilot:
            screen = await ready(app, pilot)
            await open_probe(app, pilot)
            await pilot.press("ctrl+s")
            await server.wait_for_requests(1)
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is screen, "the form again")
            await until(pilot, lambda: bool(probes_kept()), "the probe kept")
            (kept,) = probes_kept()
            assert kept.status is None
            assert kept.to_json()["verdict"]["fate"] == "unknown"
            assert "Cancelled" in json.dumps(kept.to_json())
            release.set()


async def test_a_protected_profile_is_asked_before_a_body_that_may_create_a_plant(
    reference_server: BackgroundServer,
) -> None:
    target = replace(target_of(reference_server.base_url, reference_server.token), protected=True)
    app = app_with(lambda: connect_to(target), TargetLabel.of(target))
    async with app.run_test(size=SMALL) as pilot:
        await ready(app, pilot)
        screen = await open_probe(app, pilot)
        await write_body(pilot, screen, '{"id": 4, "name": "Fern"}')
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        assert "protected" in shown(app)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "the probe screen again")
        assert "Nothing was sent" in answer_shown(screen)
        assert screen.answer is None
        assert stored_plants(reference_server.db_path) == []
        # A body that cannot create a plant (not JSON) goes without a question.
        await write_body(pilot, screen, TEMPLATE)
        await probe_answered(app, pilot, screen)
        assert screen.answer is not None
        assert screen.answer.status == 400
        # Asked and answered yes, it goes.
        await write_body(pilot, screen, '{"id": 4, "name": "Fern"}')
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        before = screen.answer
        await pilot.press("enter")
        await until(pilot, lambda: screen.answer is not before, "the answer")
        assert screen.answer is not None
        assert screen.answer.status == 200
    assert [row[:2] for row in stored_plants(reference_server.db_path)] == [(4, "Fern")]


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "110x32"])
async def test_a_method_and_path_typed_above_the_body_go_and_are_read_by_http(
    reference_server: BackgroundServer, size: tuple[int, int]
) -> None:
    # Issue 45, part 1: the same two fields as `probe --method --path`.
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=size) as pilot:
        await ready(app, pilot)
        screen = await open_probe(app, pilot)
        assert f"Probe POST {reference_server.base_url}/plants" in shown(app)
        # From the body, Shift+Tab to the path, then to the method: each typed over.
        await pilot.press("shift+tab", *"/openapi.json", "shift+tab", *"get")
        await until(
            pilot,
            lambda: f"Probe GET {reference_server.base_url}/openapi.json" in shown(app),
            "the title naming the request typed",
        )
        await probe_answered(app, pilot, screen)
        answer = answer_shown(screen)
        assert "200 OK" in answer or answer.startswith("200"), answer
        assert "The spec describes only POST /plants: it says nothing of this request." in answer
        assert f"GET {reference_server.base_url}/openapi.json" in answer
        [kept] = probes_kept()
        assert (kept.method, kept.path, kept.status) == ("GET", "/openapi.json", 200)
        # A path that cannot be sent is said, and nothing goes.
        await pilot.press("tab", "ctrl+u", *"openapi.json", "ctrl+s")
        await until(pilot, lambda: "Nothing was sent" in answer_shown(screen), "the path refused")
        assert "starting with /" in answer_shown(screen)
        assert len(probes_kept()) == 1
    assert stored_plants(reference_server.db_path) == []


async def test_follow_in_the_screen_shows_each_redirect_and_keeps_the_token_home() -> None:
    # Issue 45, part 5: the screen's switch, reached with Tab and turned on with Space.
    async with (
        MisbehavingServer([Send(json_response(200, {"name": "Fern"}))]) as elsewhere,
        MisbehavingServer(
            [Send(response(302, b"", headers=[("Location", f"{elsewhere.base_url}/landed")]))]
        ) as server,
    ):
        app = app_for(server.base_url, SecretStr("token-for-the-redirecting-server"))
        async with app.run_test(size=SMALL) as pilot:
            await ready(app, pilot)
            screen = await open_probe(app, pilot)
            await pilot.press("tab", "tab", "tab", "tab", "tab", "space")
            await probe_answered(app, pilot, screen)
            answer = answer_shown(screen)
            assert f"Redirect 1: POST {server.base_url}/plants answered 302" in answer
            assert f"The token was not sent to {elsewhere.base_url}/landed" in answer
            assert f"GET {elsewhere.base_url}/landed" in answer
            assert [probe.status for probe in probes_kept()] == [200, 302]
        [received] = elsewhere.requests
        assert "authorization" not in received.headers
        assert server.requests[0].headers["authorization"].endswith("redirecting-server")
