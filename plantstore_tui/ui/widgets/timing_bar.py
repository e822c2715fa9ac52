"""Where a probe's time went, as a bar: a segment a phase, as long as its share of the total, and
each phase named under it with its milliseconds (`core/http/timings.py` times them and words
them); colours from probe.tcss."""

from __future__ import annotations

from itertools import pairwise
from typing import ClassVar

from rich.text import Text
from textual.widgets import Static

from plantstore_tui.core.http.timings import Phase, Timings

_BLOCK = "█"
# What no phase accounts for (`Timings.other_ms`).
_OTHER = "░"


def cells(spans: list[float], total: float, width: int) -> list[int]:
    """How many cells each span takes of `width`: its share of `total` (the spans' edges rounded,
    so that spans adding up to the total fill the width), at least one for any span that took
    time while another can give one up."""
    if total <= 0 or width <= 0:
        return [0 for _ in spans]
    edges, spent = [0], 0.0
    for span in spans:
        spent += span
        edges.append(min(width, round(spent / total * width)))
    taken = [end - start for start, end in pairwise(edges)]
    for index, span in enumerate(spans):
        if span > 0 and taken[index] == 0 and max(taken) > 1:
            taken[taken.index(max(taken))] -= 1
            taken[index] = 1
    return taken


def wrapped(items: list[Text], width: int) -> Text:
    """The items on lines of at most `width` cells, two spaces apart, each kept whole."""
    lines: list[Text] = [Text()]
    for item in items:
        line = lines[-1]
        if line.cell_len and line.cell_len + 2 + item.cell_len > width:
            lines.append(line := Text())
        elif line.cell_len:
            line.append("  ")
        line.append_text(item)
    return Text("\n").join(lines)


class TimingBar(Static):
    """A probe's timings drawn across its width; hidden until there are some."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "timing-bar--connect",
        "timing-bar--tls",
        "timing-bar--request",
        "timing-bar--first_byte",
        "timing-bar--body",
        "timing-bar--other",
        "timing-bar--words",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timings: Timings | None = None
        self.display = False

    def show(self, timings: Timings | None) -> None:
        """Draw these timings (None: hide the bar)."""
        self._timings = timings
        self.display = timings is not None
        self.refresh(layout=True)

    def _style(self, name: str) -> str:
        return str(self.get_component_rich_style(f"timing-bar--{name}"))

    def render(self) -> Text:
        """The bar at the widget's width, then each phase named with its time, then the total."""
        timings = self._timings
        if timings is None or timings.total_ms is None:
            return Text()
        width = self.content_size.width
        spent = [(phase.value, ms) for phase, ms in timings.phases() if ms is not None]
        spent.append(("other", timings.other_ms or 0.0))
        taken = cells([ms for _, ms in spent], timings.total_ms, width)
        bar = Text(no_wrap=True, overflow="crop")
        for (name, _), count in zip(spent, taken, strict=True):
            bar.append((_OTHER if name == "other" else _BLOCK) * count, self._style(name))
        items = []
        for phase, ms in timings.phases():
            if ms is None and not (phase is Phase.CONNECT and timings.reused):
                continue
            item = Text()
            item.append(_BLOCK, self._style(phase.value))
            item.append(f" {phase.label}" + ("" if ms is None else f" {ms:.1f} ms"))
            words = timings.words(phase)
            if words:
                item.append(f"{',' if ms is not None else ':'} {words}", self._style("words"))
            items.append(item)
        if timings.other_ms:
            items.append(
                Text(_OTHER, self._style("other")) + Text(f" other {timings.other_ms:.1f} ms")
            )
        items.append(Text(f"total {timings.total_ms:.1f} ms"))
        return Text("\n").join([bar, wrapped(items, width)])
