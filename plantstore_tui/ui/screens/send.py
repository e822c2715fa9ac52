"""The main screen: the form on the left, the log on the right, plants sent from a queue.

A valid submit is written to the ledger (core/store) as queued, then the form is ready for the
next plant while the queue sends, one at a time in the order submitted. Every plant has its log
entry from the moment it is on disk; one that did not go through waits in needs attention (a
view of the ledger) until the operator loads it back into the form or dismisses it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
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

from plantstore_tui.core.plant.form import FormTexts
from plantstore_tui.core.plant.text import visible
from plantstore_tui.core.sending.queue import QueuedPlant, SendQueue
from plantstore_tui.core.store.records import PlantState
from plantstore_tui.ui.connection import Connect, Connection, TargetLabel
from plantstore_tui.ui.ordered_input import apply_key
from plantstore_tui.ui.screens.confirm import Answer, Choice, ChoiceScreen, ProtectedSends
from plantstore_tui.ui.widgets.plant_form import FieldInput, PlantForm
from plantstore_tui.ui.widgets.response_log import ResponseLog
from plantstore_tui.ui.widgets.status_line import StatusKind, StatusLine
from plantstore_tui.ui.widgets.steady_footer import SteadyFooter

if TYPE_CHECKING:
    from plantstore_tui.core.http.target import Target
    from plantstore_tui.core.plant.models import NewPlant
    from plantstore_tui.core.store import HistoryEntry, Ledger
    from plantstore_tui.core.store.settings import HistorySettings

Clock = Callable[[], datetime]


def _store_error() -> type[Exception]:
    # Imported when it is needed: SQLite is not loaded before the first frame.
    from plantstore_tui.core.store import StoreError

    return StoreError


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
        self._queue: SendQueue | None = None
        # Plants submitted before the connection is made: they join its queue when it is.
        self._early: list[QueuedPlant] = []
        self._quiet = asyncio.Event()
        # The ledger, opened in a thread after the first frame (or at once by a submit that
        # comes first: a plant is on disk before the form lets go of it).
        self._ledger: Ledger | None = None
        self._ledger_lock = threading.Lock()
        self._ledger_told = False
        # The profile's history switch and the ledger's size, read in the connect thread.
        self._settings: HistorySettings | None = None
        # The log entries of this screen's plants that may still change, by ledger entry.
        self._shown: dict[int, QueuedPlant] = {}

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
        """Focus Name; open the ledger and build the client only after the first frame."""
        self.form.focus_field("name")
        self._show_state(*self._initial_state())
        self.call_after_refresh(self._start_opening_ledger)
        if self._connect is not None:
            self.call_after_refresh(self._start_connecting)

    # The ledger -------------------------------------------------------------------------------

    def _start_opening_ledger(self) -> None:
        self.run_worker(
            self._open_ledger_in_thread,
            thread=True,
            name="ledger",
            group="ledger",
            exit_on_error=False,
        )

    def _open_ledger_in_thread(self) -> None:
        self.ledger()
        self.app.call_from_thread(self._ledger_opened)

    @property
    def ledger_in_memory(self) -> bool:
        """True when the ledger's file could not be used: plants live as long as this run."""
        return self._ledger is not None and self._ledger.problem is not None

    def ledger(self) -> Ledger:
        """The ledger, opened now if it is not yet (a file that cannot be used gives one in
        memory, and says so)."""
        with self._ledger_lock:
            if self._ledger is None:
                from plantstore_tui.core.store import open_ledger

                self._ledger = open_ledger("tui", memory_if_unusable=True)
            return self._ledger

    def _ledger_opened(self) -> None:
        # Said once, whichever of the thread or a first submit opened it.
        if self._ledger_told or self._ledger is None:
            return
        self._ledger_told = True
        ledger = self._ledger
        if ledger.problem is not None:
            words = (
                f"The ledger cannot be used: {ledger.problem}. Plants are kept in memory only "
                "for this run: a crash would lose the ones not yet sent."
            )
            self.log_panel.add_note(words, self._clock())
            self.notify(words, title="Ledger in memory", severity="error", timeout=20)
        carried = ledger.carried
        if carried is not None:
            for problem in carried.problems:
                self.notify(
                    visible(problem), title="Earlier file not read", severity="warning", timeout=15
                )
        waiting = ledger.attention_count()
        if waiting:
            # No question: an operator who starts typing at once would answer it by accident.
            self.notify(
                f"{waiting} plant(s) from an earlier session need attention (F4): load one into "
                "the form to send it, or dismiss it. Nothing is sent without you.",
                title="Plants waiting",
                severity="warning",
                timeout=20,
            )
        self._offer_next_id()
        self._show_state()

    def _offer_next_id(self) -> None:
        target, ledger = self.target, self._ledger
        if target is None or ledger is None:
            return
        self._last_created(ledger, target.base_url)

    @work(thread=True, exclusive=True, group="next-id", exit_on_error=False)
    def _last_created(self, ledger: Ledger, base_url: str) -> None:
        last = ledger.last_created_id(base_url)
        if last is not None:
            self.app.call_from_thread(self.form.offer_next_id, last + 1)

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
        from plantstore_tui.core.plant.form import FormErrors
        from plantstore_tui.core.plant.models import parse_new_plant

        parsed = parse_new_plant(name=texts.name, id=texts.id, tag=texts.tag)
        if isinstance(parsed, FormErrors):
            self.form.show_errors(parsed.errors)
            return None
        return parsed

    def _queue_plant(self, texts: FormTexts, *, confirmed: bool, from_form: bool = True) -> None:
        from plantstore_tui.core.store import StoreError
        from plantstore_tui.core.store.rows import NewRow

        plant = self._parse(texts)
        if plant is None:
            return
        target = self.target
        base_url = self._label.base_url if target is None else target.base_url
        profile = self._label.profile if target is None else target.profile
        settings = self._settings
        try:
            # Committed (synchronous=FULL) before the form lets go of the plant or its log
            # entry is drawn: what the screen shows as taken is on disk.
            number = self.ledger().take(
                NewRow(
                    source="tui",
                    texts=texts,
                    plant=plant,
                    base_url=base_url,
                    profile=profile,
                    keep=settings is None or settings.enabled,
                )
            )
        except StoreError as exc:
            self.notify(
                f"Not taken: the ledger cannot be written: {visible(str(exc))}. "
                "The plant is still in the form.",
                title="Not sent",
                severity="error",
            )
            return
        queued = QueuedPlant(
            number=number,
            texts=texts,
            plant=plant,
            base_url=base_url,
            profile=profile,
            queued_at=self._clock(),
            confirmed=confirmed,
        )
        if from_form:
            self.form.hand_over(texts)
        if self._queue is not None:
            self._queue.put(queued)
        else:
            self._early.append(queued)
            self.plant_changed(queued)

    def plant_changed(self, plant: QueuedPlant, after: str | None = None) -> None:
        """A plant moved on (queued, sending, its outcome): its entry, the counts, the tags."""
        if plant.state is PlantState.CREATED:
            self._shown.pop(plant.number, None)
        else:
            self._shown[plant.number] = plant
        self.log_panel.show_plant(plant, after)
        if plant.state is PlantState.CREATED and plant.plant.tag:
            self.form.tags.remember(plant.plant.tag)
        self._show_state()

    # The connection and the queue -------------------------------------------------------------

    def _start_connecting(self) -> None:
        if self._connect is None:
            return
        # A thread: importing httpx and Pydantic takes ~100 ms, and the form is usable meanwhile.
        self.run_worker(
            self._connect_and_read_settings,
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

    def _connect_and_read_settings(self) -> Connection:
        from plantstore_tui.core.store.settings import history_settings

        assert self._connect is not None
        connection = self._connect()
        # Read here, off the UI thread: profiles.toml costs nothing before the first frame.
        self._settings = history_settings(connection.target.profile)
        return connection

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
            note = f"Not sent: {self._connect_problem}"
            with contextlib.suppress(_store_error()):  # the entries still say why
                self.ledger().hold([plant.number for plant in early], note)
            for plant in early:
                plant.held, plant.note = True, note
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
        ledger = self.ledger()
        settings = self._settings
        if settings is not None:
            ledger.limit = settings.limit
        queue = SendQueue(connection.client, self.plant_changed, ledger.for_target(target.token))
        self._queue = queue
        early, self._early = self._early, []
        if early:
            numbers = [plant.number for plant in early]
            with contextlib.suppress(_store_error()):  # the queue's own writes say so
                ledger.retarget(numbers, target.base_url, target.profile)
                ledger.keep_settled(numbers, settings is None or settings.enabled)
        for plant in early:
            plant.base_url, plant.profile = target.base_url, target.profile
            queue.put(plant)
        self.run_worker(self._run_queue(queue), name="queue", group="queue", exit_on_error=False)
        self._offer_next_id()
        self._show_state()

    async def _run_queue(self, queue: SendQueue) -> None:
        try:
            await queue.run(self._confirm_queued)
        finally:
            if queue is not self._queue:
                # A queue left behind by a profile switch: its client goes with it.
                await queue.sender.aclose()

    async def _confirm_queued(self, plant: QueuedPlant) -> bool:
        # Only for plants queued before the connection told whether the target is protected.
        target = self.target
        if target is None or not self._protected.needs_asking(target):
            return True
        answer = await self.app.push_screen_wait(self._protected.question(target, plant.plant))
        return self._protected.record(target, answer)

    async def on_unmount(self) -> None:
        """Let the send in flight say its fate, close the connections, end the session."""
        for worker in list(self.workers):
            if worker.group == "queue":
                worker.cancel()
                with contextlib.suppress(Exception):
                    await worker.wait()
        if self._connection is not None:
            await self._connection.client.aclose()
        with self._ledger_lock:
            ledger, self._ledger = self._ledger, None
        if ledger is not None:
            ledger.close()

    async def wait_until_settled(self) -> None:
        """Wait until the connection is made (or has failed) and no plant is queued or in flight."""
        await self._quiet.wait()

    def counts(self) -> tuple[int, int, int]:
        """How many of this screen's plants are queued, in flight, and need attention."""
        queue = self._queue
        queued = len(self._early) + (0 if queue is None else len(queue.waiting))
        sending = int(queue is not None and queue.current is not None)
        attention = 0
        if self._ledger is not None:
            with contextlib.suppress(_store_error()):  # counted as none
                attention = self._ledger.attention_count()
        return queued, sending, attention

    def _show_state(self, words: str | None = None, kind: StatusKind | None = None) -> None:
        queued, sending, attention = self.counts()
        connecting = self._connect is not None and (
            self._connection is None and self._connect_problem is None
        )
        if connecting or queued or sending or not self._ledger_told:
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
        from plantstore_tui.core.store import StoreError
        from plantstore_tui.ui.screens.attention import AttentionScreen

        try:
            attention = self.ledger().attention()
        except StoreError as exc:
            self.notify(visible(str(exc)), title="Ledger not read", severity="error")
            return
        if not attention:
            self.notify("Every plant sent so far went through.", title="Nothing needs attention")
            return
        self.app.push_screen(AttentionScreen(attention, self._attended))

    def _attended(self, number: int, load: bool) -> None:
        from plantstore_tui.core.store import StoreError

        ledger = self.ledger()
        try:
            found = ledger.get(number)
        except StoreError as exc:
            self.notify(visible(str(exc)), title="Ledger not read", severity="error")
            return
        if found is None:
            return
        at = self._clock().strftime("%H:%M:%S")
        if load and self.form.holds_typing():
            self.notify(
                "The form holds a plant being typed: send it or empty the fields first.",
                title="Not loaded",
                severity="warning",
            )
            return
        after = f"Loaded into the form at {at}." if load else f"Dismissed at {at}."
        try:
            taken = ledger.release(number, after)
        except StoreError as exc:
            self.notify(visible(str(exc)), title="Ledger not written", severity="error")
            return
        if not taken:
            self.notify(
                "Another plantstore-tui has already dealt with this plant.", title="Not loaded"
            )
            self._show_state()
            return
        shown = self._shown.pop(number, None)
        if shown is not None:
            self.log_panel.show_plant(shown, after)
        self._show_state()
        if not load:
            return
        self.form.load(found.typed)
        if found.state in (PlantState.UNKNOWN, PlantState.SENDING):
            self.notify(
                f"Plant {found.plant_id} may exist already: its send got no clear answer. "
                "Sending it again may create it twice, or be refused as a duplicate id.",
                title="Check before sending",
                severity="warning",
                timeout=10,
            )

    # History ----------------------------------------------------------------------------------

    @on(Input.Changed, "#id-input")
    def _id_changed(self, event: Input.Changed) -> None:
        ledger, target = self._ledger, self.target
        if ledger is not None and target is not None:
            self._check_history(ledger, target.base_url, event.value)

    @work(thread=True, exclusive=True, group="duplicate", exit_on_error=False)
    def _check_history(self, ledger: Ledger, base_url: str, id_text: str) -> None:
        from plantstore_tui.core.plant.form import parse_id
        from plantstore_tui.core.store.settings import duplicate_warning

        plant_id = parse_id(id_text)
        if not isinstance(plant_id, int):
            return
        warning = duplicate_warning(ledger.sent_before(base_url, plant_id))
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
        self.form.load(entry.typed)
        return None

    def resend_from_history(self, entry: HistoryEntry) -> str | None:
        """Queue a send from the history again, to the current target (protected: asked first)."""
        if self._connect is None or self._connect_problem is not None:
            return self._connect_problem or "No target yet: press F2 to choose a profile."
        texts = entry.typed
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
        for plant in self._shown.values():
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

    def unsettled(self) -> list[int]:
        """The ledger entries of this screen's plants not yet done with: queued, in flight, or
        needing attention."""
        numbers = [plant.number for plant in self._early]
        queue = self._queue
        if queue is not None:
            numbers += [plant.number for plant in queue.waiting]
            if queue.current is not None:
                numbers.append(queue.current.number)
        if self._ledger is not None:
            with contextlib.suppress(_store_error()):  # nothing more to count
                numbers += [entry.entry for entry in self._ledger.attention()]
        return numbers

    def drop_unsettled(self) -> None:
        """The operator quits and gives up every plant not yet done with: none is offered again
        (a plant in flight still goes, or is cancelled)."""
        at = self._clock().strftime("%H:%M:%S")
        queue = self._queue
        if queue is not None:
            queue.hold_waiting(f"Dropped when plantstore-tui was quit at {at}.")
        with contextlib.suppress(_store_error()):  # they are offered again, not lost
            self.ledger().release_all(self.unsettled(), f"Dropped at quit, {at}.")
