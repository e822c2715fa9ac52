"""`check --expect FILE`: each case of a file of expectations sent as a probe and judged.

A case passes when the status is the one expected and, when it names an `error`, the body is the
spec's Error with that code. The check stays safe: a case that expects a 2xx may create a plant,
so it is sent only with `--create`, on the next id of `--ids` (its body's own id replaced), and
the plant it creates is kept in the history as the check's other plants are; a case whose body
is a plant the spec's server stores (a duplicate id) is sent only with `--create`, as written,
and only when its id is one of `--ids`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from pydantic import ValidationError

from plantstore_tui.core.http.cases import Case, error_code, load_cases
from plantstore_tui.core.http.check_report import CaseResult, Verdict
from plantstore_tui.core.http.conformance import against_sent
from plantstore_tui.core.http.probe import (
    ProbeAnswer,
    Shape,
    body_of_json,
    send_probe,
)
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.core.plant.outcome import Created, Failed, Outcome, PlantFate

WITHOUT_CREATE = "expects 2xx: runs only with --create --ids A-B"
RAW_CREATES = (
    "expects 2xx, and its body is raw text whose id cannot be chosen from --ids: give it as "
    "`body` to run it with --create"
)
NO_ID = (
    "expects 2xx, and its body has no integer `id` to take from --ids: sent, it could create a "
    "plant on an id nobody chose"
)
MAY_CREATE = (
    "its body is a valid plant, which a deployment that does not refuse it would store: runs "
    "only with --create, its id in --ids"
)
NOT_REACHED = "not sent: the deployment did not answer the first probe"
CHANGES = (
    "its method may change the deployment (HTTP does not call it safe), with the profile's "
    "token: runs only with --create"
)

# Told each plant a case created (the plant its body holds), as --create's sends are.
OnSent = Callable[[Outcome], None]


@dataclass(frozen=True, slots=True)
class CaseFile:
    """A file of expectations as `check --expect` runs it: its name as given, its cases."""

    name: str
    cases: tuple[Case, ...]

    @classmethod
    def load(cls, path: Path) -> CaseFile:
        """Every case of the file, or CasesError naming the case and what is wrong."""
        return cls(str(path), tuple(load_cases(path)))

    @property
    def creating(self) -> int:
        """How many cases take an id from --ids when run with --create."""
        return sum(1 for case in self.cases if takes_id(case))


def takes_id(case: Case) -> bool:
    """True for a case of POST /plants that expects 2xx and whose body is a table with an
    integer `id`."""
    return (
        case.request.in_spec
        and case.expects_success
        and isinstance(case.body, dict)
        and type(case.body.get("id")) is int
    )


def expected_words(case: Case) -> str:
    """`400 (error 1002)`, or the status alone when no code is expected."""
    return f"{case.status} (error {case.error})" if case.error is not None else str(case.status)


def answer_words(answer: ProbeAnswer) -> str:
    """What came, as short as the expectation: `200 (a Plant)`, `400 (error 1001)`."""
    if answer.status is None:
        return "no answer"
    match answer.reading.shape:
        case Shape.ERROR:
            return f"{answer.status} (error {error_code(answer)})"
        case Shape.PLANT:
            return f"{answer.status} (a Plant)"
    return f"{answer.status} (neither a Plant nor an Error)"


def judged(case: Case, answer: ProbeAnswer, plant_id: int | None = None) -> CaseResult:
    """The case's row: PASS when the status (and the Error's code, when one is expected) came."""
    matched = answer.status == case.status and (
        case.error is None
        or (answer.reading.shape is Shape.ERROR and error_code(answer) == case.error)
    )
    why = answer.reading.words
    if isinstance(answer.outcome, Failed):
        message = answer.outcome.message
        why = f"{message[:1].upper()}{message[1:].rstrip('.')}. {why}"
    seconds = None if answer.elapsed_ms is None else answer.elapsed_ms / 1000
    return CaseResult(
        case.name,
        Verdict.PASS if matched else Verdict.FAIL,
        expected_words(case),
        answer_words(answer),
        "" if matched else why,
        plant_id,
        seconds,
    )


def skipped(case: Case, reason: str) -> CaseResult:
    """The row of a case that was not sent, and why."""
    return CaseResult(case.name, Verdict.SKIP, expected_words(case), why=reason)


def valid_plant_id(case: Case) -> int | None:
    """The id of a case's body when the body is a plant the spec's server stores (None when
    it is not one): sent, it may create that plant, whatever the case expects."""
    try:
        return NewPlant.model_validate_json(case.request.body).id
    except ValidationError:
        return None


def _skip_reason(case: Case, allowed: range | None) -> str | None:
    creating = allowed is not None
    if not case.request.in_spec:
        # No plant of --ids: any method HTTP calls safe goes; another, only when asked to.
        return CHANGES if case.request.may_create and not creating else None
    if not case.expects_success:
        # The check creates nothing without --create, and with it only on the ids of --ids:
        # a case expecting a refusal (a duplicate id) with a body that is a plant is held so.
        plant_id = valid_plant_id(case)
        if plant_id is None or (allowed is not None and plant_id in allowed):
            return None
        if allowed is None:
            return MAY_CREATE
        return f"its body is a valid plant whose id {plant_id} is outside --ids: it could create it"
    if not creating:
        return WITHOUT_CREATE
    if case.body is None:
        return RAW_CREATES
    return None if takes_id(case) else NO_ID


async def run_cases(
    target: Target,
    cases: CaseFile,
    *,
    allowed: range | None = None,
    ids: Iterator[int] | None = None,
    on_sent: OnSent | None = None,
) -> tuple[CaseResult, ...]:
    """Send each case in file order and judge its answer. `allowed`: --create's ids, `ids`:
    those left after its samples (None: without --create, no case whose body is a plant or
    that expects 2xx is sent)."""
    results: list[CaseResult] = []
    for case in cases.cases:
        reason = _skip_reason(case, allowed)
        if reason is not None:
            results.append(skipped(case, reason))
            continue
        request, plant_id = case.request, None
        if ids is not None and takes_id(case):
            plant_id = next(ids)
            request = replace(request, body=body_of_json({**case.body, "id": plant_id}))
        answer = await send_probe(target, request)
        # A plant on an id of --ids is kept whatever came, as --create's are; any other case
        # only when it created one.
        created = answer.reading.fate is PlantFate.CREATED
        if on_sent is not None and (plant_id is not None or created):
            _keep(answer, on_sent)
        results.append(judged(case, answer, plant_id))
    return tuple(results)


def not_sent(cases: CaseFile) -> tuple[CaseResult, ...]:
    """Every case skipped: the deployment did not answer the check's first probe."""
    return tuple(skipped(case, NOT_REACHED) for case in cases.cases)


def _keep(answer: ProbeAnswer, on_sent: OnSent) -> None:
    """Tell `on_sent` of the plant a case sent, as the plant its body holds."""
    try:
        plant = NewPlant.model_validate_json(answer.request.body)
    except ValidationError:
        # Not a plant the ledger can hold (the deployment took a body the spec refuses): the
        # case's row says what came.
        return
    outcome = answer.outcome
    if isinstance(outcome, Created):
        # The client held the answer against a placeholder: held again against the plant sent.
        marks = answer.reading.off_spec + against_sent(plant.to_body(), outcome.plant.as_received())
        on_sent(replace(outcome, sent=plant, off_spec=marks))
    else:
        on_sent(replace(outcome, sent=plant))
