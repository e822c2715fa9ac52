"""`plantstore-tui check`: a safe conformance check of a deployment, as a table or as JSON."""

from __future__ import annotations

import asyncio
import json
import shutil
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import click

from plantstore_tui.cli.exits import ExitCode, InvalidInput
from plantstore_tui.cli.options import json_option, timeout_option, yes_option
from plantstore_tui.cli.targets import (
    TargetOptions,
    confirm_protected,
    merged_target_options,
    resolve_target,
    say_token_note,
)
from plantstore_tui.core.config.files import checked_data_dir
from plantstore_tui.core.http.check import CreatePlan, run_check, with_limits
from plantstore_tui.core.http.check_report import CheckReport, Verdict
from plantstore_tui.core.http.expectations import CaseFile
from plantstore_tui.core.http.junit import junit_xml
from plantstore_tui.core.http.proxy import through_words
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.plant.id_range import parse_id_range
from plantstore_tui.core.plant.outcome import Outcome
from plantstore_tui.core.plant.text import plural, visible
from plantstore_tui.core.store.recorder import Recorder


def parse_ids(text: str) -> range:
    """`A-B` (inclusive, int64, A <= B) as a range, or `InvalidInput` saying what is wrong."""
    ids = parse_id_range(text)
    if isinstance(ids, str):
        # The words of a profile's `ids` (one rule for both), said of --ids.
        raise InvalidInput(f"--{ids}.")
    return range(ids.first, ids.last + 1)


@click.command()
@click.option(
    "--create",
    is_flag=True,
    help="Also send --samples valid plants with ids from --ids (they stay in the store).",
)
@click.option("--ids", "ids_text", metavar="A-B", help="With --create: the ids to use, inclusive.")
@click.option(
    "--samples",
    type=click.IntRange(min=1, max=1000),
    default=5,
    show_default=True,
    help="With --create: how many plants to send.",
)
@click.option(
    "--expect",
    "cases_path",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Also run the cases of this TOML file, each judged by the status (and Error code) it "
    "expects (docs/expectations.md).",
)
@json_option()
@click.option(
    "--report-junit",
    "junit_path",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Also write the report as JUnit XML for a CI server: one test case per probe.",
)
@yes_option("With --create: create on a protected profile.")
@timeout_option(
    60, "Give up on any one probe after this long [default: 10, or the profile's if shorter]."
)
@merged_target_options
def check(
    options: TargetOptions,
    create: bool,
    ids_text: str | None,
    samples: int,
    cases_path: Path | None,
    as_json: bool,
    junit_path: Path | None,
    yes: bool,
    timeout: float | None,
) -> None:
    """Check that a deployment answers POST /plants as the spec says, creating nothing.

    Every probe sends a body the spec's server must refuse. With --create --ids A-B it also
    sends --samples valid plants and measures latency. With --expect FILE it then runs each
    case of the file; a case that expects 2xx runs only with --create, on the next id of --ids.
    Exits 0 when no probe or case fails, 1 when one fails, 3 when the deployment cannot be
    reached, 4 for a configuration problem. With --report-junit FILE the report is also
    written as JUnit XML, whatever the verdict.
    """
    # Read before anything else: a file that cannot be run stops the check before it sends.
    cases = None if cases_path is None else CaseFile.load(cases_path)
    plan = _plan(create, ids_text, samples, 0 if cases is None else cases.creating)
    target = resolve_target(options, interactive=not as_json)
    say_token_note(target)
    if plan is not None and target.protected and not yes:
        count = plan.samples + (0 if cases is None else cases.creating)
        ids = plan.ids[:count]
        question = f"Create {plural(count, 'plant')} (ids {ids[0]}-{ids[-1]}) on"
        confirm_protected(target, question, interactive=not as_json)
    if timeout is not None:
        target = with_limits(target, timeout)
    on_sent = None if plan is None else _kept_in_history(target)
    # Opened before any probe: a file that cannot be written stops the check before it begins.
    with _report_file(junit_path) as junit:
        report = asyncio.run(run_check(target, create=plan, on_sent=on_sent, cases=cases))
        if junit is not None:
            junit.write(junit_xml(report))
    if as_json:
        click.echo(json.dumps(report.to_json(), ensure_ascii=True))
    else:
        click.echo(render_report(report))
    raise SystemExit(exit_code_of(report))


