"""What the send screen tells and asks the operator about plants: the ledger's news once it is
open, whether to hold the queue after a cancel, where plants in line go when the target
switches, whether to send the held plants again. The questions are built here and asked
through `SendScreen.ask`, which stops the queue while they are open."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from rich.text import Text

from plantstore_tui.core.plant.text import plural, shorten, visible
from plantstore_tui.core.sending.state import TokenRefused, Unreachable
from plantstore_tui.ui.screens.confirm import Answer, Choice, ChoiceScreen

# How many held plants the question before sending them again names one by one.
HELD_NAMED = 5

if TYPE_CHECKING:
    from plantstore_tui.core.sending.events import LedgerNews
    from plantstore_tui.core.sending.service import SendService, Status
    from plantstore_tui.core.store.records import HistoryEntry
    from plantstore_tui.ui.screens.confirm import Answer, ChoiceScreen
    from plantstore_tui.ui.widgets.response_log import ResponseLog


def tell_ledger_news(
    log: ResponseLog, notify: Callable[..., None], now: datetime, news: LedgerNews
) -> None:
    """Say in the log and in notifications what the ledger just opened holds for the operator."""
    if news.problem is not None:
        words = (
            f"The ledger cannot be used: {news.problem}. Plants are kept in memory only "
            "for this run: a crash would lose the ones not yet sent."
        )
        log.add_note(words, now)
        notify(words, title="Ledger in memory", severity="error", timeout=20)
    for problem in news.carried_problems:
        notify(visible(problem), title="Earlier file not read", severity="warning", timeout=15)
    if news.waiting:
        # No question: an operator who starts typing at once would answer it by accident. No
        # toast either: it would hide the log's newest lines while they start. The log keeps
        # it; the status line counts them.
        log.add_note(
            f"{plural(news.waiting, 'plant')} from an earlier session "
            f"{'needs' if news.waiting == 1 else 'need'} attention (F4): load one into the form "
            "to send it, or dismiss it. Nothing is sent without you.",
            now,
        )


def stop_question(service: SendService, waiting: int) -> ChoiceScreen[Answer]:
    """Esc cancelled a send with plants behind it: are they held too? (Asked through the send
    screen's one path: nothing goes out until the answer.)"""

    def answered(answer: Answer) -> None:
        if answer.confirmed:
            service.hold_queued("Not sent: held when the queue was stopped (Esc).")

    return ChoiceScreen(
        "Stop the queue too?",
        Text(f"{plural(waiting, 'more plant is', 'more plants are')} queued."),
        "Held plants are never sent: they wait in needs attention (F4), where each can "
        "be loaded into the form or dismissed.",
        [
            Choice("Hold them", "h", Answer.YES, "queue-hold", "warning"),
            Choice("Keep sending", "Esc", Answer.NO, "queue-keep"),
        ],
        cancel=Answer.NO,
        answered=answered,
    )


def switch_question(
    service: SendService, status: Status, switch: Callable[[], None]
) -> ChoiceScreen[str]:
    """Plants are in line for the old target: do they go there as planned, or are they held?
    The switch comes after the answer, unless it is "don't switch". A queue that cannot send
    now (a refused token, a deployment that cannot be reached) offers only to hold them."""

    target, waiting = status.target, status.in_line
    old = "the old target" if target is None else visible(target.profile or target.base_url)
    stuck = isinstance(status.state, TokenRefused | Unreachable)

    def answered(choice: str) -> None:
        if choice == "cancel":
            return
        if choice == "hold":
            service.hold_queued("Not sent: held when the profile was switched.")
        switch()

    choices = [
        Choice("Hold them", "h", "hold", "switch-hold", "primary" if stuck else "default"),
        Choice("Don't switch", "Esc", "cancel", "switch-cancel"),
    ]
    if stuck:
        detail = (
            f"{old} cannot take them now. Held, they wait in needs attention (F4), where each "
            "can be loaded into the form for the new target or dismissed."
        )
    else:
        choices.insert(0, Choice(f"Send them to {old}", "s", "send", "switch-send", "primary"))
        detail = (
            "They can go to that target as planned, or wait in needs attention (F4), "
            "where each can be loaded into the form for the new target or dismissed."
        )
    return ChoiceScreen(
        "Plants are still queued",
        Text(f"{plural(waiting, 'plant')} queued for {old}"),
        detail,
        choices,
        cancel="cancel",
        answered=answered,
    )


def held_question(
    plants: Sequence[HistoryEntry],
    where: str,
    answered: Callable[[Answer], None],
    *,
    protected: bool,
) -> ChoiceScreen[Answer]:
    """The one question before the held plants go: how many, where, and which."""
    subject = Text()
    subject.append(f"{plural(len(plants), 'held plant')} to {visible(where)}", style="bold")
    for plant in plants[:HELD_NAMED]:
        subject.append(f"\n#{plant.entry}  id {plant.plant_id}  {visible(shorten(plant.name, 40))}")
    if len(plants) > HELD_NAMED:
        subject.append(f"\n… and {plural(len(plants) - HELD_NAMED, 'more plant')}")
    detail = (
        "They go in the order they were taken, each as a new send, as if loaded into the form "
        "and sent. Plants whose fate is unknown stay in needs attention, to check one by one."
    )
    if protected:
        detail += " This profile is marked protected: this answer confirms these sends."
    return ChoiceScreen(
        f"Send {plural(len(plants), 'held plant')}?",
        subject,
        detail,
        [
            Choice("Send them", "s", Answer.YES, "held-send", "error" if protected else "primary"),
            Choice("Cancel", "Esc", Answer.NO, "held-cancel"),
        ],
        cancel=Answer.NO,
        danger=protected,
        answered=answered,
    )
