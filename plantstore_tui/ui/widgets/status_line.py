"""The status line: where plants go, where the token comes from, and what the app is doing.

One widget draws the whole line: the target on the left, the state on the right. Both are lists
of parts (`StatusPart`), joined by " · " and fitted together to the line's width: when they do
not fit, the parts that matter least give way first, each as its part allows (shortened in the
middle, like a URL, or left out), on either side. The state's words rank above the target's URL,
proxy and profile name and below the token's source, so the state has the room its words need
while the target has room to spare. A new field is one more part.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Literal, NamedTuple

from rich.cells import cell_len, get_character_cell_size, set_cell_size
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

StatusKind = Literal["busy", "ready", "problem"]
Squeeze = Literal["middle", "end", "drop", "keep"]
_JOIN = " · "
_ELLIPSIS = "…"
# The state's words give way after the target's parts up to this rank (its URL, its proxy, its
# profile's name), before the token's source.
STATE_RANK = 4
# Between the target and the state.
_GAP = 1


class StatusPart(NamedTuple):
    """One field of the status line and how it gives way when the line is too narrow.

    `rank`: parts of lower rank give way first. `squeeze`: "middle" keeps both ends (a URL's
    scheme and its port), "end" keeps the start, "drop" leaves the part out whole, "keep" never
    gives way. `least`: the fewest cells a shortened part keeps. `drop_rank`: the rank at
    which a shortened part is left out after all, if it comes to that. `glue`: what joins it to
    the part before.
    """

    text: str
    rank: int
    squeeze: Squeeze = "drop"
    least: int = 0
    drop_rank: int | None = None
    glue: str = _JOIN


def _fitting(text: str, width: int, *, from_end: bool = False) -> str:
    """The longest start (or end) of `text` that takes at most `width` cells on the screen: a
    wide character (most of CJK, many emoji) takes two."""
    if width <= 0:
        return ""
    if text.isascii():
        return text[-width:] if from_end else text[:width]
    taken = 0
    count = 0
    for character in reversed(text) if from_end else text:
        taken += get_character_cell_size(character)
        if taken > width:
            break
        count += 1
    if not count:
        return ""
    return text[-count:] if from_end else text[:count]


def clipped_cells(text: str, width: int) -> str:
    """`text` in at most `width` cells, "…" marking the cut; "" for no width at all."""
    if cell_len(text) <= width:
        return text
    return _fitting(text, width - 1) + _ELLIPSIS if width > 0 else ""


def shorten_middle(text: str, width: int) -> str:
    """`text` in at most `width` cells, its middle replaced by an ellipsis."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return _ELLIPSIS[:width]
    head = (width - 1) // 2
    tail = width - 1 - head
    return _fitting(text, head) + _ELLIPSIS + _fitting(text, tail, from_end=True)


def joined(parts: Sequence[StatusPart | None]) -> str:
    """The parts in full, each after its glue (None: a part left out)."""
    shown = [part for part in parts if part is not None]
    return "".join(
        part.glue + part.text if index else part.text for index, part in enumerate(shown)
    )


def fit_sides(sides: Sequence[Sequence[StatusPart]], width: int) -> list[str]:
    """Each side's parts joined, all fitted together to `width`: the lowest ranks give way
    first, as they allow, on whichever side they are (at equal rank, the earlier side's)."""
    kept: list[list[StatusPart | None]] = [list(parts) for parts in sides]
    steps = sorted(
        [
            (rank, side, index, squeeze)
            for side, parts in enumerate(sides)
            for index, part in enumerate(parts)
            for rank, squeeze in (
                [(part.rank, part.squeeze)]
                + ([] if part.drop_rank is None else [(part.drop_rank, "drop")])
            )
        ]
    )
    for _rank, side, index, squeeze in steps:
        over = sum(cell_len(joined(parts)) for parts in kept) - width
        if over <= 0:
            break
        part = kept[side][index]
        if part is None or squeeze == "keep":
            continue
        if squeeze == "drop":
            kept[side][index] = None
            continue
        shorten = shorten_middle if squeeze == "middle" else clipped_cells
        room = max(part.least, cell_len(part.text) - over)
        kept[side][index] = part._replace(text=shorten(part.text, room))
    return [joined(parts) for parts in kept]


