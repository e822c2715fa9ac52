"""Files of plants for `import`: CSV, TSV and JSON Lines, read as a stream and checked whole.

Every row goes through the form's own checks (`FormTexts.errors`, the same words as the TUI and
`add`). A file is validated completely before anything is sent: `validate` reads it, marks every
row's id in a bitmap of fixed size (reading it again only when two ids may be equal, to find those
given twice), and returns every problem with its line. Sending reads the file once more, row by
row, so memory does not grow with the number of rows.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import IO, Any

from plantstore_tui.core.errors import PlantStoreError
from plantstore_tui.core.importing.jsonl import jsonl_rows
from plantstore_tui.core.importing.rows import (
    ESCAPED_BYTE,
    FIELDS,
    MAX_ROW_CHARACTERS,
    READ_CHUNK,
    TOO_LONG,
    FileProblem,
    RowProblem,
    SourceRow,
    decoded,
)
from plantstore_tui.core.plant.form import FormTexts, parse_id
from plantstore_tui.core.plant.text import plural, quoted, visible

# Problems kept to show; the rest are counted. Enough for any file an operator will fix by hand.
MAX_PROBLEMS_KEPT = 1000
_REQUIRED = ("name", "id")


class ImportFormat(StrEnum):
    """The kinds of file `import` reads."""

    CSV = "csv"
    TSV = "tsv"
    JSONL = "jsonl"


_EXTENSIONS = {
    ".csv": ImportFormat.CSV,
    ".tsv": ImportFormat.TSV,
    ".tab": ImportFormat.TSV,
    ".jsonl": ImportFormat.JSONL,
    ".ndjson": ImportFormat.JSONL,
}


def format_for(path: str, given: str | None = None) -> ImportFormat:
    """The format `--format` names, else the one the extension says; FileProblem if neither."""
    if given:
        return ImportFormat(given)
    suffix = Path(path).suffix.lower()
    if suffix in _EXTENSIONS:
        return _EXTENSIONS[suffix]
    raise FileProblem(
        f"cannot tell the format from the name {quoted(visible(path))}: use --format csv, tsv "
        "or jsonl"
    )


@dataclass(slots=True)
class Validation:
    """What reading a whole file found: rows, the problems (the first ones kept), its hash."""

    rows: int = 0
    valid: int = 0
    problems: list[RowProblem] = field(default_factory=list)
    problem_count: int = 0
    sha256: str = ""
    size: int = 0
    ignored_columns: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when every row can be sent."""
        return self.problem_count == 0

    def add(self, problem: RowProblem) -> None:
        """Count a problem; keep it if there is room."""
        self.problem_count += 1
        if len(self.problems) < MAX_PROBLEMS_KEPT:
            self.problems.append(problem)


