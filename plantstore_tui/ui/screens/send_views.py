"""The send screen's views of the ledger: needs attention (F4), where a plant is loaded back
into the form or dismissed, and the history (F3)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from plantstore_tui.core.plant.text import visible

if TYPE_CHECKING:
    from plantstore_tui.core.store import HistoryEntry
    from plantstore_tui.ui.screens.confirm import Answer
    from plantstore_tui.ui.screens.send import SendScreen


def open_attention(screen: SendScreen) -> None:
    """List the plants that need attention, or say that none does."""
    from plantstore_tui.core.store import StoreError
    from plantstore_tui.ui.screens.attention import AttentionScreen

    try:
        attention = screen.session.ledger().attention()
    except StoreError as exc:
        screen.notify(visible(str(exc)), title="Ledger not read", severity="error")
        return
    if not attention:
        screen.notify("Every plant sent so far went through.", title="Nothing needs attention")
        return

    def attended(number: int, load: bool) -> None:
        attend(screen, number, load)

    screen.app.push_screen(AttentionScreen(attention, attended, screen.session.aim))


def attend(screen: SendScreen, number: int, load: bool) -> None:
    """The operator chose a plant: load it into the form (`load`; asked first when it was for
    another target) or dismiss it."""
    from plantstore_tui.core.store import StoreError

    try:
        found = screen.session.ledger().get(number)
    except StoreError as exc:
        screen.notify(visible(str(exc)), title="Ledger not read", severity="error")
        return
    if found is None:
        return
    if not load:
        _release(screen, found, load=False)
    elif screen.form.holds_typing():
        screen.notify(
            "The form holds a plant being typed: send it or empty the fields first.",
            title="Not loaded",
            severity="warning",
        )
    else:
        ask_if_elsewhere(screen, found, lambda: _release(screen, found, load=True))


def _release(screen: SendScreen, found: HistoryEntry, *, load: bool) -> None:
    """Take the plant out of needs attention, into the form (`load`) or dismissed."""
    from plantstore_tui.core.store import StoreError
    from plantstore_tui.core.store.records import PlantState

    session, form = screen.session, screen.form
    at = screen.clock().strftime("%H:%M:%S")
    after = f"Loaded into the form at {at}." if load else f"Dismissed at {at}."
    try:
        taken = session.release(found.entry, after)
    except StoreError as exc:
        screen.notify(visible(str(exc)), title="Ledger not written", severity="error")
        return
    if not taken:
        screen.notify(
            "Another plantstore-tui has already dealt with this plant.", title="Not loaded"
        )
    screen.show_state()
    if not (taken and load):
        return
    form.load(found.typed)
    if found.state in (PlantState.UNKNOWN, PlantState.SENDING):
        screen.notify(
            f"Plant {found.plant_id} may exist already: its send got no clear answer. "
            "Sending it again may create it twice, or be refused as a duplicate id.",
            title="Check before sending",
            severity="warning",
            timeout=10,
        )


def ask_if_elsewhere(screen: SendScreen, entry: HistoryEntry, load: Callable[[], None]) -> None:
    """`load` at once when `entry` was for the target the form sends to (or none is chosen
    yet); else say so and ask first, once the screen that chose it has closed."""
    from rich.text import Text

    from plantstore_tui.core.http.address import same_target, target_words
    from plantstore_tui.ui.screens.confirm import ConfirmScreen

    aim = screen.session.aim
    if aim is None or same_target(entry.base_url, entry.profile, *aim):
        load()
        return
    meant, here = target_words(entry.base_url, entry.profile), target_words(*aim)
    subject = Text()
    subject.append(f"{visible(entry.typed.name)} (id {visible(entry.typed.id)})", style="bold")
    subject.append(f"\nwas for   {visible(meant)}")
    subject.append(f"\nthe form  {visible(here)}")

    def answered(answer: Answer) -> None:
        if answer.confirmed:
            load()

    question = ConfirmScreen(
        "Load a plant meant for another target?",
        subject,
        f"Sent from the form, it goes to {visible(here)}. To send it where it was meant to "
        "go, switch profiles (F2) first.",
        yes="Load it",
        no="Cancel",
        answered=answered,
    )
    # Asked once the screen it was chosen on, which closes on this choice, is gone.
    screen.call_after_refresh(screen.app.push_screen, question)


def open_history(screen: SendScreen) -> None:
    """Open the history: every send kept, to look at, load, resend or copy as curl."""
    from plantstore_tui.ui.screens.history import HistoryScreen

    def load(entry: HistoryEntry) -> str | None:
        # The ID the form moved on to by itself is not work in progress; a name typed is.
        if screen.form.texts().name.strip():
            return "The form holds a plant being typed: send it or clear its name first."
        ask_if_elsewhere(screen, entry, lambda: screen.form.load(entry.typed))
        return None

    def resend(entry: HistoryEntry) -> str | None:
        return resend_from_history(screen, entry)

    screen.app.push_screen(HistoryScreen(load, resend))


def resend_from_history(screen: SendScreen, entry: HistoryEntry) -> str | None:
    """Queue a send from the history again, to the current target (protected: asked first);
    why not, if it cannot be."""
    return screen.submit(entry.typed, from_form=False) or None
