"""The status line: where plants go, where the token comes from, and what the app is doing.

One widget draws the whole line: the target on the left, the state on the right. Both are lists
of parts (`StatusPart`), joined by " · " and fitted together to the line's width: when they do
not fit, the parts give way step by step (`Give`), lowest rank first on either side: a shorter
wording, a cut in the middle (a host keeps its port) or at a word, or the part left out. The
ranks below say who gives way before whom; a new field is one more part.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, Literal, NamedTuple

from rich.cells import cell_len, get_character_cell_size, set_cell_size
from rich.text import Text
from textual import events
from textual.widget import Widget

from plantstore_tui.core.sending.state import (
    FIX_TOKEN,
    FIX_TOKEN_SHORT,
    QueueState,
    StateKind,
    TokenRefused,
    Unreachable,
    state_words,
)
from plantstore_tui.ui.messages import TargetClicked

if TYPE_CHECKING:
    from textual.timer import Timer

    from plantstore_tui.core.sending.service import Counts

# The state's kind colours it (app.tcss).
StatusKind = StateKind
How = Literal["reword", "middle", "end", "words", "drop"]
_JOIN = " · "
_ELLIPSIS = "…"
# Between the target and the state: room for " · ", drawn when the two come that close (they
# never read as one part); blank when they are further apart.
_GAP = len(_JOIN)
# Spaces enough to part the target from the state without a dot: the dot's three cells and
# one to spare (drawn with the dot, that cell stood before it as a space too many).
_WIDE_GAP = 4

# Who gives way first when the line is too narrow, lowest first. The target keeps its host and
# port, the state its counts: those give way last, and never so far as to lose the number. A
# stopped queue's headline ("token refused") and its key ("then Ctrl+R") never give way: the
# profile, the token's source and the proxy are left out before.
TOKEN_HINT = 0  # the token's last characters, left out
SCHEME = 1  # the URL and the proxy without their scheme (the port stays named)
URL_PATH = 2  # the URL without its path: host and port
ASIDE_CUT = 3  # the state's asides (its parts after the first) cut at a word; its key's
# instruction without its status ("fix it in F2, then Ctrl+R")
TOKEN_WORDS = 4  # the token's source in its fewest words: "credentials file"
ASIDES = 5  # the state's asides left out
LONG_HOST = 6  # a long host and port, or the proxy's, cut in the middle to a readable length
KEY_HINT = 7  # a count's key: "(F4)"
HEADLINE = 8  # the state's first words cut at a word, when counts follow them
COUNT_WORDS = 9  # a count in two words: "3 need attention" to "3 attention"
PROFILE = 10  # the profile's name cut at its end
HEADLINE_GONE = 11  # the state's first words left out for its counts; alone, cut at a word
PROXY_LEAST = 12  # the proxy, the token's source cut to their least (at a word)
TOKEN_LEAST = 13
HOST_LEAST = 14  # the host cut to its least (its port stays)
TOKEN_GONE = 15  # the token's source, then the proxy left out
PROXY_GONE = 16
KEY_FEWEST = 17  # the key's instruction in its fewest words: "F2, then Ctrl+R"
PROFILE_GONE = 18  # the profile left out: the host and port name the target

# Said for as long as the ledger's file cannot be used (the plants live in memory only, and a
# crash would lose them): it never gives way, and the state it stands beside gives way first.
IN_MEMORY = "ledger in memory only"

# A part of the state that counts plants: "4 queued", "2 need attention (F4)".
_COUNT = re.compile(r"\d[\d,]*\s+\S")
# A key named at the end of a part: " (F4)".
_KEY = re.compile(r"\s*\([^()]*\)$")


class Give(NamedTuple):
    """One step by which a part gives way, at its rank: "reword" to `text` (a shorter
    wording); "middle" (keeps both ends: a host's port), "end" or "words" (keeps the start, cut
    at a word) to at least `least` cells; "drop" leaves it out."""

    rank: int
    how: How
    least: int = 0
    text: str = ""


class StatusPart(NamedTuple):
    """One field of the status line, the steps by which it gives way (none: it never does),
    and what joins it to the part before."""

    text: str
    gives: tuple[Give, ...] = ()
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


def clipped_words(text: str, width: int) -> str:
    """`text` in at most `width` cells, cut after a whole word when that keeps most of the
    room ("…" marks the cut), else as `clipped_cells` cuts it."""
    if cell_len(text) <= width:
        return text
    start = _fitting(text, width - 1)
    cut = start.rfind(" ")
    if text[len(start)] != " " and cut >= len(start) * 2 // 3:
        start = start[:cut]
    start = start.rstrip(" ,;:·")
    return start + _ELLIPSIS if start else clipped_cells(text, width)


def shorten_middle(text: str, width: int) -> str:
    """`text` in at most `width` cells, its middle replaced by an ellipsis."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return _ELLIPSIS[:width]
    head = (width - 1) // 2
    tail = width - 1 - head
    return _fitting(text, head) + _ELLIPSIS + _fitting(text, tail, from_end=True)