def fit_parts(parts: Sequence[StatusPart], width: int) -> str:
    """The parts joined, fitted to `width`: the lowest ranks give way first, as they allow."""
    return clipped_cells(fit_sides([parts], width)[0], width)


def state_parts(words: str) -> list[StatusPart]:
    """The state's words as parts: the first give way first (needs attention comes last)."""
    return [
        StatusPart(piece, rank=STATE_RANK, squeeze="end", least=min(cell_len(piece), 10))
        for piece in words.split(_JOIN)
    ]


class StatusLine(Widget, can_focus=False):
    """One line at the top: the target on the left, the state on the right, drawn as one."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "status-line--target",
        "status-line--protected",
        "status-line--ready",
        "status-line--busy",
        "status-line--problem",
    }

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
        self._target = tuple(target)
        self._protected = protected
        words, self._kind = state
        self._state = tuple(state_parts(words))
        # Where the target ends on the line as last drawn: what a click on it hits.
        self._target_end = 0
        # Whether the pointer was last over the target: the tooltip (the whole target, and how
        # to switch profiles) is the target's, not the state's.
        self._over_target = True
        self._show_tooltip()

    @property
    def protected(self) -> bool:
        """Whether the target is a protected profile (it stands out)."""
        return self._protected

    @property
    def kind(self) -> StatusKind:
        """What the state is: busy, ready or a problem (its colour)."""
        return self._kind

    def _show_tooltip(self) -> None:
        self.tooltip = (
            f"{joined(self._target)}\nClick (or F2) to see and switch profiles"
            if self._over_target
            else None
        )

    def show_target(self, target: Sequence[StatusPart], *, protected: bool = False) -> None:
        """Replace the target description; a protected profile stands out."""
        shown = tuple(target)
        if (shown, protected) == (self._target, self._protected):
            return
        self._target, self._protected = shown, protected
        self._show_tooltip()
        self.refresh()

    def show_state(self, words: str, kind: StatusKind) -> None:
        """Replace the state, coloured by kind through app.tcss (one line repainted, no layout:
        the line's size does not depend on its words)."""
        shown = tuple(state_parts(words))
        if (shown, kind) == (self._state, self._kind):
            return
        self._state, self._kind = shown, kind
        self.refresh()

    def sides(self) -> tuple[str, str]:
        """The target and the state as the line shows them at its width now."""
        width = self.content_region.width or 1_000
        # A protected target has a space of its colour on either side.
        padding = 2 if self._protected else 0
        target, state = fit_sides((self._target, self._state), width - padding - _GAP)
        state = clipped_cells(state, width)
        return clipped_cells(target, max(0, width - cell_len(state) - padding - _GAP)), state

    def render(self) -> Text:
        """The target fitted on the left, in its style up to the state, the state on the right."""
        width = self.content_region.width
        target, state = self.sides()
        if self._protected:
            target = f" {target} "
        room = max(0, width - cell_len(state) - _GAP)
        self._target_end = cell_len(target)
        style = self.get_component_rich_style
        line = Text(no_wrap=True, end="")
        target_style = "status-line--protected" if self._protected else "status-line--target"
        line.append(set_cell_size(target, room), style(target_style))
        line.append(" " * (width - room - cell_len(state)))
        line.append(state, style(f"status-line--{self._kind}"))
        return line

    def on_mouse_move(self, event: events.MouseMove) -> None:
        """The target's tooltip over the target only: over the state it would name the target."""
        offset = event.get_content_offset(self)
        over = offset is not None and offset.x < self._target_end
        if over != self._over_target:
            self._over_target = over
            self._show_tooltip()

    def on_click(self, event: events.Click) -> None:
        """A click on the target asks for the profiles."""
        offset = event.get_content_offset(self)
        if offset is not None and offset.x < self._target_end:
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