class _HashingReader(io.RawIOBase):
    """Passes a binary stream through, hashing and counting every byte read."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self.digest = hashlib.sha256()
        self.size = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._raw.read(len(buffer))
        count = len(data)
        buffer[:count] = data
        self.digest.update(data)
        self.size += count
        return count


class _RowTooLong(PlantStoreError):
    """A row went past `MAX_ROW_CHARACTERS`; nothing more of it was read."""


class _BoundedLines:
    """The lines of a text stream for the csv reader, none read past the row limit: the
    characters of the row being read are counted (`row_done` starts the next row), so a row of
    many lines (quoted line breaks) is bounded as a row of one is."""

    __slots__ = ("_readline", "_row")

    def __init__(self, text: io.TextIOWrapper) -> None:
        self._readline = text.readline
        self._row = 0

    def __iter__(self) -> _BoundedLines:
        return self

    def __next__(self) -> str:
        line = self._readline(MAX_ROW_CHARACTERS - self._row + 1)
        if not line:
            raise StopIteration
        self._row += len(line)
        if self._row > MAX_ROW_CHARACTERS:
            raise _RowTooLong
        return line

    def row_done(self) -> None:
        """The reader ended a row: the next line starts a new count."""
        self._row = 0


def _not_utf8(cells: list[str]) -> bool:
    return any(ESCAPED_BYTE.search(cell) for cell in cells)


def read_rows(
    stream: IO[bytes], fmt: ImportFormat, columns: Mapping[str, str] | None = None
) -> Iterator[SourceRow | RowProblem]:
    """Each row of the file as texts, or why its shape is wrong; FileProblem for the whole file.

    The texts are not yet checked as a plant (see `check_row`).
    """
    if fmt is ImportFormat.JSONL:
        yield from jsonl_rows(stream)
    else:
        yield from _delimited_rows(stream, "\t" if fmt is ImportFormat.TSV else ",", columns or {})


def header_columns(names: list[str], columns: Mapping[str, str]) -> dict[str, int]:
    """Where each field is in the header (`columns` maps a field to another header name)."""
    unknown = sorted(set(columns) - set(FIELDS))
    if unknown:
        raise FileProblem(f"--column names a field that is not name, id or tag: {unknown[0]}")
    wanted = {field: columns.get(field, field) for field in FIELDS}
    stripped = [name.strip() for name in names]
    found: dict[str, int] = {}
    for field_name, header in wanted.items():
        matches = [index for index, name in enumerate(stripped) if name == header]
        if len(matches) > 1:
            raise FileProblem(f"the header names the column {quoted(visible(header))} twice", 1)
        if matches:
            found[field_name] = matches[0]
        elif field_name in _REQUIRED:
            shown = ", ".join(quoted(visible(name), 40) for name in stripped[:10])
            hint = "" if field_name in columns else f" (or map one: --column {field_name}=COLUMN)"
            raise FileProblem(
                f"no {quoted(visible(header))} column{hint}; the header has {shown or 'nothing'}", 1
            )
    return found


def _delimited_rows(
    stream: IO[bytes], delimiter: str, columns: Mapping[str, str]
) -> Iterator[SourceRow | RowProblem]:
    text = decoded(stream)
    lines = _BoundedLines(text)
    reader = csv.reader(lines, delimiter=delimiter, strict=True)
    ended = 0  # the line the previous record ended on
    try:
        try:
            header = next(reader)
        except StopIteration:
            raise FileProblem("the file is empty: it needs a header row (name, id, tag)") from None
        ended = reader.line_num
        lines.row_done()
        if _not_utf8(header):
            raise FileProblem("not UTF-8 text", 1)
        where = header_columns(header, columns)
        width = len(header)
        for record in reader:
            line, ended = ended + 1, reader.line_num
            lines.row_done()
            if _not_utf8(record):
                raise FileProblem("not UTF-8 text", line)
            if not record or all(not cell.strip() for cell in record):
                continue
            if len(record) != width:
                yield RowProblem(
                    line, "row", f"has {plural(len(record), 'field')}; the header has {width}"
                )
                continue
            yield SourceRow(
                line,
                FormTexts(
                    name=record[where["name"]],
                    id=record[where["id"]],
                    tag=record[where["tag"]] if "tag" in where else "",
                ),
            )
    except UnicodeDecodeError as exc:
        raise FileProblem(f"not UTF-8 text ({exc.reason})", ended + 1) from None
    except _RowTooLong:
        # A row whose end was never read cannot be skipped: what follows it is not known rows.
        raise FileProblem(f"row: {TOO_LONG}", ended + 1) from None
    except csv.Error as exc:
        if str(exc).startswith("field larger than field limit"):
            raise FileProblem(f"row: {TOO_LONG}", ended + 1) from None
        raise FileProblem(f"malformed: {exc}", ended + 1) from None
    finally:
        # The stream is the caller's to close, not the wrapper's.
        text.detach()


def ignored_columns(stream: IO[bytes], fmt: ImportFormat, columns: Mapping[str, str]) -> list[str]:
    """Header names that no field reads (shown in the dry run); none for JSON Lines."""
    if fmt is ImportFormat.JSONL:
        return []
    text = decoded(stream)
    reader = csv.reader(_BoundedLines(text), delimiter="\t" if fmt is ImportFormat.TSV else ",")
    try:
        header = next(reader)
    except (StopIteration, UnicodeDecodeError, csv.Error, _RowTooLong):
        return []
    finally:
        text.detach()
    used = {columns.get(field, field) for field in FIELDS}
    return [visible(name) for name in header if name.strip() not in used]


def check_row(row: SourceRow) -> list[RowProblem]:
    """The row's field problems, in the form's own words (empty when it makes a plant)."""
    return [RowProblem(row.line, field, message) for field, message in row.texts.errors().items()]


def validate(
    open_file: Callable[[], IO[bytes]],
    fmt: ImportFormat,
    columns: Mapping[str, str] | None = None,
) -> Validation:
    """Read the whole file: every bad row, ids given twice, the file's SHA-256; FileProblem if it
    cannot be read as a file of plants. `open_file` opens it afresh (it may be read twice)."""
    result = Validation()
    seen, twice = _IdBits(), _IdBits()
    with open_file() as stream:
        counter = _HashingReader(stream)
        hashing = io.BufferedReader(counter, READ_CHUNK)
        for item in read_rows(hashing, fmt, columns):
            result.rows += 1
            if isinstance(item, RowProblem):
                result.add(item)
                continue
            problems = check_row(item)
            for problem in problems:
                result.add(problem)
            if not problems:
                result.valid += 1
                plant_id = _id_of(item)
                if seen.test_and_set(plant_id):
                    twice.test_and_set(plant_id)
        # Read to the end, so the hash covers the whole file even after the last row.
        while hashing.read(READ_CHUNK):
            pass
    result.sha256 = counter.digest.hexdigest()
    result.size = counter.size
    if not result.rows:
        words = "has a header row only" if fmt is not ImportFormat.JSONL else "holds no rows"
        raise FileProblem(f"no plants: the file {words}")
    if twice.any:
        with open_file() as stream:
            for problem in _repeated_ids(read_rows(stream, fmt, columns), twice):
                result.valid -= 1
                result.add(problem)
    result.problems.sort(key=lambda problem: problem.line)
    return result


def _id_of(row: SourceRow) -> int:
    plant_id = parse_id(row.texts.id)
    assert isinstance(plant_id, int)
    return plant_id


class _IdBits:
    """A 2 MiB bitmap of id hashes: memory stays flat whatever the number of rows.

    A bit set twice only means two ids may be equal; the second pass over the file compares the
    few ids whose bits say so exactly.
    """

    _BITS = 1 << 24

    def __init__(self) -> None:
        self._bytes = bytearray(self._BITS // 8)
        self.any = False

    @classmethod
    def _slot(cls, plant_id: int) -> int:
        # Fibonacci hashing spreads consecutive ids (the usual case) over the whole map.
        return ((plant_id * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF) >> 40

    def test(self, plant_id: int) -> bool:
        """Whether the id's bit is set."""
        slot = self._slot(plant_id)
        return bool(self._bytes[slot >> 3] & (1 << (slot & 7)))

    def test_and_set(self, plant_id: int) -> bool:
        """Set the id's bit; whether it was set already."""
        slot = self._slot(plant_id)
        index, mask = slot >> 3, 1 << (slot & 7)
        was = bool(self._bytes[index] & mask)
        self._bytes[index] |= mask
        self.any = True
        return was


def _repeated_ids(rows: Iterator[SourceRow | RowProblem], twice: _IdBits) -> Iterator[RowProblem]:
    first_line: dict[int, int] = {}
    for item in rows:
        if not isinstance(item, SourceRow) or check_row(item):
            continue
        plant_id = _id_of(item)
        if not twice.test(plant_id):
            continue
        if plant_id in first_line:
            yield RowProblem(
                item.line,
                "id",
                f"id {plant_id} is given twice in the file (first on line {first_line[plant_id]})",
            )
        else:
            first_line[plant_id] = item.line
