"""`plantstore-tui probe`: one request exactly as given (POST /plants, or any method and path under
the base URL), what came back, and the spec's reading of it; kept in the ledger's history as a
probe, never as a plant."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import click
from click.core import ParameterSource

from plantstore_tui.cli.completion import history_entries
from plantstore_tui.cli.exits import ConfigProblem, ExitCode, InvalidInput
from plantstore_tui.cli.history_probes import ProbeRef, kept_probe, probe_named
from plantstore_tui.cli.options import json_option, one_of, timeout_option, yes_option
from plantstore_tui.cli.probe_verbose import render_verbose
from plantstore_tui.cli.targets import (
    TargetOptions,
    confirm_protected,
    merged_target_options,
    resolve_target,
)
from plantstore_tui.core.config.files import checked_data_dir
from plantstore_tui.core.config.options import named_or_kept
from plantstore_tui.core.http.cases import (
    CasesError,
    append_case,
    case_of,
    load_cases,
    suggested_name,
    unsaveable,
)
from plantstore_tui.core.http.check import with_limits
from plantstore_tui.core.http.follow import MAX_HOPS, Followed, follow_probe
from plantstore_tui.core.http.probe import (
    SPEC_METHOD,
    SPEC_PATH,
    ProbeAnswer,
    ProbeRequest,
    TokenChoice,
    parse_header,
    parse_method,
    parse_path,
    send_probe,
    spec_operation,
)
from plantstore_tui.core.http.probe_again import Again, left_out_words, sent_again
from plantstore_tui.core.http.proxy import through_words
from plantstore_tui.core.plant.outcome import Failed
from plantstore_tui.core.plant.text import shorten, shown_body, visible
from plantstore_tui.core.store.probes import PREFIX, ProbeEntry, record_probe

# The keys of `probe --json` when the run ended before any request went out.
NOT_SENT: dict[str, Any] = {
    "url": None,
    "request": None,
    "status": None,
    "headers": None,
    "body": None,
    "elapsed_ms": None,
    "verdict": None,
    "timings": None,
    "wire": None,
    "probe": None,
}
# A header's value is shown to this many characters (the ledger keeps it whole).
_HEADER_SHOWN = 120
one_body = one_of("body", "body_file")


def _headers(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> tuple[tuple[str, str], ...]:
    pairs = []
    for text in values:
        try:
            pairs.append(parse_header(text))
        except ValueError as exc:
            raise click.BadParameter(visible(str(exc)), ctx, param) from None
    return tuple(pairs)


def _parsed(parse: Callable[[str], str]) -> Callable[[click.Context, click.Parameter, str], str]:
    def callback(ctx: click.Context, param: click.Parameter, value: str) -> str:
        try:
            return parse(value)
        except ValueError as exc:
            raise click.BadParameter(visible(str(exc)), ctx, param) from None

    return callback


@click.command()
@click.option(
    "--method",
    default=SPEC_METHOD,
    show_default=True,
    callback=_parsed(parse_method),
    metavar="METHOD",
    help="The method, sent as given (GET, DELETE, OPTIONS, ...).",
)
@click.option(
    "--path",
    default=SPEC_PATH,
    show_default=True,
    callback=_parsed(parse_path),
    metavar="PATH",
    help="The path under the base URL, its query string as typed (/openapi.json, /plants?limit=5).",
)
@one_body("--body", metavar="TEXT", help="The body to send, exactly as given (JSON or not).")
@one_body(
    "--body-file",
    type=click.File("rb"),
    metavar="FILE",
    help="Send this file's bytes as the body ('-': standard input); not with --body.",
)
@click.option(
    "--token",
    "token",
    type=click.Choice([choice.value for choice in TokenChoice]),
    default=TokenChoice.PROFILE.value,
    show_default=True,
    help="The target's token, no Authorization header at all, or a fixed wrong token.",
)
@click.option(
    "--header",
    "headers",
    multiple=True,
    callback=_headers,
    metavar="NAME:VALUE",
    help="Add this header (one of the same name, Content-Type, replaces the client's); repeat "
    "for more.",
)
@click.option(
    "--verbose",
    "-v",
    "verbose",
    is_flag=True,
    help="Also print where the time went (connect, TLS, request, first byte, body, total) and "
    "the request and answer as they went on the wire (the token masked).",
)
@click.option(
    "--again",
    callback=probe_named,
    shell_complete=history_entries,
    metavar="pN",
    help="Send probe pN of the history (history --probes) again, as it was kept: to where it "
    "went, unless --profile or --base-url (or $PLANTSTORE_PROFILE, $PLANTSTORE_BASE_URL) names "
    "a target; --method, --path, --body, --header (replacing one of the same name) and --token "
    "given change it. A new probe; the one sent again is left as it was.",
)
@json_option(
    "Print one JSON object: the status, headers, body, time, the spec's verdict, the timings "
    "and the wire.",
    not_run=NOT_SENT,
)
@click.option(
    "--save-case",
    "cases_path",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Append the request to this file of cases, with the status it got as the expectation "
    "(check --expect runs it).",
)
@click.option(
    "--case-name", metavar="NAME", help="With --save-case: the case's name (else one is made)."
)
@click.option(
    "--follow",
    is_flag=True,
    help=f"Follow redirects, up to {MAX_HOPS}, showing each; the token goes only to the base "
    "URL's own origin (as curl --location).",
)
@yes_option("Probe a protected profile without asking.")
@timeout_option(
    3600, "Give up waiting for the answer after this long [default: the profile's, else 30]."
)
@merged_target_options
def probe(
    options: TargetOptions,
    method: str,
    path: str,
    body: str | None,
    body_file: BinaryIO | None,
    token: str,
    headers: tuple[tuple[str, str], ...],
    verbose: bool,
    again: ProbeRef | None,
    as_json: bool,
    cases_path: Path | None,
    case_name: str | None,
    follow: bool,
    yes: bool,
    timeout: float | None,
) -> None:
    """Send one request exactly as given, and read the answer by the spec.

    POST /plants unless --method or --path say otherwise (a request the spec does not describe
    is read by HTTP alone). The body goes byte for byte, valid JSON or not, and may be left out
    of any request but POST /plants; the token is the target's unless --token none or wrong.
    With --again pN, probe pN of the history goes again, as kept but for the options given
    (an Authorization header it was given was kept masked: it is not sent). Prints the
    request (the token as its last 4 characters at most), the status, headers and
    body of the answer, the time, and the spec's reading: the body's shape (Plant, Error,
    neither), whether the spec lists the status, and what it means for a plant; with -v, where
    the time went and the request and answer as they went on the wire. Every
    probe is kept in the history (history --probes), never as a plant. Exits 0 when an answer
    came, whatever its status; 3 when none did; 2 for a usage error; 4 for a configuration
    problem.
    """
    if case_name is not None and cases_path is None:
        raise click.UsageError("--case-name names the case --save-case FILE saves: give both.")
    kept, repeat = None, None
    if again is None:
        in_spec = spec_operation(method, path)
        request = ProbeRequest(
            _body(body, body_file, required=in_spec), TokenChoice(token), headers, method, path
        )
    else:
        kept = kept_probe(again)
        repeat = _sent_again(kept, method, path, body, body_file, token, headers)
        request = repeat.request
        options = named_or_kept(options, os.environ, profile=kept.profile, base_url=kept.base_url)
    # The names the file holds, read before anything is sent (a file that cannot take one more,
    # or a request no case can keep, stops the probe there).
    taken = None if cases_path is None else _case_names(cases_path, case_name)
    problem = None if cases_path is None else unsaveable(request)
    if problem is not None:
        raise InvalidInput(f"Nothing was sent: {problem}")
    # A probe that sends no token of the profile needs none: it is not read.
    try:
        target = resolve_target(options, interactive=not as_json, token_needed=request.sends_token)
    except ConfigProblem as exc:
        if kept is None or kept.profile is None or options.profile != kept.profile:
            raise
        raise ConfigProblem(
            f"{exc.message} ({kept.label} was sent with that profile: name a target with "
            "--profile or --base-url)"
        ) from None
    if kept is not None and repeat is not None:
        _say_again(kept, repeat, target.base_url)
    if target.protected and not yes and request.may_create:
        change = "create a plant" if request.in_spec else "change the deployment"
        confirm_protected(target, f"Send this probe (it may {change}) to", interactive=not as_json)
    if timeout is not None:
        target = with_limits(target, timeout)
    checked_data_dir()  # before it goes: a probe is kept, and a file there is a mistake to fix
    if follow:
        followed = asyncio.run(follow_probe(target, request))
    else:
        followed = Followed((asyncio.run(send_probe(target, request)),))
    answer = followed.last
    if answer.note is not None:
        _warn(answer.note)
    # Every request that went out is kept, each a probe of its own.
    numbers = [record_probe(target, sent, warn=_warn) for sent in followed.answers]
    label = None if numbers[-1] is None else f"{PREFIX}{numbers[-1]}"
    if as_json:
        redirects = {"redirects": followed.to_json()} if follow else {}
        click.echo(json.dumps(answer.to_json() | {"probe": label} | redirects, ensure_ascii=True))
    else:
        for line in followed.words():
            click.echo(visible(line))
        click.echo(render_probe(answer))
        if verbose:
            click.echo(render_verbose(answer))
        if label is not None:
            click.echo(f"  history {label}")
    if cases_path is not None and taken is not None:
        # The request as given, with what it got: `check --expect` follows no redirect.
        first = followed.answers[0]
        _save_case(cases_path, case_name or suggested_name(first, taken), first, quiet=as_json)
    raise SystemExit(ExitCode.CREATED if answer.answered else ExitCode.TRANSPORT_FAILURE)


def _sent_again(
    kept: ProbeEntry,
    method: str,
    path: str,
    body: str | None,
    body_file: BinaryIO | None,
    token: str,
    headers: tuple[tuple[str, str], ...],
) -> Again:
    """The kept probe's request with the options given on the command line in place of its
    parts (an option left at its default is not given)."""
    context = click.get_current_context()

    def given(name: str) -> bool:
        return context.get_parameter_source(name) is not ParameterSource.DEFAULT

    return sent_again(
        kept.request,
        method=method if given("method") else None,
        path=path if given("path") else None,
        body=None if body is None and body_file is None else _body(body, body_file, required=True),
        token=TokenChoice(token) if given("token") else None,
        headers=headers,
    )


def _say_again(kept: ProbeEntry, repeat: Again, base_url: str) -> None:
    """On stderr: which probe goes again and what of it changed, what is left out, and where it
    goes when that is not where it went."""
    _warn(repeat.words(kept.label))
    if repeat.masked is not None:
        _warn(left_out_words(kept.label, repeat.masked, repeat.request.token))
    if base_url != kept.base_url:
        _warn(f"{kept.label} went to {kept.base_url}; this goes to {base_url}.")


def _body(text: str | None, file: BinaryIO | None, *, required: bool) -> bytes:
    if file is not None:
        # click closes the file (never stdin) when the command ends.
        return file.read()
    if text is None and not required:
        return b""
    if text is None:
        raise click.UsageError(
            "Give the body as --body TEXT or --body-file FILE ('-': stdin): POST /plants "
            "takes one (another --method or --path may go without)."
        )
    # Bytes the shell passed that are not UTF-8 go as they came.
    return text.encode("utf-8", errors="surrogateescape")


def _case_names(path: Path, name: str | None) -> frozenset[str]:
    """The names of the file's cases, once it is known to take one more (it loads; `name` is
    free); `InvalidInput` otherwise."""
    if not path.exists():
        return frozenset()
    try:
        names = {case.name for case in load_cases(path)}
    except CasesError as exc:
        raise InvalidInput(f"Nothing was sent: {exc}") from None
    if name is not None and name in names:
        raise InvalidInput(
            f"Nothing was sent: {visible(str(path))} has a case named {visible(name)!r} "
            "already; give --case-name another name."
        )
    return frozenset(names)


def _save_case(path: Path, name: str, answer: ProbeAnswer, *, quiet: bool) -> None:
    """Append the probe as a case; a failure is said on stderr, and the exit code stays the
    probe's (it was sent: 0 when an answer came, 3 when none did)."""
    try:
        case = case_of(name, answer)
        append_case(path, case)
    except CasesError as exc:
        _warn(str(exc))
        return
    if not quiet:
        click.echo(f"Saved as a case in {visible(str(path))}: {visible(case.name)!r}.")


