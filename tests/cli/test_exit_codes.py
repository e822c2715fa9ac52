"""docs/commands.md's one table of exit codes, held against every command: each command named for
a code is run, from outside, to that code; and no command ends with a code the table does not give
it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from import_support import wait_for_line
from ledger_support import ledger_file
from misbehaving import ReceivedRequest, Send, ServerThread, json_response
from pty_support import PtyProcess

from plantstore_tui.cli import main
from plantstore_tui.core.config.profiles import Profile
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.server.runner import BackgroundServer

DOCS = Path(__file__).parents[2] / "docs" / "commands.md"
TUI = "plantstore-tui"
CTRL_Q = b"\x11"
DEADLINE = 60.0


def every_command() -> list[str]:
    """Every command a person can run, by its words after `plantstore-tui` (the TUI: its name)."""
    found = [TUI]

    def walk(group: click.Group, words: list[str]) -> None:
        context = click.Context(group)
        for name in group.list_commands(context):
            command = group.get_command(context, name)
            assert command is not None
            if not isinstance(command, click.Group):
                found.append(" ".join([*words, name]))
                continue
            if command.invoke_without_command:
                found.append(" ".join([*words, name]))
            walk(command, [*words, name])

    walk(main, [])
    return found


def the_table() -> dict[int, list[str]]:
    """Each code of the table and the commands it names."""
    text = DOCS.read_text()
    section = text.split("## Exit codes\n", 1)[1].split("\n## ", 1)[0]
    table: dict[int, list[str]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].isdigit():
            continue
        named = re.findall(r"`([^`]+)`", cells[2])
        if cells[2].startswith("every command"):
            named = [command for command in every_command() if command not in named]
        table[int(cells[0])] = named
    return table


@dataclass
class World:
    """What the scenarios run against: a reference server, a port nobody listens on, a saved
    profile `p` on the server, and a directory of the test's own."""

    server: BackgroundServer
    closed_port: int
    directory: Path

    @property
    def token(self) -> str:
        value: str = self.server.token.get_secret_value()
        return value

    @property
    def nowhere(self) -> str:
        return f"http://127.0.0.1:{self.closed_port}"

    def plants_file(self, first_id: int = 1) -> str:
        path = self.directory / f"plants-{first_id}.csv"
        path.write_text(f"id,name\n{first_id},Fern\n{first_id + 1},Rose\n")
        return str(path)


