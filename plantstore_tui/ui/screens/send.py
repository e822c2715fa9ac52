"""The main screen: the form on the left, the log on the right, plants sent from a queue.

A valid submit hands the plant over at once: the form is ready for the next one while the queue
sends, one at a time in the order submitted. Every plant has its log entry from the moment it is
queued; one that did not go through waits in the ledger (needs attention) until the operator
loads it back into the form or dismisses it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Input
from textual.worker import Worker, WorkerState

from plantstore_tui.core.form import FormTexts
from plantstore_tui.core.send_queue import Ledger, QueuedPlant, SendQueue, SendState
from plantstore_tui.core.text import visible
from plantstore_tui.ui.connection import Connect, Connection, TargetLabel
from plantstore_tui.ui.ordered_input import apply_key
from plantstore_tui.ui.screens.confirm import Answer, Choice, ChoiceScreen, ProtectedSends
from plantstore_tui.ui.widgets.plant_form import FieldInput, PlantForm
from plantstore_tui.ui.widgets.response_log import ResponseLog
from plantstore_tui.ui.widgets.status_line import StatusKind, StatusLine
from plantstore_tui.ui.widgets.steady_footer import SteadyFooter

if TYPE_CHECKING:
    from plantstore_tui.core.history import HistoryEntry
    from plantstore_tui.core.journal import Journal
    from plantstore_tui.core.models import NewPlant
    from plantstore_tui.core.recovery import RecoveryFile
    from plantstore_tui.core.target import Target

Clock = Callable[[], datetime]


class SendScreen(Screen[None]):
    """Where plants are entered, queued, sent, and their answers logged."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "send", "Send"),
        Binding("enter", "enter", "Next field / send", show=False),
        Binding("escape", "cancel_send", "Cancel send"),
        Binding("f3", "history", "History"),
        Binding("f4", "attention", "Needs attention"),
        Binding("ctrl+n", "toggle_next_id", "Next id", show=False),
        Binding("ctrl+t", "toggle_keep_tag", "Keep tag", show=False),
        Binding("ctrl+l", "clear_log", "Clear log", show=False),
        Binding("ctrl+o", "save_log", "Save log", show=False),
    ]

    def __init__(self, connect: Connect | None, label: TargetLabel, clock: Clock) -> None:
        super().__init__()
        # None until a target is chosen (first run): the form works, sending waits for a target.
        self._connect = connect
        self._label = label
        self._clock = clock
        self._connection: Connection | None = None
        self._connect_problem: str | None = None
        self._protected = ProtectedSends()
        self.ledger = Ledger()
        self._queue: SendQueue | None = None
        # Plants submitted before the connection is made: they join its queue when it is.
        self._early: list[QueuedPlant] = []
        self._quiet = asyncio.Event()
        # The history of the current target's sends, opened in the connect thread.
        self._journal: Journal | None = None

    def compose(self) -> ComposeResult:
        """Status line, form and log side by side, footer."""
        label = self._label
        yield StatusLine(
            label.describe(), self._initial_state(), protected=label.protected, id="status"
        )
        with Horizontal(id="main"):
            form = PlantForm(id="form")
            form.border_title = "New plant"
            yield form
            log = ResponseLog(id="log")
            log.border_title = "Responses"
            yield log
        yield SteadyFooter()

    def _initial_state(self) -> tuple[str, StatusKind]:
        if self._connect is None:
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
    def sending(self) -> bool:
        """Whether a send is in flight."""
        return self._queue is not None and self._queue.current is not None

    @property
    def target(self) -> Target | None:
        """The target plants go to, once connected."""
        return None if self._connection is None else self._connection.target

    def on_mount(self) -> None:
        """Focus Name; build the client only after the first frame is on screen."""
        self.form.focus_field("name")
        self._show_state(*self._initial_state())
        if self._connect is not None:
            self.call_after_refresh(self._start_connecting)

    # Keys, in order ---------------------------------------------------------------------------

    async def take_in_order(self, event: events.Key | events.Paste) -> bool:
        """Apply a key or paste completely before the app reads the next (ui/ordered_input.py)."""
        focused = self.focused
        if isinstance(event, events.Paste):
            if not isinstance(focused, FieldInput):
                return False
            problem = focused.paste_now(event.text)
            if problem is not None:
                self.notify(problem, title="Not pasted", severity="warning")
            return True
        if self.maximized is not None:
            return False
        return await apply_key(self.app, event, self._type_now)

    def _type_now(self, event: events.Key) -> bool:
        focused = self.focused
        return isinstance(focused, FieldInput) and focused.type_now(event)

    def set_focus(
        self, widget: Widget | None, scroll_visible: bool = True, from_app_focus: bool = False
    ) -> None:
        """Focus a widget; a form field gets its text selected at once, as the focus moves."""
        previous = self.focused
        super().set_focus(widget, scroll_visible, from_app_focus)
        form = self.form
        within = self.focused is not None and form in self.focused.ancestors
        if form.has_class("-focus-within") != within:
            form.set_class(within, "-focus-within")
        if (
            isinstance(widget, FieldInput)
            and widget is self.focused
            and widget is not previous
            and not from_app_focus
        ):
            widget.select_all()

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

    # Submitting -------------------------------------------------------------------------------

    def action_send(self) -> None:
        """Check the form; hand a valid plant to the queue and ready the form for the next."""
        texts = self.form.check()
        if texts is None:
            return
        if self._connect_problem is not None:
            self.notify(self._connect_problem, title="Cannot send", severity="error")
            return
        if self._connect is None:
            self.notify(
                "No target yet: press F2 to choose or create a profile.",
                title="Not sent",
                severity="warning",
            )
            return
        target = self.target
        if target is not None and self._protected.needs_asking(target):
            self._ask_then_queue(texts, target)
            return
        # Before the connection is made nobody knows yet whether the target is protected: such
        # a plant is confirmed, if it must be, when its turn to be sent comes.
        self._queue_plant(texts, confirmed=target is not None)

    def _ask_then_queue(self, texts: FormTexts, target: Target) -> None:
        plant = self._parse(texts)
        if plant is None:
            return

        def answered(answer: Answer) -> None:
            # Called as the answer key is read, before the keys typed after it are applied.
            if self._protected.record(target, answer):
                self._queue_plant(texts, confirmed=True)
            else:
                self.notify("Nothing was sent; the plant is still in the form.", title="Not sent")

        self.app.push_screen(self._protected.question(target, plant, answered))

    def _parse(self, texts: FormTexts) -> NewPlant | None:
        from plantstore_tui.core.form import FormErrors
        from plantstore_tui.core.models import parse_new_plant

        parsed = parse_new_plant(name=texts.name, id=texts.id, tag=texts.tag)
        if isinstance(parsed, FormErrors):
            self.form.show_errors(parsed.errors)
            return None
        return parsed

    def _queue_plant(self, texts: FormTexts, *, confirmed: bool, from_form: bool = True) -> None:
        plant = self._parse(texts)
        if plant is None:
            return
        queued = QueuedPlant(
            number=self.ledger.next_number(),
            texts=texts,
            plant=plant,
            base_url=self._label.base_url,
            profile=self._label.profile,
            queued_at=self._clock(),
            confirmed=confirmed,
        )
        if from_form:
            self.form.hand_over(texts)
        if self._queue is not None:
            queued.base_url = self._queue_base_url()
            self._queue.put(queued)
        else:
            self._early.append(queued)
            self.plant_changed(queued)

    def _queue_base_url(self) -> str:
        target = self.target
        return self._label.base_url if target is None else target.base_url

    def plant_changed(self, plant: QueuedPlant, after: str | None = None) -> None:
        """A plant moved on (queued, sending, its outcome): its entry, the counts, the tags."""
        self.ledger.track(plant)
        self.log_panel.show_plant(plant, after)
        if plant.state is SendState.CREATED and plant.plant.tag:
            self.form.tags.remember(plant.plant.tag)
        self._show_state()

    # The connection and the queue -------------------------------------------------------------

    def _start_connecting(self) -> None:
        if self._connect is None:
            return
        # A thread: importing httpx and Pydantic takes ~100 ms, and the form is usable meanwhile.
        self.run_worker(
            self._connect_and_open_history,
            thread=True,
            name="connect",
            group="connect",
            exclusive=True,
            exit_on_error=False,
        )

    def reconnect(self, connect: Connect, label: TargetLabel) -> bool:
        """Send to another target from now on; plants queued for the old one are asked about."""
        queue = self._queue
        if queue is None or queue.idle:
            self._switch(connect, label)
            return True
        waiting = len(queue.waiting) + (queue.current is not None)
        old = (
            visible(self._connection.target.profile or self._connection.target.base_url)
            if (self._connection is not None)
            else "the old target"
        )

        def answered(choice: str) -> None:
            if choice == "cancel":
                return
            if choice == "hold":
                queue.hold_waiting("Not sent: held when the profile was switched.")
            self._switch(connect, label)

        self.app.push_screen(
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

    def _switch(self, connect: Connect, label: TargetLabel) -> None:
        old, self._connection = self._queue, None
        self._queue = None
        if old is not None:
            # The old queue finishes what it holds (if anything), then closes its client.
            old.close_when_empty()
        self._connect, self._label = connect, label
        self._connect_problem = None
        self.status.show_target(label.describe(), protected=label.protected)
        self._show_state("connecting…", "busy")
        self._start_connecting()

    def _connect_and_open_history(self) -> Connection:
        from plantstore_tui.core.journal import Journal

        assert self._connect is not None
        connection = self._connect()
        # Opened here, off the UI thread: SQLite and the file cost nothing before the first frame.
        self._journal = Journal.open("tui", connection.target.profile, warn=self._history_off)
        return connection

    def _history_off(self, message: str) -> None:
        # Called from whichever thread found the history unusable, once per connection.
        def tell() -> None:
            self.log_panel.add_note(message, self._clock())
            self.notify(message, title="History off", severity="warning", timeout=15)

        try:
            self.app.call_from_thread(tell)
        except RuntimeError:
            tell()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Every worker's end comes through here: the connection, and queues that broke."""
        worker, state = event.worker, event.state
        if worker.name == "connect" and state == WorkerState.SUCCESS:
            connection = worker.result
            assert isinstance(connection, Connection)
            self._connected(connection)
        elif worker.name == "connect" and state == WorkerState.ERROR:
            self._connect_problem = visible(str(worker.error))
            self.log_panel.add_note(
                f"Configuration problem: {self._connect_problem}", self._clock()
            )
            early, self._early = self._early, []
            for plant in early:
                plant.state = SendState.HELD
                plant.note = f"Not sent: {self._connect_problem}"
                self.plant_changed(plant)
            self._show_state()
        elif worker.name == "queue" and state == WorkerState.ERROR:
            # A bug, not a server fault (those are outcomes): say so instead of crashing.
            error = worker.error
            self.log_panel.add_note(
                f"Sending stopped on an unexpected error: {type(error).__name__}: {error}",
                self._clock(),
            )

    def _connected(self, connection: Connection) -> None:
        self._connection = connection
        target = connection.target
        self.status.show_target(
            TargetLabel.of(target).describe(target.token_hint()), protected=target.protected
        )
        journal = self._journal
        recorded = journal.for_target(target) if journal is not None and journal.active else None
        queue = SendQueue(connection.client, self.plant_changed, recorded)
        self._queue = queue
        early, self._early = self._early, []
        for plant in early:
            plant.base_url, plant.profile = target.base_url, target.profile
            queue.put(plant)
        self.run_worker(self._run_queue(queue), name="queue", group="queue", exit_on_error=False)
        self._show_state()

    async def _run_queue(self, queue: SendQueue) -> None:
        try:
            await queue.run(self._confirm_queued)
        finally:
            if queue is not self._queue:
                # A queue left behind by a profile switch: its client and its history go with it.
                await queue.sender.aclose()
                if queue.journal is not None:
                    queue.journal.close()

    async def _confirm_queued(self, plant: QueuedPlant) -> bool:
        # Only for plants queued before the connection told whether the target is protected.
        target = self.target
        if target is None or not self._protected.needs_asking(target):
            return True
        answer = await self.app.push_screen_wait(self._protected.question(target, plant.plant))
        return self._protected.record(target, answer)

    async def on_unmount(self) -> None:
        """Close the kept-alive connections."""
        if self._connection is not None:
            await self._connection.client.aclose()

    async def wait_until_settled(self) -> None:
        """Wait until the connection is made (or has failed) and no plant is queued or in flight."""
        await self._quiet.wait()

    def _show_state(self, words: str | None = None, kind: StatusKind | None = None) -> None:
        queued, sending, attention = self.ledger.counts()
        connecting = self._connect is not None and (
            self._connection is None and self._connect_problem is None
        )
        if connecting or queued or sending:
            self._quiet.clear()
        else:
            self._quiet.set()
        if words is not None and kind is not None:
            self.status.show_state(words, kind)
            return
        parts = []
        if sending:
            parts.append("sending…")
        if queued:
            parts.append(f"{queued} queued")
        if attention:
            verb = "needs" if attention == 1 else "need"
            parts.append(f"{attention} {verb} attention (F4)")
        if self._connect_problem is not None:
            self.status.show_state("cannot send: configuration problem", "problem")
        elif parts:
            self.status.show_state(" · ".join(parts), "problem" if attention else "busy")
        elif self._connection is None:
            self.status.show_state("connecting…", "busy")
        else:
            self.status.show_state("ready", "ready")

    @on(StatusLine.TargetClicked)
    async def _target_clicked(self) -> None:
        await self.run_action("app.profiles")

    # Cancel, needs attention ------------------------------------------------------------------

    def action_cancel_send(self) -> None:
        """Cancel the send in flight (its fate is unknown); ask before holding the rest."""
        # Always offered: a footer that changed with every send would be rebuilt for each one.
        queue = self._queue
        if queue is None or queue.idle:
            return
        waiting = len(queue.waiting)
        if waiting:
            # Nothing more goes out until the operator has said whether the rest goes too.
            queue.pause()
        queue.cancel_current()
        if not waiting:
            return

        def answered(answer: Answer) -> None:
            if answer.confirmed:
                queue.hold_waiting("Not sent: held when the queue was stopped (Esc).")
            queue.resume()

        self.app.push_screen(
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

    def action_attention(self) -> None:
        """List the plants that need attention: load one into the form, or dismiss it."""
        from plantstore_tui.ui.screens.attention import AttentionScreen

        attention = self.ledger.attention()
        if not attention:
            self.notify("Every plant sent so far went through.", title="Nothing needs attention")
            return
        self.app.push_screen(AttentionScreen(attention, self._attended))

    def _attended(self, number: int, load: bool) -> None:
        plant = self.ledger.get(number)
        if plant is None:
            return
        at = self._clock().strftime("%H:%M:%S")
        if not load:
            self._release(plant, f"Dismissed at {at}.")
            return
        if self.form.holds_typing():
            self.notify(
                "The form holds a plant being typed: send it or empty the fields first.",
                title="Not loaded",
                severity="warning",
            )
            return
        self._release(plant, f"Loaded into the form at {at}.")
        self.form.load(plant.texts)
        if plant.fate_unknown:
            self.notify(
                f"Plant {plant.plant.id} may exist already: its send got no clear answer. "
                "Sending it again may create it twice, or be refused as a duplicate id.",
                title="Check before sending",
                severity="warning",
                timeout=10,
            )

    def _release(self, plant: QueuedPlant, after: str) -> None:
        # Out of the ledger for good: its entry says what became of it, the counts drop.
        self.ledger.release(plant.number)
        self.log_panel.show_plant(plant, after)
        self._show_state()

    # History ----------------------------------------------------------------------------------

    @on(Input.Changed, "#id-input")
    def _id_changed(self, event: Input.Changed) -> None:
        journal, target = self._journal, self.target
        if journal is not None and journal.active and target is not None:
            self._check_history(journal, target.base_url, event.value)

    @work(thread=True, exclusive=True, group="duplicate", exit_on_error=False)
    def _check_history(self, journal: Journal, base_url: str, id_text: str) -> None:
        from plantstore_tui.core.form import parse_id
        from plantstore_tui.core.journal import duplicate_warning

        plant_id = parse_id(id_text)
        if not isinstance(plant_id, int):
            return
        warning = duplicate_warning(journal.earlier_sends(base_url, plant_id))
        if warning is not None:
            self.app.call_from_thread(self.form.show_warning, "id", id_text, warning)

    def action_history(self) -> None:
        """Open the history: every send kept, to look at, load, resend or copy as curl."""
        from plantstore_tui.ui.screens.history import HistoryScreen

        self.app.push_screen(HistoryScreen(self.load_from_history, self.resend_from_history))

    def load_from_history(self, entry: HistoryEntry) -> str | None:
        """Put a send from the history in the form; why not, if the form holds a plant."""
        # The ID the form moved on to by itself is not work in progress; a name typed is.
        if self.form.texts().name.strip():
            return "The form holds a plant being typed: send it or clear its name first."
        self.form.load(FormTexts(name=entry.name, id=str(entry.plant_id), tag=entry.tag or ""))
        return None

    def resend_from_history(self, entry: HistoryEntry) -> str | None:
        """Queue a send from the history again, to the current target (protected: asked first)."""
        if self._connect is None or self._connect_problem is not None:
            return self._connect_problem or "No target yet: press F2 to choose a profile."
        texts = FormTexts(name=entry.name, id=str(entry.plant_id), tag=entry.tag or "")
        target = self.target
        if target is not None and self._protected.needs_asking(target):
            plant = self._parse(texts)
            if plant is None:
                return "That send no longer makes a valid plant."

            def answered(answer: Answer) -> None:
                if self._protected.record(target, answer):
                    self._queue_plant(texts, confirmed=True, from_form=False)

            # Asked once the history screen, which closes on this answer, is gone.
            question = self._protected.question(target, plant, answered)
            self.call_after_refresh(self.app.push_screen, question)
            return None
        self._queue_plant(texts, confirmed=target is not None, from_form=False)
        return None

    # Switches and the log ---------------------------------------------------------------------

    def action_toggle_next_id(self) -> None:
        """Turn moving to the next id after a send on or off."""
        self.form.toggle_next_id()

    def action_toggle_keep_tag(self) -> None:
        """Turn keeping the tag after a send on or off."""
        self.form.toggle_keep_tag()

    def action_clear_log(self) -> None:
        """Empty the log (plants still pending keep their entries)."""
        self.log_panel.clear_entries()
        for plant in self.ledger:
            self.log_panel.show_plant(plant)
        self.notify("The log is empty.", title="Log cleared")

    def action_save_log(self) -> None:
        """Write the log as plain text to a new file in the current directory."""
        text = self.log_panel.plain_text()
        if not text:
            self.notify("The log is empty: nothing to save.", title="Log not saved")
            return
        path = Path(f"plantstore-log-{self._clock():%Y%m%d-%H%M%S}.txt")
        try:
            with path.open("x", encoding="utf-8") as file:
                file.write(text)
        except OSError as exc:
            self.notify(
                f"Could not write {path}: {exc.strerror or exc}",
                title="Log not saved",
                severity="error",
            )
            return
        self.notify(f"Saved to {path.resolve()}", title="Log saved")

    # Quitting ---------------------------------------------------------------------------------

    def pending(self) -> list[QueuedPlant]:
        """Every plant not yet done with: queued, in flight, or needing attention."""
        return list(self.ledger)

    def recover(self, files: Sequence[RecoveryFile]) -> None:
        """Take the plants of recovery files into needs attention; a file is discarded once all
        of its plants are here."""
        from plantstore_tui.core.recovery import discard_recovery_file
        from plantstore_tui.core.send_queue import recovered

        for found in files:
            kept = True
            for unsettled in found.plants:
                plant = recovered(unsettled, self.ledger.next_number())
                if isinstance(plant, str):
                    kept = False
                    self.log_panel.add_note(
                        f"Not recovered from {found.path}: {plant}", self._clock()
                    )
                    continue
                self.plant_changed(plant)
            if kept:
                discard_recovery_file(found.path)
