"""The status line: where plants go, where the token comes from, and what the app is doing.

The target half is a list of parts (`StatusPart`), joined by " · " and fitted to the width it
has: when they do not fit, the parts that matter least give way first, each as its part allows
(shortened in the middle, like a URL, or left out). A new field is one more part.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, NamedTuple

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static

from plantstore_tui.core.plant.text import clipped

StatusKind = Literal["busy", "ready", "problem"]
Squeeze = Literal["middle", "end", "drop", "keep"]
_JOIN = " · "
_ELLIPSIS = "…"


class StatusPart(NamedTuple):
    """One field of the status line and how it gives way when the line is too narrow.

    `rank`: parts of lower rank give way first. `squeeze`: "middle" keeps both ends (a URL's
    scheme and its port), "end" keeps the start, "drop" leaves the part out whole, "keep" never
    gives way. `least`: the fewest characters a shortened part keeps. `drop_rank`: the rank at
    which a shortened part is left out after all, if it comes to that. `glue`: what joins it to
    the part before.
    """

    text: str
    rank: int
    squeeze: Squeeze = "drop"
    least: int = 0
    drop_rank: int | None = None
    glue: str = _JOIN


def shorten_middle(text: str, width: int) -> str:
    """`text` in at most `width` characters, its middle replaced by an ellipsis."""
    if len(text) <= width:
        return text
    if width <= 1:
        return _ELLIPSIS[:width]
    head = (width - 1) // 2
    tail = width - 1 - head
    return text[:head] + _ELLIPSIS + text[-tail:]


def joined(parts: Sequence[StatusPart | None]) -> str:
    """The parts in full, each after its glue (None: a part left out)."""
    shown = [part for part in parts if part is not None]
    return "".join(
        part.glue + part.text if index else part.text for index, part in enumerate(shown)
    )


def fit_parts(parts: Sequence[StatusPart], width: int) -> str:
    """The parts joined, fitted to `width`: the lowest ranks give way first, as they allow."""
    kept: list[StatusPart | None] = list(parts)
    steps = sorted(
        [(part.rank, index, part.squeeze) for index, part in enumerate(parts)]
        + [
            (part.drop_rank, index, "drop")
            for index, part in enumerate(parts)
            if part.drop_rank is not None
        ]
    )
    for _rank, index, squeeze in steps:
        over = len(joined(kept)) - width
        if over <= 0:
            break
        part = kept[index]
        if part is None or squeeze == "keep":
            continue
        if squeeze == "drop":
            kept[index] = None
            continue
        shorten = shorten_middle if squeeze == "middle" else clipped
        room = max(part.least, len(part.text) - over)
        kept[index] = part._replace(text=shorten(part.text, room))
    return clipped(joined(kept), width)


class FittedText(Static):
    """Parts of a status line, joined and fitted to the widget's width as it is drawn."""

    def __init__(self, parts: Sequence[StatusPart], *, id: str, classes: str = "") -> None:
        super().__init__(id=id, classes=classes)
        self.parts = tuple(parts)

    def show(self, parts: Sequence[StatusPart], *, layout: bool = True) -> None:
        """Draw these parts from now on (nothing to do if they are drawn already)."""
        shown = tuple(parts)
        if shown == self.parts:
            return
        self.parts = shown
        self.refresh(layout=layout)

    @property
    def full_text(self) -> str:
        """Every part, unshortened."""
        return joined(self.parts)

    def render(self) -> Text:
        """The parts that fit the width the line has now."""
        return Text(fit_parts(self.parts, self.content_region.width or 1_000), no_wrap=True)


def state_parts(words: str) -> list[StatusPart]:
    """The state's words as parts: the first give way first (needs attention comes last)."""
    return [
        StatusPart(piece, rank=rank, squeeze="end", least=min(len(piece), 10))
        for rank, piece in enumerate(words.split(_JOIN))
    ]


class StatusLine(Horizontal):
    """One line at the top: the target on the left, the state on the right."""

    class TargetClicked(Message):
        """The operator clicked the target: they want to see or switch profiles."""

    def __init__(
        self,
        target: Sequence[StatusPart],
        state: tuple[str, StatusKind],
        *,
        protected: bool = False,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        # Composed as they are, so the first frame costs no restyling of the line.
        self._target = tuple(target)
        self._state = state
        self._protected = protected

    def compose(self) -> ComposeResult:
        """The target and the state, as literal text fitted to their widths."""
        words, kind = self._state
        target = FittedText(
            self._target,
            id="status-target",
            classes="-protected" if self._protected else "",
        )
        target.tooltip = self._tooltip_of(target)
        yield target
        yield FittedText(state_parts(words), id="status-state", classes=f"-{kind}")

    @staticmethod
    def _tooltip_of(target: FittedText) -> str:
        return f"{target.full_text}\nClick (or F2) to see and switch profiles"

    def show_target(self, target: Sequence[StatusPart], *, protected: bool = False) -> None:
        """Replace the target description; a protected profile stands out."""
        widget = self.query_one("#status-target", FittedText)
        widget.show(target)
        widget.tooltip = self._tooltip_of(widget)
        widget.set_class(protected, "-protected")

    def show_state(self, words: str, kind: StatusKind) -> None:
        """Replace the state, coloured by kind through app.tcss."""
        state = self.query_one("#status-state", FittedText)
        # The state has a fixed size in app.tcss: a new one repaints a line, no layout needed.
        state.show(state_parts(words), layout=False)
        for other in ("busy", "ready", "problem"):
            state.set_class(other == kind, f"-{other}")

    def on_click(self, event: events.Click) -> None:
        """A click on the target asks for the profiles."""
        if event.widget is not None and event.widget.id == "status-target":
            self.post_message(self.TargetClicked())


def state_words(
    queued: int, sending: int, attention: int, *, problem: bool, connected: bool
) -> tuple[str, StatusKind]:
    """What the state half of the line says about plants in line and plants needing attention."""
    parts = []
    if sending:
        parts.append("sending…")
    if queued:
        parts.append(f"{queued} queued")
    if attention:
        verb = "needs" if attention == 1 else "need"
        parts.append(f"{attention} {verb} attention (F4)")
    if problem:
        return ("cannot send: configuration problem", "problem")
    if parts:
        return (_JOIN.join(parts), "problem" if attention else "busy")
    if not connected:
        return ("connecting…", "busy")
    return ("ready", "ready")
