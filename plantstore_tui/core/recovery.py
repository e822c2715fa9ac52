"""Recovery files: the plants that had not settled when the TUI ended without asking.

SIGTERM, SIGHUP or "save and quit" must not lose what an operator typed. Every plant still queued,
in flight or waiting for attention is written to one new file in `<data dir>/recovery/`, to be
offered again when the TUI next starts. Saving is plain file I/O, no asyncio and no locks, so a
signal handler in the main thread may call it. A file that cannot be read is reported in words
and left exactly as it is.

Only the standard library (and `config_files`, which is light) is imported: the TUI must start
before Pydantic and httpx are loaded.
"""

from __future__ import annotations

import json
import os
import secrets
import stat
from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from plantstore_tui.core.config_files import data_dir, replace_atomically
from plantstore_tui.core.text import shorten

RECOVERY_FORMAT = "plantstore-tui recovery"
RECOVERY_VERSION = 1
MAX_RECOVERY_FILE_BYTES = 16 * 1024 * 1024
_FILE_PREFIX = "recovery-"
_FILE_SUFFIX = ".json"
_FILE_MODE = 0o600
_DIRECTORY_MODE = 0o700
_FILE_KEYS = frozenset({"format", "version", "saved_at", "plants"})
_SHOWN_VALUE_LIMIT = 60


class PendingState(StrEnum):
    """Where an unsettled plant stood when the app ended."""

    QUEUED = "queued"
    """Waiting its turn; never sent."""
    SENDING = "sending"
    """In flight when the app ended: whether it was created is unknown."""
    REJECTED = "rejected"
    """The server refused it; `reason` says why."""
    FAILED = "failed"
    """No usable answer, and the plant was not created (e.g. cannot connect)."""
    UNKNOWN = "unknown"
    """Sent, but the answer never came (e.g. a timeout): it may have been created."""
    HELD = "held"
    """Put aside by the operator, not to be sent until they say so."""


# A set, not `in PendingState`: Python 3.11 raises TypeError for a string that is not a member.
_STATES = frozenset(PendingState)


@dataclass(frozen=True, slots=True)
class UnsettledPlant:
    """A plant that had not settled: its form texts exactly as typed, and where it stood."""

    name: str
    id: str
    tag: str
    state: PendingState
    reason: str
    base_url: str
    profile: str | None
    queued_at: datetime

    def __post_init__(self) -> None:
        # Checked here, once, so a plant that could not be read back is never made, let alone
        # saved at quit time; reading a file relies on the same checks.
        for field in ("name", "id", "tag", "reason", "base_url"):
            value = getattr(self, field)
            if not isinstance(value, str):
                raise TypeError(f"{field!r} is {_kind(value)}, not a string")
        if self.profile is not None and not isinstance(self.profile, str):
            raise TypeError(f"'profile' is {_kind(self.profile)}, not a string or null")
        if not isinstance(self.state, str) or self.state not in _STATES:
            known = ", ".join(PendingState)
            raise ValueError(f"'state' is {_shown(self.state)}, not one of {known}")
        if not isinstance(self.queued_at, datetime):
            raise TypeError(f"'queued_at' is {_kind(self.queued_at)}, not a datetime")
        if self.queued_at.utcoffset() is None:
            raise ValueError("'queued_at' has no time zone")
        object.__setattr__(self, "state", PendingState(self.state))
        object.__setattr__(self, "queued_at", self.queued_at.astimezone(UTC))


_PLANT_KEYS = frozenset(field.name for field in fields(UnsettledPlant))


@dataclass(frozen=True, slots=True)
class RecoveryFile:
    """One recovery file read whole: when it was saved and the plants in it, in saved order."""

    path: Path
    saved_at: datetime
    plants: tuple[UnsettledPlant, ...]


class _NotARecoveryFile(Exception):
    """Why a file's contents are not a recovery file this version can read."""


def recovery_dir() -> Path:
    """`<data dir>/recovery`; a signal handler should be handed this, resolved at startup."""
    return data_dir() / "recovery"


