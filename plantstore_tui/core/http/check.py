"""`check`: is this deployment right? Probes of `POST /plants` judged against the spec.

By default every probe sends a body a spec-following server cannot store as a plant (no `name`, or
an `id` that is not an integer), so even a deployment that ignores the token creates nothing; one
that answers 200 anyway fails, and the report says what it accepted. Only `CreatePlan` creates.
"""

from __future__ import annotations

import json
import math
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

import httpx

from plantstore_tui.core.http import check_rows as rows
from plantstore_tui.core.http.check_report import CaseResult, CheckReport, ProbeResult, Verdict
from plantstore_tui.core.http.client import PlantStoreClient, one_connection
from plantstore_tui.core.http.expectations import CaseFile, not_sent, run_cases
from plantstore_tui.core.http.probe_transport import KEEP, ProbeTransport
from plantstore_tui.core.http.target import Limits, Target
from plantstore_tui.core.http.tls import CA_BUNDLE_ADVICE, CABundleError
from plantstore_tui.core.plant.models import NewPlant
from plantstore_tui.core.plant.outcome import Failed, Outcome, Rejected
from plantstore_tui.core.plant.text import plural

# No single probe waits longer than this, whatever the profile allows: the check is bounded.
PROBE_DEADLINE = 10.0
# A p95 past this makes an operator wait at every send: worth a warning, not a failure.
SLOW_P95_MS = 1000.0
_TAG = "plantstore-tui-check"
# Placeholder the client needs to build a request; the probe transport replaces its body.
_PLACEHOLDER = NewPlant(id=0, name="plantstore-tui check")


@dataclass(frozen=True, slots=True)
class CreatePlan:
    """`--create`: send `samples` valid plants, with the first ids of `ids`; the cases of
    `--expect` that expect 2xx take the ids after them."""

    ids: range
    samples: int = 5

    def plants(self) -> list[NewPlant]:
        """The plants to send, named so an operator can find them in the store."""
        return [
            NewPlant(id=plant_id, name=f"plantstore-tui check {plant_id}", tag=_TAG)
            for plant_id in self.ids[: self.samples]
        ]


# Hook for the history journal: called with every Outcome of a --create send, as it arrives.
OnSent = Callable[[Outcome], None]
Judged = tuple[CaseResult, ...]