_SQUEEZES = {"middle": shorten_middle, "end": clipped_cells, "words": clipped_words}


def joined(parts: Sequence[StatusPart | None]) -> str:
    """The parts in full, each after its glue (None: a part left out)."""
    shown = [part for part in parts if part is not None]
    return "".join(
        part.glue + part.text if index else part.text for index, part in enumerate(shown)
    )


def _given(part: StatusPart, give: Give, over: int) -> StatusPart | None:
    """`part` after one step of giving way, `over` cells too many on the line."""
    if give.how == "drop":
        return None
    if give.how == "reword":
        shorter = cell_len(give.text) < cell_len(part.text)
        return part._replace(text=give.text) if shorter else part
    return _cut(part, give, over)


def _cut(part: StatusPart, give: Give, over: int) -> StatusPart:
    """`part` cut as `give` says, by `over` cells, keeping at least its `least`."""
    room = max(give.least, cell_len(part.text) - over)
    return part._replace(text=_SQUEEZES[give.how](part.text, room))


def fit_sides(sides: Sequence[Sequence[StatusPart]], width: int) -> list[str]:
    """Each side's parts joined, all fitted together to `width`: the lowest ranks give way
    first, on whichever side they are (at equal rank, the earlier side's, then the earlier
    part's). Room a later step freed goes back to the steps before it, the latest first."""
    kept: list[list[StatusPart | None]] = [list(parts) for parts in sides]
    steps = sorted(
        (give.rank, side, index, order, give)
        for side, parts in enumerate(sides)
        for index, part in enumerate(parts)
        for order, give in enumerate(part.gives)
    )
    taken: list[tuple[int, int, Give, StatusPart]] = []

    def over() -> int:
        return sum(cell_len(joined(parts)) for parts in kept) - width

    for _rank, side, index, _order, give in steps:
        if over() <= 0:
            break
        part = kept[side][index]
        if part is not None:
            kept[side][index] = _given(part, give, over())
            taken.append((side, index, give, part))
    # A cut part takes back what room it can; a part reworded or left out comes back whole,
    # and only while every part that gave way after it came back whole too.
    whole = True
    for side, index, give, before in reversed(taken):
        now = kept[side][index]
        if now is None or give.how not in _SQUEEZES:
            if whole:
                kept[side][index] = before
                if over() > 0:
                    kept[side][index], whole = now, False
            continue
        kept[side][index] = before
        if over() > 0:
            cut = _cut(before, give, over())
            kept[side][index] = cut if cell_len(cut.text) > cell_len(now.text) else now
            whole = False
            if over() > 0:
                kept[side][index] = now
    return [joined(parts) for parts in kept]


def fit_parts(parts: Sequence[StatusPart], width: int) -> str:
    """The parts joined, fitted to `width`: the lowest ranks give way first, as they allow."""
    return clipped_cells(fit_sides([parts], width)[0], width)


def _count_part(piece: str) -> StatusPart:
    """A count keeps its number and its last word: "2 need attention (F4)" may become
    "2 need attention", then "2 attention", never "2 need at…"."""
    gives = []
    unkeyed = _KEY.sub("", piece)
    if unkeyed != piece:
        gives.append(Give(KEY_HINT, "reword", text=unkeyed))
    words = unkeyed.split()
    if len(words) > 2:
        gives.append(Give(COUNT_WORDS, "reword", text=f"{words[0]} {words[-1]}"))
    return StatusPart(piece, tuple(gives))


