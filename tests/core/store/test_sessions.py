"""Which instance owns which plants: sessions held by a lock, swept when their process is gone,
and a ledger opened by any number of processes at once."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing
from pathlib import Path
from typing import Any

from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.core.store import PlantState, StoreError
from plantstore_tui.core.store.opening import open_ledger
from plantstore_tui.core.store.rows import NewRow

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "previous_release" / "data"
ROUNDS = 24
PROCESSES = 4


def row(name: str, plant_id: int, source: str = "tui") -> NewRow:
    return NewRow(
        source=source,
        texts=FormTexts(name=name, id=str(plant_id), tag=""),
        plant=NewPlant(id=plant_id, name=name),
        base_url="http://127.0.0.1:9",
        profile=None,
    )


def _open_at_once(root: str, barrier: Any, worker: int, problems: Any) -> None:
    # One of four processes: each round, all open the same new directory at the same moment.
    for round_ in range(ROUNDS):
        path = Path(root) / f"round-{round_}" / "plantstore.sqlite3"
        barrier.wait()
        try:
            ledger = open_ledger("test", path=path)
            ledger.take(row(f"worker {worker}", round_ * 10 + worker, source="add"))
            ledger.close()
        except StoreError as exc:
            problems.put(f"round {round_}, worker {worker}: {exc}")


def test_four_processes_open_a_new_data_directory_at_once_and_none_fails(tmp_path: Path) -> None:
    for round_ in range(ROUNDS):
        if round_ % 2:
            # Every other round, the previous release's files are there to be carried over.
            shutil.copytree(FIXTURES, tmp_path / f"round-{round_}")
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(PROCESSES)
    problems = context.Queue()
    workers = [
        context.Process(target=_open_at_once, args=(str(tmp_path), barrier, n, problems))
        for n in range(PROCESSES)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    found = []
    while not problems.empty():
        found.append(problems.get())
    assert found == []
    for round_ in range(ROUNDS):
        path = tmp_path / f"round-{round_}" / "plantstore.sqlite3"
        with closing(sqlite3.connect(path)) as connection:
            taken = connection.execute("SELECT count(*) FROM plants WHERE name LIKE 'worker %'")
            assert taken.fetchone()[0] == PROCESSES
            carried = connection.execute("SELECT count(*) FROM carried_over")
            # The old files are taken once, whichever process got there first.
            assert carried.fetchone()[0] == (4 if round_ % 2 else 0)


HOLDER = textwrap.dedent(
    """
    import sys
    from plantstore_tui.core.plant.form import FormTexts
    from plantstore_tui.core.plant.models import NewPlant
    from plantstore_tui.core.store.opening import open_ledger
    from plantstore_tui.core.store.rows import NewRow

    ledger = open_ledger("tui")
    numbers = []
    for name, plant_id in (("In flight", 1), ("Queued", 2)):
        numbers.append(ledger.take(NewRow(
            source="tui", texts=FormTexts(name, f" {plant_id}", ""),
            plant=NewPlant(id=plant_id, name=name), base_url="http://127.0.0.1:9", profile=None,
        )))
    ledger.sending(numbers[0])
    print("holding", flush=True)
    sys.stdin.read()
    """
)


def holder() -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "holding"
    return process


def test_a_live_instance_keeps_its_plants_and_a_killed_one_hands_them_over() -> None:
    process = holder()
    try:
        ledger = open_ledger("tui")
        try:
            # Alive: its plants are its own, in flight and queued, and not offered here.
            assert ledger.handed_over == 0
            assert ledger.attention() == []
            assert [entry.state for entry in ledger.pending()] == [
                PlantState.SENDING,
                PlantState.QUEUED,
            ]
        finally:
            ledger.close()
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert process.stdin is not None
        process.stdin.close()
        assert process.stdout is not None
        process.stdout.close()

    ledger = open_ledger("tui")
    try:
        assert ledger.handed_over == 2
        in_flight, queued = ledger.attention()
        assert (in_flight.state, in_flight.typed.id) == (PlantState.UNKNOWN, " 1")
        assert "may exist already" in (in_flight.note or "")
        assert (queued.state, queued.held, queued.typed.id) == (PlantState.QUEUED, True, " 2")
        assert "queued when plantstore-tui ended" in (queued.note or "")
    finally:
        ledger.close()


def test_a_reused_pid_does_not_keep_a_dead_session_alive() -> None:
    ledger = open_ledger("tui")
    entry = ledger.take(row("Orphan", 5))
    ledger.close()
    path = ledger.path
    with closing(sqlite3.connect(path)) as connection, connection:
        # A session row as a dead instance left it, whose pid is now another live process
        # (ours): its lock file is gone, so it is dead whatever the pid says.
        connection.execute(
            "INSERT INTO sessions (lock_name, pid, program, started_at) "
            "VALUES ('gone', ?, 'tui', '2026-01-01T00:00:00.000000Z')",
            (os.getpid(),),
        )
        session = connection.execute("SELECT id FROM sessions WHERE lock_name = 'gone'")
        connection.execute(
            "UPDATE plants SET session = ?, held = 0 WHERE entry = ?",
            (session.fetchone()[0], entry),
        )
    again = open_ledger("tui")
    try:
        [found] = again.attention()
        assert (found.entry, found.held) == (entry, True)
    finally:
        again.close()


def test_two_instances_never_take_each_others_plants() -> None:
    first = open_ledger("tui")
    second = open_ledger("tui")
    try:
        mine = first.take(row("First's", 1))
        first.settle(mine, _failed(1))
        theirs = second.take(row("Second's", 2))
        assert [entry.entry for entry in first.attention()] == [mine]
        assert second.attention() == []
        assert [entry.entry for entry in second.open_rows()] == [theirs]
        assert first.open_rows() == []
        # Dealt with by one: the other cannot take it too.
        assert first.release(mine, "dismissed")
        assert not second.release(mine, "dismissed")
    finally:
        first.close()
        second.close()


def _failed(plant_id: int) -> Any:
    from plantstore_tui.core.plant.outcome import Failed, FailureKind, PlantFate

    return Failed(
        url="http://127.0.0.1:9/plants",
        sent=NewPlant(id=plant_id, name="x"),
        kind=FailureKind.CANNOT_CONNECT,
        message="Cannot connect",
        fate=PlantFate.NOT_CREATED,
        advice="",
    )
