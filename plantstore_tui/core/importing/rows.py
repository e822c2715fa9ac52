"""What both readers of an import file (CSV and TSV in `files`, JSON Lines in `jsonl`) share: a
row's texts, why a row or a whole file cannot be read, and the limits a row is read within."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import IO, Any, cast

from plantstore_tui.core.errors import InputError
from plantstore_tui.core.plant.form import FormTexts

# The most characters one row may hold, line ends included, in every format (the csv module's
# own field limit): checked as the file is read, so a huge row is never held whole.
MAX_ROW_CHARACTERS = 1 << 17
TOO_LONG = f"longer than {MAX_ROW_CHARACTERS:,} characters, the most a row may hold"
FIELDS = ("name", "id", "tag")
READ_CHUNK = 1 << 16
ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


class FileProblem(InputError):
    """The file cannot be read as a file of plants at all; `line` says where, if known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line

    def where(self, name: str) -> str:
        """`NAME:LINE: message`, as compilers say it."""
        place = name if self.line is None else f"{name}:{self.line}"
        return f"{place}: {self.message}"


@dataclass(frozen=True, slots=True)
class SourceRow:
    """One plant of the file: where it starts, and its three fields as text."""

    line: int
    texts: FormTexts


@dataclass(frozen=True, slots=True)
class RowProblem:
    """Why one row cannot be sent."""

    line: int
    field: str
    message: str

    def where(self, name: str) -> str:
        """`NAME:LINE: field: message`."""
        return f"{name}:{self.line}: {self.field}: {self.message}"


def decoded(stream: IO[bytes], newline: str = "") -> io.TextIOWrapper:
    """The file's bytes as text, lines ending as `newline` says (see io.TextIOWrapper)."""
    # utf-8-sig: a BOM (as spreadsheets write) is not part of the first header name.
    # surrogateescape: a byte that is not UTF-8 becomes a lone surrogate that the row holding it
    # reports with its line (a strict decoder fails on a whole chunk, lines ahead of the row).
    return io.TextIOWrapper(
        cast(Any, stream), encoding="utf-8-sig", errors="surrogateescape", newline=newline
    )
