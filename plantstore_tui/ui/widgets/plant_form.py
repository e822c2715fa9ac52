"""The plant form: Name, ID and Tag, each with its message as you type, and the Send button."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.suggester import Suggester
from textual.widgets import Button, Checkbox, Input, LoadingIndicator, Static

from plantstore_tui.core.form import FORM_FIELDS, INT64_MAX, FormField, field_error, parse_id
from plantstore_tui.ui.widgets.safe_input import SafeInput

_LABELS: dict[FormField, str] = {"name": "Name", "id": "ID", "tag": "Tag (optional)"}
_PLACEHOLDERS: dict[FormField, str] = {
    "name": "e.g. Monstera deliciosa",
    "id": "a whole number, e.g. 1",
    "tag": "e.g. indoor",
}


@dataclass(frozen=True, slots=True)
class FormTexts:
    """The raw text of the three fields, as typed."""

    name: str
    id: str
    tag: str


class TagSuggester(Suggester):
    """Suggests tags sent successfully this session, most recent first."""

    def __init__(self) -> None:
        # Not cached: the list grows after every success.
        super().__init__(use_cache=False, case_sensitive=False)
        self._tags: list[str] = []

    def remember(self, tag: str) -> None:
        """Offer `tag` first from now on."""
        if tag in self._tags:
            self._tags.remove(tag)
        self._tags.insert(0, tag)

    async def get_suggestion(self, value: str) -> str | None:
        """The most recent tag that starts with what has been typed."""
        if not value:
            return None
        typed = value.casefold()
        for tag in self._tags:
            if tag.casefold().startswith(typed) and len(tag) > len(value):
                return tag
        return None


class PlantForm(Vertical):
    """Posts `PlantForm.Submitted` only for text the core's form checks accept."""

    class Submitted(Message):
        """The operator asked to send these texts, and every field passed the live checks."""

        def __init__(self, texts: FormTexts) -> None:
            super().__init__()
            self.texts = texts

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tags = TagSuggester()
        # A field shows its message once it has held text, so a fresh form is not a wall of red.
        self._touched: set[FormField] = set()
        # What each message line shows now: an unchanged message costs no layout of the screen.
        self._messages: dict[FormField, str | None] = dict.fromkeys(FORM_FIELDS)

    def compose(self) -> ComposeResult:
        """Three labelled fields, each with a message line, the next-id switch and Send."""
        for field in FORM_FIELDS:
            field_input = SafeInput(
                placeholder=_PLACEHOLDERS[field],
                id=f"{field}-input",
                suggester=self.tags if field == "tag" else None,
            )
            # The label sits in the Input's top border: one widget less per field to start.
            field_input.border_title = _LABELS[field]
            yield field_input
            yield Static("", id=f"{field}-message", classes="field-message")
        yield Checkbox("Next id after success", value=True, id="next-id")
        with Horizontal(id="send-row"):
            yield Button("Send", id="send", variant="primary")
        yield Static(
            "Tab: next field · Enter on Tag: send\nEsc: cancel a send · F1: help", id="form-hint"
        )

    def field_input(self, field: FormField) -> Input:
        """The Input of one field."""
        return self.query_one(f"#{field}-input", Input)

    def texts(self) -> FormTexts:
        """What the fields hold now."""
        return FormTexts(
            name=self.field_input("name").value,
            id=self.field_input("id").value,
            tag=self.field_input("tag").value,
        )

    @property
    def next_id_after_success(self) -> bool:
        """Whether a success moves the ID on to the next number."""
        return self.query_one("#next-id", Checkbox).value

    def toggle_next_id(self) -> None:
        """Flip the next-id switch."""
        self.query_one("#next-id", Checkbox).toggle()

    def _show(self, field: FormField, message: str | None) -> None:
        if self._messages[field] == message:
            return
        self._messages[field] = message
        widget = self.query_one(f"#{field}-message", Static)
        widget.update(message or "")
        widget.set_class(message is not None, "-error")
        self.field_input(field).set_class(message is not None, "-invalid")

    def show_errors(self, errors: Mapping[FormField, str]) -> None:
        """Show these messages (and clear the others), and put the cursor on the first bad field."""
        for field in FORM_FIELDS:
            self._touched.add(field)
            self._show(field, errors.get(field))
        first = next((field for field in FORM_FIELDS if field in errors), None)
        if first is not None:
            self.field_input(first).focus()

    @on(Input.Changed)
    def _check_as_typed(self, event: Input.Changed) -> None:
        field = self._field_of(event.input)
        if field is None:
            return
        if event.value:
            self._touched.add(field)
        if field in self._touched:
            self._show(field, field_error(field, event.value))

    @on(Input.Submitted)
    def _enter(self, event: Input.Submitted) -> None:
        event.stop()
        if self._field_of(event.input) == "tag":
            self.submit()
        else:
            self.screen.focus_next()

    @on(Button.Pressed, "#send")
    def _send_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.submit()

    def submit(self) -> None:
        """Check every field; post `Submitted` if all pass, else show why and focus the first."""
        texts = self.texts()
        errors: dict[FormField, str] = {}
        for field, text in zip(FORM_FIELDS, (texts.name, texts.id, texts.tag), strict=True):
            message = field_error(field, text)
            if message is not None:
                errors[field] = message
        self.show_errors(errors)
        if not errors:
            self.post_message(self.Submitted(texts))

    def set_sending(self, sending: bool) -> None:
        """Show a send in flight: the button says so and is disabled."""
        button = self.query_one("#send", Button)
        button.disabled = sending
        button.label = "Sending…" if sending else "Send"

    def show_spinner(self, shown: bool) -> bool:
        """Show or remove the spinner beside Send; True if that changed anything."""
        # Mounted only while needed: neither the first frame nor a fast send pays for it.
        present = bool(self.query("#sending"))
        if shown and not present:
            self.query_one("#send-row").mount(LoadingIndicator(id="sending"))
        elif not shown and present:
            self.query("#sending").remove()
        return shown != present

    def after_success(self, sent: FormTexts, tag: str | None) -> None:
        """Ready the form for the next plant, leaving alone whatever was typed meanwhile."""
        if tag:
            self.tags.remember(tag)
        current = self.texts()
        if current.name == sent.name:
            self._reset("name", "")
        if current.tag == sent.tag:
            self._reset("tag", "")
        sent_id = parse_id(sent.id)
        if (
            self.next_id_after_success
            and current.id == sent.id
            and isinstance(sent_id, int)
            and sent_id < INT64_MAX
        ):
            self.field_input("id").value = str(sent_id + 1)
        self.field_input("name").focus()

    def _reset(self, field: FormField, value: str) -> None:
        self._touched.discard(field)
        self.field_input(field).value = value
        self._show(field, None)

    def _field_of(self, widget: Input) -> FormField | None:
        for field in FORM_FIELDS:
            if widget.id == f"{field}-input":
                return field
        return None
