"""The command line, `plantstore-tui` and `python -m plantstore_tui`: without a subcommand it
opens the TUI; subcommands add, serve, demo, profile, import, check, history, completion and web."""

from __future__ import annotations

import importlib
from typing import Any

import click

from plantstore_tui import __version__
from plantstore_tui.cli.exits import translated
from plantstore_tui.cli.targets import TargetOptions, group_target_options
from plantstore_tui.core.errors import PlantStoreError


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

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; a core error it did not translate itself ends the run in words."""
        try:
            return super().invoke(ctx)
        except PlantStoreError as exc:
            raise translated(exc) from None


@click.group(
    cls=LazyGroup,
    lazy_subcommands={
        "add": "plantstore_tui.cli.add.add",
        "serve": "plantstore_tui.cli.serve.serve",
        "demo": "plantstore_tui.cli.tui.demo",
        "profile": "plantstore_tui.cli.profile.profile",
        "import": "plantstore_tui.cli.import_file.import_file",
        "check": "plantstore_tui.cli.check.check",
        "history": "plantstore_tui.cli.history.history",
        "completion": "plantstore_tui.cli.completion.completion",
        "web": "plantstore_tui.cli.web.web",
    },
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@group_target_options
@click.version_option(__version__, prog_name="plantstore-tui")
@click.pass_context
def main(ctx: click.Context, options: TargetOptions) -> None:
    """Add plants to a Plant Store deployment, from a terminal UI or the command line.

    Without a subcommand, opens the TUI. Try it with no deployment: plantstore-tui demo
    """
    ctx.obj = options
    # Resilient parsing (shell completion) only reads the command line: it must never take the
    # terminal over.
    if ctx.invoked_subcommand is None and not ctx.resilient_parsing:
        # The TUI's module brings Textual: imported when the TUI opens, as a subcommand's is.
        from plantstore_tui.cli.tui import open_tui

        open_tui(ctx.obj)
