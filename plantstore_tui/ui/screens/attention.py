"""Needs attention (F4): the plants that did not go through, each to load back or dismiss."""

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
from plantstore_tui.core.plant.text import BLOCK_SHOWN, shorten, visible
from plantstore_tui.core.store.records import HistoryEntry, PlantState, pending_words

# (ledger entry, load it into the form?) -> None
Attend = Callable[[int, bool], None]
# The base URL and profile the form sends to.
Aim = tuple[str, str | None]


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


class AttentionScreen(ModalScreen[None]):
    """Enter loads the highlighted plant into the form; Delete dismisses it.

    No letter dismisses: keys typed ahead for the form must not throw a plant away.
    """

    CSS_PATH = "../profiles.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "load", "Load into the form"),
        Binding("delete", "dismiss_plant", "Dismiss"),
        Binding("escape,f4", "close", "Close"),
    ]

    def __init__(
        self, plants: Sequence[HistoryEntry], attend: Attend, aim: Aim | None = None
    ) -> None:
        super().__init__()
        self._plants = list(plants)
        self._attend = attend
        # Where the form sends (None: no target yet): a plant for another target says so.
        self._aim = aim

    def compose(self) -> ComposeResult:
        """The list, oldest first, and what the keys do."""
        with Vertical(id="attention-panel") as panel:
            panel.border_title = f"Needs attention ({len(self._plants)})"
            options = (_option(plant, self._aim) for plant in self._plants)
            yield OptionList(*options, id="attention-list")
            yield Static(
                Text("Enter: load into the form to fix and send · Delete: dismiss · Esc: close"),
                id="attention-hint",
            )

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
        if index is not None:
            self._list.highlighted = min(index, len(self._plants) - 1)

    def action_close(self) -> None:
        """Close the list."""
        self.dismiss()
