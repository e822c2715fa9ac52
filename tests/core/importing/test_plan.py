"""core.importing.plan: what a resume sends, as the ledger's rows say, and a file changed between
its check and its sending."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from import_support import created, failed, ledger_rows, rejected

from plantstore_tui.core.importing import (
    FileProblem,
    ImportFormat,
    earlier_import,
    new_batch,
    resume_batch,
    rows_to_send,
    validate,
)
from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.core.store import Ledger, PlantState, open_ledger
from plantstore_tui.core.store.batches import Batches
from plantstore_tui.core.store.rows import NewRow

URL = "http://127.0.0.1:9"


def _csv(path: Path, count: int) -> Path:
    path.write_text(
        "name,id\n" + "".join(f"Plant {i},{i}\n" for i in range(1, count + 1)), encoding="utf-8"
    )
    return path


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    opened = open_ledger("import", path=tmp_path / "ledger.sqlite3")
    yield opened
    opened.close()


def _row(batch: int, line: int, *, keep: bool = True) -> NewRow:
    plant = NewPlant(id=line - 1, name=f"Plant {line - 1}")
    texts = FormTexts(name=plant.name, id=str(plant.id), tag="")
    return NewRow(
        source="import",
        texts=texts,
        plant=plant,
        base_url=URL,
        profile=None,
        state=PlantState.SENDING,
        keep=keep,
        batch=batch,
        line=line,
    )


def test_a_resume_sends_the_rows_never_sent_and_those_that_failed_never_the_unknown(
    ledger: Ledger, tmp_path: Path
) -> None:
    path = _csv(tmp_path / "plants.csv", 10)
    validation = validate(lambda: path.open("rb"), ImportFormat.CSV)
    batches = Batches(ledger)
    assert earlier_import(batches, validation, URL) is None
    plan = new_batch(batches, validation, base_url=URL, profile=None, file_name="plants.csv")
    assert (plan.to_send, plan.skip, plan.resumed) == (10, frozenset(), False)
    # Lines 2 to 5 marked sending in one commit; 2, 3 and 4 come back, 5 is in flight when the
    # process dies: its fate is unknown.
    entries = batches.advance([], [_row(plan.batch.id, line) for line in (2, 3, 4, 5)])
    outcomes = [
        make(NewPlant(id=line - 1, name=f"Plant {line - 1}"))
        for make, line in ((created, 2), (rejected, 3), (failed, 4))
    ]
    batches.advance(list(zip(entries, outcomes, strict=False)), [])
    earlier = earlier_import(batches, validation, URL)
    assert earlier is not None
    assert (earlier.never_sent, earlier.to_resume) == (6, 7)
    resumed = resume_batch(batches, earlier.batch, validation)
    assert (resumed.skip, resumed.to_send, resumed.resumed) == (frozenset({2, 3, 5}), 7, True)
    assert resumed.skipped == 3
    lines = [row.line for row in resumed.rows(lambda: path.open("rb"), ImportFormat.CSV)]
    assert lines == [4, 6, 7, 8, 9, 10, 11]
    with_unknown = resume_batch(batches, earlier.batch, validation, resend_unknown=True)
    assert with_unknown.skip == frozenset({2, 3})


def test_rows_marked_sending_and_taken_back_are_sent_by_a_resume(
    ledger: Ledger, tmp_path: Path
) -> None:
    path = _csv(tmp_path / "plants.csv", 4)
    validation = validate(lambda: path.open("rb"), ImportFormat.CSV)
    batches = Batches(ledger)
    plan = new_batch(batches, validation, base_url=URL, profile=None, file_name="plants.csv")
    entries = batches.advance([], [_row(plan.batch.id, line) for line in (2, 3, 4)])
    one = NewPlant(id=1, name="Plant 1")
    # Line 2 came back; lines 3 and 4 never went out (the import was stopped): taken back.
    batches.advance([(entries[0], created(one))], [], withdrawn=entries[1:])
    assert [(row.line, row.state) for row in ledger_rows(ledger.path)] == [(2, "created")]
    assert resume_batch(batches, plan.batch, validation).skip == frozenset({2})


def test_a_finished_batch_sends_nothing_again_even_once_its_rows_are_gone(
    ledger: Ledger, tmp_path: Path
) -> None:
    path = _csv(tmp_path / "plants.csv", 2)
    validation = validate(lambda: path.open("rb"), ImportFormat.CSV)
    batches = Batches(ledger)
    plan = new_batch(batches, validation, base_url=URL, profile=None, file_name="plants.csv")
    # A profile whose history is off keeps its rows only until the batch is finished.
    entries = batches.advance([], [_row(plan.batch.id, line, keep=False) for line in (2, 3)])
    outcomes = [created(NewPlant(id=i, name=f"Plant {i}")) for i in (1, 2)]
    assert not batches.finish(plan.batch)
    batches.advance(list(zip(entries, outcomes, strict=True)), [])
    assert batches.finish(plan.batch)
    assert ledger_rows(ledger.path) == []
    earlier = earlier_import(batches, validation, URL)
    assert earlier is not None
    assert earlier.batch.finished
    assert (earlier.never_sent, earlier.to_resume) == (0, 0)
    resumed = resume_batch(batches, earlier.batch, validation, resend_unknown=True)
    assert (resumed.to_send, resumed.skipped) == (0, 2)
    assert list(resumed.rows(lambda: path.open("rb"), ImportFormat.CSV)) == []


def test_a_row_no_longer_valid_stops_the_sending_at_its_line(tmp_path: Path) -> None:
    path = _csv(tmp_path / "plants.csv", 3)
    with path.open("a", encoding="utf-8") as file:
        file.write(",4\n")
    rows = rows_to_send(lambda: path.open("rb"), ImportFormat.CSV, None, frozenset())
    first = [next(rows) for _ in range(3)]
    assert [row.line for row in first] == [2, 3, 4]
    assert first[0].plant == NewPlant(id=1, name="Plant 1")
    with pytest.raises(FileProblem) as problem:
        next(rows)
    assert problem.value.where("plants.csv") == (
        "plants.csv:5: the file changed since it was checked: check it again"
    )


def test_a_window_of_any_size_is_written_in_one_commit_its_entries_in_order(
    ledger: Ledger,
) -> None:
    batches = Batches(ledger)
    batch = batches.start(
        sha256="f" * 64, base_url=URL, profile=None, file_name="big.csv", rows=1200
    )
    lines = range(2, 1202)
    entries = batches.advance([], [_row(batch.id, line) for line in lines])
    written = {row.entry: row.line for row in ledger_rows(ledger.path)}
    assert [written[entry] for entry in entries] == list(lines)
    answers = [
        (entry, created(NewPlant(id=line - 1, name=f"P {line}")))
        for entry, line in zip(entries, lines, strict=True)
    ]
    batches.advance(answers[:700], [], withdrawn=entries[700:])
    assert [(row.line, row.state) for row in ledger_rows(ledger.path)] == [
        (line, "created") for line in lines[:700]
    ]
