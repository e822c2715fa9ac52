"""The plant form: Name, ID and Tag, each with its message as you type, and the Send button.

The form never waits for anything: every change it makes (a typed key, a paste, a focus move, the
hand-over of a submitted plant) takes effect at once, so the keys of a burst that are applied next
see the form exactly as the keys before them left it. The send screen drives it; see
`ui/ordered_input.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.suggester import SuggestionReady
from textual.widgets import Button, Input, Static

from plantstore_tui.core.plant.form import (
    FORM_FIELDS,
    INT64_MAX,
    INT64_MIN,
    FormField,
    FormTexts,
    field_error,
)
from plantstore_tui.core.plant.id_range import IdRange, used_up_words
from plantstore_tui.core.sending.events import UNREAD, NextFree
from plantstore_tui.ui.keys import key_in_force
from plantstore_tui.ui.widgets.marked_checkbox import MarkedCheckbox
from plantstore_tui.ui.widgets.typed_input import TypedInput

# Two short lines (the switches name their own keys): they fit the form at its narrowest (80
# columns), under three messages of several lines at 24 rows.
# The keys in force fill it in (profiles.toml's `[keymap]` may have moved them).
HINTS = "Tab next · {enter} on Tag: send\n{same_as_last} same as the last plant"

_LABELS: dict[FormField, str] = {"name": "Name", "id": "ID", "tag": "Tag (optional)"}
_PLACEHOLDERS: dict[FormField, str] = {
    "name": "e.g. Monstera deliciosa",
    "id": "a whole number, e.g. 1",
    "tag": "e.g. indoor",
}


class RecentTags:
    """The tags sent successfully this session, most recent first, offered as Tag is typed.

    Asked at once by the form as Tag changes (not by Input's suggester, which starts a worker
    at every key): a suggestion is only worked out for the text the field still holds.
    """

    def __init__(self) -> None:
        self._tags: list[str] = []

    def remember(self, tag: str) -> None:
        """Offer `tag` first from now on."""
        if tag in self._tags:
            self._tags.remove(tag)
        self._tags.insert(0, tag)

    def suggest(self, value: str) -> str | None:
        """The most recent tag that starts with what has been typed (any case)."""
        if not value:
            return None
        typed = value.casefold()
        for tag in self._tags:
            if tag.casefold().startswith(typed) and len(tag) > len(value):
                return tag
        return None


class FieldInput(TypedInput):
    """One field of the form: typed text and pastes apply at once; Enter belongs to the screen."""

    def __init__(self, field: FormField) -> None:
        super().__init__(placeholder=_PLACEHOLDERS[field], id=f"{field}-input")
        self.field: FormField = field
        # The label sits in the Input's top border: one widget less per field to start.
        self.border_title = _LABELS[field]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Enter means next field or send: the screen's binding decides, not Input's submit."""
        if action == "submit":
            return False
        return super().check_action(action, parameters)

    def several_lines(self, count: int) -> str:
        """A refused paste of several lines, in the form's words: where many plants go."""
        import_key = key_in_force(self.app, "app.import")
        return (
            f"The paste has {count} lines; a field takes one. Nothing was pasted: type plants "
            f"one at a time here, or import a file of them ({import_key})."
        )


