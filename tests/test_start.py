"""The front door: an ad hoc target opens the TUI without click; everything else is click's."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from plantstore_tui.cli import main as command_line
from plantstore_tui.core.config.targets import TargetOptions
from plantstore_tui.start import plain_tui_options

REPO = Path(__file__).resolve().parents[1]
TOKEN = "token-of-the-front-door-test"

PLAIN = [
    [],
    ["--base-url", "http://127.0.0.1:9"],
    ["--base-url=http://127.0.0.1:9"],
    ["--profile", "staging", "--proxy", "http://proxy:3128"],
    ["--allow-insecure-http", "--base-url", "http://10.0.0.1:8000", "--proxy=none"],
]


@pytest.mark.parametrize("arguments", PLAIN)
def test_the_target_options_read_alone_are_what_click_reads(arguments: list[str]) -> None:
    seen: list[TargetOptions] = []

    @click.command()
    @click.pass_context
    def record(ctx: click.Context) -> None:
        seen.append(ctx.find_object(TargetOptions) or TargetOptions())

    # The group's own parsing, up to the subcommand it would run.
    command_line.add_command(record, "record-options")
    try:
        result = CliRunner().invoke(command_line, [*arguments, "record-options"])
    finally:
        command_line.commands.pop("record-options")
    assert result.exit_code == 0, result.output
    assert plain_tui_options(arguments) == seen[0]


@pytest.mark.parametrize(
    "arguments",
    [
        ["--help"],
        ["--version"],
        ["demo"],
        ["add", "--name", "Fern"],
        ["--ca-bundle", "ca.pem"],
        ["--base-url"],
        ["--base-url", "--profile"],
        ["--base-url", "http://a", "--base-url", "http://b"],
        ["--allow-insecure-http=yes"],
        ["--base", "http://127.0.0.1:9"],
    ],
)
def test_anything_else_goes_to_click(arguments: list[str]) -> None:
    assert plain_tui_options(arguments) is None


_FRONT_DOOR = """
    import sys
    from plantstore_tui.ui.app import PlantStoreApp

    def run(self):
        print("label:", self._label.describe())
        print("click loaded:", "click" in sys.modules)

    PlantStoreApp.run = run
    sys.argv = ["plantstore-tui", *sys.argv[1:]]
    from plantstore_tui.start import main
    main()
"""


def _front_door(arguments: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    environ = {key: value for key, value in os.environ.items() if not key.startswith("PLANTSTORE_")}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_FRONT_DOOR), *arguments],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**environ, **env},
        timeout=60,
        check=False,
    )


def test_an_ad_hoc_target_opens_the_tui_without_click(tmp_path: Path) -> None:
    result = _front_door(
        ["--base-url", "http://127.0.0.1:9"],
        PLANTSTORE_TOKEN=TOKEN,
        PLANTSTORE_CONFIG_DIR=str(tmp_path),
    )
    assert "label: http://127.0.0.1:9 · token from $PLANTSTORE_TOKEN" in result.stdout
    assert "click loaded: False" in result.stdout
    assert TOKEN not in result.stdout + result.stderr


def test_without_the_token_the_command_line_is_clicks(tmp_path: Path) -> None:
    # No token to read: click's group resolves the target before the TUI, as before (no
    # terminal to ask on: a configuration problem in words, exit 4).
    result = _front_door(["--base-url", "http://127.0.0.1:9"], PLANTSTORE_CONFIG_DIR=str(tmp_path))
    assert result.returncode == 4, result.stdout + result.stderr
    assert "Error:" in result.stderr
    assert "click loaded" not in result.stdout


def test_help_is_clicks() -> None:
    result = _front_door(["--help"])
    assert result.returncode == 0
    assert "Usage: plantstore-tui" in result.stdout
