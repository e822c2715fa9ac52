"""The keys in force in the running TUI: the operator's `[keymap]` (profiles.toml, checked by
core/config/keymap.py) over the defaults of a terminal or of a browser tab, applied before the
first key is; the footer shows them (Textual reads the keymap), F1 and the form name them."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from textual.app import App

from plantstore_tui.core.config.keymap import BY_ID, ChosenKeymap, key_words


@runtime_checkable
class KeymapHolder(Protocol):
    """An app that read the operator's keymap (the TUI's)."""

    operator_keymap: ChosenKeymap


def _chosen(app: App[Any]) -> ChosenKeymap:
    # An app of the tests that mounts a screen alone has the defaults.
    return app.operator_keymap if isinstance(app, KeymapHolder) else ChosenKeymap()


def apply_keymap(app: App[Any]) -> None:
    """Give every binding of `app` its keys in force (in a browser, its keys a page receives)."""
    in_force = _chosen(app).in_force(in_browser=app.is_web)
    # The Bindings carry a terminal's defaults (tests/ui/test_keymap_ids.py): only the keys that
    # differ are Textual's keymap, and with none (a terminal, no [keymap]) nothing is redone.
    changed = {
        binding_id: keys
        for binding_id, keys in in_force.items()
        if keys != BY_ID[binding_id].default(in_browser=False)
    }
    if changed:
        app.set_keymap(changed)


def key_in_force(app: App[Any], binding_id: str, *, short: bool = False) -> str:
    """The keys of the binding `binding_id` now, in words (`Ctrl+S`; `short`: `^S`)."""
    keys = _chosen(app).in_force(in_browser=app.is_web)[binding_id]
    return key_words(keys, short=short)
