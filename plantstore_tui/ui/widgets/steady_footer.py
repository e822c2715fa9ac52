"""Textual's Footer, rebuilt only when the keys it shows change."""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer

from plantstore_tui.ui.textual_compat import once_before_frame


class SteadyFooter(Footer):
    """Rebuilds its keys when what it shows changes, not on every focus move.

    Textual's Footer recomposes whenever the bindings are refreshed, which every focus change does;
    in a burst of typed records that is three rebuilds of a dozen widgets per plant, and the app
    spent most of its time restyling them. What it shows is worked out once before the next
    frame, not at each focus move (three a plant in a burst, several plants a frame).
    """

    def __init__(self) -> None:
        super().__init__()
        self._shown: tuple[tuple[str, str, str, bool], ...] | None = None
        self._changed_on: Screen[object] | None = None

    def bindings_changed(self, screen: Screen[object]) -> None:
        """Look at the keys shown before the next frame."""
        self._changed_on = screen
        once_before_frame(self, self._show_bindings)

    def _show_bindings(self) -> None:
        """Recompose only if a key shown, its description or whether it is enabled changed."""
        screen, self._changed_on = self._changed_on, None
        if screen is None or not self.is_attached:
            return
        shown = tuple(
            (binding.key, binding.action, binding.description, enabled)
            for (_node, binding, enabled, _tooltip) in screen.active_bindings.values()
            if binding.show
        )
        if shown == self._shown:
            return
        self._shown = shown
        # From the footer's own message loop: its recompose binds to the footer's reactives.
        self.call_later(Footer.bindings_changed, self, screen)
