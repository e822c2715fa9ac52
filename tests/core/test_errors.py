"""One exception family: every exception the core defines derives from `PlantStoreError` and says
in a docstring what it means."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from plantstore_tui import core
from plantstore_tui.core.errors import PlantStoreError


def _exceptions() -> list[type[BaseException]]:
    found: list[type[BaseException]] = []
    for module_info in pkgutil.walk_packages(core.__path__, prefix="plantstore_tui.core."):
        module = importlib.import_module(module_info.name)
        found += [
            value
            for value in vars(module).values()
            if inspect.isclass(value)
            and issubclass(value, BaseException)
            and value.__module__ == module.__name__
        ]
    return found


EXCEPTIONS = _exceptions()


def _name(exception: type[BaseException]) -> str:
    return f"{exception.__module__}.{exception.__qualname__}"


def test_every_core_exception_derives_from_plant_store_error() -> None:
    strays = [_name(e) for e in EXCEPTIONS if not issubclass(e, PlantStoreError)]
    assert strays == []


def test_every_core_exception_has_a_docstring() -> None:
    undocumented = [_name(e) for e in EXCEPTIONS if not (e.__doc__ or "").strip()]
    assert undocumented == []


def test_the_walk_finds_the_known_families() -> None:
    names = {_name(e) for e in EXCEPTIONS}
    assert {
        "plantstore_tui.core.errors.PlantStoreError",
        "plantstore_tui.core.store.database.StoreError",
        "plantstore_tui.core.importing.rows.FileProblem",
        "plantstore_tui.core.config.errors.ConfigError",
        "plantstore_tui.core.http.urls.InvalidBaseURL",
        "plantstore_tui.core.http.tls.CABundleError",
    } <= names
