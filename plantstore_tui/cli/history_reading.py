"""The ledger opened to read the history from the command line (`history`, `probe --again`): its
problems said in words, as configuration problems (exit 4)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click

from plantstore_tui.cli.exits import ConfigProblem
from plantstore_tui.core.config.files import checked_data_dir
from plantstore_tui.core.plant.text import visible
from plantstore_tui.core.store import Ledger, StoreError, open_for_reading


@contextmanager
def reading_history() -> Iterator[Ledger | None]:
    """The ledger to read, None when there is none yet; closed when the block ends."""
    # A file where the directory should be is a mistake to say, not a history not yet begun.
    checked_data_dir()
    try:
        history = open_for_reading()
    except StoreError as exc:
        raise ConfigProblem(visible(f"The history cannot be read: {exc}")) from None
    if history is not None and history.carried is not None:
        for problem in history.carried.problems:
            click.echo(visible(f"An earlier file was not read: {problem}"), err=True)
    try:
        yield history
    except StoreError as exc:
        raise ConfigProblem(visible(f"The history cannot be read: {exc}")) from None
    finally:
        if history is not None:
            history.close()