def _plan(create: bool, ids_text: str | None, samples: int, creating: int) -> CreatePlan | None:
    if not create:
        if ids_text is not None:
            raise InvalidInput("--ids is only used with --create")
        return None
    if ids_text is None:
        # Never a default range: only the operator knows which ids are free to fill.
        raise InvalidInput("--create needs --ids A-B: the ids the check may create plants with")
    ids = parse_ids(ids_text)
    held = f"--ids {ids_text} holds {plural(len(ids), 'id')}"
    if len(ids) < samples:
        raise InvalidInput(f"{held}, fewer than --samples {samples}")
    if len(ids) < samples + creating:
        cases = plural(creating, "case")
        raise InvalidInput(
            f"{held}, fewer than the {samples + creating} needed: --samples {samples} and "
            f"{cases} that expect{'s' if creating == 1 else ''} 2xx"
        )
    return CreatePlan(ids=ids, samples=samples)


@contextmanager
def _report_file(path: Path | None) -> Iterator[BinaryIO | None]:
    if path is None:
        yield None
        return
    try:
        sink = path.open("wb")
    except OSError as exc:
        reason = exc.strerror or "it cannot be opened"
        raise InvalidInput(
            f"--report-junit {visible(str(path))} cannot be written ({reason}); nothing was sent"
        ) from None
    with sink:
        yield sink


def _kept_in_history(target: Target) -> Callable[[Outcome], None]:
    """Record each plant --create sends in the history, with source check."""
    checked_data_dir()  # before anything is created: a file there is a mistake to fix
    history = Recorder.open("check", target.profile, warn=lambda text: click.echo(text, err=True))

    def sent(outcome: Outcome) -> None:
        # The check reports a send once it has ended: begun and settled in one go.
        history.settle(history.begin(target, outcome.sent), outcome, target)

    return sent


def exit_code_of(report: CheckReport) -> ExitCode:
    """3 unreachable, 1 a probe failed, else 0."""
    if not report.reachable:
        return ExitCode.TRANSPORT_FAILURE
    if report.verdict is Verdict.FAIL:
        return ExitCode.REJECTED
    return ExitCode.CREATED


def render_report(report: CheckReport, width: int | None = None) -> str:
    """The report as a plain-text table, the cases under a heading naming their file; nothing
    from the server can reach the terminal raw."""
    width = width or shutil.get_terminal_size((100, 24)).columns
    where = f"{visible(report.base_url)}/plants{visible(through_words(report.proxy))}"
    lines = [f"Check of {where}: {report.verdict.value}"]
    probes = [(result.probe, result.verdict, result.seen, result.why) for result in report.results]
    lines.extend(_rows(probes, width))
    if report.cases_file is not None:
        lines.append("")
        lines.append(f"Cases of {visible(report.cases_file)}:")
        # A skipped case's reason is what was seen: said once.
        cases = [
            (case.name, case.verdict, case.seen, "" if case.actual is None else case.why)
            for case in report.cases
        ]
        lines.extend(_rows(cases, width) if cases else ["(the file holds no case)"])
    return "\n".join(lines)


def _rows(rows: list[tuple[str, Verdict, str, str]], width: int) -> list[str]:
    """One row per probe or case: its name, verdict and what was seen, then why it matters."""
    name_width = max(len(visible(name)) for name, *_ in rows)
    indent = " " * (name_width + 8)
    wrap = max(width - len(indent) - 2, 30)
    lines = []
    for name, verdict, seen, why in rows:
        head = f"{visible(name):<{name_width}}  {verdict.value.upper():<4}  "
        seen_lines = _wrapped(seen, wrap) or [""]
        lines.append(head + seen_lines[0])
        lines.extend(indent + line for line in seen_lines[1:])
        for index, line in enumerate(_wrapped(why, wrap)):
            lines.append(indent + ("→ " if index == 0 else "  ") + line)
    return lines


def _wrapped(text: str, width: int) -> list[str]:
    # Options such as --ca-bundle must not be split at their hyphens.
    return textwrap.wrap(visible(text), width, break_on_hyphens=False)
