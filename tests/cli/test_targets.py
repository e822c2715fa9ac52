"""The command line's target options: a subcommand's are merged over the group's; a profile
and a base URL exclude each other wherever they are given."""

from __future__ import annotations

import click
from click.testing import CliRunner

from plantstore_tui.cli.targets import (
    TargetOptions,
    group_target_options,
    merged_target_options,
)


@click.group()
@group_target_options
@click.pass_context
def group(ctx: click.Context, options: TargetOptions) -> None:
    ctx.obj = options


@group.command()
@click.option("--label", default="")
@merged_target_options
def show(options: TargetOptions, label: str) -> None:
    click.echo(f"{label} {options}")


def test_a_subcommand_gets_the_groups_options_when_it_names_no_target() -> None:
    result = CliRunner().invoke(group, ["--profile", "lab", "--allow-insecure-http", "show"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(TargetOptions(profile="lab", allow_insecure_http=True))


def test_a_subcommands_own_target_wins_and_its_other_options_still_arrive() -> None:
    result = CliRunner().invoke(
        group, ["--profile", "lab", "show", "--profile", "prod", "--label", "x"]
    )
    assert result.exit_code == 0, result.output
    merged = TargetOptions(profile="lab").merged("prod", None)
    assert result.output.strip() == f"x {merged}"


def test_a_profile_and_a_base_url_on_the_group_and_its_subcommand_are_a_usage_error() -> None:
    for argv in (
        ["--profile", "lab", "show", "--base-url", "http://127.0.0.1:9"],
        ["--base-url", "http://127.0.0.1:9", "show", "--profile", "lab"],
        ["show", "--base-url", "http://127.0.0.1:9", "--profile", "lab"],
    ):
        result = CliRunner().invoke(group, argv)
        assert result.exit_code == 2, result.output
        assert "Give --profile or --base-url, not both." in result.output


def test_proxy_given_to_the_group_reaches_the_subcommand_and_its_own_wins() -> None:
    group_options = TargetOptions(proxy="http://a:1")
    assert group_options.merged("lab", None).proxy == "http://a:1"
    assert group_options.merged(None, None, proxy="none").proxy == "none"
    # The proxy's URL may hold a password: never in a repr.
    assert "a:1" not in repr(TargetOptions(proxy="http://user:pw@a:1"))


def test_a_subcommand_run_without_its_group_uses_only_its_own_options() -> None:
    result = CliRunner().invoke(show, ["--profile", "own"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == str(TargetOptions(profile="own"))
