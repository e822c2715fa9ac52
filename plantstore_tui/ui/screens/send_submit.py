"""Taking a plant in from the send screen: why it cannot be sent yet, the question a protected
target asks first, and the plant written to the ledger as queued before the form lets go of it.

The send (Ctrl+S) and a resend from the history (send_views.py) both come through here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from plantstore_tui.core.plant.text import visible
from plantstore_tui.ui.textual_compat import hold_frames

if TYPE_CHECKING:
    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.plant.form import FormTexts
    from plantstore_tui.core.plant.models import NewPlant
    from plantstore_tui.core.sending.session import EntrySession
    from plantstore_tui.ui.screens.confirm import Answer
    from plantstore_tui.ui.screens.send import SendScreen

# How long the screen may wait for a send's answer before it shows the plant as sending: under
# what an operator can tell from at once.
ANSWER_AWAITED_SECONDS = 0.05


def submit(screen: SendScreen, texts: FormTexts) -> None:
    """Hand the form's checked texts to the queue, or say why not (asking first if the target
    is protected)."""
    session = screen.session
    if session.problem is not None:
        screen.notify(session.problem, title="Cannot send", severity="error")
        return
    if not session.chosen:
        screen.notify(
            "No target yet: press F2 to choose or create a profile.",
            title="Not sent",
            severity="warning",
        )
        return
    target = session.target
    if target is not None and screen.protected.needs_asking(target):
        _ask_then_queue(screen, texts, target)
        return
    # Before the connection is made nobody knows yet whether the target is protected: such
    # a plant is confirmed, if it must be, when its turn to be sent comes.
    queue_plant(screen, texts, confirmed=target is not None)


def _ask_then_queue(screen: SendScreen, texts: FormTexts, target: Target) -> None:
    plant = parse(screen, texts)
    if plant is None:
        return

    def answered(answer: Answer) -> None:
        # Called as the answer key is read, before the keys typed after it are applied.
        if screen.protected.record(target, answer):
            queue_plant(screen, texts, confirmed=True)
        else:
            screen.notify("Nothing was sent; the plant is still in the form.", title="Not sent")

    screen.ask(screen.protected.question(target, plant, answered))


def parse(screen: SendScreen, texts: FormTexts) -> NewPlant | None:
    """The plant the texts make, or None with the form showing why not."""
    from plantstore_tui.core.plant.form import FormErrors
    from plantstore_tui.core.plant.models import parse_new_plant

    parsed = parse_new_plant(name=texts.name, id=texts.id, tag=texts.tag)
    if isinstance(parsed, FormErrors):
        screen.form.show_errors(parsed.errors)
        return None
    return parsed


def queue_plant(
    screen: SendScreen, texts: FormTexts, *, confirmed: bool, from_form: bool = True
) -> None:
    """Take a plant into the session and put it in line; `from_form` hands the form over."""
    from plantstore_tui.core.store import StoreError

    plant = parse(screen, texts)
    if plant is None:
        return
    try:
        # Committed (synchronous=FULL) before the form lets go of the plant or its log
        # entry is drawn: what the screen shows as taken is on disk.
        queued = screen.session.take(texts, plant, confirmed=confirmed)
    except StoreError as exc:
        screen.notify(
            f"Not taken: the ledger cannot be written: {visible(str(exc))}. "
            "The plant is still in the form.",
            title="Not sent",
            severity="error",
        )
        return
    if screen.session.unsynced:
        # Taken in a burst (`EntrySession.sync_later`): durable before the frame shows it.
        screen.before_frame(screen.sync_taken)
    if from_form:
        screen.form.hand_over(texts)
        if queued.sending_recorded:
            # It goes out now: the cleared form and its entry are painted with its answer, if
            # that comes within the moment. A frame of "sending…" the answer replaces ms later
            # would cost the UI thread the frame, and the answer's frame would wait a tick for it.
            hold_frames(screen.app, ANSWER_AWAITED_SECONDS)
    screen.session.enqueue(queued)


def sync_taken(screen: SendScreen, session: EntrySession) -> None:
    """Sync the takes written with `EntrySession.sync_later` to the disk; if it refuses, say so."""
    from plantstore_tui.core.store import StoreError

    try:
        session.sync_taken()
    except StoreError as exc:
        screen.notify(
            f"The plants just taken are in the ledger, but it could not be synced to the disk: "
            f"{visible(str(exc))}. A power cut could lose them.",
            title="Ledger not synced",
            severity="error",
        )
