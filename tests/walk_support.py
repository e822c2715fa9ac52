"""A seeded random walk of real processes on one data directory (issue 42): TUIs in terminals of
their own, `add`, `history`, `probe` and `import` beside them, screens opened and closed, kill -9,
the deployment down and up, and after every step the invariants the ledger promises.

Every step waits for what it is waiting for (screen text, a process's exit, a row committed),
never for a time. A failure names the seed, the step and the steps before it: the seed given in
PLANTSTORE_WALK_SEED walks the same steps again (what the processes do within a step is theirs).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import signal
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from pty_support import PtyProcess, isolated_env, wait_until

from plantstore_tui.core.store import LEDGER_FILE
from plantstore_tui.server.runner import BackgroundServer

SEED_VARIABLE = "PLANTSTORE_WALK_SEED"
SOAK_VARIABLE = "PLANTSTORE_SOAK"
STARTUP_SECONDS = 30.0
ANSWER_SECONDS = 30.0
COMMAND_SECONDS = 120.0
PROFILE = "shop"
RANGE = range(70000, 71000)
# Ids typed by hand (the TUI's ID, `add --id`, an import's file) come from outside the profile's
# range, each used once: no step of the walk asks for an id another step took, so a duplicate
# anywhere is two of our processes handed one id.
FIRST_TYPED_ID = 90000
MOST_TERMINALS = 2

F3, F6, F7, ESC, CTRL_Q, CTRL_R = b"\x1bOR", b"\x1b[17~", b"\x1b[18~", b"\x1b", b"\x11", b"\x12"
SCREENS = {"F3": (F3, "Prev page"), "F6": (F6, "Body, sent as typed"), "F7": (F7, "Shift summary")}
# In the main screen's footer, which F3, F6 and F7 cover: the screen is back once it is drawn
# again. (The form's title is not: F7 leaves it in view, and redraws it as it fills in.)
MAIN_SCREEN = "f3 History"
QUIT_QUESTION = "offer them next time"
NEXT = re.compile(r"next (7\d{4})")


def soak_requested(config: pytest.Config) -> bool:
    """Whether this run asked for the soak: `-m soak`, or PLANTSTORE_SOAK set."""
    expression = str(config.getoption("markexpr", "") or "")
    asked = re.search(r"(?<!not )\bsoak\b", expression) is not None
    return asked or bool(os.environ.get(SOAK_VARIABLE))


def seeds_given() -> list[int] | None:
    """The seeds PLANTSTORE_WALK_SEED names (comma-separated), or None."""
    given = os.environ.get(SEED_VARIABLE, "").strip()
    return [int(seed) for seed in given.split(",")] if given else None


@dataclass
class Acknowledged:
    """A plant a screen or a command said it took: its id, and its fate as last told."""

    plant_id: int
    by: str
    state: str  # created, failed, or taken (in the ledger, its fate still to come)


@dataclass
class Terminal:
    """A TUI in a pty, and the plants it took that have not been created yet (name: id)."""

    label: str
    process: PtyProcess
    waiting: dict[str, int] = field(default_factory=dict)


@dataclass
class LedgerRow:
    """The columns of a ledger row the invariants read."""

    entry: int
    name: str
    plant_id: int
    state: str
    error: str | None
    message: str | None


class InvariantBroken(AssertionError):
    """An invariant did not hold after a step."""


class Walk:
    """The processes, the deployment, what was acknowledged, and the steps that drive them."""

    def __init__(self, seed: int, tmp_path: Path, server: BackgroundServer, *, replay: str) -> None:
        self.seed = seed
        # The command that walks this seed again (after PLANTSTORE_WALK_SEED=seed).
        self.replay = replay
        self.random = random.Random(seed)
        self.tmp_path = tmp_path
        self.data = tmp_path / "data"
        self.server: BackgroundServer | None = server
        self.token = server.token
        self.db_path = server.db_path
        self.base_url = server.base_url
        self.port = int(self.base_url.rsplit(":", 1)[1])
        # While the deployment is down, its port is held (bound, not listening): connections are
        # refused, and no other test's server can take the port meanwhile.
        self._held_port: socket.socket | None = None
        config = tmp_path / "config"
        config.mkdir(exist_ok=True)
        (config / "profiles.toml").write_text(
            f'[profiles.{PROFILE}]\nbase_url = "{self.base_url}"\n'
            f'token_env = "PLANTS_TOKEN"\nids = "{RANGE.start}-{RANGE.stop - 1}"\n'
        )
        self.env = isolated_env(
            tmp_path, PLANTSTORE_CONFIG_DIR=str(config), PLANTS_TOKEN=self.token.get_secret_value()
        )
        self.terminals: list[Terminal] = []
        self.acknowledged: dict[str, Acknowledged] = {}
        self.trail: list[str] = []
        self._plants = 0
        self._typed_ids = iter(range(FIRST_TYPED_ID, FIRST_TYPED_ID + 100_000))
        self._terminals_started = 0
        self.steps: list[tuple[int, Callable[[], str]]] = [
            (3, self.key_a_typed_id),
            (3, self.key_the_offered_id),
            (3, self.open_and_close_a_screen),
            (1, self.start_a_second_terminal),
            (2, self.add_with_an_id),
            (2, self.add_without_an_id),
            (2, self.history),
            (1, self.probe),
            (1, self.import_a_file),
            (1, self.kill_a_terminal),
            (1, self.deployment_down_or_up),
        ]

    # --- running -----------------------------------------------------------------------------

    def run(self, steps: int) -> None:
        """Walk `steps` steps, checking the invariants after each; then end every process as an
        operator does (the deployment up, the waiting plants created, Ctrl+Q) and check again."""
        try:
            self.check("the start")
            for number, action in enumerate(self.plan(steps), start=1):
                self._do(number, action)
            self._do(steps + 1, self.finish)
        except (AssertionError, TimeoutError, EOFError, subprocess.TimeoutExpired) as exc:
            raise InvariantBroken(self._failure(exc)) from exc
        finally:
            self.close()

    def plan(self, steps: int) -> list[Callable[[], str]]:
        """`steps` steps: every kind once in a random order (so even a short walk does each),
        then kinds drawn at random by their weights."""
        weights, actions = zip(*self.steps, strict=True)
        first = self.random.sample(actions, len(actions))
        return (first + self.random.choices(actions, weights, k=steps))[:steps]

    def _do(self, number: int, action: Callable[[], str]) -> None:
        self.trail.append(f"{number}. {action.__name__}")
        said = action()
        self.trail[-1] += f": {said}"
        self.check(f"step {number}")

    def _failure(self, exc: BaseException) -> str:
        shown = "\n".join(f"  {line}" for line in self.trail[-40:])
        return (
            f"the walk of seed {self.seed} broke at {self.trail[-1] if self.trail else 'the start'}"
            f"\n{type(exc).__name__}: {exc}\nsteps so far:\n{shown}\n"
            f"walk it again: {SEED_VARIABLE}={self.seed} {self.replay}"
        )

    def close(self) -> None:
        """Kill whatever still runs; leave the deployment as the fixture expects to stop it."""
        for terminal in self.terminals:
            terminal.process.close()
        self.terminals.clear()
        if self._held_port is not None:
            self._held_port.close()
            self._held_port = None
        if self.server is not None:
            self.server.stop()

    # --- processes ---------------------------------------------------------------------------

    def _name(self, by: str) -> str:
        self._plants += 1
        return f"Walk{self._plants} {by}"

    def _command(self, *arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "plantstore_tui", *arguments],
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            timeout=COMMAND_SECONDS,
            cwd=self.tmp_path,
            check=False,
        )

    def _start_terminal(self) -> Terminal:
        self._terminals_started += 1
        process = PtyProcess(
            [sys.executable, "-m", "plantstore_tui", "--profile", PROFILE],
            env=self.env,
            cwd=self.tmp_path,
            columns=80,
            rows=24,
        )
        terminal = Terminal(f"tui{self._terminals_started}", process)
        self.terminals.append(terminal)
        self._offer(terminal)  # started: its form is ready and its next id reserved
        return terminal

    def _terminal(self) -> Terminal:
        if not self.terminals:
            return self._start_terminal()
        return self.random.choice(self.terminals)

    def _offer(self, terminal: Terminal) -> int:
        """The id the form offers now, as the line under ID names it."""
        text = terminal.process.wait_for(
            lambda text: NEXT.search(text) is not None, STARTUP_SECONDS
        )
        return int(NEXT.findall(text)[-1])

    def _key(self, terminal: Terminal, name: str, plant_id: int, keys: bytes) -> None:
        """Type `keys` (a plant) and wait until the screen took it: created while the deployment
        is up, else shown in the log as waiting (it is in the ledger before it is drawn)."""
        process = terminal.process
        mark = process.mark()
        process.write(keys)
        if self.server is not None:
            process.wait_for(f"Created plant {plant_id}", ANSWER_SECONDS, since=mark)
            self.acknowledged[name] = Acknowledged(plant_id, terminal.label, "created")
        else:
            process.wait_for(f'"id": {plant_id},', ANSWER_SECONDS, since=mark)
            terminal.waiting[name] = plant_id
            self.acknowledged[name] = Acknowledged(plant_id, terminal.label, "taken")

    def _flush(self, terminal: Terminal) -> None:
        """Have the terminal try its waiting plants now (it may have already), and wait until
        the ledger has each created: the log draws only the entries in view, and the older ones
        have scrolled out of it."""
        terminal.process.write(CTRL_R)
        names = set(terminal.waiting)

        def all_created() -> bool:
            states = {row.name: row.state for row in self.ledger_rows() if row.name in names}
            return all(states.get(name) == "created" for name in names)

        wait_until(
            all_created,
            ANSWER_SECONDS,
            what=f"{terminal.label}'s waiting plants created",
            process=terminal.process,
        )
        for name in names:
            self.acknowledged[name].state = "created"
        terminal.waiting.clear()

    # --- the steps ---------------------------------------------------------------------------

    def key_a_typed_id(self) -> str:
        """A plant keyed in a TUI with an id typed over the offer."""
        terminal = self._terminal()
        plant_id = next(self._typed_ids)
        name = self._name(terminal.label)
        self._key(terminal, name, plant_id, f"{name}\t{plant_id}\t\r".encode())
        return f"{terminal.label} keyed {plant_id}"

    def key_the_offered_id(self) -> str:
        """A plant keyed in a TUI with the id the form offers."""
        terminal = self._terminal()
        plant_id = self._offer(terminal)
        name = self._name(terminal.label)
        self._key(terminal, name, plant_id, f"{name}\t\t\r".encode())
        return f"{terminal.label} keyed the offer {plant_id}"

    def open_and_close_a_screen(self) -> str:
        """F3, F6 or F7 opened in a TUI, then closed with Esc."""
        terminal = self._terminal()
        which = self.random.choice(sorted(SCREENS))
        key, title = SCREENS[which]
        process = terminal.process
        mark = process.mark()
        process.write(key)
        process.wait_for(title, STARTUP_SECONDS, since=mark)
        mark = process.mark()
        process.write(ESC)
        process.wait_for(MAIN_SCREEN, STARTUP_SECONDS, since=mark)
        return f"{terminal.label} opened and closed {which}"

    def start_a_second_terminal(self) -> str:
        """Another TUI on the same data directory and profile (at most two at once)."""
        if len(self.terminals) >= MOST_TERMINALS:
            return self.key_the_offered_id()
        terminal = self._start_terminal()
        return f"{terminal.label} started beside {len(self.terminals) - 1} other"

    def _add(self, *options: str) -> str:
        name = self._name("add")
        done = self._command("add", "--profile", PROFILE, "--json", "--name", name, *options)
        answer = json.loads(done.stdout)
        plant_id = answer["sent"]["id"]
        if self.server is not None:
            assert done.returncode == 0, done.stdout + done.stderr
            assert answer["outcome"] == "created", answer
        else:
            assert done.returncode == 3, done.stdout + done.stderr
            assert answer["outcome"] == "failed", answer
        self.acknowledged[name] = Acknowledged(plant_id, "add", answer["outcome"])
        return f"add {answer['outcome']} {plant_id}"

    def add_with_an_id(self) -> str:
        """`add --id` with an id typed by hand."""
        return self._add("--id", str(next(self._typed_ids)))

    def add_without_an_id(self) -> str:
        """`add` without --id: the next free id of the profile's range."""
        return self._add()

    def history(self) -> str:
        """`history`, or `history --json`, whose rows must be the ledger's."""
        as_json = self.random.random() < 0.5
        done = self._command("history", "--limit", "100000", *(["--json"] if as_json else []))
        assert done.returncode == 0, done.stdout + done.stderr
        if as_json:
            listed = {row["entry"] for row in json.loads(done.stdout)}
            in_ledger = {row.entry for row in self.ledger_rows()}
            # The TUIs may take plants meanwhile: every row listed is in the ledger.
            assert listed <= in_ledger, f"history listed entries {listed - in_ledger} not kept"
        return "history --json" if as_json else "history"

    def probe(self) -> str:
        """`probe` with a body no server stores: it answers 400, and no plant is made."""
        plants = len(self.server_plants())
        done = self._command("probe", "--profile", PROFILE, "--json", "--body", '{"id":"x"}')
        answer = json.loads(done.stdout)
        if self.server is not None:
            assert done.returncode == 0, done.stdout + done.stderr
            assert answer["status"] == 400, answer
        else:
            assert done.returncode == 3, done.stdout + done.stderr
        assert len(self.server_plants()) == plants, "a probe created a plant"
        return f"probe answered {answer['status']}"

    def import_a_file(self) -> str:
        """`import` of a small CSV file; while the deployment is down, it gives up at once."""
        names = [self._name("import") for _ in range(self.random.randint(1, 4))]
        rows = [(name, next(self._typed_ids)) for name in names]
        path = self.tmp_path / f"plants-{rows[0][1]}.csv"
        path.write_text("name,id\n" + "".join(f"{name},{plant_id}\n" for name, plant_id in rows))
        done = self._command(
            "import", str(path), "--profile", PROFILE, "--json", "--give-up-after", "0"
        )
        summary = json.loads(done.stdout)
        fate = "created" if self.server is not None else "failed"
        assert summary[fate] == len(rows), summary
        assert done.returncode == (0 if fate == "created" else 3), done.stdout + done.stderr
        for name, plant_id in rows:
            self.acknowledged[name] = Acknowledged(plant_id, "import", fate)
        return f"import of {len(rows)} rows: {fate}"

    def kill_a_terminal(self) -> str:
        """kill -9 of a TUI, then a fresh one in its place."""
        if not self.terminals:
            return self.start_a_second_terminal()
        terminal = self.random.choice(self.terminals)
        terminal.process.send_signal(signal.SIGKILL)
        assert terminal.process.wait_exit() == -signal.SIGKILL
        terminal.process.close()
        self.terminals.remove(terminal)
        fresh = self._start_terminal()
        return f"{terminal.label} killed, {fresh.label} started"

    def deployment_down_or_up(self) -> str:
        """The reference server stopped, or started again on its port and database."""
        if self.server is not None:
            self.server.stop()
            self.server = None
            held = socket.socket()
            held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            held.bind(("127.0.0.1", self.port))
            self._held_port = held
            return "deployment down"
        self._up()
        return "deployment up"

    def _up(self) -> None:
        assert self._held_port is not None
        self._held_port.close()
        self._held_port = None
        server = BackgroundServer(token=self.token, db_path=self.db_path, port=self.port)
        server.start()
        self.server = server
        for terminal in self.terminals:
            if terminal.waiting:
                self._flush(terminal)

    def finish(self) -> str:
        """The deployment up, every waiting plant created, every TUI quit with Ctrl+Q."""
        if self.server is None:
            self._up()
        for terminal in self.terminals:
            process = terminal.process
            mark = process.mark()
            process.write(CTRL_Q)
            # With plants in needs attention (a killed TUI's), Ctrl+Q asks first; else it quits.
            with contextlib.suppress(EOFError):
                process.wait_for(QUIT_QUESTION, STARTUP_SECONDS, since=mark)
                process.write(b"s")
            assert process.wait_exit(STARTUP_SECONDS) == 0
            process.close()
        self.terminals.clear()
        return "every TUI quit"

    # --- the invariants ----------------------------------------------------------------------

    def ledger_rows(self) -> list[LedgerRow]:
        """Every plant of the ledger, read as a third process reads it: read-only."""
        path = self.data / LEDGER_FILE
        if not path.exists():
            return []
        uri = path.resolve().as_uri() + "?mode=ro"
        with closing(sqlite3.connect(uri, uri=True)) as connection:
            try:
                rows = connection.execute(
                    "SELECT entry, name, plant_id, state, error, message FROM plants "
                    "WHERE base_url = ? ORDER BY entry",
                    (self.base_url,),
                ).fetchall()
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):
                    return []
                raise
        return [LedgerRow(*row) for row in rows]

    def integrity(self) -> str:
        """`PRAGMA integrity_check` of the ledger, read-only ("ok": no ledger yet)."""
        path = self.data / LEDGER_FILE
        if not path.exists():
            return "ok"
        uri = path.resolve().as_uri() + "?mode=ro"
        with closing(sqlite3.connect(uri, uri=True)) as connection:
            return "\n".join(row[0] for row in connection.execute("PRAGMA integrity_check"))

    def server_plants(self) -> dict[int, str]:
        """The deployment's plants (id: name), read from its database."""
        with closing(sqlite3.connect(self.db_path)) as connection:
            return dict(connection.execute("SELECT id, name FROM plants").fetchall())

    def deleted_ledger_files(self) -> dict[str, list[str]]:
        """The ledger's files each live TUI holds open although they were deleted (the TUIs are
        the only processes of ours alive between steps: every command has exited)."""
        prefix = str(self.data / LEDGER_FILE)
        held: dict[str, list[str]] = {}
        for terminal in self.terminals:
            for fd in _descriptors(terminal.process.pid):
                try:
                    target = os.readlink(fd)
                except FileNotFoundError:
                    continue  # closed while listed
                if target.startswith(prefix) and target.endswith("(deleted)"):
                    held.setdefault(terminal.label, []).append(target)
        return held

    def check(self, when: str) -> None:
        """Every invariant, after `when`."""
        integrity = self.integrity()
        if integrity != "ok":
            raise InvariantBroken(f"(2) integrity_check after {when}: {integrity}")
        held = self.deleted_ledger_files()
        if held:
            raise InvariantBroken(f"(3) deleted ledger files held open after {when}: {held}")
        rows = self.ledger_rows()
        by_name: dict[str, list[LedgerRow]] = {}
        for row in rows:
            by_name.setdefault(row.name, []).append(row)
        for name, told in self.acknowledged.items():
            kept = by_name.get(name, [])
            if [row.plant_id for row in kept] != [told.plant_id]:
                raise InvariantBroken(
                    f"(1) {told.by} acknowledged {name!r} ({told.plant_id}, {told.state}); "
                    f"after {when} the ledger holds {kept}"
                )
            if told.state != "taken" and kept[0].state != told.state:
                raise InvariantBroken(
                    f"(1) {told.by} said {name!r} ({told.plant_id}) {told.state}; after {when} "
                    f"the ledger says {kept[0].state}"
                )
        collisions = [
            row
            for row in rows
            if row.state == "rejected" and "already exists" in f"{row.error} {row.message}"
        ]
        if collisions:
            raise InvariantBroken(f"(4) ids refused as taken after {when}: {collisions}")
        created: dict[int, list[LedgerRow]] = {}
        for row in rows:
            if row.state == "created":
                created.setdefault(row.plant_id, []).append(row)
        twice = {plant_id: kept for plant_id, kept in created.items() if len(kept) > 1}
        if twice:
            raise InvariantBroken(f"(4) ids created twice after {when}: {twice}")
        maybe_sent = {
            (row.plant_id, row.name)
            for row in rows
            if row.state in {"created", "sending", "unknown"}
        }
        stored = self.server_plants()
        strays = {item for item in stored.items() if item not in maybe_sent}
        if strays:
            raise InvariantBroken(
                f"(4) the deployment holds plants no ledger row sent, after {when}: {strays}"
            )
        lost = {(row.plant_id, row.name) for rows_ in created.values() for row in rows_} - set(
            stored.items()
        )
        if lost:
            raise InvariantBroken(
                f"(1) ledger rows created that the deployment does not hold, after {when}: {lost}"
            )


def _descriptors(pid: int) -> Iterator[Path]:
    with contextlib.suppress(FileNotFoundError, ProcessLookupError):
        yield from Path(f"/proc/{pid}/fd").iterdir()