def state_parts(words: str, *, stopped: bool = False) -> list[StatusPart]:
    """The state's words as parts: its counts (parts that start with a number) keep their
    number and their last word; its other parts give way before them, its asides (after the
    first part) before its headline. The headline of a queue that stopped ("token refused",
    "unreachable, next try in 8 s") never gives way: without it the counts would not say why
    plants wait; nor does the key of its instruction ("F2, then Ctrl+R")."""
    pieces = words.split(_JOIN)
    counted = any(_COUNT.match(piece) for piece in pieces)
    parts = []
    gives: tuple[Give, ...]
    for index, piece in enumerate(pieces):
        if _COUNT.match(piece):
            parts.append(_count_part(piece))
            continue
        least = min(cell_len(piece), 12)
        if index and piece.endswith(FIX_TOKEN):
            gives = (
                Give(ASIDE_CUT, "reword", text=FIX_TOKEN),
                Give(KEY_FEWEST, "reword", text=FIX_TOKEN_SHORT),
            )
        elif index:
            gives = (Give(ASIDE_CUT, "words", least), Give(ASIDES, "drop"))
        elif stopped:
            gives = ()
        elif counted:
            gives = (Give(HEADLINE, "words", least), Give(HEADLINE_GONE, "drop"))
        else:
            gives = (Give(HEADLINE_GONE, "words", least),)
        parts.append(StatusPart(piece, gives))
    return parts


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
        self._queue: tuple[QueueState, Counts, bool, bool, int | None] | None = None
        self._in_memory = False
        self._countdown: Timer | None = None
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

    def show_queue(
        self,
        state: QueueState,
        counts: Counts,
        *,
        problem: bool = False,
        connected: bool = True,
        keying: int | None = None,
        in_memory: bool = False,
    ) -> None:
        """Show the queue's state and its counts in words (core/sending/state.py), and with
        verified entry on, which keying the form holds; while the deployment cannot be reached,
        count down to the next try once a second. `in_memory`: the ledger's file cannot be used,
        said (`IN_MEMORY`) until a call says otherwise, whatever words are shown meanwhile."""
        self._queue = (state, counts, problem, connected, keying)
        self._in_memory = in_memory
        self._show_queue()
        counting_down = isinstance(state, Unreachable)
        if counting_down and self._countdown is None:
            self._countdown = self.set_interval(1.0, self._show_queue)
        elif not counting_down and self._countdown is not None:
            self._countdown.stop()
            self._countdown = None

    def _show_queue(self) -> None:
        if self._queue is not None:
            state, counts, problem, connected, keying = self._queue
            words, kind = state_words(
                state, counts, now=time.monotonic(), problem=problem, connected=connected
            )
            if keying is not None:
                words += _JOIN + ("verify: key it again" if keying == 2 else "verify")
            self._show_words(words, kind, stopped=isinstance(state, TokenRefused | Unreachable))

    def show_state(self, words: str, kind: StatusKind) -> None:
        """Show these words instead of the queue's (while connecting, say)."""
        self._queue = None
        if self._countdown is not None:
            self._countdown.stop()
            self._countdown = None
        self._show_words(words, kind)

    def _show_words(self, words: str, kind: StatusKind, *, stopped: bool = False) -> None:
        """Replace the state, coloured by kind through app.tcss (one line repainted, no layout:
        the line's size does not depend on its words)."""
        shown = tuple(state_parts(words, stopped=stopped))
        if self._in_memory:
            # Not "ready" beside it: nothing is, while a crash would lose the plants. Last: the
            # counts stay beside the state they count.
            kept = () if kind == "ready" else shown
            shown, kind = (*kept, StatusPart(IN_MEMORY, glue=_JOIN)), "problem"
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
        between = width - room - cell_len(state)
        if between == _GAP and room - cell_len(target) + between < _WIDE_GAP and target:
            separator = _JOIN
        else:
            # Apart: the target's style runs up to the state's last space.
            room, separator = room + between - 1, " " if between else ""
        line.append(set_cell_size(target, room), style(target_style))
        line.append(separator)
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
            self.post_message(TargetClicked())
