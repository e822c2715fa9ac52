"""Yes/no questions in a modal: deleting a profile, and sending to a protected one."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from plantstore_tui.core.text import visible

if TYPE_CHECKING:
    from plantstore_tui.core.models import NewPlant
    from plantstore_tui.core.target import Target


class Answer(Enum):
    """What the operator answered."""

    YES = "yes"
    NO = "no"
    # Yes, and do not ask this question about the same subject again this session.
    YES_FOR_SESSION = "yes_for_session"

    @property
    def confirmed(self) -> bool:
        """True for either kind of yes."""
        return self is not Answer.NO


class ConfirmScreen(ModalScreen[Answer]):
    """A question with its subject shown prominently: Enter or y says yes, Esc or n says no."""

    CSS_PATH = "../profiles.tcss"
    AUTO_FOCUS = "#confirm-yes"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer('yes')", "Yes", show=False),
        Binding("n,escape", "answer('no')", "No", show=False),
        Binding("a", "answer('yes_for_session')", "Yes, stop asking", show=False),
    ]

    def __init__(
        self,
        question: str,
        subject: Text,
        detail: str = "",
        *,
        yes: str = "Yes",
        no: str = "Cancel",
        yes_for_session: str | None = None,
        danger: bool = False,
    ) -> None:
        super().__init__(classes="-danger" if danger else "")
        self._question = question
        self._subject = subject
        self._detail = detail
        self._yes = yes
        self._no = no
        self._yes_for_session = yes_for_session

    def compose(self) -> ComposeResult:
        """The question, its subject, what it means, and the answers with their keys."""
        with Vertical(id="confirm-panel") as panel:
            panel.border_title = Text(self._question)
            yield Static(self._subject, id="confirm-subject")
            if self._detail:
                yield Static(Text(self._detail), id="confirm-detail")
            with Horizontal(id="confirm-buttons"):
                yield Button(Text(f"{self._yes}  [Enter]"), id="confirm-yes", variant="error")
                if self._yes_for_session is not None:
                    yield Button(
                        Text(f"{self._yes_for_session}  [A]"), id="confirm-yes-for-session"
                    )
                yield Button(Text(f"{self._no}  [Esc]"), id="confirm-no")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`a` answers only where staying quiet for the session is offered."""
        if action == "answer" and parameters == ("yes_for_session",):
            return self._yes_for_session is not None
        return True

    def action_answer(self, answer: str) -> None:
        """Close with this answer."""
        self.dismiss(Answer(answer))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        answers = {
            "confirm-yes": Answer.YES,
            "confirm-yes-for-session": Answer.YES_FOR_SESSION,
            "confirm-no": Answer.NO,
        }
        self.dismiss(answers[event.button.id or "confirm-no"])


def _plant_words(plant: NewPlant) -> str:
    tag = "" if plant.tag is None else f", tag {visible(plant.tag)}"
    return f"{visible(plant.name)} (id {plant.id}{tag})"


class ProtectedSends:
    """This session's confirmations of sends to protected profiles.

    One question per send by default; an operator entering many plants can answer "A" once, and
    sends to that profile go out without asking until plantstore-tui quits.
    """

    def __init__(self) -> None:
        self._trusted: set[tuple[str, str]] = set()

    def needs_asking(self, target: Target) -> bool:
        """Whether a send to `target` must be confirmed first."""
        return target.protected and self._key(target) not in self._trusted

    def question(self, target: Target, plant: NewPlant | None = None) -> ConfirmScreen:
        """The modal that asks; give its `Answer` to `record`."""
        subject = Text()
        subject.append(visible(target.profile or "(no profile)"), style="bold")
        subject.append("\n")
        subject.append(visible(target.base_url))
        if plant is not None:
            subject.append("\n\n")
            subject.append(_plant_words(plant))
        return ConfirmScreen(
            "Send to a protected profile?",
            subject,
            "This profile is marked protected: every send to it is confirmed first.",
            yes="Send",
            no="Cancel",
            yes_for_session="Send, don't ask again this session",
            danger=True,
        )

    def record(self, target: Target, answer: Answer) -> bool:
        """Remember a "don't ask again"; True when the send may go ahead."""
        if answer is Answer.YES_FOR_SESSION:
            self._trusted.add(self._key(target))
        return answer.confirmed

    @staticmethod
    def _key(target: Target) -> tuple[str, str]:
        # Keyed by URL too: a profile edited to point elsewhere is asked about afresh.
        return (target.profile or "", target.base_url)
