"""What `import` shows while it sends and when it ends: a progress bar on a terminal, a summary."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    TaskProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)
from rich.progress import Progress as RichProgress

from plantstore_tui.cli.exits import ExitCode
from plantstore_tui.core.importing.results import StopReason, stop_words
from plantstore_tui.core.plant.text import plural, visible
from plantstore_tui.core.store.records import PlantState

if TYPE_CHECKING:
    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.importing.results import ImportProgress, RowResult
    from plantstore_tui.core.sending.state import Unreachable


class Progress:
    """A live bar on stderr when it is a terminal; nothing at all otherwise (no escape codes)."""

    def __init__(self, total: int, bar: Any | None) -> None:
        self._total = total
        self._bar = bar
        self._task: Any = None

    @classmethod
    def for_terminal(cls, total: int, *, enabled: bool) -> Progress:
        """A bar if stderr is a terminal and `enabled`."""
        if not (enabled and sys.stderr.isatty()):
            return cls(total, None)
        bar = RichProgress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[counts]}"),
            TextColumn("{task.fields[rate]}"),
            TimeRemainingColumn(),
            console=Console(stderr=True, highlight=False),
            transient=False,
        )
        return cls(total, bar)

    def __enter__(self) -> Progress:
        if self._bar is not None:
            self._bar.start()
            self._task = self._bar.add_task("import", total=self._total, counts="", rate="")
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    def update(self, progress: ImportProgress) -> None:
        """Show the counts so far."""
        if self._bar is None:
            return
        counts = (
            f"✔ {progress.created}  ✖ {progress.rejected}  ⚠ {progress.failed + progress.refused}  "
            f"? {progress.unknown}"
        )
        self._bar.update(
            self._task,
            completed=progress.settled,
            counts=counts,
            rate=f"{progress.rate:,.0f}/s",
        )

    def show_wait(self, waiting: Unreachable | None, *, changed: bool = True) -> None:
        """The deployment is waited for (or answers again): a line on stderr when it changes,
        and the bar's words, counting down, until it answers."""
        if self._bar is not None:
            words = "import" if waiting is None else f"waiting: {waiting.words()}"
            self._bar.update(self._task, description=words)
        if not changed:
            return
        if waiting is not None:
            self.note(f"Waiting: {waiting.words()} (Ctrl+C stops).")
        else:
            self.note("The deployment answers again: going on.")

    def note(self, text: str) -> None:
        """A line above the bar (or on stderr without one)."""
        if self._bar is not None:
            self._bar.console.print(text, markup=False, highlight=False)
        else:
            click.echo(text, err=True)


def summary_exit_code(progress: ImportProgress, reason: StopReason) -> int:
    """3 stopped (a refused token, server errors in a row, the deployment out of reach), or rows
    left unsettled (not sent after a failure or a refused token, unknown, sent now or left out
    by a resume, or never sent); 1 some rejected; 0 every row sent was created."""
    if reason is not StopReason.DONE or progress.unsettled:
        return ExitCode.TRANSPORT_FAILURE
    if progress.rejected:
        return ExitCode.REJECTED
    return ExitCode.CREATED


def print_summary(
    *,
    source_name: str,
    target: Target,
    progress: ImportProgress,
    results: Sequence[RowResult],
    reason: StopReason,
    interrupted: bool,
    problem: str | None,
    as_json: bool,
    sha256: str,
    batch: int,
) -> None:
    """The end of an import: counts that add up to the file's rows, the rows that need looking
    at, how to go on."""
    name = visible(source_name)
    resume = f"plantstore-tui import {name} --resume"
    if as_json:
        click.echo(
            json.dumps(
                {
                    "file": source_name,
                    "sha256": sha256,
                    "batch": batch,
                    "base_url": target.base_url,
                    "profile": target.profile,
                    "proxy": None if target.proxy is None else target.proxy.url,
                    "rows": progress.rows,
                    "skipped": progress.done_before + progress.unknown_skipped,
                    "done_before": progress.done_before,
                    "unknown_skipped": progress.unknown_skipped,
                    "created_before": progress.created_before,
                    "to_send": progress.to_send,
                    "created": progress.created,
                    "created_off_spec": progress.created_off_spec,
                    "rejected": progress.rejected,
                    "failed": progress.failed,
                    "unknown": progress.unknown,
                    "refused": progress.refused,
                    "not_sent": progress.not_sent,
                    "not_recorded": {
                        state.value: count for state, count in progress.not_recorded.items()
                    },
                    "retries": progress.retries,
                    "stopped": None if reason is StopReason.DONE else reason.value,
                    "problem": problem,
                    "interrupted": interrupted,
                    "seconds": round(progress.seconds, 3),
                    "rate": round(progress.rate, 1),
                },
                ensure_ascii=True,
            )
        )
        return
    click.echo(
        f"{name} ({plural(progress.rows, 'row')}) -> {visible(target.base_url)}: "
        f"{progress.counts()} in {progress.seconds:.1f} s ({progress.rate:,.0f} rows/s)"
    )
    for result in sorted(results, key=lambda result: result.line):
        click.echo(
            f"  {name}:{result.line}: id {result.plant_id}: "
            # A refused row's words say what it is ("not sent: the token was refused").
            f"{'' if result.refused else result.state.value + ': '}{visible(result.words)}"
        )
    shown = len(results)
    others = progress.rejected + progress.failed + progress.unknown + progress.refused
    others += progress.created_off_spec - shown
    if others > 0:
        click.echo(f"  ... and {others} more (--report FILE lists every row)")
    stopped = stop_words(reason, progress, source_name, f"run {resume}")
    if problem is not None:
        click.echo(f"Stopped on {visible(problem)}. Once it is dealt with: {resume}")
    elif stopped is not None:
        click.echo(stopped)
    elif reason is StopReason.TRANSPORT:
        click.echo(
            "Stopped: the deployment stopped taking plants (unreachable or busy past "
            "--give-up-after, or failures of unknown fate in a row). "
            f"Once it answers again: {resume}"
        )
    elif interrupted or progress.not_sent:
        click.echo(f"Stopped before the end. To send the rows not yet sent: {resume}")
    unrecorded = progress.not_recorded.total()
    if unrecorded:
        click.echo(
            f"The ledger could not record what came of {plural(unrecorded, 'row')} "
            f"({_not_recorded_words(progress)}): it holds them as of unknown fate, so "
            "--resume leaves them out (--resend-unknown would send the created ones twice)."
        )
    unknown = progress.unknown + progress.unknown_skipped - unrecorded
    if unknown:
        them = "it" if unknown == 1 else "them"
        click.echo(
            f"{plural(unknown, 'row')} may or may not have been created: --resume leaves "
            f"{them} out (check the store; --resume --resend-unknown sends {them} again)."
        )


def _not_recorded_words(progress: ImportProgress) -> str:
    """`16 created, 2 never sent`: what came of the rows the ledger could not be told."""
    words = {PlantState.QUEUED: "never sent", PlantState.FAILED: "not sent after a failure"}
    return ", ".join(
        f"{count:,} {words.get(state, state.value)}"
        for state, count in sorted(progress.not_recorded.items())
    )
