"""Verified entry's differences: the two keyings of a plant made different plants, and nothing
is taken until the operator settles each differing field (core/sending/verify.py)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from plantstore_tui.core.plant.form import FormField, field_error
from plantstore_tui.core.plant.text import visible
from plantstore_tui.core.sending.verify import Differs
from plantstore_tui.ui.ordered_input import OrderedScreen
from plantstore_tui.ui.widgets.typed_input import TypedInput

LABELS: dict[FormField, str] = {"name": "Name", "id": "ID", "tag": "Tag"}
HELP = (
    "Key each field below a third time, or take one of the two keyings: ↑ the first, ↓ the "
    "second. Enter goes on to the next field, and on the last takes the plant. Esc takes "
    "nothing: the second keying stays in the form."
)


def shown(text: str) -> str:
    """A keying's text as the operator can compare it: quoted (a space tells), safe to draw."""
    return f"“{visible(text)}”" if text else "(empty)"


class ThirdKeying(TypedInput):
    """A differing field keyed a third time; Enter belongs to the screen (the next field)."""

    def __init__(self, field: FormField) -> None:
        super().__init__(placeholder=f"{LABELS[field]}, keyed a third time", id=field)
        self.field: FormField = field

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Not Input's submit: the screen's Enter moves on at once, before the next key."""
        if action == "submit":
            return False
        return super().check_action(action, parameters)


Settled = dict[FormField, str] | None


class DifferencesScreen(ModalScreen[Settled], OrderedScreen[Settled]):
    """Each differing field with both keyings and a field to key it a third time; dismissed
    with the settled texts of the differing fields, or None (Esc). Its keys are applied in
    order (`OrderedScreen`): ↑ then Enter then ↑ in one write settle two fields."""

    DEFAULT_CSS = """
    DifferencesScreen {
        align: center middle;
    }
    #differences-panel {
        width: 76;
        max-width: 96%;
        height: auto;
        max-height: 96%;
        border: thick $warning;
        border-title-color: $text-warning;
        background: $surface;
        padding: 0 1;
    }
    #differences-panel .keyings {
        margin: 1 0 0 0;
    }
    #differences-panel .problem {
        color: $text-error;
        height: auto;
        display: none;
    }
    #differences-panel .problem.-shown {
        display: block;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Take nothing", id="differences.cancel"),
        Binding("enter,ctrl+j", "next", "Next field / take it", show=False, id="differences.next"),
        Binding("up", "take(1)", "First keying", id="differences.first"),
        Binding("down", "take(2)", "Second keying", id="differences.second"),
    ]

    def __init__(self, differs: Differs) -> None:
        super().__init__()
        self.differs = differs

    def compose(self) -> ComposeResult:
        """The help, then for each differing field its two keyings and its third keying."""
        differs = self.differs
        with Vertical(id="differences-panel") as panel:
            count = len(differs.fields)
            panel.border_title = (
                "The two keyings differ in "
                + ("one field" if count == 1 else f"{count} fields")
                + ": nothing is taken yet"
            )
            yield Static(Text(HELP))
            for field in differs.fields:
                first, second = getattr(differs.first, field), getattr(differs.second, field)
                yield Static(
                    Text(f"{LABELS[field]}   1st {shown(first)}   2nd {shown(second)}"),
                    classes="keyings",
                )
                yield ThirdKeying(field)
                yield Static("", id=f"{field}-problem", classes="problem")

    def on_mount(self) -> None:
        """The first differing field takes the keys."""
        self.set_focus(self.query_one(f"#{self.differs.fields[0]}", ThirdKeying))

    def _focused_field(self) -> FormField | None:
        focused = self.focused
        return focused.field if isinstance(focused, ThirdKeying) else None

    def action_take(self, keying: int) -> None:
        """Put the first (1) or second (2) keying of the focused field in it."""
        field = self._focused_field()
        if field is None:
            return
        source = self.differs.first if keying == 1 else self.differs.second
        field_input = self.query_one(f"#{field}", ThirdKeying)
        field_input.value = getattr(source, field)
        field_input.cursor_position = len(field_input.value)

    def action_cancel(self) -> None:
        """Take nothing."""
        self.dismiss(None)

    def action_next(self) -> None:
        """Enter: the focused field checked, then on to the next field not settled; the plant
        taken once every field is."""
        current = self._focused_field()
        if current is None:
            return
        fields = self.differs.fields
        chosen: dict[FormField, str] = {}
        for field in fields:
            field_input = self.query_one(f"#{field}", ThirdKeying)
            if field != current and not field_input.value:
                continue  # not keyed yet: nothing to say about it
            problem = field_error(field, field_input.value)
            said = self.query_one(f"#{field}-problem", Static)
            said.update(Text(problem or ""))
            said.set_class(problem is not None, "-shown")
            if problem is None:
                chosen[field] = field_input.value
            elif field == current:
                return
        if len(chosen) == len(fields):
            self.dismiss(chosen)
            return
        position = fields.index(current)
        later = [f for f in fields[position + 1 :] + fields[:position] if f not in chosen]
        self.set_focus(self.query_one(f"#{later[0]}", ThirdKeying))
