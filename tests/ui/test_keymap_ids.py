"""The core's list of bindings (core/config/keymap.py, which the docs, `[keymap]`'s checks and
F1 read) and the UI's Bindings are the same: every Binding of the UI has an id, and each id, key,
description and priority is the core's. Textual's own keys and key names are what the core
thinks they are."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from textual.app import App
from textual.binding import Binding
from textual.keys import Keys, _character_to_key
from textual.screen import ModalScreen, Screen

import plantstore_tui.ui
from plantstore_tui.core.config.keymap import (
    BINDINGS,
    BY_ID,
    MODAL_SCREENS,
    NAMED_KEYS,
    TEXTUAL_KEYS,
    canonical,
)


def _ui_bindings() -> dict[type, list[Binding]]:
    """Each class of the UI that declares bindings, with them."""
    found: dict[type, list[Binding]] = {}
    package = plantstore_tui.ui
    for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        for _name, cls in inspect.getmembers(importlib.import_module(module.name), inspect.isclass):
            declared = cls.__dict__.get("BINDINGS")
            if cls.__module__ == module.name and declared:
                found[cls] = [binding for binding in declared if isinstance(binding, Binding)]
                assert len(found[cls]) == len(declared), f"{cls.__name__}: a binding not a Binding"
    return found


def test_every_binding_of_the_ui_is_the_cores_and_every_one_of_the_core_is_in_the_ui() -> None:
    ui = [binding for bindings in _ui_bindings().values() for binding in bindings]
    assert [binding for binding in ui if binding.id is None] == []
    ids = [binding.id for binding in ui]
    assert len(ids) == len(set(ids)), "an id used twice"
    assert sorted(
        (binding.id, binding.key, binding.description, binding.priority) for binding in ui
    ) == sorted(
        (binding.id, binding.keys, binding.description, binding.priority) for binding in BINDINGS
    )


def test_the_bindings_of_one_class_are_of_one_screen_modal_as_the_core_says() -> None:
    for cls, bindings in _ui_bindings().items():
        screens = {BY_ID[str(binding.id)].screen for binding in bindings}
        assert len(screens) == 1, (cls.__name__, screens)
        [screen] = screens
        if issubclass(cls, Screen):
            assert issubclass(cls, ModalScreen) == (screen in MODAL_SCREENS), cls.__name__
        if issubclass(cls, App):
            assert screen == "app"


def test_the_keys_textual_keeps_on_every_screen_are_the_cores() -> None:
    textual = {
        key.strip()
        for binding in (*App.BINDINGS, *Screen.BINDINGS)
        if isinstance(binding, Binding)
        for key in binding.key.split(",")
    } | {App.COMMAND_PALETTE_BINDING}
    assert set(TEXTUAL_KEYS) == textual - {"super+c"}


def test_the_cores_key_names_are_textuals() -> None:
    assert {key.value for key in Keys} >= NAMED_KEYS
    for character in "?/.,;+-=[]#'a1Z":
        assert canonical(character) == _character_to_key(character), character
