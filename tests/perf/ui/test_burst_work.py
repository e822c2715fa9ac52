"""Work done once, not at each key or state: a burst of plants restyles each field and draws each
log entry at most once between two frames, whatever states they passed through meanwhile, and
looks up in the history only the ID texts a field still held when their turn came; a key's
change goes no further than what uses it, and no worker is started for a key."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import pytest
from burst_support import Record
from keys_support import burst, drained, keys_of
from snapshot_apps.support import SIZE, app_for, ready
from textual import events
from textual.app import App
from textual.dom import DOMNode
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input

from plantstore_tui.core.sending.queue import QueuedPlant
from plantstore_tui.core.store import Ledger
from plantstore_tui.core.store.database import Database
from plantstore_tui.core.store.rows import NewRow
from plantstore_tui.server.runner import BackgroundServer
from plantstore_tui.ui.app import PlantStoreApp
from plantstore_tui.ui.screens.send import BURST_FRAME_SECONDS, SendScreen
from plantstore_tui.ui.widgets import response_log
from plantstore_tui.ui.widgets.log_entry import Entry, render_plant
from plantstore_tui.ui.widgets.plant_form import FieldInput, PlantForm
from plantstore_tui.ui.widgets.response_log import ResponseLog

RECORDS: list[Record] = [(f"Fern {n}", str(900 + n), "shade" if n % 2 else "") for n in range(12)]


class Frames:
    """Counts the frames of a screen and what was done in each of them."""

    def __init__(self, screen: SendScreen) -> None:
        self.count = 0
        self.done: Counter[tuple[str, object, int]] = Counter()
        before = screen.run_before_frame

        def counted() -> None:
            before()
            self.count += 1

        # The screen calls its own attribute before each frame: counted from here on.
        screen.run_before_frame = counted  # type: ignore[method-assign]

    def note(self, what: str, subject: object) -> None:
        """`what` was done to `subject` in the frame being prepared now."""
        self.done[(what, subject, self.count)] += 1

    def repeated(self) -> list[tuple[str, object, int]]:
        """What was done twice or more before one frame."""
        return [key for key, times in self.done.items() if times > 1]


def created_in_order(entries: list[str]) -> bool:
    """True when the entries say RECORDS were created, each once, in the order typed."""
    created = [entry.split("Created plant ")[1].split(" ")[0] for entry in entries]
    return created == [plant_id for _, plant_id, _ in RECORDS]


class Reads:
    """How often a property of every Screen was read since `counting`."""

    def __init__(self) -> None:
        self.count = 0

    @classmethod
    def counting(cls, monkeypatch: pytest.MonkeyPatch, name: str) -> Reads:
        """Count the reads of `Screen.<name>` from now on."""
        reads = cls()
        getter = getattr(Screen, name).fget

        def counted(screen: Screen[Any]) -> Any:
            reads.count += 1
            return getter(screen)

        monkeypatch.setattr(Screen, name, property(counted))
        return reads


class Calls:
    """How often a method was called, with arguments `which` accepts, since `counting`."""

    def __init__(self) -> None:
        self.count = 0

    @classmethod
    def counting(
        cls,
        monkeypatch: pytest.MonkeyPatch,
        owner: type,
        name: str,
        which: Callable[..., bool] = lambda *_: True,
    ) -> Calls:
        """Count the calls of `owner.<name>` from now on."""
        calls = cls()
        method = getattr(owner, name)

        def counted(*args: Any) -> Any:
            calls.count += which(*args)
            return method(*args)

        monkeypatch.setattr(owner, name, counted)
        return calls


async def _burst_counted(
    server: BackgroundServer, monkeypatch: pytest.MonkeyPatch, records: list[Record] = RECORDS
) -> tuple[list[str], str, Frames]:
    """The burst of `records` typed: each entry's text and the log's lines after, and the
    frames."""
    app = app_for(server.base_url, server.token)
    frames: list[Frames] = []

    restyle = FieldInput.update_node_styles
    render_entry = ResponseLog._render_entry

    def restyled(field: FieldInput, animate: bool = True) -> None:
        if frames:
            frames[0].note("restyle", field.field)
        restyle(field, animate)

    def rendered(log: ResponseLog, index: int) -> Any:
        if frames:
            frames[0].note("entry drawn", index)
        return render_entry(log, index)

    monkeypatch.setattr(FieldInput, "update_node_styles", restyled)
    monkeypatch.setattr(ResponseLog, "_render_entry", rendered)
    async with app.run_test(size=SIZE) as pilot:
        await ready(app, pilot)
        screen = app.get_default_screen()
        assert isinstance(screen, SendScreen)
        await pilot.press("ctrl+n")  # every record types its own id
        frames.append(Frames(screen))
        burst(app, keys_of(records))
        await drained(app, pilot, len(records))
        entries = [entry.text().plain for entry in screen.log_panel.entries]
        lines = "\n".join(strip.text for strip in screen.log_panel.lines)
    return entries, lines, frames[0]


async def test_a_burst_restyles_each_field_at_most_once_a_frame(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, _, frames = await _burst_counted(reference_server, monkeypatch)
    restyles = sum(times for (what, _, _), times in frames.done.items() if what == "restyle")
    # Three focus moves a plant (Name to ID to Tag, and back to Name): each one restyled the
    # two fields it touched, six restyles a plant, however many plants a frame showed.
    assert restyles < 6 * len(RECORDS)
    assert frames.repeated() == []


async def test_a_burst_draws_each_log_entry_at_most_once_a_frame(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries, lines, frames = await _burst_counted(reference_server, monkeypatch)
    drawn = [index for (what, index, _), times in frames.done.items() if what == "entry drawn"]
    assert set(drawn) == set(range(len(RECORDS)))
    assert frames.repeated() == []
    # What is drawn is each plant's last state: its answer.
    assert all("Created plant" in entry for entry in entries)
    assert "Created plant 911" in lines


async def test_a_burst_makes_each_log_entry_at_most_once_a_frame(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame = 0
    made: Counter[tuple[int, int]] = Counter()
    before_frame = SendScreen.run_before_frame

    def counted(screen: SendScreen) -> None:
        nonlocal frame
        before_frame(screen)
        frame += 1

    def render(plant: QueuedPlant, *args: Any, **kwargs: Any) -> Entry:
        made[(plant.number, frame)] += 1
        return render_plant(plant, *args, **kwargs)

    monkeypatch.setattr(SendScreen, "run_before_frame", counted)
    monkeypatch.setattr(response_log, "render_plant", render)
    entries, _, _ = await _burst_counted(reference_server, monkeypatch)
    # Each state a plant passed through (queued, sending, its answer) made its entry anew, to be
    # replaced before the frame showed it.
    assert made
    assert [key for key, times in made.items() if times > 1] == []
    assert all("Created plant" in entry for entry in entries)


async def test_a_burst_looks_up_only_the_ids_the_field_still_holds(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    looked_up: list[str] = []

    def check_history(screen: SendScreen, id_text: str) -> None:
        # In place of the look-up (a worker thread each): only what was asked for is noted.
        looked_up.append(id_text)

    monkeypatch.setattr(SendScreen, "_check_history", check_history)
    await _burst_counted(reference_server, monkeypatch)
    typed = [record[1][:end] for record in RECORDS for end in range(1, len(record[1]) + 1)]
    # Each ID key changes the field; each change started a look-up before, most of them for a
    # text the field no longer held by then.
    assert looked_up
    assert set(looked_up) <= set(typed)
    assert len(looked_up) < len(typed)


async def test_a_burst_sends_no_change_of_name_or_tag_past_the_form_and_starts_no_worker(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    reached: Counter[str] = Counter()
    started: list[str] = []
    post = App.post_message
    run_worker = DOMNode.run_worker

    def posted(app: App[Any], message: Message) -> bool:
        if isinstance(message, Input.Changed):
            reached[message.input.id or ""] += 1
        return post(app, message)

    def worker(node: DOMNode, work: Any, *args: Any, **kwargs: Any) -> Any:
        started.append(type(node).__name__)
        return run_worker(node, work, *args, **kwargs)

    monkeypatch.setattr(App, "post_message", posted)
    monkeypatch.setattr(DOMNode, "run_worker", worker)
    await _burst_counted(reference_server, monkeypatch)
    # Every key bubbled its change up to the app (five dispatches a key), and each key typed in
    # Tag started a worker for its suggestion.
    assert reached == Counter()
    assert "FieldInput" not in started


async def test_a_run_of_keys_read_together_changes_a_field_once(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    changes: list[tuple[str, str]] = []
    post = FieldInput.post_message

    def posted(field: FieldInput, message: Message) -> bool:
        if isinstance(message, Input.Changed):
            changes.append((field.field, message.value))
        return post(field, message)

    monkeypatch.setattr(FieldInput, "post_message", posted)
    entries, _, _ = await _burst_counted(reference_server, monkeypatch)
    typed = sum(len(name) + len(plant_id) + len(tag) for name, plant_id, tag in RECORDS)
    # Each key was a change of its own (a value set, its watchers, a message, a refresh); the
    # plants still arrived whole, in order.
    assert len(changes) < typed / 2
    assert created_in_order(entries)


async def test_a_run_of_keys_read_together_starts_the_cursors_blink_over_once(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    restarts = Calls.counting(monkeypatch, FieldInput, "restart_blink")
    entries, _, _ = await _burst_counted(reference_server, monkeypatch)
    typed = sum(len(name) + len(plant_id) + len(tag) for name, plant_id, tag in RECORDS)
    # Before, at every typed key (a reactive set and the blink timer reset each time): the
    # cursor is shown from the run's change on all the same.
    assert restarts.count < typed / 2
    assert created_in_order(entries)


def _scrolls_into_view(_screen: Screen[Any], message: Message) -> bool:
    # Textual's call_later wraps the function it posts in a partial with its arguments.
    function = getattr(message, "callback", None)
    function = getattr(function, "func", function)
    return getattr(function, "__name__", "") == "scroll_to_center"


async def test_a_burst_posts_no_callback_to_scroll_a_field_in_view_into_view(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    callbacks = Calls.counting(monkeypatch, Screen, "post_message", _scrolls_into_view)
    entries, _, _ = await _burst_counted(reference_server, monkeypatch)
    # Before, one a focus move (three a plant), each a message and a closure's signature
    # worked out, for fields the screen showed whole already; now the first focus only, given
    # as the screen mounts, before its first layout.
    assert callbacks.count <= 1
    assert created_in_order(entries)


def _emptied(_form: PlantForm, message: Message) -> bool:
    return isinstance(message, Input.Changed) and not message.value


async def test_a_plant_handed_over_empties_its_fields_without_a_change_to_check(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    emptied = Calls.counting(monkeypatch, PlantForm, "post_message", _emptied)
    entries, _, _ = await _burst_counted(reference_server, monkeypatch)
    # Before, Name and Tag emptied for the next plant each bubbled a change to the form, which
    # had nothing to check in a field not touched since.
    assert emptied.count == 0
    assert created_in_order(entries)


async def test_a_burst_is_painted_at_most_ten_times_a_second(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    painted: list[tuple[float, bool]] = []
    settled = [0.0]
    update, changed = SendScreen._on_timer_update, SendScreen.plant_changed

    def timed(screen: SendScreen) -> None:
        # When each frame was painted, and whether keys read were still to be applied or the
        # plants in line were going out one after another.
        busy = screen.app.message_queue_size > 0 or (
            screen.session.in_line() > 1 and time.monotonic() - settled[-1] < BURST_FRAME_SECONDS
        )
        before = screen._painted_at
        update(screen)
        if screen._painted_at != before:
            painted.append((screen._painted_at, busy))

    def plant_changed(screen: SendScreen, plant: QueuedPlant, after: str | None = None) -> None:
        if plant.settled:
            settled.append(time.monotonic())
        changed(screen, plant, after)

    monkeypatch.setattr(SendScreen, "_on_timer_update", timed)
    monkeypatch.setattr(SendScreen, "plant_changed", plant_changed)
    # Long enough to be painted several times on a fast machine too.
    records = [(f"Fern {n}", str(900 + n), "shade") for n in range(60)]
    entries, _, _ = await _burst_counted(reference_server, monkeypatch, records)
    gaps = [later - earlier for (earlier, _), (later, busy) in pairwise(painted) if busy]
    # A frame each tick of Textual's frame rate (60 a second), as far as the key slices let
    # the loop turn and the sends' answers asked for one.
    assert gaps
    assert min(gaps) >= BURST_FRAME_SECONDS
    assert all("Created plant" in entry for entry in entries)


async def test_a_burst_syncs_its_takes_once_a_slice_and_paints_none_unsynced(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted: Counter[str] = Counter()
    unsynced_painted: list[float] = []
    take, sync, paint = Ledger.take, Database.sync, Screen._on_timer_update

    def counted_take(ledger: Ledger, row: NewRow, *, durable: bool = True) -> int:
        counted["durable take" if durable else "take"] += 1
        return take(ledger, row, durable=durable)

    def counted_sync(db: Database) -> None:
        counted["sync"] += 1
        sync(db)

    def painted(screen: Screen[Any]) -> None:
        send_screen = screen.app.get_default_screen()
        if isinstance(send_screen, SendScreen) and send_screen.session.unsynced:
            unsynced_painted.append(time.monotonic())
        paint(screen)

    monkeypatch.setattr(Ledger, "take", counted_take)
    monkeypatch.setattr(Database, "sync", counted_sync)
    monkeypatch.setattr(Screen, "_on_timer_update", painted)
    entries, _, _ = await _burst_counted(reference_server, monkeypatch)
    # Each take was a durable commit of its own on the UI thread: one fsync a plant. Now only
    # the last one's, read with no key after it.
    assert (counted["take"], counted["durable take"]) == (len(RECORDS) - 1, 1)
    assert 0 < counted["sync"] < len(RECORDS)
    assert unsynced_painted == []
    assert all("Created plant" in entry for entry in entries)


async def test_a_burst_sends_no_blur_or_focus_move_past_the_form(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    reached: Counter[str] = Counter()
    post = Screen.post_message

    def posted(screen: Screen[Any], message: Message) -> bool:
        if isinstance(message, Input.Blurred | events.DescendantFocus | events.DescendantBlur):
            reached[type(message).__name__] += 1
        return post(screen, message)

    monkeypatch.setattr(Screen, "post_message", posted)
    entries, _, _ = await _burst_counted(reference_server, monkeypatch)
    # Three focus moves a plant: each field's Blurred, and the form's DescendantFocus and
    # DescendantBlur, bubbled on through the screen to the app (a dispatch at each level).
    assert reached == Counter()
    assert all("Created plant" in entry for entry in entries)


async def test_a_burst_works_out_the_footers_keys_at_most_once_a_frame(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    looked_at = Reads.counting(monkeypatch, "active_bindings")
    _, _, frames = await _burst_counted(reference_server, monkeypatch)
    # Each focus move (three a plant) worked out every key the screen binds, to see whether the
    # footer changed.
    assert 0 < looked_at.count <= frames.count + 1


async def test_a_burst_builds_the_binding_chain_for_focus_moves_not_for_typed_keys(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = Reads.counting(monkeypatch, "_binding_chain")
    entries, _, _ = await _burst_counted(reference_server, monkeypatch)
    keys = len(keys_of(RECORDS))
    # Every key looked for a priority binding in a chain built anew for it. Now: once a focus
    # (three a plant), and for Tab and Enter, which look further up the chain.
    assert built.count <= 7 * len(RECORDS) < keys
    assert all("Created plant" in entry for entry in entries)


async def test_a_burst_moves_between_the_fields_without_working_out_the_focus_chain(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    worked_out = Reads.counting(monkeypatch, "focus_chain")
    entries, _, _ = await _burst_counted(reference_server, monkeypatch)
    # Tab and Enter moved on with Textual's focus_next: the screen's whole focus chain worked
    # out twice a plant.
    assert worked_out.count < len(RECORDS)
    assert created_in_order(entries)


async def test_a_burst_gives_the_rest_of_the_app_a_turn_once_a_frame(
    reference_server: BackgroundServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    slices: list[tuple[float, float]] = []
    let_others_run = PlantStoreApp._let_others_run

    async def timed(app: PlantStoreApp) -> None:
        started = time.monotonic()
        await let_others_run(app)
        slices.append((started, time.monotonic()))

    monkeypatch.setattr(PlantStoreApp, "_let_others_run", timed)
    records = [(f"Fern {n}", str(900 + n), "shade") for n in range(60)]
    entries, _, _ = await _burst_counted(reference_server, monkeypatch, records)
    applied = [begun - ended for (_, ended), (begun, _) in pairwise(slices)]
    # Keys were applied 1/30 s at a time: three turns (each a chance to paint, and a sync of
    # the ledger) for every frame a burst paints.
    assert applied
    assert min(applied) >= BURST_FRAME_SECONDS
    assert len(entries) == len(records)
