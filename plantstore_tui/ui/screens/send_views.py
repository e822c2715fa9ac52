"""The send screen's views of the ledger: needs attention (F4), where a plant is loaded back
into the form or dismissed, and the history (F3)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from plantstore_tui.core.plant.text import visible
from plantstore_tui.ui.screens.send_submit import parse, queue_plant

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

    screen.app.push_screen(AttentionScreen(attention, attended))


def attend(screen: SendScreen, number: int, load: bool) -> None:
    """The operator chose a plant: load it into the form (`load`) or dismiss it."""
    from plantstore_tui.core.store import StoreError
    from plantstore_tui.core.store.records import PlantState

    session, form = screen.session, screen.form
    try:
        found = session.ledger().get(number)
    except StoreError as exc:
        screen.notify(visible(str(exc)), title="Ledger not read", severity="error")
        return
    if found is None:
        return
    at = screen.clock().strftime("%H:%M:%S")
    if load and form.holds_typing():
        screen.notify(
            "The form holds a plant being typed: send it or empty the fields first.",
            title="Not loaded",
            severity="warning",
        )
        return
    after = f"Loaded into the form at {at}." if load else f"Dismissed at {at}."
    try:
        taken = session.release(number, after)
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


def open_history(screen: SendScreen) -> None:
    """Open the history: every send kept, to look at, load, resend or copy as curl."""
    from plantstore_tui.ui.screens.history import HistoryScreen

    def load(entry: HistoryEntry) -> str | None:
        # The ID the form moved on to by itself is not work in progress; a name typed is.
        if screen.form.texts().name.strip():
            return "The form holds a plant being typed: send it or clear its name first."
        screen.form.load(entry.typed)
        return None

    def resend(entry: HistoryEntry) -> str | None:
        return resend_from_history(screen, entry)

    screen.app.push_screen(HistoryScreen(load, resend))


def resend_from_history(screen: SendScreen, entry: HistoryEntry) -> str | None:
    """Queue a send from the history again, to the current target (protected: asked first);
    why not, if it cannot be."""
    session, protected = screen.session, screen.protected
    if not session.chosen or session.problem is not None:
        return session.problem or "No target yet: press F2 to choose a profile."
    texts = entry.typed
    target = session.target
    if target is not None and protected.needs_asking(target):
        plant = parse(screen, texts)
        if plant is None:
            return "That send no longer makes a valid plant."

        def answered(answer: Answer) -> None:
            if protected.record(target, answer):
                queue_plant(screen, texts, confirmed=True, from_form=False)

        # Asked once the history screen, which closes on this answer, is gone.
        question = protected.question(target, plant, answered)
        screen.call_after_refresh(screen.app.push_screen, question)
        return None
    queue_plant(screen, texts, confirmed=target is not None, from_form=False)
    return None
