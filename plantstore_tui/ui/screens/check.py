"""The check screen: the conformance check of one deployment, as a table of probes."""

from __future__ import annotations

from typing import ClassVar

from rich import box
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import Worker, WorkerState

from plantstore_tui.core.http.check import run_check
from plantstore_tui.core.http.check_report import CheckReport
from plantstore_tui.core.http.proxy import through_words
from plantstore_tui.core.http.target import Target
from plantstore_tui.core.plant.text import visible

# Each verdict has a shape of its own, not only a colour.
_MARKS = {"pass": "✔ pass", "warn": "▲ warn", "fail": "✖ FAIL"}
NO_FIX = "No fix is known for this answer: compare it with the spec's rule for this probe."


class CheckTable(Static):
    """The report's probes: verdict, what was seen and, for each probe that did not pass, the
    fix; the table fits the width (no column left empty); colours from check.tcss."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "check-table--pass",
        "check-table--warn",
        "check-table--fail",
        "check-table--why",
    }

    def show(self, report: CheckReport) -> None:
        """Draw the report; everything from the server is literal text."""
        table = Table(
            expand=True, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, collapse_padding=True
        )
        table.add_column("probe", no_wrap=True)
        table.add_column("verdict", no_wrap=True)
        table.add_column("what was seen · the fix", ratio=1, overflow="fold")
        why_style = self.get_component_rich_style("check-table--why")
        for result in report.results:
            verdict = result.verdict.value
            seen = Text(visible(result.seen))
            if verdict != "pass":
                seen.append("\nfix: ", why_style + Style(bold=True))
                seen.append(visible(result.why or NO_FIX), why_style)
            table.add_row(
                Text(result.probe),
                Text(_MARKS[verdict], self.get_component_rich_style(f"check-table--{verdict}")),
                seen,
            )
        self.update(table)


class CheckScreen(Screen[CheckReport | None]):
    """Runs the check (never `--create`) on mount; dismisses with the report, if it finished."""

    CSS_PATH = "../check.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="check.close"),
        Binding("r", "again", "Check again", id="check.again"),
    ]

    def __init__(self, target: Target) -> None:
        super().__init__()
        self._target = target
        self.report: CheckReport | None = None
        """The last finished check, if any."""

    def compose(self) -> ComposeResult:
        """A title line, the table, the footer."""
        yield Static(id="check-title")
        with VerticalScroll(id="check-body"):
            yield CheckTable(id="check-table")
        yield Footer()

    def on_mount(self) -> None:
        """Start the check at once."""
        self.action_again()

    def action_again(self) -> None:
        """Run the check (again); a newer run replaces one still going."""
        where = self._where()
        self.query_one("#check-title", Static).update(
            Text(f"Checking {where}: every probe sends a body the spec refuses, creating nothing…")
        )
        self._check()

    def _where(self) -> str:
        proxy = self._target.proxy
        through = through_words(None if proxy is None else proxy.url)
        return f"{visible(self._target.base_url)}/plants{visible(through)}"

    def _check(self) -> Worker[CheckReport]:
        return self.run_worker(
            run_check(self._target), name="check", exclusive=True, exit_on_error=False
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Draw the report, or name the bug that stopped it."""
        title = self.query_one("#check-title", Static)
        where = self._where()
        if event.state == WorkerState.SUCCESS:
            report = event.worker.result
            assert isinstance(report, CheckReport)
            self.report = report
            verdict = report.verdict.value if report.reachable else "unreachable"
            title.update(Text(f"Check of {where}: {verdict}"))
            self.query_one(CheckTable).show(report)
        elif event.state == WorkerState.ERROR:
            name = type(event.worker.error).__name__
            title.update(Text(f"The check of {where} stopped on an unexpected error: {name}"))

    def action_close(self) -> None:
        """Back to where the check was started from."""
        self.dismiss(self.report)