@pytest.fixture
def world(
    reference_server: BackgroundServer,
    closed_port: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> World:
    monkeypatch.setenv("P_TOKEN", reference_server.token.get_secret_value())
    ProfileStore().add(Profile(name="p", base_url=reference_server.base_url, token_env="P_TOKEN"))
    return World(reference_server, closed_port, tmp_path)


def cli(*args: str, token: str | None = None) -> int:
    result = CliRunner().invoke(main, list(args), env={"PLANTSTORE_TOKEN": token})
    assert "Traceback" not in result.output
    return result.exit_code


def _imported_again(w: World, path: str) -> int:
    """The file imported, then every row sent again: the exit code of the second run."""
    assert cli("import", path, "--base-url", w.server.base_url, token=w.token) == 0
    again = ["--restart", "--resend-created"]
    return cli("import", path, "--base-url", w.server.base_url, *again, token=w.token)


def program(*args: str) -> list[str]:
    return [sys.executable, "-m", "plantstore_tui", *args]


def until_then_ctrl_c(args: list[str], line: str, *, stream: str, token: str = "t" * 20) -> int:
    """Run the command, wait for `line` on `stream`, press Ctrl+C (SIGINT); its exit code."""
    process = subprocess.Popen(
        program(*args),
        env={**os.environ, "PLANTSTORE_TOKEN": token},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        pipe = process.stdout if stream == "stdout" else process.stderr
        assert pipe is not None
        wait_for_line(pipe, line, DEADLINE)
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=DEADLINE)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode


def in_a_terminal(
    args: list[str], shown: str, then: Callable[[PtyProcess], None], token: str = ""
) -> int:
    """Run the command in a pty, wait for `shown`, do `then`; its exit code."""
    with PtyProcess(program(*args), env={"PLANTSTORE_TOKEN": token}) as terminal:
        terminal.wait_for(shown, DEADLINE)
        then(terminal)
        return terminal.wait_exit(DEADLINE)


def corrupt_profiles() -> None:
    path = Path(os.environ["PLANTSTORE_CONFIG_DIR"]) / "profiles.toml"
    path.write_text("[profiles.p]\nbase_url = \n")


def corrupt_ledger() -> None:
    ledger_file().parent.mkdir(parents=True, exist_ok=True)
    ledger_file().write_bytes(b"garbage" * 10)


def an_entry(world: World) -> str:
    """The history's first entry: a plant that found nobody there."""
    assert cli("add", "--name", "F", "--id", "1", "--base-url", world.nowhere, token="t") == 3
    return "1"


def accepting_everything(request: ReceivedRequest) -> list[Any]:
    """A deployment that creates whatever it is sent, token or not: every probe fails."""
    return [Send(json_response(200, {"name": "anything"}))]


@pytest.fixture
def careless(world: World) -> Iterator[None]:
    with ServerThread(accepting_everything) as server:
        ProfileStore().add(Profile(name="careless", base_url=server.base_url, token_env="P_TOKEN"))
        yield


def quit_tui(terminal: PtyProcess) -> None:
    terminal.write(CTRL_Q)


def tui_on_the_server(world: World) -> int:
    return in_a_terminal(["--base-url", world.server.base_url], "ready", quit_tui, world.token)


# One way to each code, for each command the table names for it.
SCENARIOS: dict[tuple[str, int], Callable[[World], int]] = {
    (TUI, 0): tui_on_the_server,
    (TUI, 4): lambda w: cli("--profile", "nowhere"),
    ("demo", 0): lambda w: in_a_terminal(["demo"], "ready", quit_tui),
    ("completion", 0): lambda w: cli("completion", "bash"),
    ("add", 0): lambda w: cli("add", "--name", "F", "--id", "1", "--profile", "p"),
    ("add", 1): lambda w: cli(
        "add", "--name", "F", "--id", "1", "--base-url", w.server.base_url, token="wrong-token"
    ),
    ("add", 3): lambda w: cli(
        "add", "--name", "F", "--id", "1", "--base-url", w.nowhere, token="t"
    ),
    ("add", 4): lambda w: cli("add", "--name", "F", "--id", "1", "--profile", "nowhere"),
    ("add", 130): lambda w: until_then_ctrl_c(
        ["add", "--name", "F", "--id", "1", "--base-url", w.nowhere, "--wait", "600"],
        "Waiting:",
        stream="stderr",
    ),
    ("import", 0): lambda w: cli("import", w.plants_file(), "--profile", "p"),
    # A refused token stops an import (3): its rows are not rejected. Rows sent again on purpose
    # are rejected as duplicates.
    ("import", 1): lambda w: _imported_again(w, w.plants_file()),
    ("import", 3): lambda w: cli(
        "import", w.plants_file(), "--base-url", w.nowhere, "--give-up-after", "0", token="t"
    ),
    ("import", 4): lambda w: cli("import", w.plants_file(), "--profile", "nowhere"),
    ("import", 130): lambda w: until_then_ctrl_c(
        ["import", w.plants_file(), "--base-url", w.nowhere], "Waiting:", stream="stderr"
    ),
    ("check", 0): lambda w: cli("check", "--profile", "p"),
    ("check", 1): lambda w: cli("check", "--profile", "careless"),
    ("check", 3): lambda w: cli("check", "--base-url", w.nowhere, token="t" * 20),
    ("check", 4): lambda w: cli("check", "--profile", "nowhere"),
    ("probe", 0): lambda w: cli("probe", "--profile", "p", "--body", "{}"),
    ("probe", 3): lambda w: cli("probe", "--base-url", w.nowhere, "--body", "{}", token="t"),
    ("probe", 4): lambda w: cli("probe", "--profile", "nowhere", "--body", "{}"),
    ("serve", 0): lambda w: until_then_ctrl_c(
        ["serve", "--port", "0", "--db", str(w.directory / "served.sqlite3")],
        "Press Ctrl+C",
        stream="stdout",
    ),
    ("serve", 4): lambda w: cli("serve", "--token-env", "PLANTSTORE_TEST_UNSET_VARIABLE"),
    ("web", 0): lambda w: until_then_ctrl_c(
        ["web", "--port", "0", "--base-url", w.nowhere], "Press Ctrl+C", stream="stdout"
    ),
    ("web", 4): lambda w: cli("web", "--port", "0", "--profile", "nowhere"),
    ("history", 0): lambda w: cli("history"),
    ("history", 4): lambda w: (corrupt_ledger(), cli("history"))[1],
    ("history show", 0): lambda w: cli("history", "show", an_entry(w)),
    ("history show", 4): lambda w: (corrupt_ledger(), cli("history", "show", "1"))[1],
    ("history export", 0): lambda w: cli("history", "export", an_entry(w), "--as", "curl"),
    ("history export", 4): lambda w: (
        corrupt_ledger(),
        cli("history", "export", "1", "--as", "curl"),
    )[1],
    ("history summary", 0): lambda w: cli("history", "summary", "--json"),
    ("history summary", 4): lambda w: (corrupt_ledger(), cli("history", "summary"))[1],
    ("history clear", 0): lambda w: cli("history", "clear", "--yes"),
    ("history clear", 4): lambda w: (corrupt_ledger(), cli("history", "clear", "--yes"))[1],
    ("profile list", 0): lambda w: cli("profile", "list"),
    ("profile show", 0): lambda w: cli("profile", "show", "p"),
    ("profile add", 0): lambda w: cli(
        "profile", "add", "q", "--base-url", "https://q.example", "--token-env", "Q"
    ),
    ("profile edit", 0): lambda w: cli("profile", "edit", "p", "--protected"),
    ("profile remove", 0): lambda w: cli("profile", "remove", "p", "--yes"),
    ("profile remove", 130): lambda w: in_a_terminal(
        ["profile", "remove", "p"],
        "Delete profile p",
        lambda terminal: terminal.send_signal(signal.SIGINT),
    ),
    ("profile use", 0): lambda w: cli("profile", "use", "p"),
    ("profile test", 0): lambda w: cli("profile", "test", "p"),
    ("profile test", 1): lambda w: cli("profile", "test", "careless"),
    ("profile test", 3): lambda w: (
        cli("profile", "edit", "p", "--base-url", w.nowhere),
        cli("profile", "test", "p"),
    )[1],
    ("profile test", 4): lambda w: cli("profile", "test", "nowhere"),
}


def _on_corrupt_profiles(*words: str) -> Callable[[World], int]:
    return lambda w: (corrupt_profiles(), cli("profile", *words))[1]


SCENARIOS |= {
    ("profile list", 4): _on_corrupt_profiles("list"),
    ("profile show", 4): _on_corrupt_profiles("show", "p"),
    ("profile add", 4): _on_corrupt_profiles(
        "add", "r", "--base-url", "https://r.example", "--token-env", "R"
    ),
    ("profile edit", 4): _on_corrupt_profiles("edit", "p", "--protected"),
    ("profile remove", 4): _on_corrupt_profiles("remove", "p", "--yes"),
    ("profile use", 4): _on_corrupt_profiles("use", "p"),
}


def _usage_error(command: str) -> Callable[[World], int]:
    words = [] if command == TUI else command.split()
    return lambda w: cli(*words, "--no-such-option")


def the_pairs() -> list[tuple[str, int]]:
    return [(command, code) for code, commands in the_table().items() for command in commands]


def test_the_table_gives_every_command_its_codes() -> None:
    table = the_table()
    assert sorted(table) == [0, 1, 2, 3, 4, 130]
    named = {command for commands in table.values() for command in commands}
    assert named == set(every_command())
    # And no way to a code the table does not give that command.
    assert set(SCENARIOS) <= set(the_pairs())


@pytest.mark.parametrize(("command", "code"), the_pairs(), ids=lambda value: str(value))
def test_each_command_ends_with_each_code_the_table_gives_it(
    world: World, careless: None, command: str, code: int
) -> None:
    scenario = _usage_error(command) if code == 2 else SCENARIOS.get((command, code))
    assert scenario is not None, f"no way to exit {code} from {command!r} is tried here"
    assert scenario(world) == code