def save_unsettled(
    plants: Sequence[UnsettledPlant], *, directory: Path | None = None, now: datetime | None = None
) -> Path:
    """Write `plants` to a new recovery file in `directory` (default `recovery_dir()`); its path.

    The file appears whole or not at all, mode 0600, in a directory created 0700, under a new
    name (time, pid, random part) so no earlier file is replaced. `OSError` if it cannot be
    written, `ValueError` if `plants` is empty. To call it from a signal handler, pass `directory`
    resolved beforehand, so nothing is imported there.
    """
    if not plants:
        raise ValueError("there are no plants to save")
    saved_at = datetime.now(UTC) if now is None else _as_utc(now)
    folder = recovery_dir() if directory is None else directory
    folder.mkdir(mode=_DIRECTORY_MODE, parents=True, exist_ok=True)
    document = {
        "format": RECOVERY_FORMAT,
        "version": RECOVERY_VERSION,
        "saved_at": saved_at.isoformat(),
        "plants": [_plant_to_json(plant) for plant in plants],
    }
    # ensure_ascii escapes everything beyond ASCII, lone surrogates included (which UTF-8 cannot
    # encode): whatever was in the form, even a half of a pasted emoji, survives exactly.
    data = (json.dumps(document, ensure_ascii=True, indent=2) + "\n").encode("ascii")
    # The pid and the random part keep two saves in the same second, from one process or two,
    # apart.
    name = (
        f"{_FILE_PREFIX}{saved_at:%Y%m%dT%H%M%SZ}-{os.getpid()}-{secrets.token_hex(4)}"
        f"{_FILE_SUFFIX}"
    )
    path = folder / name
    replace_atomically(path, data, mode=_FILE_MODE, exact_mode=True)
    return path


def find_recovery_files(directory: Path | None = None) -> tuple[list[RecoveryFile], list[str]]:
    """Every recovery file that reads whole, oldest first, and the problems with the others.

    A problem is one line of words naming the file; such a file is left as it is. A missing
    directory means no files.
    """
    folder = recovery_dir() if directory is None else directory
    try:
        with os.scandir(folder) as entries:
            names = sorted(entry.name for entry in entries if _is_recovery_name(entry.name))
    except FileNotFoundError:
        return [], []
    except OSError as exc:
        return [], [f"{folder}: cannot be read ({exc.strerror}); nothing in it was recovered"]
    found: list[RecoveryFile] = []
    problems: list[str] = []
    for name in names:
        path = folder / name
        try:
            found.append(_read_recovery_file(path))
        except _NotARecoveryFile as exc:
            problems.append(f"{path}: not a recovery file: {exc}; left as it is")
        except OSError as exc:
            problems.append(f"{path}: cannot be read ({exc.strerror}); left as it is")
    found.sort(key=lambda recovery: (recovery.saved_at, recovery.path.name))
    return found, problems


def discard_recovery_file(path: Path) -> None:
    """Delete one recovery file once its plants are dealt with; a missing file is fine.

    `ValueError` for a path not named like a recovery file, so nothing else is deleted by mistake.
    """
    if not _is_recovery_name(path.name):
        raise ValueError(f"{path} is not named like a recovery file; it is not deleted")
    path.unlink(missing_ok=True)


def _is_recovery_name(name: str) -> bool:
    return name.startswith(_FILE_PREFIX) and name.endswith(_FILE_SUFFIX)


def _as_utc(moment: datetime) -> datetime:
    if moment.utcoffset() is None:
        raise ValueError("the time has no time zone")
    return moment.astimezone(UTC)


def _plant_to_json(plant: UnsettledPlant) -> dict[str, Any]:
    return {
        "name": plant.name,
        "id": plant.id,
        "tag": plant.tag,
        "state": str(plant.state),
        "reason": plant.reason,
        "base_url": plant.base_url,
        "profile": plant.profile,
        "queued_at": plant.queued_at.isoformat(),
    }


def _shown(value: object) -> str:
    # repr escapes control and bidi characters; the cap keeps one line of words one line.
    return shorten(repr(value), _SHOWN_VALUE_LIMIT)


