"""Questions in a modal: deleting a profile, sending to a protected one, quitting with work."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Generic, TypeVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static
from textual.widgets.button import ButtonVariant

from plantstore_tui.core.plant.text import visible

if TYPE_CHECKING:
    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.plant.models import NewPlant
    from plantstore_tui.core.sending.submitted import AimedElsewhere


T = TypeVar("T")

# The question's panel: its width bounds and what its border and padding take (profiles.tcss).
PANEL_MIN = 56
PANEL_MAX = 100
PANEL_FRAME = 8


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


@dataclass(frozen=True, slots=True)
class Choice(Generic[T]):
    """One answer to a question: its button, the key that picks it, and what it means."""

    label: str
    key: str
    value: T
    id: str
    variant: ButtonVariant = "default"


class ChoiceScreen(ModalScreen[T]):
    """A question with its subject shown prominently and one button per answer.

    Each answer has a key; Enter picks the focused button, Esc the `cancel` answer. Answer keys
    are taken in order (`take_in_order`): the answer, `answered` and the return to the screen
    below all happen before the next key is read, so keys typed after the answer reach that
    screen, not this one.
    """

    CSS_PATH = "../profiles.tcss"

    def __init__(
        self,
        question: str,
        subject: Text,
        detail: str,
        choices: Sequence[Choice[T]],
        *,
        cancel: T,
        danger: bool = False,
        answered: Callable[[T], None] | None = None,
    ) -> None:
        super().__init__(classes="-danger" if danger else "")
        self._question = question
        self._subject = subject
        self._detail = detail
        self._choices = tuple(choices)
        self._cancel = cancel
        self._answered = answered
        self._before: list[Callable[[], None]] = []
        self._done = False

    def compose(self) -> ComposeResult:
        """The question, its subject, what it means, and the answers with their keys."""
        with Vertical(id="confirm-panel") as panel:
            panel.border_title = Text(self._question)
            yield Static(self._subject, id="confirm-subject")
            if self._detail:
                yield Static(Text(self._detail), id="confirm-detail")
            with Horizontal(id="confirm-buttons"):
                for choice in self._choices:
                    yield Button(
                        Text(f"{choice.label}  [{choice.key}]"),
                        id=choice.id,
                        variant=choice.variant,
                    )

    def on_mount(self) -> None:
        """The first answer has the focus: Enter picks it. The panel is as wide as its buttons
        in a row need (up to 100 columns, 96% of the screen)."""
        panel = self.query_one("#confirm-panel")
        if not self.has_class("-import"):
            panel.styles.width = max(PANEL_MIN, min(self._row_width() + PANEL_FRAME, PANEL_MAX))
        self._fit_buttons()
        self.set_focus(self.query_one(f"#{self._choices[0].id}", Button))

    def on_resize(self) -> None:
        """Answers in a row when they fit the panel, else one under the other."""
        self._fit_buttons()

    def _row_width(self) -> int:
        # A button is its label, its padding and border (4), and its margin (2).
        return sum(len(f"{choice.label}  [{choice.key}]") + 6 for choice in self._choices)

    def _fit_buttons(self) -> None:
        room = min(self.size.width * 96 // 100, PANEL_MAX) - PANEL_FRAME
        stacked = self._row_width() > room
        self.set_class(stacked, "-stacked")
        for button in self.query("#confirm-buttons Button").results(Button):
            button.compact = stacked

    def before_answer(self, callback: Callable[[], None]) -> None:
        """Call `callback` as the answer is read, before the answer's own `answered`."""
        self._before.append(callback)

    def answer(self, value: T) -> None:
        """Close with this answer, at once (a second answer, already on its way, is ignored)."""
        if self._done:
            return
        self._done = True
        for callback in self._before:
            callback()
        if self._answered is not None:
            self._answered(value)
        self.dismiss(value)

    def _choice_for_key(self, key: str, character: str | None) -> Choice[T] | None:
        for choice in self._choices:
            if choice.key in ("Enter", "Esc"):
                continue  # Enter picks the focused button and Esc the cancel answer
            names = {choice.key.lower(), choice.key}
            if key in names or (character is not None and character in names):
                return choice
        return None

    async def take_in_order(self, event: events.Key | events.Paste) -> bool:
        """Answer keys, Enter and Esc act at once; other keys go Textual's usual way."""
        if isinstance(event, events.Paste):
            return True
        if event.key == "escape":
            self.answer(self._cancel)
            return True
        if event.key == "enter" and isinstance(self.focused, Button):
            self._pressed_button(self.focused)
            return True
        choice = self._choice_for_key(event.key, event.character)
        if choice is not None:
            self.answer(choice.value)
            return True
        return False

    def _pressed_button(self, button: Button) -> None:
        for choice in self._choices:
            if choice.id == button.id:
                self.answer(choice.value)
                return

    async def on_key(self, event: events.Key) -> None:
        """In an app that does not hand keys over in order, answer keys still answer."""
        if event.key != "enter" and await self.take_in_order(event):
            event.stop()
            event.prevent_default()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self._pressed_button(event.button)


class ConfirmScreen(ChoiceScreen[Answer]):
    """A yes/no question: Enter or y says yes, Esc or n says no (a says yes for the session)."""

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
        answered: Callable[[Answer], None] | None = None,
    ) -> None:
        choices = [Choice(yes, "Enter", Answer.YES, "confirm-yes", "error")]
        if yes_for_session is not None:
            choices.append(
                Choice(yes_for_session, "A", Answer.YES_FOR_SESSION, "confirm-yes-for-session")
            )
        choices.append(Choice(no, "Esc", Answer.NO, "confirm-no"))
        super().__init__(
            question, subject, detail, choices, cancel=Answer.NO, danger=danger, answered=answered
        )

    def _choice_for_key(self, key: str, character: str | None) -> Choice[Answer] | None:
        # y and n answer too, as they always have.
        if key == "y":
            return self._choices[0]
        if key == "n":
            return self._choices[-1]
        return super()._choice_for_key(key, character)


def _plant_words(plant: NewPlant) -> str:
    tag = "" if plant.tag is None else f", tag {visible(plant.tag)}"
    return f"{visible(plant.name)} (id {plant.id}{tag})"


def protected_question(
    target: Target,
    plant: NewPlant | None = None,
    answered: Callable[[Answer], None] | None = None,
) -> ConfirmScreen:
    """The question before a send to a protected target: once for this send, or for the
    session ("don't ask again": `Answer.YES_FOR_SESSION`)."""
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
        answered=answered,
    )


def elsewhere_question(
    elsewhere: AimedElsewhere, answered: Callable[[Answer], None]
) -> ConfirmScreen:
    """Before a plant meant for another target is loaded into the form: say so and ask."""
    entry = elsewhere.entry
    subject = Text()
    subject.append(f"{visible(entry.typed.name)} (id {visible(entry.typed.id)})", style="bold")
    subject.append(f"\nwas for   {visible(elsewhere.meant)}")
    subject.append(f"\nthe form  {visible(elsewhere.here)}")
    return ConfirmScreen(
        "Load a plant meant for another target?",
        subject,
        f"Sent from the form, it goes to {visible(elsewhere.here)}. To send it where it was meant "
        "to go, switch profiles (F2) first.",
        yes="Load it",
        no="Cancel",
        answered=answered,
    )
