"""Needs attention (F4): the plants that did not go through, each to load back or dismiss, and
the held plants of the form's target, all sent again with one key after one question.

A held plant never left (the queue was stopped, the profile switched, plantstore-tui quit): it
can go as it is. A plant of unknown fate may exist already, and one the deployment refused
needs fixing: those are loaded into the form one by one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from plantstore_tui.core.http.address import same_target, target_words
from plantstore_tui.core.plant.text import BLOCK_SHOWN, plural, shorten, visible
from plantstore_tui.core.store.records import HistoryEntry, PlantState, pending_words

# (ledger entry, load it into the form?) -> None
Attend = Callable[[int, bool], None]
# The base URL and profile the form sends to.
Aim = tuple[str, str | None]
# Send these held plants, in this order (after asking).
SendHeld = Callable[[list[HistoryEntry]], None]


def _option(plant: HistoryEntry, aim: Aim | None) -> Option:
    line = Text()
    line.append(f"#{plant.entry}  ", style="dim")
    line.append(pending_words(plant), style="bold")
    line.append(f"  id {plant.plant_id}  {visible(shorten(plant.name, 40))}")
    if plant.tag:
        line.append(f"  [{visible(shorten(plant.tag, 20))}]", style="dim")
    line.append(f"\n    to {visible(target_words(plant.base_url, plant.profile))}", style="dim")
    if aim is not None and not same_target(plant.base_url, plant.profile, *aim):
        line.append("  not the form's target", style="bold")
    reason = plant.note if plant.held or plant.outcome is None else plant.message
    reason = reason or plant.message
    if plant.state is PlantState.UNKNOWN and "may exist" not in reason:
        ended = reason if not reason or reason.endswith((".", "!", "?")) else f"{reason}."
        reason = f"{ended} It may exist already.".strip()
    if reason:
        line.append(f"\n    {visible(shorten(reason, BLOCK_SHOWN))}", style="dim")
    return Option(line, id=str(plant.entry))


def held_here(plants: Sequence[HistoryEntry], aim: Aim | None) -> list[HistoryEntry]:
    """The plants held before they were sent, meant for the form's target, in the order taken."""
    if aim is None:
        return []
    return [
        plant
        for plant in plants
        if plant.never_sent and same_target(plant.base_url, plant.profile, *aim)
    ]


class AttentionScreen(ModalScreen[None]):
    """Enter loads the highlighted plant into the form; Delete dismisses it; Ctrl+S sends every
    held plant of the form's target, in order, after one question.

    No letter dismisses or sends: keys typed ahead for the form must not throw a plant away.
    """

    CSS_PATH = "../profiles.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "load", "Load into the form", id="attention.load"),
        Binding("ctrl+s", "send_held", "Send the held plants", id="attention.send_held"),
        Binding("delete", "dismiss_plant", "Dismiss", id="attention.dismiss"),
        Binding("escape,f4", "close", "Close", id="attention.close"),
    ]

    def __init__(
        self,
        plants: Sequence[HistoryEntry],
        attend: Attend,
        aim: Aim | None = None,
        send_held: SendHeld | None = None,
    ) -> None:
        super().__init__()
        self._plants = list(plants)
        self._attend = attend
        # Where the form sends (None: no target yet): a plant for another target says so.
        self._aim = aim
        self._send_held = send_held

    def compose(self) -> ComposeResult:
        """The list, oldest first, and what the keys do."""
        with Vertical(id="attention-panel") as panel:
            panel.border_title = f"Needs attention ({len(self._plants)})"
            options = (_option(plant, self._aim) for plant in self._plants)
            yield OptionList(*options, id="attention-list")
            yield Static(self._hint(), id="attention-hint")

    def _held(self) -> list[HistoryEntry]:
        return [] if self._send_held is None else held_here(self._plants, self._aim)

    def _hint(self) -> Text:
        keys = ["Enter: load into the form to fix and send"]
        held = len(self._held())
        if held:
            keys.append(f"Ctrl+S: send the {plural(held, 'held plant')}")
        keys += ["Delete: dismiss", "Esc: close"]
        return Text(" · ".join(keys))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Ctrl+S only while a held plant of the form's target is listed."""
        if action == "send_held":
            return bool(self._held())
        return super().check_action(action, parameters)

    def action_send_held(self) -> None:
        """Close, and send every held plant of the form's target, in order, once asked."""
        held = self._held()
        if held and self._send_held is not None:
            self.dismiss()
            self._send_held(held)

    @property
    def _list(self) -> OptionList:
        return self.query_one(OptionList)

    def _highlighted(self) -> int | None:
        index = self._list.highlighted
        if index is None:
            return None
        option_id = self._list.get_option_at_index(index).id
        return None if option_id is None else int(option_id)

    def action_load(self) -> None:
        """Load the highlighted plant into the form and close."""
        number = self._highlighted()
        if number is not None:
            self.dismiss()
            self._attend(number, True)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_load()

    def action_dismiss_plant(self) -> None:
        """Dismiss the highlighted plant: it is forgotten (its log entry says so)."""
        number = self._highlighted()
        if number is None:
            return
        self._attend(number, False)
        index = self._list.highlighted
        self._list.remove_option(str(number))
        self._plants = [plant for plant in self._plants if plant.entry != number]
        if not self._plants:
            self.dismiss()
            return
        self.query_one("#attention-panel").border_title = f"Needs attention ({len(self._plants)})"
        self.query_one("#attention-hint", Static).update(self._hint())
        if index is not None:
            self._list.highlighted = min(index, len(self._plants) - 1)

    def action_close(self) -> None:
        """Close the list."""
        self.dismiss()
