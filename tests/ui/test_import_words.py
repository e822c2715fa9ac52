"""The import screen's words: counts that add up to the rows of the file (the rows a resume left
out among them), and a ledger that cannot be opened or written named with its path, never as
"an unexpected error"."""

from __future__ import annotations

from pathlib import Path

import pytest
from import_screen_support import check, confirm, in_tmp, open_import, stored, text_of
from import_support import cut_short, expected, plants, write_csv
from snapshot_apps.support import SIZE, app_for, ready
from textual.widgets import OptionList

from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.store import StoreError
from plantstore_tui.core.store.batches import Batches
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.screens.send import SendScreen


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    in_tmp(tmp_path, monkeypatch)


async def test_a_resume_counts_the_rows_it_leaves_out(
    reference_server: BackgroundServer, tmp_path: Path
) -> None:
    rows = plants(10)
    path = write_csv(tmp_path / "plants.csv", rows)
    cut_short(path, reference_server.base_url, created_lines={2}, unknown_lines={3, 4})
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        send_screen = await ready(app, pilot)
        screen = await open_import(app, pilot)
        await check(pilot, screen, "plants.csv")
        await confirm(pilot, "r")
        summary = text_of(screen, "#import-summary")
        # Listed with their names, each to load into the form (as may exist already).
        listing = screen.query_one("#import-results", OptionList)
        prompts = [str(listing.get_option_at_index(i).prompt) for i in range(2)]
        assert prompts[0].startswith("line 3  fate unknown, left out  id 2  Plant 2\n    No answer")
        assert prompts[1].startswith("line 4  fate unknown, left out  id 3  Plant 3\n    No answer")
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, SendScreen)
        assert send_screen.form.texts() == FormTexts(name="Plant 3", id="3", tag="")
    assert summary.startswith(
        f"plants.csv (10 rows) → {reference_server.base_url}: 7 created, 0 rejected, "
        "0 not sent after a failure, 0 unknown; 1 done before, skipped; 2 unknown, skipped in "
    )
    assert "2 rows may or may not have been created" in summary
    assert stored(reference_server) == expected(rows[3:])


def _unusable_ledger(how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Break the ledger `how`, in ways that stop root too (chmod does not); what the summary
    says of it."""
    if how == "cannot-be-opened":
        # A data directory under a regular file: no process can create it.
        (tmp_path.parent / f"{tmp_path.name}-file").write_text("not a directory")
        ledger = tmp_path.parent / f"{tmp_path.name}-file" / "data" / "plantstore.sqlite3"
        monkeypatch.setenv("PLANTSTORE_DATA_DIR", str(ledger.parent))
        return f"{ledger}: cannot be opened (Not a directory)"
    # Opened, then refusing the batch's first write, as a read-only file does to another user.
    ledger = tmp_path.parent / f"{tmp_path.name}-data" / "plantstore.sqlite3"

    def refuse(self: Batches, **_: object) -> None:
        raise StoreError(ledger, "cannot be written (read-only)")

    monkeypatch.setattr(Batches, "start", refuse)
    return f"{ledger}: cannot be written (read-only)"


@pytest.mark.parametrize("how", ["cannot-be-opened", "refuses-a-write"])
async def test_a_ledger_that_cannot_be_used_is_named_with_its_path(
    reference_server: BackgroundServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    words = _unusable_ledger(how, tmp_path, monkeypatch)
    write_csv(tmp_path / "plants.csv", plants(3))
    app = app_for(reference_server.base_url, reference_server.token)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_import(app, pilot)
        await check(pilot, screen, "plants.csv")
        await confirm(pilot)
        summary = text_of(screen, "#import-summary")
    assert summary == f"Nothing was sent: the ledger cannot be used: {words}."
    assert stored(reference_server) == []
