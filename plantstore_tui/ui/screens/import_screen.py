"""Import (F5): plants from a CSV, TSV or JSON Lines file, checked whole, confirmed, then sent.

The same core as `plantstore-tui import`: the file is validated in a thread (nothing is sent
while any row is bad), the ledger says whether this file went to this target before (resume or
restart, never a row twice), and the one `ImportRunner` sends in an async worker, writing every
row to the ledger (source import, its batch and line), while a progress bar counts. The rows
that did not go through can each be loaded into the form to fix and send.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import (
    Button,
    ContentSwitcher,
    DirectoryTree,
    Footer,
    Input,
    OptionList,
    Select,
    Static,
)
from textual.worker import Worker, WorkerState

from plantstore_tui.core.http.client import PlantStoreClient
from plantstore_tui.core.importing import (
    BatchesChanged,
    BatchInUse,
    CheckedFile,
    FileProblem,
    ImportFormat,
    ImportLedger,
    ImportPlan,
    ImportProgress,
    ImportRunner,
    ImportSettings,
    RowResult,
    StopReason,
    check_file,
    file_stamp,
    left_out,
    plan_import,
    rows_to_send,
)
from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.plant.text import visible
from plantstore_tui.core.store import PlantState, StoreError
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.ordered_input import OrderedScreen
from plantstore_tui.ui.screens.import_question import import_question
from plantstore_tui.ui.screens.import_verdict import Verdict, verdict_of
from plantstore_tui.ui.widgets.import_file import ImportFileTree, PathSuggester
from plantstore_tui.ui.widgets.import_run import ImportRun, summary_lines
from plantstore_tui.ui.widgets.typed_input import TypedInput

# Imports inside functions below bring httpx, Pydantic or SQLite: they load after the first
# frame, when first used (the start's budget: benchmarks/README.md).

if TYPE_CHECKING:
    from plantstore_tui.core.http.target import Target

LoadPlant = Callable[[FormTexts, bool], bool]
"""(a row's texts, may it exist already?) -> whether it was loaded into the form."""

_AUTO = "auto"
_FORMATS = [("From the extension", _AUTO), ("CSV", "csv"), ("TSV", "tsv"), ("JSON Lines", "jsonl")]
# Rows that did not go through, listed to load back; the rest are counted.
_SHOWN_RESULTS = 1000
# How long rows in flight may settle after Esc before they are abandoned as unknown (as the CLI).
_GRACE_SECONDS = 5.0
# Counts are drawn a few times a second, not once a row: thousands of rows a second would
# otherwise spend the UI's time on repaints.
_REDRAW_SECONDS = 0.2


class ImportScreen(OrderedScreen[None]):
    """Choose a file, check it, confirm, watch it sent, then deal with the rows that failed.

    Its keys are applied in order (`OrderedScreen`): a path and Enter typed in one go check
    that path, whole."""

    CSS_PATH = "../import.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "stop_or_close", "Stop / close", id="import.stop_or_close"),
        Binding("ctrl+s", "send", "Send", id="import.send"),
    ]

    def __init__(self, target: Target, load: LoadPlant, *, directory: Path | None = None) -> None:
        super().__init__()
        self._target = target
        self._load = load
        self._directory = directory or Path()
        self._checks = 0
        self._checked: CheckedFile | None = None
        self._runner: ImportRunner | None = None
        self._run: asyncio.Future[StopReason] | None = None
        self._abandoned = False
        self._sending: CheckedFile | None = None
        self._started = False
        self.progress: ImportProgress | None = None
        """The counts of the import being (or last) sent."""
        self.results: list[RowResult] = []
        """Rows that did not go through (the first ones), each with its texts to load back."""
        self._unlisted = 0

    def compose(self) -> ComposeResult:
        """The target; the chooser and the check's verdict; then the progress and summary."""
        target = self._target
        title = Static(
            Text("Import plants to " + TargetLabel.of(target).describe(target.token_hint())),
            id="import-title",
        )
        title.set_class(target.protected, "-protected")
        yield title
        with ContentSwitcher(initial="import-choose", id="import-stages"):
            with Horizontal(id="import-choose"):
                tree = ImportFileTree(self._directory, id="import-tree")
                tree.border_title = "CSV, TSV, JSON Lines here"
                yield tree
                with Vertical(id="import-side"):
                    with Horizontal(id="import-file-row"):
                        # Whole at 80 columns; the tree beside it says a file can be picked.
                        yield TypedInput(
                            placeholder="Path (→ completes)",
                            suggester=PathSuggester(self._directory),
                            id="import-path",
                        )
                        yield Select(_FORMATS, value=_AUTO, allow_blank=False, id="import-format")
                    with Horizontal(id="import-buttons"):
                        yield Button("Check file", id="import-check")
                        yield Button("Send…", id="import-send", variant="primary", disabled=True)
                    yield Static(id="import-verdict")
                    with VerticalScroll(id="import-problems-scroll"):
                        yield Static(id="import-problems")
            yield ImportRun(id="import-sending")
        yield Footer()

    def on_mount(self) -> None:
        """The cursor in the path."""
        # At once, not after the next messages: a key read meanwhile lands in this field.
        self.set_focus(self.query_one("#import-path", Input))

    # Choosing and checking the file -----------------------------------------------------------

    @on(DirectoryTree.FileSelected)
    def _picked(self, event: DirectoryTree.FileSelected) -> None:
        event.stop()
        # Shown as typed would be: relative to the folder listed, which the tree resolves.
        path, base = event.path, self._directory.resolve()
        if path.is_relative_to(base):
            path = path.relative_to(base)
        self.query_one("#import-path", Input).value = str(path)
        self.action_check()

    @on(Input.Submitted, "#import-path")
    @on(Button.Pressed, "#import-check")
    def _check_asked(self, event: Input.Submitted | Button.Pressed) -> None:
        event.stop()
        self.action_check()

    @on(Select.Changed, "#import-format")
    def _format_changed(self, event: Select.Changed) -> None:
        event.stop()
        if self.query_one("#import-path", Input).value.strip():
            self.action_check()

    @on(Input.Changed, "#import-path")
    def _path_changed(self, event: Input.Changed) -> None:
        # What was checked is no longer what the path says: it must be checked again.
        if self._checked is not None and event.value.strip() != self._checked.name:
            self._show_checked(None)

    def action_check(self) -> None:
        """Validate the file the path names, in a thread; a newer check replaces an older one."""
        name = self.query_one("#import-path", Input).value.strip()
        if not name:
            self._verdict(Text("Choose a file: type its path, or pick one on the left."))
            return
        self._checks += 1
        self._show_checked(None)
        self._verdict(Text(f"Checking {visible(name)}…"))
        choice = self.query_one("#import-format", Select).value
        given = None if choice == _AUTO else ImportFormat(str(choice))
        self.run_worker(
            partial(self._check_file, self._checks, name, given),
            thread=True,
            name="check-file",
            group="check-file",
            exclusive=True,
            exit_on_error=False,
        )

    def _check_file(
        self, number: int, name: str, given: ImportFormat | None
    ) -> tuple[int, CheckedFile]:
        # In a thread: the number tells the latest check from one it replaced.
        return number, check_file(name, self._directory, given, self._target.base_url)

    def _verdict(self, text: Text, kind: str = "") -> None:
        verdict = self.query_one("#import-verdict", Static)
        verdict.update(text)
        for name in ("-ok", "-bad"):
            verdict.set_class(kind == name, name)

    def _show_checked(self, checked: CheckedFile | None) -> None:
        self._checked = checked if checked is not None and checked.sendable else None
        send = self.query_one("#import-send", Button)
        send.disabled = self._checked is None
        verdict = Verdict(Text(), "") if checked is None else verdict_of(checked)
        self.query_one("#import-problems", Static).update(verdict.problems or "")
        self.query_one("#import-problems-scroll").set_class(verdict.problems is not None, "-shown")
        self._verdict(verdict.text, verdict.kind)
        if self._checked is not None:
            send.focus()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A check's result (the latest only), the end of sending, or the bug that stopped one."""
        worker, state = event.worker, event.state
        if worker.name == "check-file" and state == WorkerState.SUCCESS:
            assert isinstance(worker.result, tuple)
            number, checked = worker.result
            if number == self._checks:
                self._show_checked(checked)
        elif worker.name == "check-file" and state == WorkerState.ERROR:
            name = type(worker.error).__name__
            self._verdict(Text(f"The check stopped on an unexpected error: {name}"), "-bad")
        elif worker.name == "import-send" and state == WorkerState.SUCCESS:
            ended = worker.result
            assert isinstance(ended, StopReason | str)
            self._finished(ended)
        elif worker.name == "import-send" and state == WorkerState.ERROR:
            error = worker.error
            self._finished(f"an unexpected error: {type(error).__name__}: {error}")

    # Confirming -------------------------------------------------------------------------------

    def action_send(self) -> None:
        """Ask first: the target, the count, and resume or restart if it was sent there before."""
        checked = self._checked
        if checked is None or checked.validation is None or self._started:
            return
        self.app.push_screen(import_question(self._target, checked, self._answered))

    def _answered(self, choice: str) -> None:
        checked = self._checked
        if choice == "cancel" or checked is None:
            return
        try:
            changed = file_stamp(checked.path) != checked.stamp
        except OSError:
            changed = True
        if changed:
            self._show_checked(None)
            self._verdict(
                Text(f"{visible(checked.name)} changed since it was checked: check it again."),
                "-bad",
            )
            return
        self._started = True
        verb = "Resuming" if choice == "resume" else "Sending"
        self._sending = checked
        self._stage.start(f"{verb} {visible(checked.name)} to {visible(self._target.base_url)}")
        self.query_one(ContentSwitcher).current = "import-sending"
        self._send_rows(checked, resume=choice == "resume")

    # Sending ----------------------------------------------------------------------------------

    @work(name="import-send", group="import-send", exclusive=True, exit_on_error=False)
    async def _send_rows(self, checked: CheckedFile, *, resume: bool) -> StopReason | str:
        assert checked.validation is not None
        assert checked.fmt is not None
        try:
            earlier = None if checked.earlier is None else checked.earlier.batch
            # The file's rows, so that those whose ids the ledger knows as created there stay out.
            rows = partial(rows_to_send, checked.open, checked.fmt, None, frozenset())
            store, plan = await asyncio.to_thread(
                partial(plan_import, resume=resume, rows=rows),
                self._target,
                checked.name,
                checked.validation,
                earlier,
            )
        except StoreError as exc:
            # Without the ledger a stopped import could not resume without sending rows twice.
            return f"the ledger cannot be used: {exc}"
        except (BatchInUse, BatchesChanged) as exc:
            return exc.reason
        except FileProblem as exc:
            return exc.where(visible(checked.name))
        try:
            return await self._send_plan(store, plan, checked)
        finally:
            store.close()

    async def _send_plan(
        self, store: ImportLedger, plan: ImportPlan, checked: CheckedFile
    ) -> StopReason | str:
        assert checked.fmt is not None
        target = self._target
        self.progress = plan.progress()
        if not plan.resend_unknown:
            self.results = [left_out(row) for row in plan.unknown[:_SHOWN_RESULTS]]
            self._unlisted = max(0, len(plan.unknown) - _SHOWN_RESULTS)
        rows = plan.rows(checked.open, checked.fmt)
        async with PlantStoreClient.for_target(target) as client:
            ledger = store.ledger.for_target(target.token)
            runner = ImportRunner(
                client, ledger, plan, ImportSettings(), self._settled, keep=store.keep
            )
            self._runner = runner
            self._run = asyncio.ensure_future(runner.run(rows))
            redraw = self.set_interval(_REDRAW_SECONDS, self._show_progress)
            try:
                reason = await self._run
            except asyncio.CancelledError:
                if not self._abandoned:
                    raise  # the screen is going away: the worker itself was cancelled
                reason = runner.reason
            finally:
                self.progress.ended = time.monotonic()
                # Counted as the ledger holds them (`history`, a resume), as the CLI counts them.
                self.progress.unrecorded(runner.unrecorded)
                redraw.stop()
        return reason if runner.problem is None else runner.problem

    def _settled(self, result: RowResult) -> None:
        assert self.progress is not None
        self.progress.count(result)
        if not result.to_look_at:
            return
        if len(self.results) < _SHOWN_RESULTS:
            self.results.append(result)
        else:
            self._unlisted += 1

    @property
    def _stage(self) -> ImportRun:
        return self.query_one(ImportRun)

    def _show_progress(self) -> None:
        if self.progress is not None:
            going = self._run is not None and not self._run.done()
            waiting = None if self._runner is None or not going else self._runner.waiting
            self._stage.show_progress(self.progress, going=going, waiting=waiting)

    def action_stop_or_close(self) -> None:
        """While sending: take no more rows (Esc again gives up on those in flight); else close."""
        runner, task = self._runner, self._run
        if runner is None or task is None or task.done():
            self.dismiss()
            return
        if runner.stopping:
            self._give_up()
            return
        runner.stop()
        self._stage.show_summary(
            [
                f"Stopping: no more rows are sent; {runner.in_flight} in flight may settle "
                f"for up to {_GRACE_SECONDS:g} s (Esc again to give up on them)."
            ]
        )
        self.set_timer(_GRACE_SECONDS, self._give_up)

    def _give_up(self) -> None:
        # The rows still in flight are settled as unknown: a resume leaves them out.
        if self._run is not None and not self._run.done():
            self._abandoned = True
            self._run.cancel()

    # Afterwards -------------------------------------------------------------------------------

    def _finished(self, ended: StopReason | str) -> None:
        self._show_progress()
        checked, progress, runner = self._sending, self.progress, self._runner
        if checked is not None and progress is not None:
            stopped = runner is not None and runner.stopping
            lines = summary_lines(checked.name, self._target.base_url, progress, ended, stopped)
        else:
            lines = [f"Nothing was sent: {visible(str(ended))}."]
        self._stage.show_summary(lines)
        self._stage.list_results(self.results, self._unlisted)

    @on(OptionList.OptionSelected, "#import-results")
    def _load_row(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is None:
            return
        result = self.results[int(event.option.id)]
        if self._load(result.texts, result.state is PlantState.UNKNOWN):
            self.dismiss()
