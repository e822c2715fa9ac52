"""The send screen's footer: its keys drawn as one line of one widget, redrawn when they change.

Textual's Footer composes a widget per key anew at every refresh of the bindings, and on the send
screen, whose bindings change with the queue's state, the old ones were kept alive: hundreds
after ten sends, the memory growing with every plant. This one draws the same line, in the same
styles (app.tcss): each key is clickable (a disabled one rings the bell), the one under the mouse
is highlighted and shows its tooltip, the mouse wheel scrolls keys that do not fit, and the
palette's key stays at the right end. Bindings are shown as Textual's Footer shows them without
groups: one key per action, in the order the screen has them. Textual's behaviour is shown on a
bare app in tests/ui/test_upstream.py, which fails the day a Textual release changes it.
"""

from __future__ import annotations

from typing import ClassVar, NamedTuple

from rich.style import Style
from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget


class FooterKey(NamedTuple):
    """One key as the footer shows it."""

    key: str
    display: str
    description: str
    enabled: bool
    tooltip: str


class OneLineFooter(Widget, can_focus=False):
    """The keys of the screen's active bindings on one line; the palette's key at the right end."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "footer-key--key",
        "footer-key--description",
        "footer-key--hover",
        "footer-key--palette-edge",
    }

    def __init__(self) -> None:
        super().__init__()
        self._keys: tuple[FooterKey, ...] = ()
        self._palette: FooterKey | None = None
        # Each key's span on the line as last drawn, (start, end, key): what a click hits.
        self._spans: list[tuple[int, int, FooterKey]] = []
        self._hovered: FooterKey | None = None
        self._scrolled = 0
        self._overflow = 0

    def on_mount(self) -> None:
        """Follow the screen's bindings."""
        self._read_keys(self.screen)
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        """Stop following them."""
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        # Redrawn only if the keys shown changed (a focus move changes none of them).
        if self.is_attached and self._read_keys(screen):
            self.refresh()

    def _read_keys(self, screen: Screen[object]) -> bool:
        app = self.app
        active = screen.active_bindings
        keys: dict[str, FooterKey] = {}
        for _node, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in keys:
                display = app.get_key_display(binding)
                keys[binding.action] = FooterKey(
                    binding.key, display, binding.description, enabled, tooltip
                )
        palette = None
        if app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
            _node, binding, enabled, _tooltip = active[app.COMMAND_PALETTE_BINDING]
            tooltip = binding.tooltip or binding.description
            display = app.get_key_display(binding)
            palette = FooterKey(binding.key, display, binding.description, enabled, tooltip)
        shown = (tuple(keys.values()), palette)
        if shown == (self._keys, self._palette):
            return False
        self._keys, self._palette = shown
        return True

    def render(self) -> Text:
        """The keys that fit (scrolled as far as the wheel took them), the palette's at the end."""
        width = self.content_region.width
        palette = Text()
        if self._palette is not None:
            palette = self._palette_text(self._palette)
        keys = Text()
        spans: list[tuple[int, int, FooterKey]] = []
        for key in self._keys:
            start = keys.cell_len
            keys.append_text(self._key_text(key, f" {key.display} ", f"{key.description} "))
            spans.append((start, keys.cell_len, key))
        room = max(0, width - palette.cell_len)
        self._overflow = max(0, keys.cell_len - room)
        self._scrolled = min(self._scrolled, self._overflow)
        line = keys[self._scrolled :] if self._scrolled else keys
        line.truncate(room)
        line.append(" " * (room - line.cell_len))
        self._spans = [
            (start - self._scrolled, end - self._scrolled, key) for start, end, key in spans
        ]
        if self._palette is not None:
            start = width - palette.cell_len + 1  # after its edge
            self._spans.append((start, width, self._palette))
        line.append_text(palette)
        return line

    def _palette_text(self, key: FooterKey) -> Text:
        # The palette's key is compact: no padding around the key, one space before the words.
        edge = Text("▏", self.get_component_rich_style("footer-key--palette-edge"))
        edge.append_text(self._key_text(key, key.display, f" {key.description}"))
        edge.append(" ")
        return edge

    def _key_text(self, key: FooterKey, display: str, description: str) -> Text:
        style = self.get_component_rich_style
        if key is self._hovered:
            # As Textual's: the key's own colours over the hover background.
            hover = style("footer-key--hover")
            styles = [
                hover + style("footer-key--key", partial=True),
                hover + style("footer-key--description", partial=True),
            ]
        else:
            styles = [style("footer-key--key"), style("footer-key--description")]
        if not key.enabled:
            styles = [part + Style(dim=True) for part in styles]
        text = Text(no_wrap=True, end="")
        text.append(display, styles[0])
        if key.description:
            text.append(description, styles[1])
        return text

    def _key_at(self, x: int) -> FooterKey | None:
        return next((key for start, end, key in self._spans if start <= x < end), None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """A click on a key presses it; on a disabled key it rings the bell."""
        key = self._key_at(event.x)
        if key is None:
            return
        if key.enabled:
            self.app.simulate_key(key.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        """Highlight the key under the mouse and show its tooltip."""
        self._hover(self._key_at(event.x))

    def on_leave(self) -> None:
        """No key is under the mouse any more."""
        self._hover(None)

    def _hover(self, key: FooterKey | None) -> None:
        if key is not self._hovered:
            self._hovered = key
            self.tooltip = key.tooltip if key is not None and key.tooltip else None
            self.styles.pointer = "default" if key is None else "pointer"
            self.refresh()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        """The wheel shows the keys that do not fit, as Textual's Footer does."""
        self._scroll(event, int(self.app.scroll_sensitivity_x))

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        """And back."""
        self._scroll(event, -int(self.app.scroll_sensitivity_x))

    def _scroll(self, event: events.MouseEvent, by: int) -> None:
        scrolled = max(0, min(self._overflow, self._scrolled + by))
        if scrolled != self._scrolled:
            self._scrolled = scrolled
            self.refresh()
        event.stop()
