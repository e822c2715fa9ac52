"""`import` sending a planned batch through the one runner: Ctrl+C, the report file, the bar and
the summary around it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from plantstore_tui.cli.exits import InvalidInput
from plantstore_tui.cli.import_progress import Progress, print_summary, summary_exit_code
from plantstore_tui.core.http.client import PlantStoreClient
from plantstore_tui.core.importing.results import RowResult, StopReason
from plantstore_tui.core.importing.runner import ImportRunner

if TYPE_CHECKING:
    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.importing.plan import ImportLedger, ImportPlan, ImportRow
    from plantstore_tui.core.importing.results import ImportSettings
    from plantstore_tui.core.store.records import PlantState

# Rows that did not go through, listed in the summary; --report lists every one.
_SHOWN_RESULTS = 20
# How long rows in flight may settle after Ctrl+C before they are abandoned as unknown.
_GRACE_SECONDS = 5.0
_INTERRUPTED = 130


def send_file(
    name: str,
    rows: Callable[[], Iterable[ImportRow]],
    target: Target,
    store: ImportLedger,
    plan: ImportPlan,
    settings: ImportSettings,
    report: Path | None,
    as_json: bool,
) -> int:
    """Send the plan's rows, print the summary; the exit code."""
    progress = plan.progress()
    report_file = None
    if report is not None:
        try:
            report_file = report.open("w", encoding="utf-8")
        except OSError as exc:
            raise InvalidInput(
                f"--report {report}: {exc.strerror or exc}; nothing was sent"
            ) from None
    display = Progress.for_terminal(plan.to_send, enabled=not as_json)
    results: list[RowResult] = []

    def on_result(result: RowResult) -> None:
        progress.count(result)
        if report_file is not None:
            report_file.write(json.dumps(result.to_json(), ensure_ascii=True) + "\n")
        if result.to_look_at and len(results) < _SHOWN_RESULTS:
            results.append(result)
        display.update(progress)

    try:
        with display:
            reason, interrupted, problem, unrecorded = asyncio.run(
                _send_all(rows, target, store, plan, settings, on_result, display)
            )
        # Counted as the ledger holds them: an import's counts never disagree with its ledger.
        progress.unrecorded(unrecorded)
    finally:
        progress.ended = time.monotonic()
        if report_file is not None:
            report_file.close()
    print_summary(
        source_name=name,
        target=target,
        progress=progress,
        results=results,
        reason=reason,
        interrupted=interrupted,
        problem=problem,
        as_json=as_json,
        sha256=plan.batch.sha256,
        batch=plan.batch.id,
    )
    return _INTERRUPTED if interrupted else summary_exit_code(progress, reason)


async def _send_all(
    rows: Callable[[], Iterable[ImportRow]],
    target: Target,
    store: ImportLedger,
    plan: ImportPlan,
    settings: ImportSettings,
    on_result: Callable[[RowResult], None],
    display: Progress,
) -> tuple[StopReason, bool, str | None, list[PlantState]]:
    async with PlantStoreClient.for_target(target) as client:
        ledger = store.ledger.for_target(target.token)
        runner = ImportRunner(
            client, ledger, plan, settings, on_result, keep=store.keep, on_wait=display.show_wait
        )
        task = asyncio.ensure_future(runner.run(rows()))
        interrupts = _on_ctrl_c(runner, task, display)
        countdown = asyncio.ensure_future(_count_down(runner, display))
        try:
            reason = await task
        except asyncio.CancelledError:
            reason = StopReason.STOPPED
        finally:
            countdown.cancel()
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                asyncio.get_running_loop().remove_signal_handler(signal.SIGINT)
        return reason, interrupts[0] > 0, runner.problem, runner.unrecorded


async def _count_down(runner: ImportRunner, display: Progress) -> None:
    """The bar's "next try in N s", a second at a time while the deployment is waited for."""
    while True:
        await asyncio.sleep(1)
        if runner.waiting is not None:
            display.show_wait(runner.waiting, changed=False)


def _on_ctrl_c(
    runner: ImportRunner, task: asyncio.Future[StopReason], display: Progress
) -> list[int]:
    """Ctrl+C stops taking rows; a second one (or the grace running out) gives up on the rows in
    flight. The number of Ctrl+C so far, in a list the handler updates."""
    loop = asyncio.get_running_loop()
    interrupts = [0]

    def interrupted() -> None:
        interrupts[0] += 1
        runner.stop()
        if interrupts[0] == 1:
            display.note(
                f"Stopping: no more rows are sent; {runner.in_flight} in flight may settle for up "
                f"to {_GRACE_SECONDS:g} s (Ctrl+C again to give up on them)."
            )
            loop.call_later(_GRACE_SECONDS, task.cancel)
        else:
            task.cancel()

    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGINT, interrupted)
    return interrupts
