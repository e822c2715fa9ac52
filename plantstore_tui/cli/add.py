"""`plantstore-tui add`: send one plant from the command line."""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

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
from plantstore_tui.core.config.options import chosen_ad_hoc_url
from plantstore_tui.core.http.client import PlantStoreClient
from plantstore_tui.core.http.proxy import through_words
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.plant.form import FormErrors, FormTexts
from plantstore_tui.core.plant.id_range import IdRange, range_warning
from plantstore_tui.core.plant.models import NewPlant, parse_new_plant
from plantstore_tui.core.plant.outcome import (
    Created,
    Failed,
    Outcome,
    Rejected,
    fate_sentence,
    not_processed,
    outcome_to_json,
)
from plantstore_tui.core.plant.text import BLOCK_SHOWN, bounded_json, shorten, visible
from plantstore_tui.core.sending.next_id import reserve_next_free_id
from plantstore_tui.core.sending.waiting import DeploymentWait
from plantstore_tui.core.store.database import StoreError
from plantstore_tui.core.store.recorder import Recorder
from plantstore_tui.core.store.settings import duplicate_warning

if TYPE_CHECKING:
    from plantstore_tui.core.sending.state import Unreachable


# The keys of `add --json` when the run ended without an answer to say (usage, invalid input,
# configuration, interrupted): no fate is known to be said.
NOT_SENT: dict[str, Any] = {
    "status": None,
    "elapsed_ms": None,
    "sent": None,
    "plant": None,
    "error": None,
    "kind": None,
    "fate": None,
    "off_spec": [],
    "proxy": None,
    "entry": None,
    "next_id": None,
}


@click.command()
@click.option("--name", required=True, help="The plant's name.")
@click.option(
    "--id",
    "id_text",
    metavar="ID",
    help="The plant's id (an int64). Without it, the next free id of the profile's ids.",
)
@click.option("--tag", default="", help="The plant's tag (optional).")
@json_option(not_run=NOT_SENT)
@yes_option("Send to a protected profile without asking.")
@timeout_option(
    3600, "Give up waiting for the answer after this long [default: the profile's, else 30]."
)
@click.option(
    "--wait",
    type=click.FloatRange(0, 86_400),
    default=0,
    show_default=True,
    metavar="SECONDS",
    help="While the deployment cannot be reached (or answers 429 or 503), try again for this "
    "long, saying so on stderr; 0 fails at once. A plant that may have arrived is never sent "
    "again.",
)
@merged_target_options
def add(
    options: TargetOptions,
    name: str,
    id_text: str | None,
    tag: str,
    as_json: bool,
    yes: bool,
    timeout: float | None,
    wait: float,
) -> None:
    """Add one plant to the store.

    Exits 0 created, 1 rejected by the server, 2 invalid input (nothing sent),
    3 transport failure, 4 configuration problem, 130 interrupted.
    """
    if id_text is not None and not id_text.strip():
        # An empty --id is most often a script's unset variable: never taken for a missing one,
        # which would send the plant with an id nobody chose.
        raise InvalidInput(
            "Nothing was sent: --id is empty. Give the plant's id, or leave --id out to take "
            "the next free id of the profile's ids."
        )
    # Without --id, the name and tag are checked first all the same (with a stand-in id).
    parsed = _parsed(name, "0" if id_text is None else id_text, tag)
    if id_text is None and chosen_ad_hoc_url(options, os.environ) is not None:
        raise _missing_id()  # no profile, so no range of ids
    target = resolve_target(options, interactive=not as_json)
    say_token_note(target)
    if id_text is None and target.ids is None:
        raise _missing_id()
    if timeout is not None:
        limits = target.limits
        limits = replace(limits, deadline=timeout, read=min(limits.read, timeout))
        target = replace(target, limits=limits)
    checked_data_dir()  # a file there is a mistake to fix, not a history to turn off
    recorder = Recorder.open("add", target.profile, warn=_warn)
    next_id = None
    try:
        if id_text is None and target.ids is not None:
            next_id = _next_id(recorder, target.base_url, target.ids)
            id_text = str(next_id)
            parsed = _parsed(name, id_text, tag)
            if not as_json:
                click.echo(f"Next free id of {target.ids}: {next_id}.")
        if target.ids is not None and (said := range_warning(target.ids, parsed.id)):
            _warn(f"Warning: {said}")
        if target.protected and not yes:
            question = f"Send plant {parsed.id} ({visible(parsed.name)}) to"
            confirm_protected(target, question, interactive=not as_json)
        warning = duplicate_warning(recorder.earlier_sends(target.base_url, parsed.id))
        if warning is not None:
            # Said, not refused: the store may have lost it, or the operator means to see it.
            _warn(f"Warning: {warning}; sending it anyway.")
        texts = FormTexts(name=name, id=id_text or "", tag=tag)
        outcome, entry = asyncio.run(_send(target, parsed, texts, recorder, wait))
    finally:
        recorder.close()
    # A profile whose history is off keeps no row once the plant is settled.
    kept = entry if recorder.keeps else None
    if as_json:
        answer = outcome_to_json(outcome) | {"entry": kept, "next_id": next_id}
        click.echo(json.dumps(answer, ensure_ascii=True))
    else:
        click.echo(render_outcome(outcome))
        if kept is not None:
            click.echo(f"  history #{kept}")
    raise SystemExit(exit_code_of(outcome))


