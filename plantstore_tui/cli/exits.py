"""The exit codes of design.md, the click exceptions that carry them, and the one translation of
a core error that reaches the command line into words and an exit code."""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import click

from plantstore_tui.core.errors import InputError, PlantStoreError
from plantstore_tui.core.plant.text import visible


class ExitCode(IntEnum):
    """What a run of `plantstore-tui` ended in."""

    CREATED = 0
    REJECTED = 1
    INVALID_INPUT = 2
    TRANSPORT_FAILURE = 3
    CONFIG_PROBLEM = 4
    INTERRUPTED = 130


class ConfigProblem(click.ClickException):
    """Unknown profile, no token, unreadable or corrupt configuration: exit 4."""

    exit_code = ExitCode.CONFIG_PROBLEM


class InvalidInput(click.ClickException):
    """Input that cannot be sent: exit 2, and nothing was sent."""

    exit_code = ExitCode.INVALID_INPUT


class Interrupted(click.ClickException):
    """Ctrl+C (or a question left unanswered) before the run's end: exit 130, as a shell says
    of a program ended by SIGINT."""

    exit_code = ExitCode.INTERRUPTED

    def __init__(self) -> None:
        super().__init__("Interrupted before the end.")


# What a `--json` object says in "outcome" when the run ended before anything came of it.
_NOT_RUN_OUTCOMES: dict[int, str] = {
    ExitCode.INVALID_INPUT: "invalid input",
    ExitCode.CONFIG_PROBLEM: "configuration problem",
    ExitCode.INTERRUPTED: "interrupted",
}


def problem_json(problem: click.ClickException, not_run: dict[str, Any]) -> dict[str, Any]:
    """The one JSON object of a `--json` run that ended in `problem`: the command's own keys as
    they are when nothing ran (`not_run`), then what ended it, its exit code and its words."""
    if isinstance(problem, click.UsageError):
        outcome = "usage error"
    else:
        outcome = _NOT_RUN_OUTCOMES.get(problem.exit_code, "error")
    # A problem that found several things (import's bad rows) lists them in the object too.
    details = getattr(problem, "details", {})
    return {
        "outcome": outcome,
        **not_run,
        "exit_code": problem.exit_code,
        "message": problem.format_message(),
        **details,
    }


def translated(error: PlantStoreError) -> click.ClickException:
    """A core error no command caught, as words and an exit code: a file of plants that cannot
    be read is input (2); anything else, a setting or a file the run depends on (4)."""
    problem = InvalidInput if isinstance(error, InputError) else ConfigProblem
    return problem(visible(str(error)))
