"""core.import_plan: what a resume sends, and a file changed between its check and its sending."""

from __future__ import annotations

from pathlib import Path

import pytest

from plantstore_tui.core.import_journal import ImportJournal, RowState
from plantstore_tui.core.import_plan import earlier_import, new_batch, resume_batch, rows_to_send
from plantstore_tui.core.importing.files import FileProblem, ImportFormat, validate

URL = "http://127.0.0.1:9"


def _csv(path: Path, count: int) -> Path:
    path.write_text(
        "name,id\n" + "".join(f"Plant {i},{i}\n" for i in range(1, count + 1)), encoding="utf-8"
    )
    return path


def test_a_resume_sends_the_rows_never_sent_and_those_that_failed_never_the_unknown(
    tmp_path: Path,
) -> None:
    path = _csv(tmp_path / "plants.csv", 10)
    validation = validate(lambda: path.open("rb"), ImportFormat.CSV)
    with ImportJournal(tmp_path / "journal.sqlite3") as journal:
        assert earlier_import(journal, validation.sha256, URL) is None
        plan = new_batch(journal, validation, base_url=URL, profile=None, file_name="plants.csv")
        assert (plan.to_send, plan.skip, plan.resumed) == (10, frozenset(), False)
        for line, state in ((2, RowState.CREATED), (3, RowState.REJECTED), (4, RowState.FAILED)):
            journal.sending(plan.batch, line, line - 1)
            journal.settle(plan.batch, line, state, None, "")
        journal.sending(plan.batch, 5, 4)  # in flight when the process died: fate unknown
        earlier = earlier_import(journal, validation.sha256, URL)
        assert earlier is not None
        assert (earlier.never_sent, earlier.to_resume) == (6, 7)
        resumed = resume_batch(journal, earlier.batch, validation)
    assert (resumed.skip, resumed.to_send, resumed.resumed) == (frozenset({2, 3, 5}), 7, True)
    lines = [
        row.line
        for row in rows_to_send(lambda: path.open("rb"), ImportFormat.CSV, None, resumed.skip)
    ]
    assert lines == [4, 6, 7, 8, 9, 10, 11]


def test_a_row_no_longer_valid_stops_the_sending_at_its_line(tmp_path: Path) -> None:
    path = _csv(tmp_path / "plants.csv", 3)
    with path.open("a", encoding="utf-8") as file:
        file.write(",4\n")
    rows = rows_to_send(lambda: path.open("rb"), ImportFormat.CSV, None, frozenset())
    assert [row.line for row in (next(rows), next(rows), next(rows))] == [2, 3, 4]
    with pytest.raises(FileProblem) as problem:
        next(rows)
    assert problem.value.where("plants.csv") == (
        "plants.csv:5: the file changed since it was checked: check it again"
    )
