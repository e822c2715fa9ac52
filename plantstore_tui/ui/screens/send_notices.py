"""What the send screen tells and asks the operator about plants: the ledger's news once it is
open, whether to hold the queue after a cancel, where plants in line go when the target
switches."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text

from plantstore_tui.core.plant.text import visible

if TYPE_CHECKING:
    from textual.app import App

    from plantstore_tui.core.sending.session import EntrySession
    from plantstore_tui.core.sending.session_ledger import LedgerNews
    from plantstore_tui.ui.screens.confirm import Answer
    from plantstore_tui.ui.screens.send import SendScreen


def tell_ledger_news(screen: SendScreen, news: LedgerNews) -> None:
    """Say in the log and in notifications what the ledger just opened holds for the operator."""
    if news.problem is not None:
        words = (
            f"The ledger cannot be used: {news.problem}. Plants are kept in memory only "
            "for this run: a crash would lose the ones not yet sent."
        )
        screen.log_panel.add_note(words, screen.clock())
        screen.notify(words, title="Ledger in memory", severity="error", timeout=20)
    for problem in news.carried_problems:
        screen.notify(
            visible(problem), title="Earlier file not read", severity="warning", timeout=15
        )
    if news.waiting:
        # No question: an operator who starts typing at once would answer it by accident.
        screen.notify(
            f"{news.waiting} plant(s) from an earlier session need attention (F4): load one "
            "into the form to send it, or dismiss it. Nothing is sent without you.",
            title="Plants waiting",
            severity="warning",
            timeout=20,
        )


def stop_sending(session: EntrySession, app: App[object]) -> None:
    """Cancel the send in flight; with plants behind it, ask whether they are held too
    (nothing more goes out until the answer)."""
    from plantstore_tui.ui.screens.confirm import Answer, Choice, ChoiceScreen

    waiting = session.cancel_send()
    if not waiting:
        return

    def answered(answer: Answer) -> None:
        held = "Not sent: held when the queue was stopped (Esc)."
        session.go_on(held if answer.confirmed else None)

    app.push_screen(
        ChoiceScreen(
            "Stop the queue too?",
            Text(f"{waiting} more plant(s) are queued."),
            "Held plants are never sent: they wait in needs attention (F4), where each can "
            "be loaded into the form or dismissed.",
            [
                Choice("Hold them", "h", Answer.YES, "queue-hold", "warning"),
                Choice("Keep sending", "Esc", Answer.NO, "queue-keep"),
            ],
            cancel=Answer.NO,
            answered=answered,
        )
    )


def switch_target(session: EntrySession, app: App[object], switch: Callable[[], None]) -> bool:
    """Switch at once when no plant is in line (True); else ask whether they go to the old
    target as planned or are held, and switch after the answer unless it is "don't switch"."""
    from plantstore_tui.ui.screens.confirm import Choice, ChoiceScreen

    waiting = session.in_line()
    if not waiting:
        switch()
        return True
    target = session.target
    old = "the old target" if target is None else visible(target.profile or target.base_url)

    def answered(choice: str) -> None:
        if choice == "cancel":
            return
        if choice == "hold":
            session.hold_queued("Not sent: held when the profile was switched.")
        switch()

    app.push_screen(
        ChoiceScreen(
            "Plants are still queued",
            Text(f"{waiting} plant(s) queued for {old}"),
            "They can go to that target as planned, or wait in needs attention (F4), "
            "where each can be loaded into the form for the new target or dismissed.",
            [
                Choice(f"Send them to {old}", "s", "send", "switch-send", "primary"),
                Choice("Hold them", "h", "hold", "switch-hold"),
                Choice("Don't switch", "Esc", "cancel", "switch-cancel"),
            ],
            cancel="cancel",
            answered=answered,
        )
    )
    return False
