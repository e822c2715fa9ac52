"""The key routing of a screen built around the plant form: every key and paste applied in
order (`OrderedScreen`), Tab and Enter moving on to the next field, Enter on the last sending."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Button

from plantstore_tui.core.plant.form import FormField
from plantstore_tui.ui.ordered_input import OrderedScreen
from plantstore_tui.ui.textual_compat import CompatScreen
from plantstore_tui.ui.widgets.plant_form import FieldInput, PlantForm

# The field Tab and Enter move to from each field but the last.
_NEXT_FIELD: dict[FormField, FormField] = {"name": "id", "id": "tag"}


class FormScreen(CompatScreen[None], OrderedScreen[None]):
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

    def set_focus(
        self, widget: Widget | None, scroll_visible: bool = True, from_app_focus: bool = False
    ) -> None:
        """Focus a widget (its text selected, as on any ordered screen); the form is marked
        while the focus is within it."""
        super().set_focus(widget, scroll_visible, from_app_focus)
        form = self.form
        within = self.focused is not None and form in self.focused.ancestors
        if form.has_class("-focus-within") != within:
            form.set_class(within, "-focus-within")

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
