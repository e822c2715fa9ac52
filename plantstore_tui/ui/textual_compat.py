"""The one module that touches Textual's private API, for the Textual range pyproject.toml pins.

Each private name used here is listed in `PRIVATE_NAMES`; tests/ui/test_textual_compat.py fails,
naming the symbol, when a Textual upgrade removes or renames one. Everywhere else uses the small
functions and the two base classes below.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import sys
import time
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from textual import events
from textual import screen as textual_screen
from textual._compositor import Compositor
from textual.app import App, ScreenStackError
from textual.geometry import Region
from textual.screen import Screen
from textual.widgets import Input

from plantstore_tui.ui.key_names import key_character, key_label

if TYPE_CHECKING:
    from collections.abc import Iterator

    from rich.style import Style
    from rich.text import Text
    from textual.binding import Binding
    from textual.driver import Driver
    from textual.drivers.linux_driver import LinuxDriver
    from textual.notifications import Notification
    from textual.strip import Strip
    from textual.timer import Timer
    from textual.widget import Widget

ReturnType = TypeVar("ReturnType")

# (module, class, attribute): the private names this module relies on.
PRIVATE_NAMES: tuple[tuple[str, str, str], ...] = (
    ("textual.app", "App", "_check_bindings"),
    ("textual.app", "App", "_close_messages_no_wait"),
    ("textual.app", "App", "_driver"),
    ("textual.app", "App", "_exit_renderables"),
    ("textual.app", "App", "_fatal_error"),
    ("textual.app", "App", "_keymap"),
    ("textual.screen", "Screen", "_binding_chain"),
    ("textual.app", "App", "_notifications"),
    ("textual.app", "App", "on_event"),
    ("textual.screen", "Screen", "_compositor"),
    ("textual.screen", "Screen", "_on_timer_update"),
    ("textual._compositor", "Compositor", "_get_renders"),
    ("textual.widgets", "Input", "_on_paste"),
    ("textual.widgets", "Input", "_restart_blink"),
    ("textual.widgets", "Input", "_suggestion"),
    ("textual.widgets", "Input", "_value"),
    ("textual.drivers.linux_driver", "LinuxDriver", "_file"),
    ("textual.driver", "Driver", "_app"),
    ("textual.driver", "Driver", "_loop"),
    ("textual.dom", "DOMNode", "_attach"),
    ("textual.dom", "DOMNode", "_component_styles"),
    # A module's global: the function the screen's binding chain asks for a key's character.
    ("textual", "screen", "key_to_character"),
)

# The binding chain asks, for every key of every binding above the focused field, which
# character it types (does the field consume it?): answered without Unicode's name tables.
vars(textual_screen)["key_to_character"] = key_character


def missing() -> list[str]:
    """The names of `PRIVATE_NAMES` the installed Textual lacks, as `module.Class.attribute`."""
    import importlib

    absent = []
    for module_name, class_name, attribute in PRIVATE_NAMES:
        if module_name == "textual.drivers.linux_driver" and sys.platform == "win32":
            continue
        owner = getattr(importlib.import_module(module_name), class_name, None)
        # An instance attribute is found among the names its class's __init__ assigns.
        if owner is None or not (
            hasattr(owner, attribute) or attribute in owner.__init__.__code__.co_names
        ):
            absent.append(f"{module_name}.{class_name}.{attribute}")
    return absent


async def check_bindings(app: App[Any], key: str, *, priority: bool = False) -> bool:
    """Run the bindings lookup Textual runs for a key (priority ones, or the chain from the focused
    widget up to the app); True if a binding took it. Keymaps and check_action apply.

    A key no priority binding of the chain names is not looked up among them: the chain is built
    anew at each lookup (every map copied, filtered and keymapped), and in a burst that was once
    for every key typed; the keys it names are worked out once for each focus instead."""
    if priority and isinstance(app, CompatApp) and key not in app.priority_keys():
        return False
    return await app._check_bindings(key, priority=priority)


def driver_of(app: App[Any]) -> Driver | None:
    """The driver of a running app (None before it runs)."""
    return app._driver


def driver_target(driver: Driver) -> tuple[App[Any], asyncio.AbstractEventLoop]:
    """The app a driver sends its events to, and the event loop that app runs on."""
    return driver._app, driver._loop


def notifications_of(app: App[Any]) -> list[Notification]:
    """The notifications the app shows now."""
    return list(app._notifications)


def suggestion_of(field: Input) -> str:
    """What the field suggests after its text now ("" for nothing)."""
    return field._suggestion


def replace_writer_file(
    driver: LinuxDriver, replace: Callable[[io.TextIOWrapper[Any]], io.TextIOWrapper[Any]]
) -> None:
    """Give the driver's writer thread `replace(file)` to write to instead of its terminal file."""
    output = driver._file
    if output is not None:
        driver._file = replace(output)