async def run_check(
    target: Target,
    *,
    create: CreatePlan | None = None,
    on_sent: OnSent | None = None,
    cases: CaseFile | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> CheckReport:
    """Probe the target and judge every answer, then run `cases` (each through its own
    connection); creates plants only with `create`."""
    started, clock = datetime.now(UTC), time.perf_counter()
    limits = target.limits
    limits = Limits(
        connect=min(limits.connect, PROBE_DEADLINE),
        read=min(limits.read, PROBE_DEADLINE),
        deadline=min(limits.deadline, PROBE_DEADLINE),
        max_body=limits.max_body,
    )
    proxy = None if target.proxy is None else target.proxy.url

    def report(
        results: Iterable[ProbeResult], *, reachable: bool = True, judged: Judged | None = None
    ) -> CheckReport:
        # Cases not judged were not sent: the first probe got no answer.
        if judged is None:
            judged = () if cases is None else not_sent(cases)
        return CheckReport(
            target.base_url,
            tuple(results),
            reachable=reachable,
            proxy=proxy,
            started=started,
            seconds=time.perf_counter() - clock,
            cases_file=None if cases is None else cases.name,
            cases=judged,
        )

    if transport is None:
        try:
            transport = one_connection(target)
        except CABundleError as exc:
            return report([ProbeResult("tls", Verdict.FAIL, str(exc), CA_BUNDLE_ADVICE, seconds=0)])
    probe = ProbeTransport(transport)
    async with PlantStoreClient.for_target(target, limits=limits, transport=probe) as client:

        async def send(body: bytes | None, authorization: object = KEEP) -> tuple[Outcome, float]:
            probe.body, probe.authorization = body, authorization
            sent = time.perf_counter()
            outcome = await client.create_plant(_PLACEHOLDER)
            return outcome, time.perf_counter() - sent

        first, seconds = await send(b"{}", None)
        opening = rows.opening(first)
        if opening is not None:
            judged = [_timed(result, seconds) for result in opening]
            return report(judged, reachable=rows.reached(first))
        # Three rows judge the first answer: each is given its time.
        results = [
            _timed(rows.reachable_result(first), seconds),
            _timed(rows.tls_result(target, probe.seen), seconds),
            _timed(
                rows.token_result("no token", "without Authorization", first, probe.seen), seconds
            ),
        ]
        wrong = "Bearer " + _wrong_token(target)
        outcome, seconds = await send(b"{}", wrong)
        result = rows.token_result("wrong token", "with a wrong token", outcome, probe.seen)
        results.append(_timed(result, seconds))
        nameless = json.dumps({"id": 0, "tag": _TAG}).encode()
        outcome, seconds = await send(nameless)
        result = rows.refusal_result("missing name", "without a name", outcome, probe.seen)
        results.append(_timed(result, seconds))
        bad_id = json.dumps({"id": "not-a-number", "name": "plantstore-tui check"}).encode()
        outcome, seconds = await send(bad_id)
        what = "whose id is not an integer"
        result = rows.refusal_result("id not an integer", what, outcome, probe.seen)
        results.append(_timed(result, seconds))
        if create is not None:
            probe.body, probe.authorization = None, KEEP
            results.extend(await _create(client, create, on_sent))
    if cases is None:
        return report(results)
    allowed = ids = None
    if create is not None:
        allowed, ids = create.ids, iter(create.ids[create.samples :])
    capped = replace(target, limits=limits)
    ran = await run_cases(capped, cases, allowed=allowed, ids=ids, on_sent=on_sent)
    return report(results, judged=ran)


def _timed(result: ProbeResult, seconds: float) -> ProbeResult:
    return replace(result, seconds=seconds)


def _wrong_token(target: Target) -> str:
    while True:
        token = secrets.token_urlsafe(24)
        if token != target.token.get_secret_value():
            return token


async def _create(
    client: PlantStoreClient, plan: CreatePlan, on_sent: OnSent | None
) -> list[ProbeResult]:
    problems: list[str] = []
    latencies: list[float] = []
    plants = plan.plants()
    seconds = 0.0
    for plant in plants:
        sent = time.perf_counter()
        outcome = await client.create_plant(plant)
        seconds += time.perf_counter() - sent
        if on_sent is not None:
            on_sent(outcome)
        if outcome.elapsed_ms is not None and outcome.status is not None:
            latencies.append(outcome.elapsed_ms)
        problem = _create_problem(plant, outcome)
        if problem is not None:
            problems.append(problem)
            # One refused or lost plant says enough; the rest could only repeat it.
            break
    if problems:
        created = ProbeResult(
            "create",
            Verdict.FAIL,
            "; ".join(problems),
            "A valid plant should be answered 200 with the Plant as sent (application/json). "
            "If the id was taken, choose a free --ids range.",
        )
    else:
        created = ProbeResult(
            "create",
            Verdict.PASS,
            f"{plural(len(plants), 'plant')} created (ids {plants[0].id}-{plants[-1].id}), each "
            "answered 200 with a Plant echoing its name and tag",
        )
    judged = [created, _latency(latencies)] if latencies else [created]
    # Both rows judge the same sends.
    return [_timed(result, seconds) for result in judged]


def _create_problem(plant: NewPlant, outcome: Outcome) -> str | None:
    if isinstance(outcome, Failed):
        return f"plant {plant.id}: {outcome.message}"
    if isinstance(outcome, Rejected):
        return f"plant {plant.id} was refused: {outcome.headline}"
    # The client's marks hold the Plant against the plant sent (name, tag, id), as `add` does.
    if outcome.off_spec:
        return f"plant {plant.id} was created, but " + "; ".join(outcome.off_spec)
    return None


def _percentile(values: list[float], fraction: float) -> float:
    # Nearest rank: a real measured value, never one interpolated between two sends.
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def _latency(latencies: list[float]) -> ProbeResult:
    figures = {
        "p50_ms": round(_percentile(latencies, 0.5), 1),
        "p95_ms": round(_percentile(latencies, 0.95), 1),
        "max_ms": round(max(latencies), 1),
        "samples": float(len(latencies)),
    }
    seen = (
        f"p50 {figures['p50_ms']:.1f} ms, p95 {figures['p95_ms']:.1f} ms, "
        f"max {figures['max_ms']:.1f} ms over {plural(len(latencies), 'send')}"
    )
    if figures["p95_ms"] > SLOW_P95_MS:
        return ProbeResult(
            "latency",
            Verdict.WARN,
            seen,
            "Operators wait this long at every send: look at the deployment's load.",
            figures,
        )
    return ProbeResult("latency", Verdict.PASS, seen, figures=figures)


def with_limits(target: Target, deadline: float) -> Target:
    """The target with every wait capped at `deadline` seconds (`check --timeout`)."""
    limits = target.limits
    capped = Limits(
        connect=min(limits.connect, deadline),
        read=min(limits.read, deadline),
        deadline=deadline,
        max_body=limits.max_body,
    )
    return replace(target, limits=capped)
