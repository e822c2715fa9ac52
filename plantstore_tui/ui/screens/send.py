"""The main screen: the form on the left, the log on the right, plants sent from a queue.

The screen renders and routes keys; the send service (core/sending/service.py), which the app
owns and hands it, runs each plant's journey and tells what happened as typed events, which
arrive here as `Told` messages (ui/messages.py).
A valid submit is written to the ledger as queued, then the form is ready for the next plant
while the queue sends, one at a time in the order submitted. Every plant has its log entry from
the moment it is on disk; one that did not go through waits in needs attention (a view of the
ledger) until the operator loads it back into the form or dismisses it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input

from plantstore_tui.core.http.address import target_words
from plantstore_tui.core.plant.text import visible
from plantstore_tui.core.sending import events
from plantstore_tui.core.sending.events import UNREAD
from plantstore_tui.core.sending.state import TokenRefused, Unreachable, change_words
from plantstore_tui.core.sending.submitted import (
    AimedElsewhere,
    FormBusy,
    FromAttention,
    FromHistory,
    Invalid,
    Loaded,
    Loading,
    NeedsConfirmation,
    NotTaken,
    Submitted,
    Taken,
    ToLoad,
)
from plantstore_tui.core.sending.verify import Differs, KeyAgain
from plantstore_tui.core.store import StoreError
from plantstore_tui.core.store.records import PlantState
from plantstore_tui.ui.connection import TargetLabel
from plantstore_tui.ui.messages import TargetClicked, Told
from plantstore_tui.ui.ordered_input import OrderedScreen
from plantstore_tui.ui.screens.confirm import Answer, elsewhere_question, protected_question
from plantstore_tui.ui.screens.queue_questions import (
    held_question,
    stop_question,
    switch_question,
    tell_ledger_news,
)
from plantstore_tui.ui.widgets.one_line_footer import OneLineFooter
from plantstore_tui.ui.widgets.plant_form import PlantForm
from plantstore_tui.ui.widgets.response_log import ResponseLog
from plantstore_tui.ui.widgets.status_line import StatusKind, StatusLine

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.timer import Timer

    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.plant.form import FormField, FormTexts
    from plantstore_tui.core.sending.events import PlantView
    from plantstore_tui.core.sending.service import Clock, SendService
    from plantstore_tui.core.store import HistoryEntry
    from plantstore_tui.ui.screens.confirm import Answer, ChoiceScreen


T = TypeVar("T")

# The form's title, by the keying it holds (verified entry: None when off).
KEYING_TITLES = {
    None: "New plant",
    1: "New plant · verified",
    2: "Same plant again, blind",
}

# Why nothing was loaded into the form (F3, F4, F5 ask to load a plant).
FORM_BUSY = "The form holds a plant being typed: send it or empty the fields first."

# From this many rows up the form has room to space its fields out.
ROOMY_ROWS = 30

# How long a send waits for next id's offer before it and the keys after it are applied as
# typed: a connection that hangs (a keyring waiting to be unlocked) holds no keys for long.
OFFER_WAIT_SECONDS = 10.0


class SendScreen(OrderedScreen[None]):
    """Where plants are entered, queued, sent, and their answers logged."""

    BINDINGS: ClassVar[list[BindingType]] = [
        # Enter on Tag or Send sends too (the form's binding).
        Binding("ctrl+s", "send", "Send", id="send.send"),
        Binding("escape", "cancel_send", "Cancel send", id="send.cancel"),
        # Shown only when they apply (check_action): after a refused token, while the
        # deployment cannot be reached.
        Binding("ctrl+r", "resume", "Resume", id="send.resume"),
        Binding("ctrl+r", "try_now", "Try now", id="send.try_now"),
        Binding("f3", "history", "History", id="send.history"),
        Binding("f4", "attention", "Needs attention", id="send.attention"),
        # Not in the footer, which keeps to the keys of every plant: the palette and help name it.
        Binding("f6", "probe", "Probe", show=False, id="send.probe"),
        Binding("f7", "summary", "Shift summary", show=False, id="send.summary"),
        # In a browser, Alt+N and Alt+T instead (core/config/keymap.py); priority, as an Alt+letter
        # is a printable key, which a focused field would type.
        Binding(
            "ctrl+n", "toggle_next_id", "Next id", show=False, priority=True, id="send.next_id"
        ),
        Binding(
            "ctrl+t", "toggle_keep_tag", "Keep tag", show=False, priority=True, id="send.keep_tag"
        ),
        # The ditto key; a priority binding, as Input's own Ctrl+D (delete right) is the Delete
        # key's twin. Applied in order with the keys around it (ui/ordered_input.py).
        Binding(
            "ctrl+d",
            "same_as_last",
            "Same as last",
            show=False,
            priority=True,
            id="send.same_as_last",
        ),
        Binding("ctrl+l", "clear_log", "Clear log", show=False, id="send.clear_log"),
        Binding("ctrl+o", "save_log", "Save log", show=False, id="send.save_log"),
    ]

    def __init__(self, service: SendService, label: TargetLabel, clock: Clock) -> None:
        super().__init__()
        # The target as chosen at the start, for the status line until it is connected.
        self._label = label
        self.clock = clock
        """The time of log entries and notes."""
        self.service = service
        """The app's send service: every plant this screen takes goes its way through it."""
        # True from when the screen starts connecting a target until the form has its next id
        # offer (or knows it is not coming); what waits for it meanwhile (`_after_offer`).
        self._offer_pending = False
        self._waiting_for_offer: list[Callable[[], None]] = []
        self._offer_late: Timer | None = None

    def compose(self) -> ComposeResult:
        """Status line, form and log side by side, footer."""
        label = self._label
        yield StatusLine(
            label.parts(), self._initial_state(), protected=label.protected, id="status"
        )
        # Side by side in the screen's own horizontal layout (app.tcss), no container of their own.
        # Marked as holding the focus from the start: Name is focused as the screen mounts.
        form = PlantForm(id="form", classes="-focus-within")
        form.border_title = "New plant"
        yield form
        log = ResponseLog(id="log")
        log.border_title = "Responses"
        yield log
        yield OneLineFooter()

    def _initial_state(self) -> tuple[str, StatusKind]:
        if self.service.status().aim is None:
            # First run: the form works, sending waits for a target.
            return ("no target: F2 for profiles", "problem")
        return ("starting…", "busy")

    @property
    def form(self) -> PlantForm:
        """The plant form."""
        return self.query_one(PlantForm)

    @property
    def log_panel(self) -> ResponseLog:
        """The response log."""
        return self.query_one(ResponseLog)

    @property
    def status(self) -> StatusLine:
        """The status line."""
        return self.query_one(StatusLine)

    @property
    def target(self) -> Target | None:
        """The target plants go to, once connected (the service's)."""
        return self.service.status().target

    def on_mount(self) -> None:
        """Focus Name; open the ledger and connect once the screen is shown."""
        if not self.query(PlantForm):
            # Taken down before it was mounted: the app is ending (its terminal closed at once).
            return
        self.form.focus_field("name")
        self.show_state(*self._initial_state())
        self._offer_pending = self.service.status().aim is not None
        # Started once there is a screen to tell: with no target yet (first run), nothing starts
        # before one is chosen (a demo chosen instead runs in a sandbox, and must find the
        # operator's ledger as it was).
        self.call_after_refresh(self.service.start)

    def on_resize(self) -> None:
        """A terminal of 30 rows or more spaces the form out (app.tcss); at 24 it fits close,
        Send a one-row button, leaving room for a message of two lines under each field."""
        roomy = self.size.height >= ROOMY_ROWS
        self.set_class(roomy, "-roomy")
        self.form.send_button.compact = not roomy

    # Submitting -------------------------------------------------------------------------------

    def action_send(self) -> None:
        """Send what the form holds: the session checks it and takes a valid plant (once next
        id's offer is in the form, if it is on its way)."""
        if not self._after_offer(self.action_send):
            self.submit(self.form.texts())

    def submit(
        self,
        texts: FormTexts,
        *,
        from_form: bool = True,
        confirmed: bool = False,
        verified: int | None = None,
    ) -> str:
        """Hand texts to the service and show what became of them (`from_form`: the form lets
        go of a plant taken); a protected target asks first; with verified entry on, a plant
        typed is keyed again, blind, and two keyings that differ are settled first (`verified`:
        settled, with this many fields corrected). The words when nothing was taken and nothing
        else says why (a resend from the history shows them)."""

        typed = from_form and not self.form.loaded
        outcome = self.service.submit(texts, confirmed=confirmed, typed=typed, verified=verified)
        return self._show_submitted(outcome, texts, from_form=from_form)

    def _show_submitted(self, outcome: Submitted, texts: FormTexts, *, from_form: bool) -> str:
        if from_form:
            # The session's verdict on the fields: its messages, or none.
            self.form.show_errors(outcome.errors.errors if isinstance(outcome, Invalid) else {})
        match outcome:
            case Taken(next_id=next_id):
                if from_form:
                    self.form.hand_over(texts, next_id)
            case Invalid():
                return "That send no longer makes a valid plant."
            case KeyAgain():
                self.form.key_again()
                self.show_state()
            case Differs() as differs:
                # A screen opened on demand (verified entry's keyings differ): not loaded before
                # the first frame (benchmarks/README.md, "Imports kept out of the start").
                from plantstore_tui.ui.screens.differences import DifferencesScreen

                self.app.push_screen(DifferencesScreen(differs), self._settled(differs))
                self.show_state()
            case NeedsConfirmation(target=target, plant=plant, verified=verified):
                answered = self._confirm_then(texts, from_form, verified)
                question = protected_question(target, plant, answered)
                if from_form:
                    self.ask(question)
                else:
                    # Asked once the screen it came from (the history), closing now, is gone.
                    self.call_after_refresh(self.ask, question)
            case NotTaken(title=title, reason=reason):
                self.notify(reason, title=title, severity="error" if from_form else "warning")
                return reason
        return ""

    def _settled(self, differs: Differs) -> Callable[[dict[FormField, str] | None], None]:
        def settled(chosen: dict[FormField, str] | None) -> None:
            if chosen is None:
                self.service.set_verify(True)  # its first keying dropped: keyed afresh
                self.notify(
                    "Nothing was taken: the second keying is in the form. Send it to key the "
                    "plant again from its first keying.",
                    title="Not taken",
                )
                self.show_state()
                return
            texts, corrected = differs.settle(chosen)
            self.form.fill(texts)
            self.submit(texts, verified=corrected)

        return settled

    def _confirm_then(
        self, texts: FormTexts, from_form: bool, verified: int | None
    ) -> Callable[[Answer], None]:
        def answered(answer: Answer) -> None:
            # Called as the answer key is read, before the keys typed after it are applied.
            if self.confirmed(answer):
                self.submit(texts, from_form=from_form, confirmed=True, verified=verified)
            elif from_form:
                self.notify("Nothing was sent; the plant is still in the form.", title="Not sent")

        return answered

    def confirmed(self, answer: Answer) -> bool:
        """Whether a protected target's question was answered yes; "don't ask again" is
        remembered for the session."""

        if answer is Answer.YES_FOR_SESSION:
            self.service.trust_target()
        return answer.confirmed

    # What the service tells -------------------------------------------------------------------

    @on(Told)
    def _told(self, message: Told) -> None:
        match message.event:
            case events.PlantMoved(plant=plant, after=after):
                self.plant_changed(plant, after)
            case events.QueueMoved(change=change):
                self.log_panel.add_note(change_words(change), change.at)
            case events.LedgerOpened(news=news):
                tell_ledger_news(self.log_panel, self.notify, self.clock(), news)
            case events.Connected(target=target):
                self.status.show_target(
                    TargetLabel.of(target).parts(target.token_hint()), protected=target.protected
                )
                self.form.show_id_range(target.ids)
            case events.CannotConnect():
                # Its note is in the log; the status line says it below.
                self._offer_settled("The target cannot be used (the log says why)")
            case events.NextId(value=value):
                self.form.offer_next_id(value)
                self._offer_settled("The ledger cannot be read" if value is UNREAD else None)
            case events.OfferTaken(taken=taken, value=value):
                self.form.offer_moved(taken, value)
            case events.SentBefore(id_text=id_text, words=words):
                self.form.show_warning("id", id_text, words)
            case events.Note(words=words, at=at):
                self.log_panel.add_note(words, at)
            case events.Problem(title=title, words=words):
                self.notify(words, title=title, severity="error")
        self.show_state()

    def plant_changed(self, plant: PlantView, after: str | None = None) -> None:
        """A plant moved on (queued, sending, its outcome, dealt with): its entry, the tags."""
        self.log_panel.show_plant(plant, after)
        if plant.state is PlantState.CREATED and plant.plant.tag:
            self.form.tags.remember(plant.plant.tag)

    # Next id's offer ---------------------------------------------------------------------------

    def _after_offer(self, action: Callable[[], None]) -> bool:
        """While next id's offer is on its way, `action` (one that reads or sets what the offer
        fills) waits for it, and the keys read after it are held: each then means what it would
        have meant a second later, with the offer in the form. True if it waits."""
        if not self._offer_pending:
            return False
        if not self._waiting_for_offer:
            self.hold_keys()
            self._offer_late = self.set_timer(OFFER_WAIT_SECONDS, self._offer_not_come)
        self._waiting_for_offer.append(action)
        return True

    def _offer_not_come(self) -> None:
        self._offer_settled(
            f"The target is still being connected after {OFFER_WAIT_SECONDS:g} s", late=True
        )

    def _offer_settled(self, missing: str | None = None, *, late: bool = False) -> None:
        """The offer is in the form, or is not coming (`missing` says why): what waited for it
        runs, then the keys held meanwhile are applied, in order."""
        self._offer_pending = False
        waiting, self._waiting_for_offer = self._waiting_for_offer, []
        if not waiting:
            return
        if self._offer_late is not None:
            self._offer_late.stop()
            self._offer_late = None
        if missing is not None:
            self.notify(
                f"{missing}, so next id has no id to offer{' yet' if late else ''}: the keys "
                "typed are applied as typed.",
                title="No next id",
                severity="warning",
            )
        for action in waiting:
            action()
        self.take_keys()

    # The target -------------------------------------------------------------------------------

    def switch(self, label: TargetLabel, switch: Callable[[bool], bool]) -> bool:
        """Send to the target `label` names from now on (True: at once): `switch(asked)` makes
        the service's switch, which declines while plants are in line for the old target unless
        the operator was asked about them (`asked`); then they are, the switch made after the
        answer."""
        if switch(False):
            self._switched(label)
            return True

        def asked() -> None:
            switch(True)
            self._switched(label)

        self.ask(switch_question(self.service, self.service.status(), asked))
        return False

    def _switched(self, label: TargetLabel) -> None:
        self.form.show_id_range(None)  # the new target's, once connected
        self._offer_pending = True
        self.status.show_target(label.parts(), protected=label.protected)
        self.show_state("connecting…", "busy")

    # Questions and the queue's state ----------------------------------------------------------

    def ask(self, question: ChoiceScreen[Any]) -> None:
        """Put a question about the queue on screen: nothing leaves the queue while it is open
        (a send in flight settles). Every question about the queue comes through here."""
        self._opened(question)
        self.app.push_screen(question)

    async def ask_and_wait(self, question: ChoiceScreen[T]) -> T:
        """`ask`, from a worker, for its answer."""
        self._opened(question)
        return await self.app.push_screen_wait(question)

    def _opened(self, question: ChoiceScreen[Any]) -> None:
        self.service.asking(True)
        question.before_answer(self._question_answered)
        self.show_state()

    def _question_answered(self) -> None:
        self.service.asking(False)
        self.show_state()

    async def confirm_queued(self, target: Target, plant: PlantView) -> bool:
        """Ask about a plant queued before the target was known to be protected (the service
        asks, through the app): True to send it."""
        return self.confirmed(await self.ask_and_wait(protected_question(target, plant.plant)))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Ctrl+R resumes after a refused token, or tries an unreachable deployment now."""
        if action in ("resume", "try_now"):
            state = self.service.status().state
            wanted = TokenRefused if action == "resume" else Unreachable
            return isinstance(state, wanted)
        return super().check_action(action, parameters)

    def action_resume(self) -> None:
        """After a refused token: the profile's token read again (it may have been fixed in F2),
        the refused plant sent again, then the rest."""
        self.service.resume()
        self.show_state()

    def action_try_now(self) -> None:
        """Try the deployment now instead of at the next try."""
        self.service.resume()
        self.show_state()

    async def wait_until_settled(self) -> None:
        """Wait until the connection is made (or has failed) and no plant is queued or in flight."""
        await self.service.wait_until_quiet()

    def show_state(self, words: str | None = None, kind: StatusKind | None = None) -> None:
        """Show `words` in the status line, or else what the service's status says."""
        if words is not None and kind is not None:
            self.status.show_state(words, kind)
            return
        status = self.service.status()
        self.status.show_queue(
            status.state,
            status.counts,
            problem=status.problem,
            connected=status.target is not None,
            keying=status.keying,
            in_memory=status.in_memory,
        )
        title = KEYING_TITLES[status.keying]
        if self.form.border_title != title:
            # Only on a change: setting a title repaints the whole form.
            self.form.border_title = title
        if type(status.state) is not self._shown_state:
            self._shown_state = type(status.state)
            self.refresh_bindings()

    _shown_state: type | None = None

    @on(TargetClicked)
    async def _target_clicked(self) -> None:
        await self.run_action("app.profiles")

    # Cancel, needs attention ------------------------------------------------------------------

    def action_cancel_send(self) -> None:
        """Cancel the send in flight (its fate is unknown); ask before holding the rest. With
        nothing in line, say so: Esc never does nothing silently."""
        # Always in the footer: hiding it as the queue starts and empties rebuilt the footer
        # twice a send, and the rebuilt footers' memory was not all given back.
        counts = self.service.status().counts
        if not (counts.queued or counts.sending):
            self.notify(
                "Nothing is being sent: Esc cancels a send in flight (and asks about the rest "
                "of the queue).",
                title="Nothing to cancel",
            )
            return
        if counts.queued:
            # Asked first: the queue stops before the cancelled send lets the next one go.
            self.ask(stop_question(self.service, counts.queued))
        self.service.cancel_send()

    async def action_attention(self) -> None:
        """List the plants that need attention: load one into the form, or dismiss it; send
        the held ones again."""
        # A screen opened on demand (F4 and the palette): not loaded before the first frame
        # (benchmarks/README.md, "Imports kept out of the start").
        from plantstore_tui.ui.screens.attention import AttentionScreen

        try:
            attention = await self.service.attention()
        except StoreError as exc:
            self.notify(visible(str(exc)), title="Ledger not read", severity="error")
            return
        if not attention:
            self.notify("Every plant sent so far went through.", title="Nothing needs attention")
            return
        aim = self.service.status().aim
        self.app.push_screen(AttentionScreen(attention, self.attend, aim, self._send_held))

    def _send_held(self, held: list[HistoryEntry]) -> None:
        # Needs attention's one key for the held plants of the form's target: one question,
        # then the service sends them in order (the answer confirms them all).
        status = self.service.status()
        if status.aim is None:
            return

        def answered(answer: Answer) -> None:
            if not answer.confirmed:
                self.notify(
                    "Nothing was sent: the held plants still wait in needs attention (F4).",
                    title="Not sent",
                )
                return
            sent = self.service.send_again(held)
            if sent.stopped is not None and sent.stopped_texts is not None:
                self._show_submitted(sent.stopped, sent.stopped_texts, from_form=False)

        question = held_question(held, target_words(*status.aim), answered, protected=status.asks)
        # Asked once needs attention, which closes on this choice, is gone.
        self.call_after_refresh(self.ask, question)

    def attend(self, number: int, load: bool) -> None:
        """The operator chose a plant in needs attention: load it into the form, or dismiss
        it."""
        if load:
            self.load(FromAttention(number))
        elif isinstance(dismissed := self.service.dismiss(number), NotTaken):
            self.notify(visible(dismissed.reason), title=dismissed.title, severity="warning")
        self.show_state()

    def load(self, chosen: ToLoad, *, anywhere: bool = False, busy_said: bool = True) -> Loading:
        """Load a plant into the form, as the service decides (a plant meant for another target
        asks first: `anywhere` once it did), and say why not; `busy_said` False leaves a form
        being typed in unsaid, for the caller to say."""
        loading = self.service.load(chosen, form_busy=self.form.holds_typing(), anywhere=anywhere)
        match loading:
            case Loaded(texts=texts, may_exist=may_exist, plant_id=plant_id):
                self.form.load(texts)
                if may_exist:
                    plant = "This row" if plant_id is None else f"Plant {plant_id}"
                    self.notify(
                        f"{plant} may exist already: its send got no clear answer. Sending it "
                        "again may create it twice, or be refused as a duplicate id.",
                        title="Check before sending",
                        severity="warning",
                        timeout=10,
                    )
            case FormBusy():
                if busy_said:
                    self.notify(FORM_BUSY, title="Not loaded", severity="warning")
            case AimedElsewhere() as elsewhere:

                def answered(answer: Answer) -> None:
                    if answer.confirmed:
                        self.load(chosen, anywhere=True)

                # Asked once the screen it was chosen on, which closes on this choice, is gone.
                question = elsewhere_question(elsewhere, answered)
                self.call_after_refresh(self.app.push_screen, question)
            case NotTaken(title=title, reason=reason):
                self.notify(visible(reason), title=title, severity="warning")
        return loading

    # History ----------------------------------------------------------------------------------

    @on(Input.Changed, "#id-input")
    def _id_changed(self, event: Input.Changed) -> None:
        event.stop()  # the app has no use for it
        # A change the field has moved on from (a burst typed on, or the form was handed over)
        # is not looked up: the change to the text it holds now comes after it.
        if event.value == event.input.value:
            self.service.check_id(event.value)

    def action_probe(self) -> None:
        """Probe POST /plants by hand: the form's plant as a body to change at will, sent as
        typed to the deployment plants go to now; never a plant of the queue."""
        # An optional feature, a screen opened on demand (F6).
        from plantstore_tui.ui.screens.probe import ProbeScreen

        self.app.push_screen(ProbeScreen(lambda: self.service.status().target, self.form.texts()))

    def action_summary(self) -> None:
        """Today's plants at a glance: the counts, and the plants created per hour."""
        # An optional feature, a screen opened on demand (F7).
        from plantstore_tui.ui.screens.summary import SummaryScreen

        self.app.push_screen(SummaryScreen())

    def action_history(self) -> None:
        """Open the history: every send kept, to look at, load, resend or copy as curl."""
        # An optional feature, a screen opened on demand (F3): its table would slow every start
        # (benchmarks/README.md, "Imports kept out of the start").
        from plantstore_tui.ui.screens.history import HistoryScreen

        self.app.push_screen(HistoryScreen(self._load_from_history, self._resend))

    def _load_from_history(self, entry: HistoryEntry) -> str | None:
        # A form being typed in is said in the history, which stays open.
        loading = self.load(FromHistory(entry), busy_said=False)
        return FORM_BUSY if isinstance(loading, FormBusy) else None

    def _resend(self, entry: HistoryEntry) -> str | None:
        # To the current target (protected: asked first); the words say why not.
        return self.submit(entry.typed, from_form=False) or None

    # Switches and the log ---------------------------------------------------------------------

    def action_toggle_next_id(self) -> None:
        """Turn moving to the next id after a send on or off (once next id's offer is in the
        form, if it is on its way: off, it no longer fills ID)."""
        if not self._after_offer(self.action_toggle_next_id):
            self.form.toggle_next_id()

    def action_same_as_last(self) -> None:
        """Fill the focused field with the last plant's value (the ditto key)."""
        problem = self.form.same_as_last()
        if problem is not None:
            self.notify(problem, title="Nothing to copy", severity="warning")

    def action_toggle_verify(self) -> None:
        """Turn verified entry on or off (a first keying waiting is dropped)."""
        on = self.service.status().keying is None
        self.service.set_verify(on)
        self.show_state()
        self.notify(
            "Each plant is keyed twice, the second time blind, and sent once both agree."
            if on
            else "Each plant is sent as keyed once.",
            title="Verified entry on" if on else "Verified entry off",
        )

    def action_toggle_keep_tag(self) -> None:
        """Turn keeping the tag after a send on or off."""
        self.form.toggle_keep_tag()

    def action_clear_log(self) -> None:
        """Empty the log (plants still pending keep their entries)."""
        self.log_panel.clear_entries(self.service.open_plants())
        self.notify("The log is empty.", title="Log cleared")

    def action_save_log(self) -> None:
        """Write the log as plain text to a new file in the current directory."""
        self.log_panel.save(Path(f"plantstore-log-{self.clock():%Y%m%d-%H%M%S}.txt"))