def once_before_frame(widget: Widget, callback: Callable[[], None]) -> None:
    """Run `callback` once before the next frame of the widget's screen (see `CompatScreen`),
    or at once on a screen without the hook; the widget is refreshed, so that a frame comes."""
    from textual.dom import NoScreen

    try:
        screen = widget.screen
    except NoScreen:
        screen = None
    if isinstance(screen, CompatScreen):
        screen.before_frame(callback)
        widget.refresh()
    else:
        callback()


def component_styles(widget: Widget, names: Iterable[str]) -> dict[str, Style]:
    """The Rich style of each CSS class in `names` for a part of `widget`, worked out now from
    the app's stylesheet (rules such as `ResponseLog > .response-log--time`), as
    `get_component_rich_style` gives it for a class in `COMPONENT_CLASSES`.

    Textual styles each of a widget's `COMPONENT_CLASSES` as a node of its own at every restyle
    of the widget (twice before the first frame, again at each focus move); this styles them
    only when asked. The caller asks again after `notify_style_update` (a theme change).
    """
    from textual.dom import DOMNode

    stylesheet = widget.app.stylesheet
    styles = {}
    for name in names:
        part = DOMNode(classes=name)
        part._attach(widget)
        stylesheet.apply(part, animate=False)
        widget._component_styles[name] = part.styles
        styles[name] = widget.get_component_rich_style(name)
    return styles


def hold_frames(app: App[Any], seconds: float) -> None:
    """`CompatApp.hold_frames` on an app that has it (nothing on another)."""
    if isinstance(app, CompatApp):
        app.hold_frames(seconds)


def frames_held(app: App[Any]) -> bool:
    """True while `CompatApp.hold_frames` holds the app's frames back."""
    return isinstance(app, CompatApp) and app._frames_held is not None


def release_frames(app: App[Any]) -> None:
    """`CompatApp.release_frames` on an app that has it (nothing on another)."""
    if isinstance(app, CompatApp):
        app.release_frames()


class CompatApp(App[ReturnType]):
    """Textual's App with three hooks into its internals: keys taken before Textual delivers
    them, frames held back for a moment, and a crash report that may leave out every frame's
    locals."""

    # Textual's crash report shows every frame's local variables.
    crash_report_shows_locals: ClassVar[bool] = True

    def get_key_display(self, binding: Binding) -> str:
        """The key's label, as Textual's, without Unicode's name tables for our keys."""
        return key_label(binding)

    # The keys the priority bindings of the screen's chain name, and what they were worked out
    # for: the screen, its focused widget and the keymap.
    _priority_keys: tuple[tuple[object, object, object], frozenset[str]] | None = None

    def priority_keys(self) -> frozenset[str]:
        """The keys that some priority binding of the current screen's chain is bound to now."""
        screen = self.screen
        made_for = (screen, screen.focused, self._keymap)
        if self._priority_keys is None or self._priority_keys[0] != made_for:
            keys = frozenset(
                key
                for _namespace, bindings in screen._binding_chain
                for key, key_bindings in bindings.key_to_bindings.items()
                if any(binding.priority for binding in key_bindings)
            )
            self._priority_keys = (made_for, keys)
        return self._priority_keys[1]

    _frames_held: tuple[ExitStack, Timer] | None = None

    def hold_frames(self, seconds: float) -> None:
        """Paint nothing until `release_frames`, for `seconds` at most: a state that the next
        one replaces within the moment is never painted. The next key or paste read releases
        the hold first, so what is typed is never held back.

        A frame also delays the next: Textual paints at most once a tick of its frame rate,
        and the first frame after a pause starts a new tick, so the one after it waits one or
        two ticks (17 to 33 ms at 60 frames a second)."""
        if self._frames_held is not None:
            return
        batch = ExitStack()
        batch.enter_context(self.batch_update())
        self._frames_held = (batch, self.set_timer(seconds, self.release_frames, name="held"))

    def release_frames(self) -> None:
        """Paint again at once what `hold_frames` held back (nothing when nothing is held)."""
        held, self._frames_held = self._frames_held, None
        if held is None:
            return
        batch, deadline = held
        deadline.stop()
        batch.close()
        # The screen resumes its frame timer only when it is next idle: prompt it now (none is
        # left when the app is ending).
        with contextlib.suppress(ScreenStackError):
            self.screen.check_idle()

    async def take_key_first(self, event: events.Key | events.Paste) -> bool:
        """Apply a key or paste as the app reads it; False leaves it to Textual's delivery."""
        return False

    async def deliver(self, event: events.Event) -> None:
        """Textual's own handling of an event, as `on_event` gives it when `take_key_first`
        declines (for a key kept and applied later)."""
        await super().on_event(event)

    async def on_event(self, event: events.Event) -> None:
        """Keys and pastes go to `take_key_first` before Textual's own handling."""
        if isinstance(event, events.Key | events.Paste) and not event.is_forwarded:
            self.release_frames()
            if await self.take_key_first(event):
                return
        await super().on_event(event)

    def _fatal_error(self) -> None:
        if self.crash_report_shows_locals:
            super()._fatal_error()
            return
        from rich.segment import Segments
        from rich.traceback import Traceback

        self.bell()
        traceback = Traceback(show_locals=False, width=None)
        self._exit_renderables.append(
            Segments(self.console.render(traceback, self.console.options))
        )
        self._close_messages_no_wait()


