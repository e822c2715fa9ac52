"""The key routing of a screen built around the plant form: every key and paste applied in
order (`OrderedScreen`), Tab and Enter moving on to the next field, Enter on the last sending."""

from __future__ import annotations

from textual import on
from textual.widget import Widget
from textual.widgets import Button

from plantstore_tui.ui.ordered_input import OrderedScreen
from plantstore_tui.ui.widgets.plant_form import FieldInput, PlantForm


class FormScreen(OrderedScreen[None]):
    """A screen holding a `PlantForm` whose keys are applied in order; `action_send` sends."""

    @property
    def form(self) -> PlantForm:
        """The plant form."""
        return self.query_one(PlantForm)

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

    def action_send(self) -> None:
        """Check the form and send what it holds."""
        raise NotImplementedError

    def action_enter(self) -> None:
        """Enter: on Name or ID the next field; on Tag or Send, send."""
        focused = self.focused
        if isinstance(focused, FieldInput) and focused.field != "tag":
            self.focus_next()
        elif isinstance(focused, FieldInput) or (
            isinstance(focused, Button) and focused.id == PlantForm.SEND_BUTTON_ID
        ):
            self.action_send()

    @on(Button.Pressed, f"#{PlantForm.SEND_BUTTON_ID}")
    def _send_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_send()
