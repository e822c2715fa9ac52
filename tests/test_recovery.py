"""Recovery files: round trips, modes, atomic writes, and files that are not left half read."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from plantstore_tui.core.config_files import data_dir
from plantstore_tui.core.recovery import (
    MAX_RECOVERY_FILE_BYTES,
    PendingState,
    RecoveryFile,
    UnsettledPlant,
    discard_recovery_file,
    find_recovery_files,
    recovery_dir,
    save_unsettled,
)

QUEUED_AT = datetime(2025, 3, 14, 9, 26, 53, 589793, tzinfo=UTC)
PLANT_KEYS = {"name", "id", "tag", "state", "reason", "base_url", "profile", "queued_at"}


def a_plant(**changes: object) -> UnsettledPlant:
    values: dict[str, object] = {
        "name": "Monstera",
        "id": "42",
        "tag": "indoor",
        "state": PendingState.QUEUED,
        "reason": "",
        "base_url": "https://plants.example.com",
        "profile": "prod",
        "queued_at": QUEUED_AT,
    }
    values.update(changes)
    return UnsettledPlant(**values)  # type: ignore[arg-type]


def recovery_names(directory: Path) -> list[str]:
    return sorted(path.name for path in directory.iterdir()) if directory.exists() else []


def a_valid_document(**changes: object) -> dict[str, object]:
    plant: dict[str, object] = {
        "name": "Monstera",
        "id": "42",
        "tag": "",
        "state": "queued",
        "reason": "",
        "base_url": "http://127.0.0.1:8000",
        "profile": None,
        "queued_at": "2025-03-14T09:26:53+00:00",
    }
    document: dict[str, object] = {
        "format": "plantstore-tui recovery",
        "version": 1,
        "saved_at": "2025-03-14T09:27:00+00:00",
        "plants": [plant],
    }
    document.update(changes)
    return document


def test_a_saved_file_reads_back_the_same_plants_in_order(tmp_path: Path) -> None:
    plants = [
        a_plant(),
        a_plant(
            name='Ficus "lyrata"\n\ttwo lines\x1b[31m\u202e\x00',
            id="-0012x",
            tag="🌿 façade\u2028",
            state=PendingState.REJECTED,
            reason="id already exists",
            profile=None,
            queued_at=datetime(2025, 1, 1, 12, tzinfo=timezone(timedelta(hours=-5))),
        ),
        a_plant(name="", id="", tag="\ud800", state=PendingState.SENDING),
    ]
    saved_at = datetime(2025, 3, 14, 10, 0, 0, tzinfo=UTC)

    path = save_unsettled(plants, directory=tmp_path, now=saved_at)

    found, problems = find_recovery_files(tmp_path)
    assert problems == []
    assert found == [RecoveryFile(path=path, saved_at=saved_at, plants=tuple(plants))]
    assert found[0].plants[1].queued_at == datetime(2025, 1, 1, 17, tzinfo=UTC)
    assert found[0].plants[1].queued_at.tzinfo is UTC


def test_the_file_has_the_documented_format_and_only_the_known_keys(tmp_path: Path) -> None:
    # The plant has no token field; this fails the day someone adds one (or anything else).
    path = save_unsettled([a_plant()], directory=tmp_path, now=QUEUED_AT)

    document = json.loads(path.read_bytes())

    assert set(document) == {"format", "version", "saved_at", "plants"}
    assert document["format"] == "plantstore-tui recovery"
    assert document["version"] == 1
    assert document["saved_at"] == "2025-03-14T09:26:53.589793+00:00"
    assert [set(plant) for plant in document["plants"]] == [PLANT_KEYS]
    assert document["plants"][0]["state"] == "queued"
    assert document["plants"][0]["queued_at"] == "2025-03-14T09:26:53.589793+00:00"
    assert path.name.startswith(f"recovery-20250314T092653Z-{os.getpid()}-")
    assert path.suffix == ".json"


def test_the_file_is_private_in_a_private_directory(tmp_path: Path) -> None:
    directory = tmp_path / "data" / "recovery"

    old_umask = os.umask(0)
    try:
        path = save_unsettled([a_plant()], directory=directory)
    finally:
        os.umask(old_umask)

    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700


def test_two_saves_in_the_same_second_make_two_files(tmp_path: Path) -> None:
    first = save_unsettled([a_plant(name="one")], directory=tmp_path, now=QUEUED_AT)
    second = save_unsettled([a_plant(name="two")], directory=tmp_path, now=QUEUED_AT)

    assert first != second
    assert recovery_names(tmp_path) == sorted([first.name, second.name])
    found, _ = find_recovery_files(tmp_path)
    assert sorted(plant.name for file in found for plant in file.plants) == ["one", "two"]


def test_a_failed_write_leaves_no_file_behind_and_raises_os_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_replace(source: object, target: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)

    with pytest.raises(OSError, match="No space left on device"):
        save_unsettled([a_plant()], directory=tmp_path)

    assert recovery_names(tmp_path) == []


def test_a_successful_save_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = save_unsettled([a_plant()], directory=tmp_path)

    assert recovery_names(tmp_path) == [path.name]


def test_nothing_to_save_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no plants"):
        save_unsettled([], directory=tmp_path)

    assert recovery_names(tmp_path) == []


def test_files_are_offered_oldest_first(tmp_path: Path) -> None:
    times = [QUEUED_AT + timedelta(hours=hours) for hours in (5, -3, 1)]
    for index, moment in enumerate(times):
        save_unsettled([a_plant(name=str(index))], directory=tmp_path, now=moment)

    found, problems = find_recovery_files(tmp_path)

    assert problems == []
    assert [file.saved_at for file in found] == sorted(times)
    assert [file.plants[0].name for file in found] == ["1", "2", "0"]


def test_a_missing_directory_holds_no_files(tmp_path: Path) -> None:
    assert find_recovery_files(tmp_path / "nowhere") == ([], [])


def test_other_files_in_the_directory_are_not_recovery_files(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / ".recovery-x.json.abc.tmp").write_text("{")
    path = save_unsettled([a_plant()], directory=tmp_path)

    found, problems = find_recovery_files(tmp_path)

    assert [file.path for file in found] == [path]
    assert problems == []


def test_discard_deletes_one_file_and_a_missing_one_is_fine(tmp_path: Path) -> None:
    kept = save_unsettled([a_plant(name="kept")], directory=tmp_path)
    gone = save_unsettled([a_plant(name="gone")], directory=tmp_path)

    discard_recovery_file(gone)
    discard_recovery_file(gone)

    assert recovery_names(tmp_path) == [kept.name]


def test_discard_refuses_a_file_that_is_not_a_recovery_file(tmp_path: Path) -> None:
    other = tmp_path / "profiles.toml"
    other.write_text("")

    with pytest.raises(ValueError, match="not named like a recovery file"):
        discard_recovery_file(other)

    assert other.exists()


def test_the_data_dir_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLANTSTORE_DATA_DIR", str(tmp_path / "elsewhere"))

    path = save_unsettled([a_plant()])

    assert data_dir() == tmp_path / "elsewhere"
    assert recovery_dir() == tmp_path / "elsewhere" / "recovery"
    assert path.parent == tmp_path / "elsewhere" / "recovery"
    assert [file.path for file in find_recovery_files()[0]] == [path]


def test_the_suite_never_uses_the_operators_data_dir() -> None:
    assert "isolated-data" in str(data_dir())


BAD_CONTENTS: dict[str, bytes] = {
    "corrupt JSON": b'{"format": "plantstore-tui recovery", "version": 1,',
    "not UTF-8": b'{"format": "\xff"}',
    "a JSON array": b"[]",
    "another program's JSON": json.dumps({"format": "something else"}).encode(),
    "a newer version": json.dumps(a_valid_document(version=2)).encode(),
    "a boolean version": json.dumps(a_valid_document(version=True)).encode(),
    "no saved_at": json.dumps(
        {k: v for k, v in a_valid_document().items() if k != "saved_at"}
    ).encode(),
    "an unknown top-level key": json.dumps(a_valid_document(extra=1)).encode(),
    "a naive saved_at": json.dumps(a_valid_document(saved_at="2025-03-14T09:27:00")).encode(),
    "plants not a list": json.dumps(a_valid_document(plants={})).encode(),
    "a plant not an object": json.dumps(a_valid_document(plants=["Monstera"])).encode(),
    "deeply nested": b"[" * 100_000 + b"]" * 100_000,
    "a 5,000-digit version": b'{"format": "plantstore-tui recovery", "version": 1'
    + b"0" * 5000
    + b"}",
    "a duplicated key": b'{"format": "plantstore-tui recovery", "version": 1, "version": 1}',
}


def _with_plant(**changes: object) -> bytes:
    document = a_valid_document()
    plant = dict(document["plants"][0])  # type: ignore[index]
    plant.update(changes)
    return json.dumps(a_valid_document(plants=[plant])).encode()


BAD_CONTENTS |= {
    "an unknown state": _with_plant(state="exploded"),
    "an id as a number": _with_plant(id=42),
    "a profile as a number": _with_plant(profile=7),
    "a name as null": _with_plant(name=None),
    "an unknown plant key": _with_plant(token="s3cr3t"),
    "a missing plant key": json.dumps(
        a_valid_document(plants=[{"name": "Monstera", "id": "42"}])
    ).encode(),
    "a queued_at that is not a time": _with_plant(queued_at="yesterday"),
}


@pytest.mark.parametrize("contents", BAD_CONTENTS.values(), ids=BAD_CONTENTS.keys())
def test_a_file_that_is_not_a_recovery_file_is_reported_and_left_as_it_is(
    tmp_path: Path, contents: bytes
) -> None:
    good = save_unsettled([a_plant()], directory=tmp_path, now=QUEUED_AT)
    bad = tmp_path / "recovery-20250101T000000Z-1-bad.json"
    bad.write_bytes(contents)

    found, problems = find_recovery_files(tmp_path)

    assert [file.path for file in found] == [good]
    assert len(problems) == 1
    assert problems[0].startswith(f"{bad}: not a recovery file: ")
    assert problems[0].endswith("; left as it is")
    assert "\n" not in problems[0]
    assert len(problems[0]) < len(str(bad)) + 250
    assert bad.read_bytes() == contents


@pytest.mark.parametrize(
    ("contents", "words"),
    [
        (_with_plant(state="exploded"), "plant 1: 'state' is 'exploded', not one of queued"),
        (_with_plant(id=42), "plant 1: 'id' is a number, not a string"),
        (_with_plant(token="s3cr3t"), "plant 1 has an unknown key 'token'"),
        (json.dumps(a_valid_document(version=2)).encode(), "'version' is 2"),
        (b"{,", "not JSON (Expecting property name enclosed in double quotes at line 1, column 2)"),
        (_with_plant(name="\x1b]52;c;AAAA\x07" * 50), None),
    ],
)
def test_problems_name_what_is_wrong(tmp_path: Path, contents: bytes, words: str | None) -> None:
    bad = tmp_path / "recovery-x.json"
    bad.write_bytes(contents)

    _, problems = find_recovery_files(tmp_path)

    if words is None:
        assert problems == []
    else:
        assert words in problems[0]


def test_a_value_from_the_file_is_shown_escaped_and_short(tmp_path: Path) -> None:
    (tmp_path / "recovery-x.json").write_bytes(_with_plant(state="\x1b[2J" + "x" * 10_000))

    _, problems = find_recovery_files(tmp_path)

    assert "\x1b" not in problems[0]
    assert "\\x1b[2J" in problems[0]
    assert "more characters not shown" in problems[0]


def test_a_file_too_large_is_reported_and_not_read(tmp_path: Path) -> None:
    big = tmp_path / "recovery-big.json"
    with big.open("wb") as stream:
        stream.truncate(MAX_RECOVERY_FILE_BYTES + 1)  # sparse: costs no disk

    found, problems = find_recovery_files(tmp_path)

    assert found == []
    assert problems == [
        f"{big}: not a recovery file: larger than 16 MiB (16,777,217 bytes), so not read; "
        "left as it is"
    ]
    assert big.stat().st_size == MAX_RECOVERY_FILE_BYTES + 1


def test_something_else_named_like_a_recovery_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / "recovery-dir.json").mkdir()
    os.mkfifo(tmp_path / "recovery-fifo.json")

    found, problems = find_recovery_files(tmp_path)

    assert found == []
    assert sorted(problems) == [
        f"{tmp_path / 'recovery-dir.json'}: not a recovery file: not a regular file; left as it is",
        f"{tmp_path / 'recovery-fifo.json'}: not a recovery file: not a regular file; "
        "left as it is",
    ]


def test_an_unreadable_file_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = save_unsettled([a_plant()], directory=tmp_path)
    real_open = os.open

    def refusing_open(file: object, flags: int, *args: object, **kwargs: object) -> int:
        # chmod 0 would not do: the suite may run as root, who reads every file.
        if file == path:
            raise PermissionError(13, "Permission denied")
        return real_open(file, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refusing_open)

    found, problems = find_recovery_files(tmp_path)

    assert found == []
    assert problems == [f"{path}: cannot be read (Permission denied); left as it is"]
    assert path.exists()


def test_a_plant_cannot_be_made_with_an_unknown_state_or_a_naive_time() -> None:
    with pytest.raises(ValueError, match="'state' is 'exploded'"):
        a_plant(state="exploded")
    with pytest.raises(ValueError, match="no time zone"):
        a_plant(queued_at=datetime(2025, 1, 1))
    with pytest.raises(TypeError, match="'id' is a number"):
        a_plant(id=42)
    assert a_plant(state="held").state is PendingState.HELD


def test_importing_recovery_loads_neither_pydantic_nor_httpx_nor_textual() -> None:
    code = (
        "import json, sys\n"
        "import plantstore_tui.core.recovery\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    loaded = {name.split(".")[0] for name in json.loads(result.stdout)}

    assert not loaded & {"pydantic", "httpx", "textual"}


# Lone surrogates included: st.text() makes them, a form can hold them, and the file escapes them.
texts = st.text()
plants = st.builds(
    UnsettledPlant,
    name=texts,
    id=texts,
    tag=texts,
    state=st.sampled_from(PendingState),
    reason=texts,
    base_url=texts,
    profile=st.none() | texts,
    queued_at=st.datetimes(
        min_value=datetime(1970, 1, 2),
        max_value=datetime(9998, 12, 30),
        timezones=st.builds(
            timezone, st.timedeltas(min_value=timedelta(hours=-23), max_value=timedelta(hours=23))
        ),
    ),
)


@given(st.lists(plants, min_size=1, max_size=5))
def test_any_plants_survive_a_round_trip_exactly(saved: list[UnsettledPlant]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = save_unsettled(saved, directory=Path(directory))

        found, problems = find_recovery_files(Path(directory))

    assert problems == []
    assert [file.path for file in found] == [path]
    assert found[0].plants == tuple(saved)
    for before, after in zip(saved, found[0].plants, strict=True):
        assert (before.name, before.id, before.tag) == (after.name, after.id, after.tag)
        assert (before.reason, before.base_url, before.profile) == (
            after.reason,
            after.base_url,
            after.profile,
        )