def _warn(message: str) -> None:
    click.echo(visible(message), err=True)


def _header_lines(pairs: tuple[tuple[str, str], ...]) -> list[str]:
    return [
        f"  {visible(name)}: {visible(shorten(value, _HEADER_SHOWN, what=name))}"
        for name, value in pairs
    ]


def _indented(text: str) -> list[str]:
    return [f"    {line}" for line in text.splitlines() or [""]]


def render_probe(answer: ProbeAnswer) -> str:
    """The request and what came back, as plain lines; nothing a server sent reaches the terminal
    raw (escaped by `visible`, bounded as the log bounds it)."""
    request = answer.request
    sent = request.body.decode("utf-8", errors="backslashreplace")
    lines = [
        f"{visible(request.method)} {visible(answer.url + through_words(answer.outcome.proxy))}",
        *_header_lines(answer.sent_headers),
        f"  body ({len(request.body):,} bytes): {visible(shorten(sent, what='the body'))}"
        if request.body or request.in_spec
        else "  no body",
    ]
    timing = "" if answer.elapsed_ms is None else f" in {answer.elapsed_ms:.1f} ms"
    if answer.status is None:
        lines.append(f"No answer{timing}: {visible(answer.outcome.headline)}")
        outcome = answer.outcome
        if isinstance(outcome, Failed) and outcome.remedy:
            lines.append(f"  {visible(outcome.remedy)}")
    else:
        lines.append(f"Answer: {answer.status}{timing}")
        lines.extend(_header_lines(answer.headers))
        if answer.body:
            shown = shown_body(answer.body)
            lines.append("  body:")
            lines.extend(_indented(shown.text))
            lines.extend(f"    ({note})" for note in shown.notes)
    lines.append(f"Reading: {answer.reading.words}")
    if answer.reading.off_spec:
        lines.append("  off spec: " + visible("; ".join(answer.reading.off_spec)))
    return "\n".join(lines)
