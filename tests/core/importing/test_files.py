"""Files of plants read strictly: repeated keys, one row limit for every format (checked as the
file is read, never after a huge row was held whole), over-long numbers, every problem at its
line."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from plantstore_tui.core.importing.files import (
    ImportFormat,
    Validation,
    validate,
)
from plantstore_tui.core.importing.rows import MAX_ROW_CHARACTERS, TOO_LONG, FileProblem, RowProblem
from plantstore_tui.core.plant.form import INT64_MAX, INT64_MIN

RANGE_RULE = f"ID must be between {INT64_MIN} and {INT64_MAX}"
# A file far beyond the row limit: 50 MB on one line.
HUGE = 50_000_000


def checked(path: Path, fmt: ImportFormat) -> Validation:
    return validate(lambda: path.open("rb"), fmt)


def problems(path: Path, fmt: ImportFormat = ImportFormat.JSONL) -> list[tuple[int, str, str]]:
    return [(p.line, p.field, p.message) for p in checked(path, fmt).problems]


def peak_bytes_of(path: Path, fmt: ImportFormat) -> tuple[int, Validation | FileProblem]:
    """The most memory Python held while the file was checked, and what the check said."""
    tracemalloc.start()
    try:
        try:
            found: Validation | FileProblem = checked(path, fmt)
        except FileProblem as exc:
            found = exc
        return tracemalloc.get_traced_memory()[1], found
    finally:
        tracemalloc.stop()


def test_a_repeated_key_is_refused_naming_the_line_and_the_key(tmp_path: Path) -> None:
    path = tmp_path / "plants.jsonl"
    path.write_text(
        '{"name": "A", "id": 1}\n'
        '{"name":"A","id":2,"name":"B"}\n'
        '{"name": "C", "id": 3, "tag": {"x": 1, "x": 2}}\n'
    )
    assert problems(path) == [
        (2, "json", "the key 'name' is given twice (each key once)"),
        (3, "json", "the key 'x' is given twice (each key once)"),
    ]


def test_a_json_lines_row_past_the_limit_is_refused_without_being_held_whole(
    tmp_path: Path,
) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("w") as file:
        file.write('{"name": "A", "id": 1}\n')
        file.write('{"name": "' + "x" * HUGE + '", "id": 2}\n')
        file.write('{"name": "C", "id": 3}\n{"name": "D", "id": "x"}\n')
    peak, found = peak_bytes_of(path, ImportFormat.JSONL)
    assert isinstance(found, Validation)
    # The row is named at its line, and the rows after it are still read and checked.
    assert [(p.line, p.field, p.message) for p in found.problems] == [
        (2, "row", TOO_LONG),
        (4, "id", "ID must be a whole number: digits 0-9 with an optional sign"),
    ]
    assert (found.rows, found.valid) == (4, 2)
    assert found.size == path.stat().st_size  # hashed whole all the same
    # Never the 50 MB line in one string (the id bitmaps take 4 MiB of it).
    assert peak < HUGE // 5


def test_a_row_exactly_at_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "edge.jsonl"
    prefix, suffix = '{"id": 1, "name": "', '"}\n'
    path.write_text(prefix + "x" * (MAX_ROW_CHARACTERS - len(prefix) - len(suffix)) + suffix)
    assert checked(path, ImportFormat.JSONL).valid == 1
    path.write_text(prefix + "x" * (MAX_ROW_CHARACTERS - len(prefix) - len(suffix) + 1) + suffix)
    assert problems(path) == [(1, "row", TOO_LONG)]


@pytest.mark.parametrize(
    ("content", "line"),
    [
        (b"name,id\n" + b"x" * HUGE + b",1\n", 2),
        # A quoted field of many short lines: the row is bounded, not only each line.
        (b'name,id\nFern,1\n"' + b"x\n" * (HUGE // 100) + b'",2\n', 3),
        (b"n" * HUGE + b",id\n", 1),
    ],
    ids=["one-line", "many-lines", "header"],
)
def test_csv_says_the_same_words_and_is_never_held_whole(
    tmp_path: Path, content: bytes, line: int
) -> None:
    path = tmp_path / "huge.csv"
    path.write_bytes(content)
    peak, found = peak_bytes_of(path, ImportFormat.CSV)
    assert isinstance(found, FileProblem)
    assert (found.line, found.message) == (line, f"row: {TOO_LONG}")
    assert found.where("huge.csv") == f"huge.csv:{line}: row: {TOO_LONG}"
    assert peak < HUGE // 5


@pytest.mark.parametrize("digits", ["9" * 5000, "-" + "9" * 5000, "1" + "0" * 19, "9" * 41])
def test_an_over_long_number_gets_the_id_range_rule(tmp_path: Path, digits: str) -> None:
    path = tmp_path / "plants.jsonl"
    path.write_text(f'{{"name": "A", "id": {digits}}}\n')
    assert problems(path) == [(1, "id", RANGE_RULE)]


def test_an_over_long_number_elsewhere_is_named_by_its_size(tmp_path: Path) -> None:
    path = tmp_path / "plants.jsonl"
    path.write_text(f'{{"name": {"7" * 5000}, "id": 1}}\n{"8" * 5000}\n')
    assert problems(path) == [
        (1, "name", "must be a string, not a number of 5,000 digits"),
        (2, "json", "not an object but a number"),
    ]


def test_every_problem_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "plants.jsonl"
    lines = [
        '{"name": "A", "id": 1}',
        "",
        "not json",
        "[" * 100_000,
        '{"name": "B", "id": true}',
        '{"name": "C", "id": 3, "id": 4}',
        '{"name": "' + "y" * MAX_ROW_CHARACTERS + '", "id": 5}',
        '{"name": "D", "id": 1}',
        '{"name": "E", "id": 7, "colour": "red"}',
    ]
    path.write_text("\n".join(lines) + "\n")
    found = checked(path, ImportFormat.JSONL)
    assert [p.line for p in found.problems] == [3, 4, 5, 6, 7, 8, 9]
    assert all(isinstance(p, RowProblem) for p in found.problems)
    messages = {p.line: p.message for p in found.problems}
    assert messages[4] == "not JSON: nested too deeply"
    assert messages[8] == "id 1 is given twice in the file (first on line 1)"


@pytest.mark.parametrize(
    ("name", "content", "fmt", "words"),
    [
        ("plants.csv", b"name,id\n\n", ImportFormat.CSV, "has a header row only"),
        ("plants.jsonl", b"\n \n", ImportFormat.JSONL, "holds no rows"),
    ],
    ids=["csv", "jsonl"],
)
def test_a_file_without_plants_is_not_a_file_of_plants(
    tmp_path: Path, name: str, content: bytes, fmt: ImportFormat, words: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(FileProblem, match=f"^no plants: the file {words}$"):
        checked(path, fmt)


def test_a_header_without_a_name_column_is_shown_bounded(tmp_path: Path) -> None:
    path = tmp_path / "plants.csv"
    path.write_text("N" * 100_000 + ",id\nFern,1\n")
    with pytest.raises(FileProblem) as raised:
        checked(path, ImportFormat.CSV)
    assert raised.value.line == 1
    assert raised.value.message == (
        f"no 'name' column (or map one: --column name=COLUMN); the header has "
        f"'{'N' * 40}…' (100,000 characters, first 40 shown), 'id'"
    )
