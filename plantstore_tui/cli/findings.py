"""The mistakes in profiles.toml on stderr, each once a run, in the core's words (the TUI shows
the same words): every command that reads the file reads it through `profile_store()`."""

from __future__ import annotations

import click

from plantstore_tui.core.config.findings import Finding
from plantstore_tui.core.config.store import ProfileStore
from plantstore_tui.core.plant.text import visible

# Where a run keeps the findings it said already (its click context's `meta`, shared by the
# group and its subcommand): a command reads the file more than once.
_SAID = "plantstore_tui.findings_said"


def profile_store() -> ProfileStore:
    """The profile store of a command: each mistake in profiles.toml is said once, on stderr
    (never on stdout, which `--json` keeps for its one object)."""
    return ProfileStore(on_findings=say_findings)


def say_findings(findings: tuple[Finding, ...]) -> None:
    """Print each finding not said yet in this run on stderr, as a warning."""
    context = click.get_current_context(silent=True)
    said: set[Finding] = set() if context is None else context.meta.setdefault(_SAID, set())
    for finding in findings:
        if finding not in said:
            said.add(finding)
            click.echo(f"Warning: {visible(str(finding))}", err=True)
