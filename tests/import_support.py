"""Shared by the import tests: files of plants, outcomes as the client makes them, and the
ledger's rows read from another connection (what is committed, never a transaction in flight)."""

from __future__ import annotations

import csv
import os
import selectors
import sqlite3
import time
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import IO, BinaryIO, NamedTuple

from plantstore_tui.core.plant.models import ApiError, NewPlant, Plant
from plantstore_tui.core.plant.outcome import Created, Failed, FailureKind, PlantFate, Rejected
from plantstore_tui.core.store import ledger_path

URL = "http://127.0.0.1:9/plants"


def write_csv(
    path: Path, rows: Sequence[Sequence[object]], header: Sequence[str] = ("name", "id", "tag")
) -> Path:
    with path.open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def plants(count: int, first: int = 1) -> list[tuple[str, int, str]]:
    return [(f"Plant {i}", i, "bulk" if i % 3 else "") for i in range(first, first + count)]


def expected(rows: Sequence[tuple[str, int, str]]) -> list[tuple[int, str, str | None]]:
    return sorted((plant_id, name, tag or None) for name, plant_id, tag in rows)


def created(plant: NewPlant) -> Created:
    return Created(
        url=URL, sent=plant, status=200, elapsed_ms=1.0, plant=Plant(name=plant.name), body="{}"
    )


def rejected(plant: NewPlant) -> Rejected:
    error = ApiError(error=1003, message="already there")
    return Rejected(url=URL, sent=plant, status=400, elapsed_ms=1.0, error=error, body="{}")


def failed(plant: NewPlant) -> Failed:
    return Failed(
        url=URL,
        sent=plant,
        kind=FailureKind.CANNOT_CONNECT,
        message="Cannot connect",
        fate=PlantFate.NOT_CREATED,
        advice="",
    )


class LedgerRow(NamedTuple):
    """One row of the ledger's plants table, as another connection sees it."""

    entry: int
    source: str
    batch: int | None
    line: int | None
    plant_id: int
    state: str
    keep: int


def ledger_rows(path: Path | None = None) -> list[LedgerRow]:
    """Every committed row of the ledger (by default the one of PLANTSTORE_DATA_DIR)."""
    target = path or ledger_path()
    if not target.exists():
        return []
    with closing(sqlite3.connect(target, timeout=10)) as connection:
        found = connection.execute(
            "SELECT entry, source, batch, line, plant_id, state, keep FROM plants ORDER BY entry"
        ).fetchall()
    return [LedgerRow(*row) for row in found]


def cut_short(
    path: Path, base_url: str, *, created_lines: set[int], unknown_lines: set[int]
) -> int:
    """An earlier import of the CSV `path` to `base_url`, ended mid-way: the lines
    `created_lines` settled created (in the ledger only), the lines `unknown_lines` in flight when
    it ended (so of unknown fate now), the others never sent. Its batch's id."""
    from plantstore_tui.core.importing import ImportFormat, new_batch, rows_to_send, validate
    from plantstore_tui.core.store import PlantState, open_ledger
    from plantstore_tui.core.store.batches import Batches
    from plantstore_tui.core.store.rows import NewRow

    def open_file() -> BinaryIO:
        return path.open("rb")

    validation = validate(open_file, ImportFormat.CSV)
    ledger = open_ledger("import")
    try:
        batches = Batches(ledger)
        plan = new_batch(batches, validation, base_url=base_url, profile=None, file_name=path.name)
        wanted = created_lines | unknown_lines
        rows = [
            row
            for row in rows_to_send(open_file, ImportFormat.CSV, None, frozenset())
            if row.line in wanted
        ]
        entries = batches.advance(
            [],
            [
                NewRow(
                    source="import",
                    texts=row.texts,
                    plant=row.plant,
                    base_url=base_url,
                    profile=None,
                    state=PlantState.SENDING,
                    batch=plan.batch.id,
                    line=row.line,
                )
                for row in rows
            ],
        )
        batches.advance(
            [
                (entry, created(row.plant))
                for entry, row in zip(entries, rows, strict=True)
                if row.line in created_lines
            ],
            [],
        )
    finally:
        ledger.close()  # the rows still sending are handed over: their fate is unknown
    return plan.batch.id


def wait_for_line(stream: IO[bytes], text: str, timeout: float = 60.0) -> list[str]:
    """The lines read from a process's pipe up to and with the first that holds `text` (read
    from the file descriptor: what comes after that line may be read too, and dropped)."""
    lines: list[str] = []
    pending = b""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                raise TimeoutError(f"no line with {text!r} after {timeout:g} s: {lines}")
            chunk = os.read(stream.fileno(), 65536)
            if not chunk:
                raise EOFError(f"the program ended before a line with {text!r}: {lines}")
            *complete, pending = (pending + chunk).split(b"\n")
            lines += [line.decode(errors="replace") for line in complete]
            if any(text in line for line in lines):
                return lines
