"""The key routing of a screen built around the plant form: every key and paste applied in
order, Enter moving on to the next field or sending, a field's text selected as the focus
arrives."""

from __future__ import annotations

from typing import ClassVar

from textual import events, on
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Button

from plantstore_tui.core.plant.form import FormField
from plantstore_tui.ui.ordered_input import apply_key
from plantstore_tui.ui.textual_compat import CompatScreen
from plantstore_tui.ui.widgets.plant_form import FieldInput, PlantForm

# The field Tab and Enter move to from each field but the last.
_NEXT_FIELD: dict[FormField, FormField] = {"name": "id", "id": "tag"}


class FormScreen(CompatScreen[None]):
    """A screen holding a `PlantForm` whose keys are applied in order; `action_send` sends."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "next_field", "Next field", show=False),
    ]

    @property
    def form(self) -> PlantForm:
        """The plant form."""
        return self.query_one(PlantForm)

    def action_send(self) -> None:
        """Check the form and send what it holds."""
        raise NotImplementedError

    _typing = False

    def typing_started(self) -> None:
        """Called once, when a field first takes a key or a paste: a plant is on its way."""

    async def take_in_order(self, event: events.Key | events.Paste) -> bool:
        """Apply a key or paste completely before the app reads the next (ui/ordered_input.py)."""
        focused = self.focused
        if not (
            isinstance(event, events.Key) and event.is_printable and isinstance(focused, FieldInput)
        ):
            # What was typed before this key is in the fields before it acts.
            self.form.apply_typed()
        if isinstance(event, events.Paste):
            if not isinstance(focused, FieldInput):
                return False
            problem = focused.paste_now(event.text)
            if problem is not None:
                self.notify(problem, title="Not pasted", severity="warning")
            else:
                self._typed()
            return True
        if self.maximized is not None:
            self.form.apply_typed()
            return False
        return await apply_key(self.app, event, self._type_now)

    def _type_now(self, event: events.Key) -> bool:
        focused = self.focused
        # More keys read already (a burst): this one goes in with the characters typed next.
        with_next = self.app.message_queue_size > 0
        typed = isinstance(focused, FieldInput) and focused.type_now(event, with_next=with_next)
        if typed:
            self._typed()
        return typed

    def _typed(self) -> None:
        if not self._typing:
            self._typing = True
            self.typing_started()

    def set_focus(
        self, widget: Widget | None, scroll_visible: bool = True, from_app_focus: bool = False
    ) -> None:
        """Focus a widget; a form field gets its text selected at once, as the focus moves."""
        previous = self.focused
        # Textual scrolls a focused widget into view in a callback it posts for the purpose (a
        # message and a closure's signature worked out, three times a plant in a burst): a
        # field in view entirely already needs none.
        if scroll_visible and widget is not None and self.can_view_entire(widget):
            scroll_visible = False
        super().set_focus(widget, scroll_visible, from_app_focus)
        form = self.form
        within = self.focused is not None and form in self.focused.ancestors
        if form.has_class("-focus-within") != within:
            form.set_class(within, "-focus-within")
        if (
            isinstance(widget, FieldInput)
            and widget is self.focused
            and widget is not previous
            and not from_app_focus
        ):
            widget.select_all()

    def action_next_field(self) -> None:
        """Tab: from Name or ID the next field, at once (Textual's focus_next works out the
        screen's whole focus chain for it, twice a plant in a burst); elsewhere as Textual."""
        focused = self.focused
        following = _NEXT_FIELD.get(focused.field) if isinstance(focused, FieldInput) else None
        if following is None:
            self.focus_next()
            return
        field = self.form.field_input(following)
        if field.focusable:
            self.set_focus(field)
        else:
            self.focus_next()

    def action_enter(self) -> None:
        """Enter: on Name or ID the next field; on Tag or Send, send."""
        focused = self.focused
        if isinstance(focused, FieldInput) and focused.field != "tag":
            self.action_next_field()
        elif isinstance(focused, FieldInput) or (
            isinstance(focused, Button) and focused.id == PlantForm.SEND_BUTTON_ID
        ):
            self.action_send()

    @on(Button.Pressed, f"#{PlantForm.SEND_BUTTON_ID}")
    def _send_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_send()
