"""Options that several commands take, each declared once: its name, its kind, its parameter."""

from __future__ import annotations

from collections.abc import Callable

import click
from click.decorators import FC


def json_option(help: str = "Print one JSON object and nothing else.") -> Callable[[FC], FC]:
    """`--json` (the parameter `as_json`): print JSON for a program instead of words."""
    return click.option("--json", "as_json", is_flag=True, help=help)


def yes_option(help: str) -> Callable[[FC], FC]:
    """`--yes` / `-y`: go ahead without asking (`help` says what is not asked)."""
    return click.option("--yes", "-y", is_flag=True, help=help)


def timeout_option(maximum: float, help: str) -> Callable[[FC], FC]:
    """`--timeout SECONDS` for this run, from 0.1 s to `maximum`; None when not given."""
    return click.option(
        "--timeout",
        type=click.FloatRange(min=0.1, max=maximum),
        metavar="SECONDS",
        help=help,
    )
