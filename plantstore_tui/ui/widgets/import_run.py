"""An import being sent, then its summary: a progress bar, the counts, the rows that failed."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import OptionList, ProgressBar, Static
from textual.widgets.option_list import Option

from plantstore_tui.core.importing import ImportProgress, RowResult, StopReason, stop_words
from plantstore_tui.core.plant.text import BLOCK_SHOWN, plural, shorten, visible
from plantstore_tui.core.sending.state import Unreachable
from plantstore_tui.core.store import PlantState


def summary_lines(
    name: str, base_url: str, progress: ImportProgress, ended: StopReason | str, stopped: bool
) -> list[str]:
    """What became of the rows, why sending ended (`ended`: a problem in words, or the reason),
    and how to go on; `stopped` when the operator stopped it."""
    lines = [
        f"{visible(name)} ({plural(progress.rows, 'row')}) → {visible(base_url)}: "
        f"{progress.counts()} in {progress.seconds:.1f} s."
    ]
    again = "import the file again and choose Resume"
    if not isinstance(ended, StopReason):
        lines.append(f"Stopped on {visible(ended)}.")
    elif (said := stop_words(ended, progress, name, again)) is not None:
        lines.append(said)
    elif ended is StopReason.TRANSPORT:
        lines.append(
            "Stopped: the deployment stopped taking plants (unreachable or busy for too long, "
            "or failures of unknown fate in a row). "
            "Once it answers again, import the file again and choose Resume."
        )
    elif stopped or progress.not_sent:
        lines.append(
            "Stopped before the end: import the file again and choose Resume to send the rows "
            "not yet sent."
        )
    unknown = progress.unknown + progress.unknown_skipped
    if unknown:
        them = "it" if unknown == 1 else "them"
        lines.append(
            f"{plural(unknown, 'row')} may or may not have been created: a resume leaves "
            f"{them} out; check the store before sending {them} again."
        )
    return lines


class ImportRun(Vertical):
    """The sending stage of the import screen; the screen says what to show."""

    def compose(self) -> ComposeResult:
        """Heading, bar, counts, summary, the rows that failed, what the keys do."""
        yield Static(id="import-heading")
        yield ProgressBar(total=1, show_eta=False, id="import-bar")
        yield Static(id="import-counts")
        yield Static(id="import-summary")
        yield OptionList(id="import-results")
        yield Static(id="import-hint")

    def start(self, heading: str) -> None:
        """Sending begins."""
        self.query_one("#import-heading", Static).update(Text(heading))
        self.show_hint("Esc: stop (rows in flight settle; Esc again gives up on them)")

    def show_hint(self, words: str) -> None:
        """What the keys do now."""
        self.query_one("#import-hint", Static).update(Text(words))

    def show_summary(self, lines: Sequence[str]) -> None:
        """Words under the counts: stopping, or how it ended."""
        self.query_one("#import-summary", Static).update(Text("\n".join(lines)))

    def show_progress(
        self, progress: ImportProgress, *, going: bool, waiting: Unreachable | None = None
    ) -> None:
        """The bar and the counts, with the rate and (while `going`) the time left, or what the
        import waits for."""
        self.query_one("#import-bar", ProgressBar).update(
            total=max(1, progress.to_send), progress=progress.settled
        )
        left, rate = progress.to_send - progress.settled, progress.rate
        eta = f" · about {left / rate:,.0f} s left" if rate and left and going else ""
        counts = (
            f"{progress.settled:,} of {progress.to_send:,} · {progress.created:,} created · "
            f"{progress.rejected:,} rejected · {progress.failed:,} failed · "
            f"{progress.unknown:,} unknown · {rate:,.0f} rows/s{eta}"
        )
        if progress.refused:
            counts += f"\n{progress.refused:,} answered by a refused token: not sent"
        if waiting is not None:
            counts += f"\nWaiting: {waiting.words()} (the rows it did not take go again)"
        self.query_one("#import-counts", Static).update(Text(counts))

    def list_results(self, results: Sequence[RowResult], unlisted: int) -> None:
        """The rows that did not go through, each to select (its id is its index), and those
        created off the spec, to read."""
        listing = self.query_one("#import-results", OptionList)
        listing.clear_options()
        listing.set_class(bool(results), "-shown")
        for index, result in enumerate(results):
            line = Text()
            line.append(f"line {result.line}  ", style="dim")
            if result.state is PlantState.UNKNOWN:
                line.append("fate unknown, left out" if result.left_out else "fate unknown")
            else:
                line.append("token refused" if result.refused else result.state.value)
            line.append(f"  id {result.plant_id}  {visible(shorten(result.texts.name, 40))}")
            line.append(f"\n    {visible(shorten(result.words, BLOCK_SHOWN))}", style="dim")
            # A row created (off the spec) is shown, not offered to send again.
            created = result.state is PlantState.CREATED
            listing.add_option(Option(line, id=str(index), disabled=created))
        if unlisted:
            listing.add_option(Option(Text(f"… and {unlisted:,} more"), disabled=True))
        hint = "Esc: close"
        if results:
            hint = "Enter: load the row into the form to fix and send · " + hint
            listing.highlighted = 0
            listing.focus()
        self.show_hint(hint)
