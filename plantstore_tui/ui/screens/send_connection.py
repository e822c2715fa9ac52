"""The send screen's workers as they end: the connection made (the queue starts sending) or not
(its words in the log), and a queue that broke on a bug."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.worker import Worker, WorkerState

from plantstore_tui.core.plant.text import visible
from plantstore_tui.ui import collector
from plantstore_tui.ui.connection import Connection, TargetLabel

if TYPE_CHECKING:
    from plantstore_tui.core.sending.queue import QueuedPlant
    from plantstore_tui.core.store.settings import HistorySettings
    from plantstore_tui.ui.screens.send import SendScreen


def worker_ended(screen: SendScreen, event: Worker.StateChanged) -> None:
    """Act on the end of one of the screen's workers: "connect" and "queue"."""
    worker, state = event.worker, event.state
    if worker.name == "connect" and state == WorkerState.SUCCESS:
        result = worker.result
        assert isinstance(result, tuple)
        connection, settings, next_id = result
        assert isinstance(connection, Connection)
        _connected(screen, connection, settings, next_id)
    elif worker.name == "connect" and state == WorkerState.ERROR:
        problem = visible(str(worker.error))
        screen.log_panel.add_note(f"Configuration problem: {problem}", screen.clock())
        screen.session.cannot_connect(problem)
        screen.show_state()
    elif worker.name == "queue" and state == WorkerState.ERROR:
        # A bug, not a server fault (those are outcomes): say so instead of crashing.
        error = worker.error
        screen.log_panel.add_note(
            f"Sending stopped on an unexpected error: {type(error).__name__}: {error}",
            screen.clock(),
        )


def _connected(
    screen: SendScreen, connection: Connection, settings: HistorySettings, next_id: int | None
) -> None:
    target = connection.target
    screen.status.show_target(
        TargetLabel.of(target).parts(target.token_hint()), protected=target.protected
    )
    session = screen.session
    queue = session.connected(target, connection.client, settings)

    async def confirm_queued(plant: QueuedPlant) -> bool:
        # Only for plants queued before the connection told whether the target is protected.
        target = screen.target
        if target is None or not screen.protected.needs_asking(target):
            return True
        answer = await screen.ask_and_wait(screen.protected.question(target, plant.plant))
        return screen.protected.record(target, answer)

    screen.run_worker(
        session.run(queue, confirm_queued), name="queue", group="queue", exit_on_error=False
    )
    collector.after_connecting()
    if next_id is not None:
        screen.form.offer_next_id(next_id)
    screen.show_state()