def _parsed(name: str, id_text: str, tag: str) -> NewPlant:
    parsed = parse_new_plant(name=name, id=id_text, tag=tag)
    if isinstance(parsed, FormErrors):
        raise InvalidInput(
            "Nothing was sent: " + "; ".join(parsed.errors[field] for field in parsed.errors)
        )
    return parsed


def _missing_id() -> click.MissingParameter:
    """click's own words for a missing --id, as when --id was required of every run."""
    context = click.get_current_context()
    option = next(param for param in context.command.params if param.name == "id_text")
    return click.MissingParameter(ctx=context, param=option)


def _next_id(recorder: Recorder, base_url: str, ids: IdRange) -> int:
    """The next free id of `ids` on the target, read from the ledger; `InvalidInput` (nothing
    sent) when the ledger cannot be read or no id of the range is left."""
    unread = f"the ids taken in {ids} cannot be read from the ledger"
    if recorder.ledger is None:
        raise _no_id(unread)
    try:
        found = reserve_next_free_id(recorder.ledger, base_url, ids=ids)
    except StoreError as exc:
        raise _no_id(f"{unread}: {exc}") from None
    if found is None:
        raise _no_id(f"no id is left in {ids}")
    return found


def _no_id(problem: str) -> InvalidInput:
    return InvalidInput(
        f"Nothing was sent: {visible(problem)}. Give --id, or give the profile another range "
        "(plantstore-tui profile edit NAME --ids FIRST-LAST)."
    )


def _warn(message: str) -> None:
    click.echo(visible(message), err=True)


async def _send(
    target: Target, plant: NewPlant, texts: FormTexts, recorder: Recorder, wait: float
) -> tuple[Outcome, int | None]:
    """Send, and again while the deployment did not take the plant, for `wait` seconds; each
    try is in the plant's one row (sending, then settled) before the next goes. The last
    outcome and the row's entry."""
    until = datetime.now().astimezone() + timedelta(seconds=wait)

    def told(waiting: Unreachable | None) -> None:
        if waiting is not None:
            _warn(f"Waiting: {waiting.words()} (at most until {until:%H:%M:%S}).")

    waits = DeploymentWait(wait, told)
    # One row for the plant, however many tries: each goes out marked in it, and is settled in
    # it (a run killed while waiting leaves it failed: certainly not created).
    entry = recorder.begin(target, plant, texts)
    async with PlantStoreClient.for_target(target) as client:
        while True:
            outcome = await client.create_plant(plant)
            recorder.settle(entry, outcome, target)
            if not not_processed(outcome) or not waits.not_taken(outcome, tried=True):
                return outcome, entry
            await asyncio.sleep(waits.seconds_left())
            recorder.again(entry)


def exit_code_of(outcome: Outcome) -> ExitCode:
    """0 created, 1 rejected, 3 failed."""
    match outcome:
        case Created():
            return ExitCode.CREATED
        case Rejected():
            return ExitCode.REJECTED
        case Failed():
            return ExitCode.TRANSPORT_FAILURE


def render_outcome(outcome: Outcome) -> str:
    """Plain words for a terminal; nothing from the server can move the cursor or set colours."""
    timing = "" if outcome.elapsed_ms is None else f" in {outcome.elapsed_ms:.1f} ms"
    answered = f"{outcome.status}{timing}" if outcome.status is not None else f"no answer{timing}"
    where = visible(outcome.url + through_words(outcome.proxy))
    lines = [visible(outcome.headline), f"  POST {where}: {answered}"]
    match outcome:
        case Created():
            # Each text cut to a few hundred characters, each cut named (--json has them whole).
            fields, cuts = bounded_json(outcome.plant.as_received())
            for key, value in fields.items():
                shown = shorten(json.dumps(value, ensure_ascii=False), BLOCK_SHOWN)
                lines.append(f"  {visible(key)}: {visible(shown)}")
            lines.extend(f"  ({visible(cut)})" for cut in cuts)
        case Rejected() if outcome.error is None and outcome.body:
            lines.append("  body: " + visible(shorten(outcome.body, what="the body")))
        case Failed() if outcome.body:
            lines.append("  body: " + visible(shorten(outcome.body, what="the body")))
        case _:
            pass
    if outcome.off_spec:
        lines.append("  off spec: " + visible("; ".join(outcome.off_spec)))
    if not isinstance(outcome, Created):
        lines.append(fate_sentence(outcome.fate) + " " + visible(outcome.advice))
    return "\n".join(lines)