def _read_capped(path: Path) -> bytes:
    # O_NONBLOCK: a FIFO named like a recovery file must not hang the TUI's start.
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise _NotARecoveryFile("not a regular file")
        if status.st_size > MAX_RECOVERY_FILE_BYTES:
            raise _NotARecoveryFile(_too_large(status.st_size))
        with os.fdopen(fd, "rb", closefd=False) as stream:
            # One byte more than allowed tells a file that grew since fstat from one that did not.
            data = stream.read(MAX_RECOVERY_FILE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_RECOVERY_FILE_BYTES:
        raise _NotARecoveryFile(_too_large(None))
    return data


def _too_large(size: int | None) -> str:
    limit = MAX_RECOVERY_FILE_BYTES // (1024 * 1024)
    return f"larger than {limit} MiB{'' if size is None else f' ({size:,} bytes)'}, so not read"


def _refuse_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _NotARecoveryFile(f"the key {_shown(key)} appears twice in one object")
        result[key] = value
    return result


def _read_recovery_file(path: Path) -> RecoveryFile:
    data = _read_capped(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _NotARecoveryFile(f"not UTF-8 text (byte {exc.start + 1})") from None
    try:
        document = json.loads(text, object_pairs_hook=_refuse_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise _NotARecoveryFile(
            f"not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
        ) from None
    except ValueError:
        # The only other ValueError json raises: an integer past Python's digit limit.
        raise _NotARecoveryFile("not JSON this program can read (a number too long)") from None
    except RecursionError:
        raise _NotARecoveryFile("not JSON this program can read (nested too deeply)") from None
    return RecoveryFile(path=path, **_recovery_from_json(document))


def _recovery_from_json(document: object) -> dict[str, Any]:
    if not isinstance(document, dict):
        raise _NotARecoveryFile(f"the JSON is {_kind(document)}, not an object")
    if document.get("format") != RECOVERY_FORMAT:
        raise _NotARecoveryFile(f"its 'format' is not {RECOVERY_FORMAT!r}")
    version = document.get("version")
    if type(version) is not int or version != RECOVERY_VERSION:
        raise _NotARecoveryFile(
            f"its 'version' is {_shown(version)}; this plantstore-tui reads version "
            f"{RECOVERY_VERSION}"
        )
    _check_keys(document, _FILE_KEYS, "the file")
    saved_at = _timestamp(document["saved_at"], "'saved_at'")
    plants = document["plants"]
    if not isinstance(plants, list):
        raise _NotARecoveryFile(f"'plants' is {_kind(plants)}, not an array")
    return {
        "saved_at": saved_at,
        "plants": tuple(_plant_from_json(item, number) for number, item in enumerate(plants, 1)),
    }


def _plant_from_json(item: object, number: int) -> UnsettledPlant:
    where = f"plant {number}"
    if not isinstance(item, dict):
        raise _NotARecoveryFile(f"{where} is {_kind(item)}, not an object")
    _check_keys(item, _PLANT_KEYS, where)
    values = dict(item)
    values["queued_at"] = _timestamp(item["queued_at"], f"{where}'s 'queued_at'")
    try:
        return UnsettledPlant(**values)
    except (TypeError, ValueError) as exc:
        raise _NotARecoveryFile(f"{where}: {exc}") from None


def _check_keys(table: dict[str, Any], expected: frozenset[str], where: str) -> None:
    missing = sorted(expected - table.keys())
    if missing:
        raise _NotARecoveryFile(f"{where} has no {_shown(missing[0])}")
    unknown = sorted(table.keys() - expected)
    if unknown:
        raise _NotARecoveryFile(f"{where} has an unknown key {_shown(unknown[0])}")


def _timestamp(value: object, what: str) -> datetime:
    if not isinstance(value, str):
        raise _NotARecoveryFile(f"{what} is {_kind(value)}, not a time")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise _NotARecoveryFile(f"{what} is {_shown(value)}, not an ISO 8601 time") from None
    if moment.utcoffset() is None:
        raise _NotARecoveryFile(f"{what} is {_shown(value)}, which has no time zone")
    return moment.astimezone(UTC)


def _kind(value: object) -> str:
    # In JSON's words, since that is where a wrong type usually comes from.
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"
