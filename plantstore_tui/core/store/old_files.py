"""Reading the previous release's files, never changing them: its SQLite files opened
read-only, a recovery file checked whole before anything of it is used, and its times. What
cannot be read raises `Unreadable` with the reason in words; carry_over.py takes the rest in.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from datetime import datetime
from pathlib import Path
from typing import Any

from plantstore_tui.core.errors import PlantStoreError
from plantstore_tui.core.plant.text import shorten
from plantstore_tui.core.store.records import format_time

_MAX_RECOVERY_BYTES = 16 * 1024 * 1024
_FILE_STATES = frozenset(("queued", "sending", "rejected", "failed", "unknown", "held"))


class Unreadable(PlantStoreError):
    """Why a file of the previous release cannot be taken in."""


def open_old(path: Path) -> sqlite3.Connection:
    """An old SQLite file, read-only so it is never changed; a WAL it left behind is still read."""
    uri = path.resolve().as_uri() + "?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=5.0)


def import_names(history_path: Path) -> dict[tuple[str, int], tuple[str, str | None, bytes]]:
    """Name, tag and body of the imported plants the old history kept, by target and id."""
    if not history_path.is_file():
        return {}
    try:
        old = open_old(history_path)
        try:
            found = old.execute(
                "SELECT base_url, plant_id, name, tag, body FROM sends WHERE source = 'import' "
                "ORDER BY entry"
            ).fetchall()
        finally:
            old.close()
    except sqlite3.Error:
        return {}
    return {(url, plant_id): (name, tag, bytes(body)) for url, plant_id, name, tag, body in found}


def utc_time(text: str) -> str:
    """An old file's zoned time as the ledger writes times."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise Unreadable(f"{shorten(repr(text), 40)} is not a time") from None
    if moment.utcoffset() is None:
        raise Unreadable(f"{shorten(repr(text), 40)} has no time zone")
    return format_time(moment)


def read_recovery(path: Path) -> list[dict[str, Any]]:
    """The plants of a recovery file, each checked to have every field a plant needs."""
    # O_NONBLOCK: a FIFO named like a recovery file must not hang the start.
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise Unreadable("not a regular file")
        if status.st_size > _MAX_RECOVERY_BYTES:
            raise Unreadable(f"larger than 16 MiB ({status.st_size:,} bytes)")
        with os.fdopen(fd, "rb", closefd=False) as stream:
            data = stream.read(_MAX_RECOVERY_BYTES + 1)
    finally:
        os.close(fd)
    try:
        document = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise Unreadable(f"not JSON: {shorten(str(exc), 80)}") from None
    if not isinstance(document, dict) or document.get("format") != "plantstore-tui recovery":
        raise Unreadable("not a plantstore-tui recovery file")
    if document.get("version") != 1:
        raise Unreadable(f"version {shorten(repr(document.get('version')), 20)}, not 1")
    plants = document.get("plants")
    if not isinstance(plants, list):
        raise Unreadable("'plants' is not an array")
    for number, item in enumerate(plants, 1):
        _check_plant(item, number)
    return plants


def _check_plant(item: object, number: int) -> None:
    if not isinstance(item, dict):
        raise Unreadable(f"plant {number} is not an object")
    for key in ("name", "id", "tag", "reason", "base_url", "queued_at", "state"):
        if not isinstance(item.get(key), str):
            raise Unreadable(f"plant {number}'s {key!r} is missing or not a string")
    if item["state"] not in _FILE_STATES:
        raise Unreadable(f"plant {number}'s state {shorten(repr(item['state']), 20)} is unknown")
    if item.get("profile") is not None and not isinstance(item["profile"], str):
        raise Unreadable(f"plant {number}'s 'profile' is not a string")
