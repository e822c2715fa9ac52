"""The import screen (F5), driven with Pilot against the real reference server.

What arrived is read from the server's own database: a row sent twice would be refused there as
a duplicate id, so "never twice" is checked where it matters. Each test has its own data
directory (conftest), so its own ledger, read from another connection (import_support).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import httpx
import pytest
from import_screen_support import (
    check,
    confirm,
    finished,
    in_tmp,
    open_import,
    stored,
    text_of,
)
from import_support import created, expected, ledger_rows, plants, write_csv
from misbehaving import Action, MisbehavingServer, ReceivedRequest, Send, json_response
from pty_support import wait_until
from pydantic import SecretStr
from seen_support import drawn_text
from snapshot_apps.support import SIZE, app_for, ready, until
from textual.command import CommandPalette
from textual.widgets import Button, DirectoryTree, Input, OptionList, Static

from plantstore_tui.core.http.target import Target
from plantstore_tui.core.importing import ImportFormat, validate
from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.core.sending.connection import connect_to
from plantstore_tui.core.store import PlantState, open_ledger
from plantstore_tui.core.store.batches import Batches
from plantstore_tui.core.store.rows import NewRow
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.screens.confirm import ChoiceScreen
from plantstore_tui.ui.screens.import_screen import ImportScreen
from plantstore_tui.ui.screens.send import SendScreen
from plantstore_tui.ui.widgets.import_file import PathSuggester
from plantstore_tui.ui.widgets.typed_input import TypedInput


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    in_tmp(tmp_path, monkeypatch)


def rows_with_ids(ids: Sequence[int]) -> list[tuple[str, int, str]]:
    return [(f"Plant {i}", i, "bulk") for i in ids]


async def test_a_valid_csv_is_checked_confirmed_and_sent(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    rows = plants(40)
    write_csv(tmp_path / "plants.csv", rows)
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_import(app, pilot)
        await pilot.press("f5")  # opens from the send screen only: never a second one
        await pilot.pause()
        assert app.screen_stack[1:] == [screen]
        await check(pilot, screen, "plants.csv")
        assert "40 plants, every row valid (csv" in text_of(screen, "#import-verdict")
        question = await confirm(pilot)
        assert "40 plants from plants.csv" in question
        assert stored(reference_server) == expected(rows)
        progress = screen.progress
        assert progress is not None
        assert (progress.created, progress.rejected, progress.unknown) == (40, 0, 0)
        assert "40 created, 0 rejected" in text_of(screen, "#import-summary")
    # Started from the TUI, every row is in the ledger all the same: source import, its batch
    # and its line (so in the history).
    in_ledger = ledger_rows()
    batches = {row.batch for row in in_ledger}
    assert len(batches) == 1
    assert None not in batches
    assert sorted((row.source, row.line, row.plant_id, row.state) for row in in_ledger) == [
        ("import", line, line - 1, "created") for line in range(2, 42)
    ]


async def test_a_file_with_bad_rows_lists_every_one_and_sends_nothing(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    rows: list[Sequence[object]] = [*plants(5), ("", 6, ""), ("Fern", "12b", ""), ("Ivy", 1, "")]
    write_csv(tmp_path / "bad.csv", rows)
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_import(app, pilot)
        await check(pilot, screen, "bad.csv")
        assert "3 bad rows of 8; nothing will be sent" in text_of(screen, "#import-verdict")
        problems = text_of(screen, "#import-problems").splitlines()
        assert problems[0] == "bad.csv:7: name: Name is required"
        assert problems[1].startswith("bad.csv:8: id: ")
        assert problems[2].startswith("bad.csv:9: id: id 1 is given twice")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen
    assert stored(reference_server) == []


async def test_a_malformed_file_is_named_with_its_line(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    (tmp_path / "broken.csv").write_text('name,id\n"Fern,1\n', encoding="utf-8")
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_import(app, pilot)
        await check(pilot, screen, "broken.csv")
        verdict = text_of(screen, "#import-verdict")
        assert "cannot be read as plants" in verdict
        assert "broken.csv:2: malformed" in verdict


def sent_before(server: BackgroundServer, path: Path, rows: Sequence[tuple[str, int, str]]) -> None:
    """An earlier import of the file that stopped after `rows`: in the ledger and the store."""
    validation = validate(lambda: path.open("rb"), ImportFormat.CSV)
    ledger = open_ledger("import")
    try:
        batches = Batches(ledger)
        batch = batches.start(
            sha256=validation.sha256,
            base_url=server.base_url,
            profile=None,
            file_name="plants.csv",
            rows=validation.valid,
        )
        for line, (name, plant_id, tag) in enumerate(rows, start=2):
            plant = NewPlant(id=plant_id, name=name, tag=tag or None)
            row = NewRow(
                source="import",
                texts=FormTexts(name=name, id=str(plant_id), tag=tag),
                plant=plant,
                base_url=server.base_url,
                profile=None,
                state=PlantState.SENDING,
                batch=batch.id,
                line=line,
            )
            (entry,) = batches.advance([], [row])
            answer = httpx.post(
                f"{server.base_url}/plants",
                json=plant.to_body(),
                headers={"Authorization": f"Bearer {server.token.get_secret_value()}"},
            )
            assert answer.status_code == 200
            batches.advance([(entry, created(plant))], [])
    finally:
        ledger.close()


async def test_a_second_import_resumes_and_sends_no_row_twice(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    rows = plants(30)
    path = write_csv(tmp_path / "plants.csv", rows)
    sent_before(reference_server, path, rows[:10])
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_import(app, pilot)
        await check(pilot, screen, "plants.csv")
        assert "Imported to this target before" in text_of(screen, "#import-verdict")
        question = await confirm(pilot, "r")
        assert "10 created, 0 rejected" in question
        assert "20 never sent" in question
        assert "Resume: send 20  [r]" in question
        progress = screen.progress
        assert progress is not None
        assert (progress.to_send, progress.created, progress.rejected) == (20, 20, 0)
    assert stored(reference_server) == expected(rows)


async def test_a_rejected_row_is_loaded_into_the_form(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    write_csv(tmp_path / "plants.csv", rows_with_ids(range(1, 6)))
    app = app_for(reference_server.base_url, reference_server.token)
    # Created by another client: this ledger does not know it, so the import sends it.
    answer = await asyncio.to_thread(
        httpx.post,
        f"{reference_server.base_url}/plants",
        json={"name": "Already here", "id": 3},
        headers={"Authorization": f"Bearer {reference_server.token.get_secret_value()}"},
    )
    assert answer.status_code == 200
    async with app.run_test(size=SIZE) as pilot:
        send_screen = await ready(app, pilot)
        screen = await open_import(app, pilot)
        await check(pilot, screen, "plants.csv")
        await confirm(pilot)
        assert [(result.line, result.state) for result in screen.results] == [
            (4, PlantState.REJECTED)
        ]
        listing = screen.query_one("#import-results", OptionList)
        assert app.focused is listing
        assert "error 1003" in str(listing.get_option_at_index(0).prompt)
        assert "rejected  id 3  Plant 3" in str(listing.get_option_at_index(0).prompt), (
            "the id is labelled (a bare 3 beside the status reads as an HTTP status)"
        )
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SendScreen)
        assert send_screen.form.texts() == FormTexts(name="Plant 3", id="3", tag="bulk")
    assert stored(reference_server) == sorted(
        [(3, "Already here", None), *((i, f"Plant {i}", "bulk") for i in (1, 2, 4, 5))]
    )


@pytest.fixture
def slow_server(start_slow_server: Callable[[float], BackgroundServer]) -> BackgroundServer:
    """A reference server that answers each POST /plants after a fifth of a second."""
    return start_slow_server(0.2)


async def test_esc_stops_taking_rows_and_the_rows_in_flight_settle(
    slow_server: BackgroundServer, tmp_path: Path
) -> None:
    rows = plants(400)
    write_csv(tmp_path / "plants.csv", rows)
    app = app_for(slow_server.base_url, slow_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_import(app, pilot)
        await check(pilot, screen, "plants.csv")
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("enter")
        await until(pilot, lambda: screen.progress is not None and screen.progress.settled >= 8)
        await pilot.press("escape")
        await finished(pilot, "import-send")
        progress = screen.progress
        assert app.screen is screen
        assert progress.unknown == 0
        assert 8 <= progress.created < 400
        assert "Stopped before the end" in text_of(screen, "#import-summary")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, SendScreen)
    arrived = stored(slow_server)
    assert len(arrived) == progress.created
    assert set(arrived) <= set(expected(rows))
    # Nothing is left marked sending: the rows that never went out were taken back.
    assert {row.state for row in ledger_rows()} == {"created"}
    assert len(ledger_rows()) == progress.created


async def test_the_palette_opens_the_import_and_a_file_picked_in_the_tree_is_checked(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("not a file of plants\n", encoding="utf-8")
    (tmp_path / "spring.jsonl").write_text(
        '{"name": "Fern", "id": 1}\n{"name": "Ivy", "id": 2, "tag": "climber"}\n',
        encoding="utf-8",
    )
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"import plants")
        await pilot.pause()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ImportScreen))
        screen = app.screen
        assert isinstance(screen, ImportScreen)
        tree = screen.query_one(DirectoryTree)
        await until(pilot, lambda: bool(tree.root.children))
        # Only what import reads is offered.
        assert [str(node.label) for node in tree.root.children] == ["spring.jsonl"]
        tree.focus()
        await pilot.press("down", "enter")
        await finished(pilot, "check-file")
        assert screen.query_one("#import-path", Input).value == "spring.jsonl"
        assert "2 plants, every row valid (jsonl" in text_of(screen, "#import-verdict")
        await confirm(pilot)
    assert stored(reference_server) == [(1, "Fern", None), (2, "Ivy", "climber")]


async def test_a_protected_profile_is_named_in_the_question_and_cancel_sends_nothing(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    write_csv(tmp_path / "plants.csv", plants(3))
    target = Target(
        base_url=reference_server.base_url,
        token=reference_server.token,
        token_source="the test",
        profile="prod",
        protected=True,
    )
    app = PlantStoreApp(lambda: connect_to(target), TargetLabel.of(target))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_import(app, pilot)
        await check(pilot, screen, "plants.csv")
        await pilot.press("ctrl+s")
        await pilot.pause()
        question = app.screen
        assert isinstance(question, ChoiceScreen)
        assert question.has_class("-danger")
        assert "protected" in str(question.query_one("#confirm-detail", Static).render())
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        assert screen.progress is None
    assert stored(reference_server) == []


async def test_the_path_is_completed_from_its_folder(tmp_path: Path) -> None:
    (tmp_path / "orders").mkdir()
    (tmp_path / "orders" / "spring.csv").write_text("name,id\n", encoding="utf-8")
    (tmp_path / "orders" / "spring.txt").write_text("", encoding="utf-8")
    (tmp_path / ".hidden.csv").write_text("name,id\n", encoding="utf-8")
    suggester = PathSuggester(tmp_path)
    assert await suggester.get_suggestion("or") == "orders/"
    assert await suggester.get_suggestion("orders") == "orders/"
    assert await suggester.get_suggestion("orders/s") == "orders/spring.csv"
    assert await suggester.get_suggestion("orders/spring.csv") is None
    assert await suggester.get_suggestion(".h") == ".hidden.csv"
    assert await suggester.get_suggestion(str(tmp_path / "ord")) == f"{tmp_path}/orders/"
    assert await suggester.get_suggestion("nowhere/x") is None


async def test_the_path_typed_is_completed_with_right_and_checked_with_enter(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    (tmp_path / "orders").mkdir()
    write_csv(tmp_path / "orders" / "spring.csv", plants(3))
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_import(app, pilot)
        path = screen.query_one("#import-path", TypedInput)
        assert app.focused is path
        await pilot.press(*"ord")
        await until(pilot, lambda: drawn_text(path).endswith("orders/"), "orders/ suggested")
        await pilot.press("right", "s")
        await until(pilot, lambda: drawn_text(path).endswith("orders/spring.csv"))
        await pilot.press("right", "enter")
        await finished(pilot, "check-file")
        assert path.value == "orders/spring.csv"
        assert "orders/spring.csv: 3 plants, every row valid" in text_of(screen, "#import-verdict")


async def test_thousands_of_bad_rows_list_the_first_thousand_and_count_the_rest(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    lines = "".join(f"Plant {i},{i}x\n" for i in range(1500))
    (tmp_path / "bad.csv").write_text(f"name,id\n{lines}", encoding="utf-8")
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_import(app, pilot)
        await check(pilot, screen, "bad.csv")
        assert "1,500 bad rows of 1,500" in text_of(screen, "#import-verdict")
        problems = text_of(screen, "#import-problems").splitlines()
        assert len(problems) == 1001
        assert problems[999].startswith("bad.csv:1001: id: ")
        assert problems[-1] == "… and 500 more bad rows not listed"
    assert stored(reference_server) == []


async def test_restart_is_asked_for_and_leaves_out_the_rows_created_before(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    rows = plants(5)
    write_csv(tmp_path / "plants.csv", rows[:3])
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_import(app, pilot)
        await check(pilot, screen, "plants.csv")
        await confirm(pilot)
        await pilot.press("escape")
        await pilot.pause()
        # The file grew by two rows: the three created before are not sent again.
        write_csv(tmp_path / "plants.csv", rows)
        screen = await open_import(app, pilot)
        await check(pilot, screen, "plants.csv")
        assert "3 rows have ids created on this target before: left out" in text_of(
            screen, "#import-verdict"
        )
        question = await confirm(pilot)
        assert "2 plants from plants.csv" in question
        assert "3 rows whose ids were created here before are left out" in question
        progress = screen.progress
        assert progress is not None
        assert (progress.to_send, progress.created, progress.rejected) == (2, 2, 0)
        assert "3 created before, skipped" in text_of(screen, "#import-summary")
        await pilot.press("escape")
        await pilot.pause()
        screen = await open_import(app, pilot)
        await check(pilot, screen, "plants.csv")
        question = await confirm(pilot, "a")
        assert "Restart: send 0  [a]" in question
        progress = screen.progress
        assert progress is not None
        # Every id is known as created: none went again.
        assert (progress.to_send, progress.created, progress.rejected) == (0, 0, 0)
    assert stored(reference_server) == expected(rows)


async def test_a_refused_token_stops_the_import_and_a_resume_with_a_good_one_sends_each_row_once(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    rows = plants(30)
    write_csv(tmp_path / "plants.csv", rows)
    app = app_for(reference_server.base_url, SecretStr("an-expired-token-0000"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_import(app, pilot)
        await check(pilot, screen, "plants.csv")
        await confirm(pilot)
        progress = screen.progress
        assert progress is not None
        assert (progress.created, progress.rejected, progress.unknown) == (0, 0, 0)
        assert 1 <= progress.refused <= 8
        summary = text_of(screen, "#import-summary")
        assert "The token was refused (401) at plants.csv:2 (id 1): 30 rows not sent" in summary
        assert "fix the token and import the file again and choose Resume" in summary
        listing = screen.query_one("#import-results", OptionList)
        first = str(listing.get_option_at_index(0).prompt)
        assert "token refused  id 1  Plant 1" in first
        assert "not sent: the token was refused (401)" in first
    assert stored(reference_server) == []
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_import(app, pilot)
        await check(pilot, screen, "plants.csv")
        question = await confirm(pilot, "r")
        assert "Resume: send 30  [r]" in question
        progress = screen.progress
        assert progress is not None
        assert (progress.to_send, progress.created, progress.rejected) == (30, 30, 0)
    assert stored(reference_server) == expected(rows)


def _stores_another_name_for(plant_id: int) -> Callable[[ReceivedRequest], list[Action]]:
    def script(request: ReceivedRequest) -> list[Action]:
        sent = request.json()
        name = "Someone Else" if sent["id"] == plant_id else sent["name"]
        return [Send(json_response(200, {"name": name, "tag": sent["tag"]}))]

    return script


async def test_a_row_stored_as_another_name_is_listed_off_the_spec_and_not_offered_again(
    tmp_path: Path,
) -> None:
    write_csv(tmp_path / "plants.csv", rows_with_ids(range(1, 4)))
    async with MisbehavingServer(_stores_another_name_for(2)) as server:
        app = app_for(server.base_url, SecretStr("token-for-a-server-that-stores-another"))
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_import(app, pilot)
            await check(pilot, screen, "plants.csv")
            await confirm(pilot)
            assert "3 created (1 off the spec)" in text_of(screen, "#import-summary")
            listing = screen.query_one("#import-results", OptionList)
            [option] = listing.options
            assert "off spec: the server stored name 'Someone Else', not 'Plant 2' as sent" in (
                str(option.prompt)
            )
            assert option.disabled
            await pilot.press("enter")
            await pilot.pause()
            assert app.screen is screen, "a created row is not loaded to be sent again"


async def test_an_unreachable_deployment_is_waited_for_in_words_and_esc_stops_at_once(
    tmp_path: Path, closed_port: int
) -> None:
    write_csv(tmp_path / "plants.csv", plants(30))
    app = app_for(f"http://127.0.0.1:{closed_port}", SecretStr("token-never-used"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_import(app, pilot)
        await check(pilot, screen, "plants.csv")
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("enter")
        await until(
            pilot,
            lambda: "Waiting: deployment unreachable since" in text_of(screen, "#import-counts"),
        )
        assert "next try in" in text_of(screen, "#import-counts")
        await pilot.press("escape")
        await finished(pilot, "import-send")
        progress = screen.progress
        assert progress is not None
        assert (progress.created, progress.unknown) == (0, 0)
        assert progress.failed + progress.not_sent == 30
        assert "Waiting" not in text_of(screen, "#import-counts")
    # The rows that went out never left (failed: a resume sends them); the others were taken
    # back out of the ledger.
    assert {row.state for row in ledger_rows()} == {"failed"}


async def test_a_file_another_process_imports_is_refused_in_words_and_nothing_is_sent(
    start_slow_server: Callable[[float], BackgroundServer], tmp_path: Path
) -> None:
    server = start_slow_server(0.02)
    rows = plants(2000)
    write_csv(tmp_path / "plants.csv", rows)
    app = app_for(server.base_url, server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_import(app, pilot)
        await check(pilot, screen, "plants.csv")
        assert "2,000 plants, every row valid" in text_of(screen, "#import-verdict")
        # Checked before; then `import` of the same file starts in another process.
        # At 25 rows a second: 80 s, still sending when it is refused and checked again, the
        # path typed key by key meanwhile (each key waits for this process, the server's too,
        # to be idle: up to 2 s a key while it serves the other import).
        other = await asyncio.create_subprocess_exec(
            *[sys.executable, "-m", "plantstore_tui", "import", "plants.csv"],
            *["--base-url", server.base_url, "--rate", "25"],
            env={**os.environ, "PLANTSTORE_TOKEN": server.token.get_secret_value()},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=tmp_path,
        )
        try:
            await asyncio.to_thread(
                wait_until, lambda: len(stored(server)) >= 50, 60, what="50 plants stored"
            )
            await confirm(pilot)
            summary = text_of(screen, "#import-summary")
            assert "Nothing was sent: plants.csv is being imported to" in summary
            assert f"pid {other.pid}" in summary
            assert "unknown" not in summary
            assert screen.progress is None
            # Checked again while it runs: named, and Send stays off.
            await pilot.press("escape")
            await pilot.pause()
            screen = await open_import(app, pilot)
            await check(pilot, screen, "plants.csv")
            verdict = text_of(screen, "#import-verdict")
            assert "Cannot send: plants.csv is being imported" in verdict
            assert f"pid {other.pid}" in verdict
            assert screen.query_one("#import-send", Button).disabled
            assert other.returncode is None
        finally:
            other.kill()
            await other.wait()
    # Only the other import sent: each plant once, every one in its batch.
    in_ledger = ledger_rows()
    assert len({row.batch for row in in_ledger}) == 1
    ids = [plant_id for plant_id, _, _ in stored(server)]
    assert len(ids) == len(set(ids))
