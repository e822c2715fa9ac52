"""Options that several commands take, each declared once: its name, its kind, its parameter; the
one rule for options that exclude each other, and the one question before anything is deleted."""

from __future__ import annotations

import os
import select
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

import click
from click.core import ParameterSource
from click.decorators import FC

from plantstore_tui.cli.exits import InvalidInput

# Where a `--json` run keeps what its object holds when nothing came of the run (ctx.meta is
# shared by a command and its groups).
JSON_ASKED = "plantstore_tui.json"


class OneOf(click.Option):
    """An option that excludes the others of `one_of` (its own name among them): given with one
    of them, on this command or on a group above it, the run is a usage error (exit 2)."""

    def __init__(self, *args: Any, one_of: Sequence[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.one_of = tuple(one_of)

    def handle_parse_result(
        self, ctx: click.Context, opts: Mapping[str, Any], args: list[str]
    ) -> tuple[Any, list[str]]:
        if self.name in opts:
            given = [flag for name in self.one_of if (flag := _given(ctx, opts, name))]
            if len(given) > 1:
                raise click.UsageError(f"Give {given[0]} or {given[1]}, not both.", ctx)
        return super().handle_parse_result(ctx, opts, args)


def _flag(command: click.Command, name: str) -> str | None:
    """How option `name` of `command` is written (its long form), if it has one."""
    for param in command.params:
        if param.name == name and isinstance(param, click.Option):
            return max(param.opts, key=len)
    return None


def _given(ctx: click.Context, opts: Mapping[str, Any], name: str) -> str | None:
    """Option `name` as written, when the command line gave it here or to a group above."""
    if name in opts:
        return _flag(ctx.command, name)
    parent = ctx.parent
    while parent is not None:
        if parent.get_parameter_source(name) is ParameterSource.COMMANDLINE:
            return _flag(parent.command, name)
        parent = parent.parent
    return None


class OptionDecorator(Protocol):
    """What `click.option` is: option declarations and settings in, a decorator out."""

    def __call__(self, *param_decls: str, **attrs: Any) -> Callable[[FC], FC]: ...


def one_of(*names: str) -> OptionDecorator:
    """`click.option` for an option that excludes the others of `names` (see `OneOf`)."""

    def option(*param_decls: str, **attrs: Any) -> Callable[[FC], FC]:
        return click.option(*param_decls, cls=OneOf, one_of=names, **attrs)

    return option


class JsonFlag(click.Option):
    """`--json`: when given, whatever ends the run is one JSON object on stdout; `not_run` is
    what the command's own object holds when nothing came of it (`exits.problem_json`)."""

    def __init__(self, *args: Any, not_run: Mapping[str, Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.not_run = dict(not_run)


def _remember_json(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    if value and isinstance(param, JsonFlag):
        ctx.meta[JSON_ASKED] = param.not_run
    return value


def json_option(
    help: str = "Print one JSON object and nothing else, errors included.",
    *,
    not_run: Mapping[str, Any] | None = None,
) -> Callable[[FC], FC]:
    """`--json` (the parameter `as_json`): print JSON for a program instead of words, errors
    included; `not_run`: the keys of the command's object, as they are when nothing ran."""
    return click.option(
        "--json",
        "as_json",
        cls=JsonFlag,
        not_run=not_run or {},
        is_flag=True,
        # Read before the other options, so that a mistake in them is said in JSON too.
        is_eager=True,
        callback=_remember_json,
        help=help,
    )


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


def confirm_deletion(what: str, command: str) -> None:
    """Ask "Delete `what`?" before `command` deletes it; `InvalidInput` (nothing deleted) when
    the answer is no, or when there is no terminal to ask on (then `--yes` is needed)."""
    if not sys.stdin.isatty():
        raise InvalidInput(
            f"Nothing was deleted: without a terminal to ask on, {command} needs --yes."
        )
    if not yes_answered(f"Delete {what}?"):
        raise InvalidInput("Nothing was deleted.")


def yes_answered(question: str) -> bool:
    """Ask a yes/no question at the terminal, no by default (`[y/N]`); Ctrl+C is never lost
    (`answer`)."""
    return answer(f"{question} [y/N]: ").strip().lower() in ("y", "yes")


def answer(question: str) -> str:
    """The line typed at the terminal after `question` ("" at the end of input). Ctrl+C raises
    KeyboardInterrupt whenever it comes: `input()` blocks in a read that a Ctrl+C arriving just
    before it cannot end, so the question would wait for Enter (1 run in 20 under load)."""
    click.echo(question, nl=False)
    if sys.platform == "win32":
        return sys.stdin.readline()
    # A signal writes a byte here even before the wait starts; its handler then runs.
    woken, wake = os.pipe()
    os.set_blocking(wake, False)
    previous = signal.set_wakeup_fd(wake)
    try:
        while True:
            ready, _, _ = select.select([sys.stdin, woken], [], [])
            if woken in ready:
                os.read(woken, 512)  # the signal's handler runs before the next wait
                continue
            return sys.stdin.readline()
    finally:
        signal.set_wakeup_fd(previous)
        os.close(woken)
        os.close(wake)
