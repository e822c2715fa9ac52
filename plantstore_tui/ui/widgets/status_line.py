"""The status line: where plants go, where the token comes from, and what the app is doing."""

from __future__ import annotations

from typing import Literal

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static

StatusKind = Literal["busy", "ready", "problem"]


class StatusLine(Horizontal):
    """One line at the top: the target on the left, the state on the right."""

    class TargetClicked(Message):
        """The operator clicked the target: they want to see or switch profiles."""

    def __init__(
        self,
        target: str,
        state: tuple[str, StatusKind],
        *,
        protected: bool = False,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        # Composed as they are, so the first frame costs no restyling of the line.
        self._target = target
        self._state = state
        self._protected = protected

    def compose(self) -> ComposeResult:
        """The target and the state, as literal text."""
        words, kind = self._state
        target = Static(
            Text(self._target),
            id="status-target",
            classes="-protected" if self._protected else "",
        )
        target.tooltip = "Click (or F2) to see and switch profiles"
        yield target
        yield Static(Text(words), id="status-state", classes=f"-{kind}")

    def show_target(self, target: str, *, protected: bool = False) -> None:
        """Replace the target description; a protected profile stands out."""
        widget = self.query_one("#status-target", Static)
        widget.update(Text(target))
        widget.set_class(protected, "-protected")

    def show_state(self, words: str, kind: StatusKind) -> None:
        """Replace the state, coloured by kind through app.tcss."""
        state = self.query_one("#status-state", Static)
        # The state has a fixed size in app.tcss: a new one repaints a line, no layout needed.
        state.update(Text(words), layout=False)
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
        return (" · ".join(parts), "problem" if attention else "busy")
    if not connected:
        return ("connecting…", "busy")
    return ("ready", "ready")
