"""Shell completion: `plantstore-tui completion SHELL` prints the script, and what Tab offers
for the values click cannot know (saved profile names, history entries).

Saved profile names are offered by `cli/targets.profile_names`, beside the options that take
them, so that opening the TUI never loads this module. Click's own machinery does the rest: the
script runs `plantstore-tui` with `COMPLETE_VAR` set, and click answers from the command line's
parameters without running any command. What is offered here is read from profiles.toml and the
ledger alone: no prompt, no token, no network, and nothing on the terminal but the completions
when a file cannot be read.
"""

from __future__ import annotations

import click
from click.shell_completion import CompletionItem, get_completion_class

from plantstore_tui.cli.history_text import local_time
from plantstore_tui.core.plant.text import shorten, visible
from plantstore_tui.core.store import HistoryEntry, StoreError, open_unchanged
from plantstore_tui.core.store.probes import PREFIX, ProbeEntry, numbered_probes
from plantstore_tui.core.store.records import outcome_words

PROG_NAME = "plantstore-tui"
# Click's name for PROG_NAME, given to `main` by `python -m plantstore_tui` too, whose own
# program name would give another variable.
COMPLETE_VAR = "_PLANTSTORE_TUI_COMPLETE"
SHELLS = ("bash", "zsh", "fish")
# Enough to choose from on a screen; a longer prefix finds older entries.
_ENTRIES_OFFERED = 20


def history_entries(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """The newest entries of the ledger whose numbers start with what is typed, each described
    by its plant and how it ended (zsh and fish show the description); probes for `p`."""
    probes = incomplete[:1].lower() == PREFIX
    try:
        ledger = open_unchanged()
        if ledger is None:
            return []
        try:
            if probes:
                found = numbered_probes(ledger, incomplete[1:], limit=_ENTRIES_OFFERED)
            else:
                entries = ledger.numbered(incomplete, limit=_ENTRIES_OFFERED)
        finally:
            ledger.close()
    except StoreError:
        return []
    if probes:
        return [CompletionItem(probe.label, help=_probe_described(probe)) for probe in found]
    return [CompletionItem(str(entry.entry), help=_described(entry)) for entry in entries]


def _described(entry: HistoryEntry) -> str:
    status = "" if entry.status is None else f" ({entry.status})"
    return visible(
        f"plant {entry.plant_id} {shorten(entry.name, 24)}: {outcome_words(entry)}{status}, "
        f"{local_time(entry.time)}"
    )


def _probe_described(probe: ProbeEntry) -> str:
    status = "no answer" if probe.status is None else str(probe.status)
    return visible(f"probe: {status}, {probe.fate.value}, {local_time(probe.time)}")


@click.command()
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> None:
    """Print the completion script for SHELL (bash, zsh or fish).

    \b
    Add a line to the shell's start-up file:
      eval "$(plantstore-tui completion bash)"     ~/.bashrc
      eval "$(plantstore-tui completion zsh)"      ~/.zshrc, after compinit
      plantstore-tui completion fish | source      ~/.config/fish/config.fish

    Commands, options, saved profile names and history entries then complete.
    """
    script = get_completion_class(shell)
    # Every SHELLS name is one of click's own shells.
    assert script is not None
    click.echo(script(ctx.find_root().command, {}, PROG_NAME, COMPLETE_VAR).source())
