"""Textual's Footer, rebuilt only when the keys it shows change."""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class SteadyFooter(Footer):
    """Rebuilds its keys when what it shows changes, not on every focus move.

    Textual's Footer recomposes whenever the bindings are refreshed, which every focus change does;
    in a burst of typed records that is three rebuilds of a dozen widgets per plant, and the app
    spent most of its time restyling them.
    """

    def __init__(self) -> None:
        super().__init__()
        self._shown: tuple[tuple[str, str, str, bool], ...] | None = None

    def bindings_changed(self, screen: Screen[object]) -> None:
        """Recompose only if a key shown, its description or whether it is enabled changed."""
        shown = tuple(
            (binding.key, binding.action, binding.description, enabled)
            for (_node, binding, enabled, _tooltip) in screen.active_bindings.values()
            if binding.show
        )
        if shown == self._shown:
            return
        self._shown = shown
        super().bindings_changed(screen)
