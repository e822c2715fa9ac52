"""The command line, `plantstore-tui` and `python -m plantstore_tui`: without a subcommand it
opens the TUI; subcommands add, serve, demo, profile, import, check, probe, history, completion
and web."""

from __future__ import annotations

import importlib
import json
from typing import Any

import click

from plantstore_tui import __version__
from plantstore_tui.cli.exits import Interrupted, problem_json, translated
from plantstore_tui.cli.options import JSON_ASKED, JsonFlag
from plantstore_tui.cli.targets import TargetOptions, group_target_options
from plantstore_tui.core.config.files import CONFIG_DIR_ENV, DATA_DIR_ENV, PROFILES_FILE, config_dir
from plantstore_tui.core.errors import PlantStoreError
from plantstore_tui.core.store import ledger_path

# Whether "--json" was typed after the group's own options (ctx.meta).
_JSON_TYPED = "plantstore_tui.json_typed"


class LazyGroup(click.Group):
    """A group whose subcommands' modules are imported only when one of them runs (click's
    "Lazily loading subcommands"): each brings its own dependencies, which the others skip."""

    def __init__(self, *args: Any, lazy_subcommands: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # name -> "module.attribute" of the click command
        self.lazy_subcommands = lazy_subcommands

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *self.lazy_subcommands])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.lazy_subcommands:
            return super().get_command(ctx, cmd_name)
        module_name, attribute = self.lazy_subcommands[cmd_name].rsplit(".", 1)
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command)
        return command

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Where this machine keeps the profiles and the history (written whole, never wrapped:
        a path is copied from here)."""
        formatter.write_paragraph()
        formatter.write(
            f"  Profiles: {config_dir() / PROFILES_FILE} (${CONFIG_DIR_ENV} moves it)\n"
        )
        formatter.write(f"  History:  {ledger_path()} (${DATA_DIR_ENV} moves it)\n")

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        # Kept for a usage error the subcommand's parser raises before its --json is read.
        given = args[: args.index("--")] if "--" in args else args
        ctx.meta[_JSON_TYPED] = "--json" in given
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; a core error it did not translate itself ends the run in words, and
        with --json also as one JSON object on stdout."""
        try:
            try:
                return super().invoke(ctx)
            except (KeyboardInterrupt, click.Abort):
                # click.Abort: Ctrl+C (or the end of input) at a question.
                raise Interrupted from None
        except PlantStoreError as exc:
            problem = translated(exc)
        except click.ClickException as exc:
            problem = exc
        not_run = _json_asked(ctx, problem)
        if not_run is not None:
            click.echo(json.dumps(problem_json(problem, not_run), ensure_ascii=True))
        raise problem from None


def _json_asked(ctx: click.Context, problem: click.ClickException) -> dict[str, Any] | None:
    """What the command's --json object holds when nothing ran, if --json was asked for; None
    when it was not (or the command has no --json)."""
    asked: dict[str, Any] | None = ctx.meta.get(JSON_ASKED)
    if asked is not None:
        return asked
    where = problem.ctx if isinstance(problem, click.UsageError) else None
    if where is None or not ctx.meta.get(_JSON_TYPED):
        return None
    for param in where.command.params:
        if isinstance(param, JsonFlag):
            return param.not_run
    return None


@click.group(
    cls=LazyGroup,
    lazy_subcommands={
        "add": "plantstore_tui.cli.add.add",
        "serve": "plantstore_tui.cli.serve.serve",
        "demo": "plantstore_tui.cli.tui.demo",
        "profile": "plantstore_tui.cli.profile.profile",
        "import": "plantstore_tui.cli.import_file.import_file",
        "check": "plantstore_tui.cli.check.check",
        "probe": "plantstore_tui.cli.probe.probe",
        "history": "plantstore_tui.cli.history.history",
        "completion": "plantstore_tui.cli.completion.completion",
        "web": "plantstore_tui.cli.web.web",
    },
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@group_target_options
@click.option(
    "--verify",
    is_flag=True,
    help="Verified entry for this run of the TUI: every plant typed is keyed twice, the second "
    "time blind, and sent only once both keyings agree (a profile's verify = true does it "
    "always).",
)
@click.version_option(__version__, prog_name="plantstore-tui")
@click.pass_context
def main(ctx: click.Context, options: TargetOptions, verify: bool) -> None:
    """Add plants to a Plant Store deployment, from a terminal UI or the command line.

    Without a subcommand, opens the TUI. Try it with no deployment: plantstore-tui demo
    """
    ctx.obj = options
    if verify and ctx.invoked_subcommand is not None:
        raise click.UsageError(
            "--verify is for the TUI (plantstore-tui --verify): "
            f"{ctx.invoked_subcommand} sends each plant as given."
        )
    # Resilient parsing (shell completion) only reads the command line: it must never take the
    # terminal over.
    if ctx.invoked_subcommand is None and not ctx.resilient_parsing:
        # The TUI, loaded as LazyGroup loads a subcommand: the other commands never load Textual.
        from plantstore_tui.cli.tui import open_tui

        open_tui(ctx.obj, verify=verify)
