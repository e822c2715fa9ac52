"""The main screen: the form on the left, the response log on the right, sends in a worker."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer
from textual.worker import Worker, WorkerState

from plantstore_tui.core.text import visible
from plantstore_tui.ui.connection import Connect, Connection, TargetLabel
from plantstore_tui.ui.screens.confirm import ProtectedSends
from plantstore_tui.ui.widgets.plant_form import FormTexts, PlantForm
from plantstore_tui.ui.widgets.response_log import ResponseLog
from plantstore_tui.ui.widgets.status_line import StatusKind, StatusLine

if TYPE_CHECKING:
    from plantstore_tui.core.models import NewPlant
    from plantstore_tui.core.target import Target

Clock = Callable[[], datetime]

# After this long without an answer a send shows its spinner and Esc in the footer.
SLOW_SEND_SECONDS = 0.15


@dataclass(slots=True)
class _InFlight:
    """The send under way: set before its worker starts, so a second submit sees it at once."""

    texts: FormTexts
    plant: NewPlant | None = None
    started: float | None = None

    def elapsed_ms(self) -> float | None:
        return None if self.started is None else (time.perf_counter() - self.started) * 1000


class SendScreen(Screen[None]):
    """Where plants are entered, sent, and their answers logged."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "send", "Send"),
        Binding("escape", "cancel_send", "Cancel send"),
        Binding("ctrl+n", "toggle_next_id", "Next id on/off"),
        Binding("ctrl+l", "clear_log", "Clear log"),
        Binding("ctrl+o", "save_log", "Save log"),
    ]

    def __init__(self, connect: Connect | None, label: TargetLabel, clock: Clock) -> None:
        super().__init__()
        # None until a target is chosen (first run): the form works, sending waits for a target.
        self._connect = connect
        self._label = label
        self._clock = clock
        self._connection: Connection | None = None
        self._connect_problem: str | None = None
        self._connected = asyncio.Event()
        self._in_flight: _InFlight | None = None
        self._send_worker: Worker[None] | None = None
        self._slow_send_timer: Timer | None = None
        self._protected = ProtectedSends()

    def compose(self) -> ComposeResult:
        """Status line, form and log side by side, footer."""
        label = self._label
        state: tuple[str, StatusKind] = (
            ("starting…", "busy") if self._connect else ("no target: F2 for profiles", "problem")
        )
        yield StatusLine(label.describe(), state, protected=label.protected, id="status")
        with Horizontal(id="main"):
            form = PlantForm(id="form")
            form.border_title = "New plant"
            yield form
            log = ResponseLog(id="log")
            log.border_title = "Responses"
            yield log
        yield Footer()

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
        return self._in_flight is not None

    @property
    def target(self) -> Target | None:
        """The target plants go to, once connected."""
        return None if self._connection is None else self._connection.target

    def on_mount(self) -> None:
        """Focus Name; build the client only after the first frame is on screen."""
        self.form.field_input("name").focus()
        if self._connect is not None:
            self.call_after_refresh(self._start_connecting)

    def _start_connecting(self) -> None:
        if self._connect is None:
            return
        # A thread: importing httpx and Pydantic takes ~100 ms, and the form is usable meanwhile.
        self.run_worker(
            self._connect,
            thread=True,
            name="connect",
            group="connect",
            exclusive=True,
            exit_on_error=False,
        )

    def reconnect(self, connect: Connect, label: TargetLabel) -> bool:
        """Send to another target from now on; refused while a send is in flight."""
        if self.sending:
            self.notify(
                "A send is in flight: wait for its answer, or press Esc, then switch.",
                title="Target not changed",
                severity="warning",
            )
            return False
        old, self._connection = self._connection, None
        self._connect, self._label = connect, label
        self._connect_problem = None
        self._connected = asyncio.Event()
        self.status.show_target(label.describe(), protected=label.protected)
        self.status.show_state("connecting…", "busy")
        if old is not None:
            self.run_worker(old.client.aclose(), name="close", exit_on_error=False)
        self._start_connecting()
        return True

    async def on_unmount(self) -> None:
        """Close the kept-alive connections."""
        if self._connection is not None:
            await self._connection.client.aclose()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """Every worker's end comes through here: the connection, and sends that broke."""
        worker, state = event.worker, event.state
        if worker.name == "connect" and state == WorkerState.SUCCESS:
            connection = worker.result
            assert isinstance(connection, Connection)
            self._connection = connection
            target = connection.target
            self.status.show_target(
                TargetLabel.of(target).describe(target.token_hint()), protected=target.protected
            )
            self._connected.set()
            self._show_idle()
        elif worker.name == "connect" and state == WorkerState.ERROR:
            self._connect_problem = visible(str(worker.error))
            self.status.show_state("cannot send: configuration problem", "problem")
            self.log_panel.add_note(
                f"Configuration problem: {self._connect_problem}", self._clock()
            )
            self._connected.set()
        elif worker.name == "send" and state == WorkerState.ERROR:
            # A bug, not a server fault (those are outcomes): say so instead of crashing.
            error = worker.error
            self.log_panel.add_note(
                f"The send stopped on an unexpected error: {type(error).__name__}: {error}",
                self._clock(),
            )
            self._finish_send()

    def _show_idle(self) -> None:
        if self._connect_problem is None and self._connection is not None:
            self.status.show_state("ready", "ready")

    @on(StatusLine.TargetClicked)
    async def _target_clicked(self) -> None:
        await self.run_action("app.profiles")

    @on(PlantForm.Submitted)
    def _submitted(self, message: PlantForm.Submitted) -> None:
        if self._in_flight is not None:
            self.notify(
                "A send is already in flight: nothing more was sent. "
                "Wait for its answer, or press Esc to cancel it.",
                title="Not sent",
                severity="warning",
            )
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
        self._in_flight = _InFlight(texts=message.texts)
        self.form.set_sending(True)
        self.status.show_state("sending… (Esc cancels)", "busy")
        # A loopback answer takes milliseconds: the spinner and the footer's Esc appear only
        # for a send that lasts, so a fast one costs no extra layout and nothing flickers.
        self._slow_send_timer = self.set_timer(SLOW_SEND_SECONDS, self._show_slow_send)
        self._send_worker = self._send(self._in_flight)

    def _show_slow_send(self) -> None:
        if self._in_flight is None:
            return
        self.form.show_spinner(True)
        self.refresh_bindings()

    @work(exclusive=True, exit_on_error=False, name="send", group="send")
    async def _send(self, in_flight: _InFlight) -> None:
        try:
            await self._connected.wait()
            if self._connection is None:
                return
            from plantstore_tui.core.form import FormErrors
            from plantstore_tui.core.models import parse_new_plant
            from plantstore_tui.core.outcome import Created

            texts = in_flight.texts
            parsed = parse_new_plant(name=texts.name, id=texts.id, tag=texts.tag)
            if isinstance(parsed, FormErrors):
                self.form.show_errors(parsed.errors)
                return
            if not await self._confirmed(self._connection.target, parsed):
                self.notify("Nothing was sent.", title="Send cancelled")
                return
            in_flight.plant, in_flight.started = parsed, time.perf_counter()
            outcome = await self._connection.client.create_plant(parsed)
            self.log_panel.add_outcome(outcome, self._clock())
            if isinstance(outcome, Created):
                self.form.after_success(texts, parsed.tag)
        except asyncio.CancelledError:
            self._log_cancelled(in_flight)
            raise
        finally:
            self._finish_send()

    async def _confirmed(self, target: Target, plant: NewPlant) -> bool:
        # Asked before the clock starts, so the time spent deciding is not the server's.
        if not self._protected.needs_asking(target):
            return True
        self.status.show_state("confirm the send…", "busy")
        answer = await self.app.push_screen_wait(self._protected.question(target, plant))
        self.status.show_state("sending… (Esc cancels)", "busy")
        return self._protected.record(target, answer)

    def _log_cancelled(self, in_flight: _InFlight) -> None:
        if in_flight.plant is None or self._connection is None:
            self.notify("Cancelled before anything was sent.", title="Send cancelled")
            return
        from plantstore_tui.core.outcome import cancelled

        outcome = cancelled(self._connection.client.url, in_flight.plant, in_flight.elapsed_ms())
        self.log_panel.add_outcome(outcome, self._clock())

    def _finish_send(self) -> None:
        if self._in_flight is None:
            return
        self._in_flight = None
        if self._slow_send_timer is not None:
            self._slow_send_timer.stop()
            self._slow_send_timer = None
        self.form.set_sending(False)
        if self.form.show_spinner(False):
            self.refresh_bindings()
        self._show_idle()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer Esc only while there is something to cancel."""
        if action == "cancel_send":
            return self.sending
        return True

    def action_send(self) -> None:
        """Check the form and send it."""
        self.form.submit()

    def action_cancel_send(self) -> None:
        """Cancel the send in flight; its log entry says the plant may or may not exist."""
        if self._send_worker is not None and self._send_worker.is_running:
            self._send_worker.cancel()

    def action_toggle_next_id(self) -> None:
        """Turn moving to the next id after a success on or off."""
        self.form.toggle_next_id()

    def action_clear_log(self) -> None:
        """Empty the log."""
        self.log_panel.clear_entries()
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
