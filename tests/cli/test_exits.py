"""A core error that no command translated itself still ends the run in words and an exit code,
never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from plantstore_tui.cli import main
from plantstore_tui.cli.exits import ExitCode
from plantstore_tui.core.errors import PlantStoreError
from plantstore_tui.core.importing.rows import FileProblem
from plantstore_tui.core.store.database import StoreError


@pytest.fixture
def raising() -> Iterator[list[PlantStoreError]]:
    """A `raise-it` command that raises whatever error the test puts in the list."""
    errors: list[PlantStoreError] = []

    @click.command("raise-it")
    def raise_it() -> None:
        raise errors[0]

    main.add_command(raise_it)
    try:
        yield errors
    finally:
        main.commands.pop("raise-it")


@pytest.mark.parametrize(
    ("error", "code", "words"),
    [
        (StoreError(Path("ledger.sqlite3"), "disk I/O error"), ExitCode.CONFIG_PROBLEM, "disk I/O"),
        (FileProblem("not a file of plants", line=3), ExitCode.INVALID_INPUT, "not a file"),
        (PlantStoreError("bell\x07 in the words"), ExitCode.CONFIG_PROBLEM, "bell\\x07 in"),
    ],
)
def test_a_core_error_ends_in_words_and_its_exit_code(
    raising: list[PlantStoreError], error: PlantStoreError, code: int, words: str
) -> None:
    raising.append(error)
    result = CliRunner().invoke(main, ["raise-it"])
    assert result.exit_code == code
    assert words in result.output
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, PlantStoreError)