class PartialCompositor(Compositor):
    """Textual's compositor, drawing for an update of part of the screen only what shows there.

    Textual draws, for each such update, every widget whose clip (the visible part of its
    container) meets the part, and each of them whole: for a key typed into a field, every line
    of every widget beside it (the form's dozen, the log's thirty lines, the status line and the
    footer), though all but the field's rows and the widgets under it are cut away again. Here
    only the widgets whose visible part meets the updated part are drawn, and only its rows of
    them: the same strips reach the same places of the terminal.
    """

    def _get_renders(
        self, crop: Region | None = None
    ) -> Iterator[tuple[Region, Region, list[Strip]]]:
        if crop is None:
            yield from super()._get_renders(crop)
            return
        meets = crop.overlaps
        for widget, (region, clip) in self.visible_widgets.items():
            # The rows of the clip the update covers: Textual keeps to what the clip shows.
            rows = clip.intersection(Region(clip.x, crop.y, clip.width, crop.height))
            shown = region.intersection(rows)
            if shown.width and shown.height and meets(shown):
                part = Region(shown.x - region.x, shown.y - region.y, shown.width, shown.height)
                yield region, rows, widget.render_lines(part)
                if shown.contains_region(crop):
                    return  # drawn front to back: nothing behind it shows in the part


class CompatScreen(Screen[ReturnType]):
    """Textual's Screen with two hooks into its internals: work run once before the next frame,
    and a compositor that draws only what an update of part of the screen shows.

    A widget whose state changes several times between two frames (a burst of keys, a plant that
    went from queued to its answer) asks for `before_frame` instead of doing its expensive part
    (a restyle, a layout) at each change: it is done once, for the state the frame shows.
    """

    def __init__(
        self, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name, id, classes)
        self._before_frame: dict[Callable[[], None], None] = {}
        self._compositor = PartialCompositor()

    # When the last frame was painted (time.monotonic): frames are kept `frame_gap` apart.
    _painted_at = 0.0

    def frame_gap(self) -> float:
        """Seconds kept between two frames now (0: a frame as soon as Textual would paint one,
        at most once a tick of its frame rate). A subclass busy with a burst paints less often."""
        return 0.0

    def before_frame(self, callback: Callable[[], None]) -> None:
        """Run `callback` once before the next frame is laid out and drawn (asked twice, once);
        the caller also refreshes a widget, so that a frame comes."""
        self._before_frame[callback] = None

    def run_before_frame(self) -> None:
        """Run the callbacks asked for now (before a frame, or when their result is read)."""
        while self._before_frame:
            callbacks = list(self._before_frame)
            self._before_frame.clear()
            for callback in callbacks:
                callback()

    def _on_timer_update(self) -> None:
        # Textual paints nothing while frames are held (a batch): neither is anything made for it.
        if not frames_held(self.app):
            now = time.monotonic()
            if now - self._painted_at < self.frame_gap():
                # Textual's frame timer goes on ticking: the frame comes at a later tick.
                return
            self._painted_at = now
            self.run_before_frame()
        super()._on_timer_update()


class CompatInput(Input):
    """Textual's Input with three hooks into its internals: the text drawn for the value, a
    paste that reaches the field, and the cursor's blink started over for a key typed."""

    def shown(self, text: Text) -> Text:
        """The text drawn for the value: Textual's, unless a subclass changes it."""
        return text

    def pasted(self, event: events.Paste) -> None:
        """Called with a paste before Textual's handling, which runs unless the event's default
        is prevented."""

    def restart_blink(self) -> None:
        """Show the cursor and start its blink over, as Input does for each key it handles: a
        key applied without Input's own key handler calls this."""
        self._restart_blink()

    @property
    def _value(self) -> Text:
        return self.shown(super()._value)

    def _on_paste(self, event: events.Paste) -> None:
        self.pasted(event)
