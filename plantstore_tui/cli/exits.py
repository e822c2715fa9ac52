"""The exit codes of design.md, and the click exceptions that carry them."""

from __future__ import annotations

from enum import IntEnum

import click


class ExitCode(IntEnum):
    """What a run of `plantstore-tui` ended in."""

    CREATED = 0
    REJECTED = 1
    INVALID_INPUT = 2
    TRANSPORT_FAILURE = 3
    CONFIG_PROBLEM = 4


class ConfigProblem(click.ClickException):
    """Unknown profile, no token, unreadable or corrupt configuration: exit 4."""

    exit_code = ExitCode.CONFIG_PROBLEM


class InvalidInput(click.ClickException):
    """Input that cannot be sent: exit 2, and nothing was sent."""

    exit_code = ExitCode.INVALID_INPUT