class PlantForm(Vertical):
    """Three fields with their live messages, two switches and Send.

    Enter moves on to the next field, and on Tag or Send runs the screen's `send` action, as
    Send clicked does. The screen shows the session's verdict on a submit (`show_errors`) and,
    for a plant taken, readies the form for the next one (`hand_over`); both act at once.

    The form has the class `-focus-within` while the focus is in it (app.tcss), set as the
    focus enters or leaves, not Textual's `:focus-within`, which restyles the form and every
    widget in it at every focus move: three a plant (tests/ui/test_form_focus.py).
    """

    SEND_BUTTON_ID: ClassVar[str] = "send"
    BINDINGS: ClassVar[list[BindingType]] = [
        # Ctrl+J too: an Enter typed before the TUI owns the terminal reaches it as a line feed
        # (the terminal's line discipline turns CR into NL), as Ctrl+J does.
        Binding("enter,ctrl+j", "enter", "Next field / send", show=False, id="form.enter"),
    ]

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.tags = RecentTags()
        # A field shows its message once it has held text, so a fresh form is not a wall of red.
        self._touched: set[FormField] = set()
        # What each message line shows now: an unchanged message costs no layout of the screen.
        self._messages: dict[FormField, str | None] = dict.fromkeys(FORM_FIELDS)
        # Each field's message line, made the first time the field has something to say.
        self._message_lines: dict[FormField, Static] = {}
        # What the form held once it was last readied for a new plant: nothing typed since.
        self._fresh = FormTexts(name="", id="", tag="")
        # The last plant handed over: what "same as last" (Ctrl+D) copies from.
        self._last: FormTexts | None = None
        # The target's range of ids (a profile's `ids`), shown in the ID field's hint.
        self._ids: IdRange | None = None
        self.loaded = False
        """True while the fields hold a plant loaded from needs attention or the history (until
        it is sent or the fields emptied): sending it does not move the next id."""

    def compose(self) -> ComposeResult:
        """Three labelled fields, the two switches, Send and the hint.

        Each field keeps a blank line under it for its message (app.tcss); the line itself is
        made when the field first has something to say (`_message_line`)."""
        for field in FORM_FIELDS:
            yield FieldInput(field)
        next_id, keep_tag = (
            key_in_force(self.app, binding, short=True)
            for binding in ("send.next_id", "send.keep_tag")
        )
        # Keys with longer names than ^N (Alt+N in a browser): the switches go one under the
        # other.
        long_keys = max(len(next_id), len(keep_tag)) > len("^N")
        with Horizontal(id="switches", classes="-long-keys" if long_keys else ""):
            yield MarkedCheckbox(f"Next id {next_id}", value=True, id="next-id")
            yield MarkedCheckbox(f"Keep tag {keep_tag}", value=False, id="keep-tag")
        yield Button("Send", id=self.SEND_BUTTON_ID, variant="primary")
        hints = HINTS.format(
            enter=key_in_force(self.app, "form.enter", short=True),
            same_as_last=key_in_force(self.app, "send.same_as_last", short=True),
        )
        yield Static(hints, id="form-hint")

    @property
    def send_button(self) -> Button:
        """The Send button."""
        return self.query_one(f"#{self.SEND_BUTTON_ID}", Button)

    def field_input(self, field: FormField) -> FieldInput:
        """The Input of one field."""
        return self.query_one(f"#{field}-input", FieldInput)

    def texts(self) -> FormTexts:
        """What the fields hold now."""
        return FormTexts(
            name=self.field_input("name").value,
            id=self.field_input("id").value,
            tag=self.field_input("tag").value,
        )

    def holds_typing(self) -> bool:
        """True when the fields hold something the operator typed (not just the ID moved on or a
        kept tag) that loading another plant would throw away."""
        texts = self.texts()
        return not texts.blank and texts != self._fresh

    @property
    def next_id_after_success(self) -> bool:
        """Whether a hand-over moves the ID on to the next number."""
        return self.query_one("#next-id", MarkedCheckbox).value

    @property
    def keep_tag(self) -> bool:
        """Whether Tag keeps its text after a hand-over (sticky tag)."""
        return self.query_one("#keep-tag", MarkedCheckbox).value

    def toggle_next_id(self) -> None:
        """Flip the next-id switch."""
        self.query_one("#next-id", MarkedCheckbox).toggle()

    def toggle_keep_tag(self) -> None:
        """Flip the sticky-tag switch."""
        self.query_one("#keep-tag", MarkedCheckbox).toggle()

    def focus_field(self, field: FormField) -> None:
        """Put the cursor in a field at once, its text selected."""
        self.screen.set_focus(self.field_input(field))

    def _message_line(self, field: FormField) -> Static:
        """The line under `field` that shows its message, made and mounted the first time.

        It takes the place of the blank line the field kept for it (the field's -with-message
        class drops that margin), so the form moves only as the message's own lines need, as it
        did when every line was there from the start. It stays once made."""
        line = self._message_lines.get(field)
        if line is None:
            line = self._message_lines[field] = Static(
                id=f"{field}-message", classes="field-message"
            )
            field_input = self.field_input(field)
            field_input.add_class("-with-message")
            self.mount(line, after=field_input)
        return line

    def _show(self, field: FormField, message: str | None) -> None:
        if self._messages[field] == message:
            return
        self._messages[field] = message
        self.field_input(field).set_class(message is not None, "-invalid")
        if message is None and field not in self._message_lines:
            return
        widget = self._message_line(field)
        widget.update(message or "")
        widget.set_class(message is not None, "-error")
        widget.remove_class("-warning")

    def show_warning(self, field: FormField, text: str, warning: str) -> None:
        """A warning under a field that still holds `text` and shows no error: it stops no send."""
        if self.field_input(field).value != text or self._messages[field] is not None:
            return
        self._messages[field] = warning
        widget = self._message_line(field)
        widget.update(Text(warning))
        widget.add_class("-warning")

    def show_errors(self, errors: Mapping[FormField, str]) -> None:
        """Show these messages (and clear the others), and put the cursor on the first bad field."""
        for field in FORM_FIELDS:
            self._touched.add(field)
            self._show(field, errors.get(field))
        first = next((field for field in FORM_FIELDS if field in errors), None)
        if first is not None:
            self.focus_field(first)

    async def action_enter(self) -> None:
        """Enter: on Name or ID the next field; on Tag or Send, send (finished before the keys
        typed after it are applied: ui/ordered_input.py)."""
        focused = self.screen.focused
        if isinstance(focused, FieldInput) and focused.field != "tag":
            self.screen.focus_next()
        elif isinstance(focused, FieldInput) or focused is self.send_button:
            await self.run_action("screen.send")

    @on(Button.Pressed, f"#{SEND_BUTTON_ID}")
    async def _send_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        await self.run_action("screen.send")

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """The focus moved within the form or into it: marked (a no-op within)."""
        self.set_class(self.has_focus_within, "-focus-within")

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        """The focus moved within the form or out of it: marked or not."""
        self.set_class(self.has_focus_within, "-focus-within")

    @on(Input.Changed)
    def _check_as_typed(self, event: Input.Changed) -> None:
        field_input = event.input
        if not isinstance(field_input, FieldInput):
            return
        # The field's text now, not the event's: in a burst, several changes may be applied
        # before the first of their messages arrives here.
        field, value = field_input.field, field_input.value
        if field != "id":
            # Nothing above the form wants it (the screen looks up IDs only).
            event.stop()
        if value:
            self._touched.add(field)
        elif self.loaded and self.texts().blank:
            self.loaded = False  # emptied: what comes next is typed
        if field in self._touched:
            self._show(field, field_error(field, value))
        if field == "tag" and value == event.value:
            suggestion = self.tags.suggest(value)
            if suggestion is not None:
                field_input.post_message(SuggestionReady(value, suggestion))

    def hand_over(self, sent: FormTexts, next_id: NextFree = None) -> None:
        """Ready the form for the next plant at once: Name (and Tag, unless kept) cleared, the ID
        moved on to `next_id` (when next id is on and there is one), the cursor in Name. With a
        range of ids and no `next_id`, the ID is emptied and the range said used up; with the
        next id unknown (UNREAD), the ID is left as it is."""
        self._last = sent
        self.loaded = False
        self._reset("name", "")
        if not self.keep_tag:
            self._reset("tag", "")
        if next_id is UNREAD:
            self._fresh = self.texts()
            self.focus_field("name")
            return
        if self.next_id_after_success and next_id is not None and INT64_MIN <= next_id <= INT64_MAX:
            self._reset("id", str(next_id))
        elif self.next_id_after_success and self._ids is not None:
            self._reset("id", "")
        self._fresh = self.texts()
        self._hint_next(next_id)
        self.focus_field("name")

    def key_again(self) -> None:
        """Verified entry's second keying: the form as it was when the plant's first keying
        began (Name empty, the ID as proposed, Tag as kept), so nothing of the first keying is
        shown; the cursor in Name. Same as last still repeats the last plant taken."""
        fresh = self._fresh
        for field in FORM_FIELDS:
            self._reset(field, getattr(fresh, field))
        self.focus_field("name")

    def show_id_range(self, ids: IdRange | None) -> None:
        """The target's range of ids, in the ID field's hint (None: it has none)."""
        self._ids = ids
        id_input = self.field_input("id")
        id_input.placeholder = _PLACEHOLDERS["id"] if ids is None else f"an id of {ids}"
        id_input.border_subtitle = None if ids is None else str(ids)

    def _hint_next(self, next_id: int | None) -> None:
        """The ID field's hint: the range and its next free id, or that none is left."""
        ids = self._ids
        if ids is None:
            return
        free = "all taken" if next_id is None else f"next {next_id}"
        self.field_input("id").border_subtitle = f"{ids} · {free}"
        if next_id is None:
            self.show_warning("id", "", used_up_words(ids))

    def same_as_last(self) -> str | None:
        """Fill the focused field with the last plant's value of it, at once (the ditto key of
        data-entry terminals); None when done, else why it cannot be."""
        focused = self.screen.focused
        if not isinstance(focused, FieldInput) or focused not in self.query(FieldInput):
            return "Same as last fills a field of the form: put the cursor in one first."
        if self._last is None:
            return "Same as last: no plant was sent from the form yet."
        value: str = getattr(self._last, focused.field)
        focused.value = value
        focused.cursor_position = len(value)
        return None

    def offer_next_id(self, value: NextFree) -> None:
        """With next id on and nothing typed in ID yet, start the ID at `value`, selected if the
        cursor is in ID, as a Tab into it would have found it (None: nothing to offer; with a
        range of ids, it is used up, said in the hint and under an empty ID; UNREAD: nobody
        knows, the ID is left as it is)."""
        if value is UNREAD:
            return
        self._hint_next(value)
        id_input = self.field_input("id")
        if not self.next_id_after_success or id_input.value or value is None:
            return
        if INT64_MIN <= value <= INT64_MAX:
            self._reset("id", str(value))
            self._fresh = self.texts()
            if self.screen.focused is id_input:
                id_input.select_all()

    def offer_moved(self, taken: int, value: int | None) -> None:
        """Another plantstore-tui took the id offered: where ID still shows it, it moves on to
        `value` (None: the range is used up), and the line under ID says so."""
        id_input = self.field_input("id")
        if id_input.value != str(taken):
            return  # the operator's own id: its look-up warns if it is taken
        self._hint_next(value)
        # Not a change the operator made: nothing to check as typed, so the words below stay.
        with id_input.prevent(Input.Changed):
            self._reset("id", "" if value is None else str(value))
        self._fresh = self.texts()
        moved = "" if value is None else f"; moved on to {value}"
        self.show_warning("id", id_input.value, f"{taken} was just taken elsewhere{moved}.")

    def fill(self, texts: FormTexts) -> None:
        """Put texts the operator keyed in the fields (a verified plant as settled): still a
        plant typed, unlike `load`."""
        for field, text in zip(FORM_FIELDS, (texts.name, texts.id, texts.tag), strict=True):
            self.field_input(field).value = text

    def load(self, texts: FormTexts) -> None:
        """Put a plant's texts back in the fields, show what is wrong with them, cursor on the
        first bad field (or Name). Sent from here, it is not a plant typed (`loaded`)."""
        self.loaded = True
        self.fill(texts)
        errors = texts.errors()
        self.show_errors(errors)
        if not errors:
            self.focus_field("name")

    def _reset(self, field: FormField, value: str) -> None:
        self._touched.discard(field)
        field_input = self.field_input(field)
        if value:
            field_input.value = value
        else:
            # An emptied field, not touched since, has nothing to check or look up.
            with field_input.prevent(Input.Changed):
                field_input.value = value
        field_input.cursor_position = len(value)
        self._show(field, None)
